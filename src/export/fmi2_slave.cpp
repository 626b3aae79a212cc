// The FMI 2.0 C API of the export kit (both interfaces, one binary): each fmi2 function translates
// its arguments for the version-neutral slave (slave_core.hpp). Compiled into every project FMU
// together with the FMI 3.0 functions (fmi3_slave.cpp) and one generated make_exported_model().
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "export/exported_model.hpp"
#include "export/slave_core.hpp"
#include "export/variable_table.hpp"
#include "fmi/v2/fmi2_api.hpp"

#define COSIMA_FMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using cosima::fmu_export::FmiVersion;
using cosima::fmu_export::Slave;
using cosima::fmu_export::Status;

Slave* slave(fmi2Component c) { return static_cast<Slave*>(c); }
fmi2Status status(Status s) { return static_cast<fmi2Status>(s); }

}  // namespace

COSIMA_FMI_EXPORT const char* fmi2GetTypesPlatform() { return "default"; }
COSIMA_FMI_EXPORT const char* fmi2GetVersion() { return "2.0"; }
COSIMA_FMI_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component, fmi2Boolean, std::size_t, const fmi2String[]) {
  return fmi2OK;
}

COSIMA_FMI_EXPORT fmi2Component fmi2Instantiate(fmi2String instance, fmi2Type type, fmi2String guid, fmi2String,
                                                const fmi2CallbackFunctions* callbacks, fmi2Boolean, fmi2Boolean) {
  if (callbacks == nullptr || instance == nullptr) return nullptr;
  auto refuse = [&](const std::string& why) -> fmi2Component {
    if (callbacks->logger != nullptr)
      callbacks->logger(callbacks->componentEnvironment, instance, fmi2Error, "error", "%s", why.c_str());
    return nullptr;
  };
  if (type != fmi2CoSimulation && type != fmi2ModelExchange) return refuse("unknown fmi2Type");
  try {
    auto model = cosima::fmu_export::make_exported_model();
    const std::string expected = cosima::fmu_export::model_guid(*model);
    if (guid == nullptr || expected != guid) return refuse(fmt::format("GUID mismatch: expected {}", expected));
    auto log = [functions = *callbacks, name = std::string(instance)](Status s, const std::string& message) {
      if (functions.logger != nullptr) {
        functions.logger(functions.componentEnvironment, name.c_str(), static_cast<fmi2Status>(s), "error", "%s",
                         message.c_str());
      }
    };
    return new Slave(FmiVersion::fmi2, instance, type == fmi2ModelExchange, log);
  } catch (const std::exception& e) {
    return refuse(e.what());
  }
}
COSIMA_FMI_EXPORT void fmi2FreeInstance(fmi2Component c) { delete slave(c); }
COSIMA_FMI_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolerance_defined, fmi2Real tolerance,
                                                 fmi2Real start, fmi2Boolean, fmi2Real) {
  return status(slave(c)->setup_experiment("fmi2SetupExperiment", tolerance_defined != 0, tolerance, start));
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  return status(slave(c)->enter_initialization("fmi2EnterInitializationMode"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  return status(slave(c)->exit_initialization("fmi2ExitInitializationMode"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2Terminate(fmi2Component c) { return status(slave(c)->terminate("fmi2Terminate")); }
COSIMA_FMI_EXPORT fmi2Status fmi2Reset(fmi2Component c) { return status(slave(c)->reset()); }
COSIMA_FMI_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], std::size_t n, fmi2Real v[]) {
  return status(slave(c)->get_real("fmi2GetReal", vr, n, v, n));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                         const fmi2Real v[]) {
  return status(slave(c)->set_real("fmi2SetReal", vr, n, v, n));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                            fmi2Integer v[]) {
  return status(slave(c)->get_integer("fmi2GetInteger", vr, n, v, n));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                            const fmi2Integer v[]) {
  return status(slave(c)->set_integer("fmi2SetInteger", vr, n, v, n));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference[], std::size_t n, fmi2Boolean[]) {
  return n == 0 ? fmi2OK : status(slave(c)->error("this FMU has no Boolean variables"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference[], std::size_t n,
                                            const fmi2Boolean[]) {
  return n == 0 ? fmi2OK : status(slave(c)->error("this FMU has no Boolean variables"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference[], std::size_t n, fmi2String[]) {
  return n == 0 ? fmi2OK : status(slave(c)->error("this FMU has no String variables"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference[], std::size_t n,
                                           const fmi2String[]) {
  return n == 0 ? fmi2OK : status(slave(c)->error("this FMU has no String variables"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* s) {
  return status(slave(c)->get_state("fmi2GetFMUstate", s));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s) {
  return status(slave(c)->set_state("fmi2SetFMUstate", s));
}
COSIMA_FMI_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* s) {
  return status(slave(c)->free_state(s));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate, std::size_t*) {
  return status(slave(c)->error("canSerializeFMUstate is false"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate, fmi2Byte[], std::size_t) {
  return status(slave(c)->error("canSerializeFMUstate is false"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte[], std::size_t, fmi2FMUstate*) {
  return status(slave(c)->error("canSerializeFMUstate is false"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], std::size_t nu,
                                                          const fmi2ValueReference k[], std::size_t nk,
                                                          const fmi2Real dk[], fmi2Real du[]) {
  return status(slave(c)->directional_derivative("fmi2GetDirectionalDerivative", u, nu, k, nk, dk, nk, du, nu));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                                         const fmi2Integer order[], const fmi2Real value[]) {
  return status(slave(c)->set_input_derivatives("fmi2SetRealInputDerivatives", vr, n, order, value));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                                          const fmi2Integer order[], fmi2Real value[]) {
  return status(slave(c)->get_output_derivatives("fmi2GetRealOutputDerivatives", vr, n, order, value, n));
}
COSIMA_FMI_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean) {
  cosima::fmu_export::StepReport report;
  return status(slave(c)->do_step("fmi2DoStep", t, h, report));  // FMI 2.0: a termination is an error
}
COSIMA_FMI_EXPORT fmi2Status fmi2CancelStep(fmi2Component c) {
  return status(slave(c)->error("fmi2DoStep is synchronous"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind, fmi2Status*) {
  return status(slave(c)->error("fmi2GetStatus: no asynchronous step"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Real* value) {
  if (kind != fmi2LastSuccessfulTime) return status(slave(c)->error("fmi2GetRealStatus: only fmi2LastSuccessfulTime"));
  *value = slave(c)->time();
  return fmi2OK;
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind, fmi2Integer*) {
  return status(slave(c)->error("fmi2GetIntegerStatus: no such status"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Boolean* value) {
  if (kind != fmi2Terminated) return status(slave(c)->error("fmi2GetBooleanStatus: only fmi2Terminated"));
  *value = fmi2False;
  return fmi2OK;
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind, fmi2String*) {
  return status(slave(c)->error("fmi2GetStringStatus: no such status"));
}

// Model Exchange functions (FMI 2.0 §3.2.2)
COSIMA_FMI_EXPORT fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t) {
  return status(slave(c)->set_time("fmi2SetTime", t));
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], std::size_t nx) {
  return status(slave(c)->set_continuous_states("fmi2SetContinuousStates", x, nx));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], std::size_t nx) {
  return status(slave(c)->get_continuous_states("fmi2GetContinuousStates", x, nx));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], std::size_t nx) {
  return status(slave(c)->get_nominals("fmi2GetNominalsOfContinuousStates", x, nx));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], std::size_t nx) {
  return status(slave(c)->get_derivatives("fmi2GetDerivatives", dx, nx));
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], std::size_t nz) {
  return status(slave(c)->get_event_indicators("fmi2GetEventIndicators", z, nz));
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterEventMode(fmi2Component c) {
  return status(slave(c)->enter_event_mode("fmi2EnterEventMode"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo* info) {
  cosima::fmu_export::DiscreteUpdate update;
  const Status s = slave(c)->update_discrete_states("fmi2NewDiscreteStates", update);
  if (s != Status::ok) return status(s);
  *info = fmi2EventInfo{};  // newDiscreteStatesNeeded = false: a native model needs no iteration
  info->valuesOfContinuousStatesChanged = update.values_changed ? fmi2True : fmi2False;
  info->terminateSimulation = update.terminate ? fmi2True : fmi2False;
  info->nextEventTimeDefined = update.next_time_defined ? fmi2True : fmi2False;
  info->nextEventTime = update.next_time;
  return fmi2OK;
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
  return status(slave(c)->enter_continuous_time_mode("fmi2EnterContinuousTimeMode"));
}
COSIMA_FMI_EXPORT fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean, fmi2Boolean* enter_event_mode,
                                                         fmi2Boolean* terminate_simulation) {
  bool enter = false, terminate = false;
  const Status s = slave(c)->completed_integrator_step("fmi2CompletedIntegratorStep", enter, terminate);
  if (s != Status::ok) return status(s);
  *enter_event_mode = enter ? fmi2True : fmi2False;
  *terminate_simulation = terminate ? fmi2True : fmi2False;
  return fmi2OK;
}

/// Used by the build (cosima_fmu_describe) to write modelDescription.xml next to the binary.
COSIMA_FMI_EXPORT int cosima_fmu_write_model_description(const char* path, const char* model_identifier) {
  try {
    const auto model = cosima::fmu_export::make_exported_model();
    std::ofstream out(path);
    out << cosima::fmu_export::model_description_xml(*model, model_identifier,
                                                     cosima::fmu_export::exported_flags().can_get_and_set_state);
    return out ? 0 : 1;
  } catch (const std::exception&) {
    return 1;
  }
}
