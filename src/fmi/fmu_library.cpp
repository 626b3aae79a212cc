#include "fmi/fmu_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::fmi {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

/// An FMU's references bind inside its own library and its dependencies first (RTLD_DEEPBIND): an
/// FMU that carries its own copy of SUNDIALS, LAPACK or zlib calls that copy, not cosima's, whose
/// libraries are in the global scope. The sanitizers refuse RTLD_DEEPBIND (their interceptors would
/// be bypassed), so a sanitized build loads FMUs without it.
constexpr int kFmuOpenFlags = RTLD_NOW | RTLD_LOCAL | (kSanitized ? 0 : RTLD_DEEPBIND);

}  // namespace

SharedLibrary::SharedLibrary(const std::filesystem::path& shared_object, std::string fmu)
    : fmu_(std::move(fmu)), file_name_(shared_object.filename().string()) {
  handle_ = dlopen(shared_object.c_str(), kFmuOpenFlags);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw Error(fmt::format("FMU '{}': cannot load {}: {}", fmu_, file_name_, why != nullptr ? why : "unknown reason"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* SharedLibrary::lookup(const char* symbol, bool required) const {
  void* address = dlsym(handle_, symbol);
  if (address == nullptr && required) {
    throw Error(fmt::format("FMU '{}': binary {} lacks the required function {}", fmu_, file_name_, symbol));
  }
  return address;
}

FmuLibrary::FmuLibrary(const std::filesystem::path& shared_object, const std::string& fmu, FmiInterface interface)
    : library_(shared_object, fmu) {
  auto resolve = [&](auto& slot, const char* symbol, bool required) { library_.resolve(slot, symbol, required); };
  Fmi2Functions& f = functions_;
  resolve(f.instantiate, "fmi2Instantiate", true);
  resolve(f.free_instance, "fmi2FreeInstance", true);
  resolve(f.setup_experiment, "fmi2SetupExperiment", true);
  resolve(f.enter_initialization_mode, "fmi2EnterInitializationMode", true);
  resolve(f.exit_initialization_mode, "fmi2ExitInitializationMode", true);
  resolve(f.terminate, "fmi2Terminate", true);
  resolve(f.get_real, "fmi2GetReal", true);
  resolve(f.set_real, "fmi2SetReal", true);
  if (interface == FmiInterface::co_simulation) {
    resolve(f.do_step, "fmi2DoStep", true);
  } else {  // FMI 2.0 §3.2.1 – §3.2.2
    resolve(f.enter_event_mode, "fmi2EnterEventMode", true);
    resolve(f.new_discrete_states, "fmi2NewDiscreteStates", true);
    resolve(f.enter_continuous_time_mode, "fmi2EnterContinuousTimeMode", true);
    resolve(f.completed_integrator_step, "fmi2CompletedIntegratorStep", true);
    resolve(f.set_time, "fmi2SetTime", true);
    resolve(f.set_continuous_states, "fmi2SetContinuousStates", true);
    resolve(f.get_derivatives, "fmi2GetDerivatives", true);
    resolve(f.get_event_indicators, "fmi2GetEventIndicators", true);
    resolve(f.get_continuous_states, "fmi2GetContinuousStates", true);
    resolve(f.get_nominals_of_continuous_states, "fmi2GetNominalsOfContinuousStates", true);
  }
  resolve(f.get_version, "fmi2GetVersion", false);
  resolve(f.get_integer, "fmi2GetInteger", false);
  resolve(f.set_integer, "fmi2SetInteger", false);
  resolve(f.get_boolean, "fmi2GetBoolean", false);
  resolve(f.set_boolean, "fmi2SetBoolean", false);
  resolve(f.get_string, "fmi2GetString", false);
  resolve(f.set_string, "fmi2SetString", false);
  resolve(f.set_debug_logging, "fmi2SetDebugLogging", false);
  resolve(f.get_fmu_state, "fmi2GetFMUstate", false);
  resolve(f.set_fmu_state, "fmi2SetFMUstate", false);
  resolve(f.free_fmu_state, "fmi2FreeFMUstate", false);
  resolve(f.get_directional_derivative, "fmi2GetDirectionalDerivative", false);
  resolve(f.set_real_input_derivatives, "fmi2SetRealInputDerivatives", false);
  resolve(f.get_real_output_derivatives, "fmi2GetRealOutputDerivatives", false);
  resolve(f.get_boolean_status, "fmi2GetBooleanStatus", false);
  resolve(f.get_real_status, "fmi2GetRealStatus", false);
}

}  // namespace cosima::fmi
