#include "fmi/v2/fmi2_library.hpp"

#include "core/error.hpp"

namespace cosima::fmi {

Fmi2Library::Fmi2Library(const std::filesystem::path& shared_object, const std::string& fmu, FmiInterface interface)
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
