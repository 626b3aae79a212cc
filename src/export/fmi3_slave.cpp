// The FMI 3.0 C API of the export kit (Model Exchange and Co-Simulation, one binary; FMI 3.0 §2.3,
// §3.3, §4.3): each fmi3 function translates its arguments for the version-neutral slave
// (slave_core.hpp). Compiled into every project FMU next to the FMI 2.0 functions (fmi2_slave.cpp).
//   Co-Simulation without Event Mode (hasEventMode="false"): events are handled inside fmi3DoStep,
//   which never returns early. Value references are unique across types; a reference may name an
//   array, whose elements travel row-major (export/variable_table.hpp).
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "export/exported_model.hpp"
#include "export/fmi3_functions.hpp"
#include "export/slave_core.hpp"
#include "export/variable_table.hpp"

namespace {

using cosima::fmu_export::DiscreteUpdate;
using cosima::fmu_export::FmiVersion;
using cosima::fmu_export::Slave;
using cosima::fmu_export::Status;
using cosima::fmu_export::StepReport;

Slave* slave(fmi3Instance instance) { return static_cast<Slave*>(instance); }
fmi3Status status(Status s) { return static_cast<fmi3Status>(s); }

/// The category of every line the slave logs (declared in <LogCategories>).
constexpr const char* kCategory = "logStatusError";

/// Creates the slave of one interface, or logs why not and returns null.
fmi3Instance instantiate(fmi3String name, fmi3String token, bool model_exchange, fmi3InstanceEnvironment environment,
                         fmi3LogMessageCallback log_message, const char* refusal = nullptr) {
  auto refuse = [&](const std::string& why) -> fmi3Instance {
    if (log_message != nullptr) log_message(environment, fmi3Error, kCategory, why.c_str());
    return nullptr;
  };
  if (name == nullptr) return refuse("instanceName is null");
  if (refusal != nullptr) return refuse(refusal);
  try {
    const auto model = cosima::fmu_export::make_exported_model();
    const std::string expected = cosima::fmu_export::model_guid(*model);
    if (token == nullptr || expected != token) {
      return refuse(fmt::format("instantiationToken mismatch: expected {}", expected));
    }
    auto log = [environment, log_message](Status s, const std::string& message) {
      if (log_message != nullptr) log_message(environment, static_cast<fmi3Status>(s), kCategory, message.c_str());
    };
    return new Slave(FmiVersion::fmi3, name, model_exchange, log);
  } catch (const std::exception& e) {
    return refuse(e.what());
  }
}

}  // namespace

extern "C" {

// --- common functions (§2.3) -------------------------------------------------------------------------

const char* fmi3GetVersion(void) { return "3.0"; }
fmi3Status fmi3SetDebugLogging(fmi3Instance, fmi3Boolean, size_t, const fmi3String[]) { return fmi3OK; }

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken, fmi3String,
                                          fmi3Boolean, fmi3Boolean, fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage) {
  return instantiate(instanceName, instantiationToken, true, instanceEnvironment, logMessage);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken, fmi3String,
                                         fmi3Boolean, fmi3Boolean, fmi3Boolean eventModeUsed, fmi3Boolean,
                                         const fmi3ValueReference[], size_t,
                                         fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback) {
  // earlyReturnAllowed: fmi3DoStep never returns early; no intermediate update is provided
  return instantiate(
      instanceName, instantiationToken, false, instanceEnvironment, logMessage,
      eventModeUsed ? "eventModeUsed: the FMU has no Event Mode in Co-Simulation (hasEventMode=\"false\")" : nullptr);
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback,
                                               fmi3LockPreemptionCallback, fmi3UnlockPreemptionCallback) {
  if (logMessage != nullptr)
    logMessage(instanceEnvironment, fmi3Error, kCategory, "the FMU has no Scheduled Execution interface");
  return nullptr;
}

void fmi3FreeInstance(fmi3Instance instance) { delete slave(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean, fmi3Float64) {
  constexpr const char* call = "fmi3EnterInitializationMode";
  const Status s = slave(instance)->setup_experiment(call, toleranceDefined, tolerance, startTime);
  return status(s != Status::ok ? s : slave(instance)->enter_initialization(call));
}
fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  return status(slave(instance)->exit_initialization("fmi3ExitInitializationMode"));
}
fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  return status(slave(instance)->enter_event_mode("fmi3EnterEventMode"));  // Model Exchange only
}
fmi3Status fmi3Terminate(fmi3Instance instance) { return status(slave(instance)->terminate("fmi3Terminate")); }
fmi3Status fmi3Reset(fmi3Instance instance) { return status(slave(instance)->reset()); }

// --- values: Float64 and Int32; the FMU has no variables of the other types ---------------------------

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Float64 values[],
                          size_t nValues) {
  return status(slave(instance)->get_real("fmi3GetFloat64", vr, n, values, nValues));
}
fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Float64 values[],
                          size_t nValues) {
  return status(slave(instance)->set_real("fmi3SetFloat64", vr, n, values, nValues));
}
fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Int32 values[],
                        size_t nValues) {
  return status(slave(instance)->get_integer("fmi3GetInt32", vr, n, values, nValues));
}
fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Int32 values[],
                        size_t nValues) {
  return status(slave(instance)->set_integer("fmi3SetInt32", vr, n, values, nValues));
}

#define COSIMA_FMI3_NO_VARIABLES(Type)                                                                             \
  fmi3Status fmi3Get##Type(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3##Type[], size_t) { \
    return status(slave(instance)->no_variables("fmi3Get" #Type, #Type, vr, n));                                   \
  }                                                                                                                \
  fmi3Status fmi3Set##Type(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3##Type[],     \
                           size_t) {                                                                               \
    return status(slave(instance)->no_variables("fmi3Set" #Type, #Type, vr, n));                                   \
  }
COSIMA_FMI3_NO_VARIABLES(Float32)
COSIMA_FMI3_NO_VARIABLES(Int8)
COSIMA_FMI3_NO_VARIABLES(UInt8)
COSIMA_FMI3_NO_VARIABLES(Int16)
COSIMA_FMI3_NO_VARIABLES(UInt16)
COSIMA_FMI3_NO_VARIABLES(UInt32)
COSIMA_FMI3_NO_VARIABLES(Int64)
COSIMA_FMI3_NO_VARIABLES(UInt64)
COSIMA_FMI3_NO_VARIABLES(Boolean)
COSIMA_FMI3_NO_VARIABLES(String)
#undef COSIMA_FMI3_NO_VARIABLES

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, size_t[], fmi3Binary[],
                         size_t) {
  return status(slave(instance)->no_variables("fmi3GetBinary", "Binary", vr, n));
}
fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const size_t[],
                         const fmi3Binary[], size_t) {
  return status(slave(instance)->no_variables("fmi3SetBinary", "Binary", vr, n));
}
fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Clock[]) {
  return status(slave(instance)->no_variables("fmi3GetClock", "Clock", vr, n));
}
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Clock[]) {
  return status(slave(instance)->no_variables("fmi3SetClock", "Clock", vr, n));
}
fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Float64[],
                                  fmi3IntervalQualifier[]) {
  return status(slave(instance)->no_variables("fmi3GetIntervalDecimal", "Clock", vr, n));
}
fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3UInt64[],
                                   fmi3UInt64[], fmi3IntervalQualifier[]) {
  return status(slave(instance)->no_variables("fmi3GetIntervalFraction", "Clock", vr, n));
}
fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Float64[]) {
  return status(slave(instance)->no_variables("fmi3GetShiftDecimal", "Clock", vr, n));
}
fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3UInt64[],
                                fmi3UInt64[]) {
  return status(slave(instance)->no_variables("fmi3GetShiftFraction", "Clock", vr, n));
}
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Float64[]) {
  return status(slave(instance)->no_variables("fmi3SetIntervalDecimal", "Clock", vr, n));
}
fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3UInt64[],
                                   const fmi3UInt64[]) {
  return status(slave(instance)->no_variables("fmi3SetIntervalFraction", "Clock", vr, n));
}
fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Float64[]) {
  return status(slave(instance)->no_variables("fmi3SetShiftDecimal", "Clock", vr, n));
}
fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3UInt64[],
                                const fmi3UInt64[]) {
  return status(slave(instance)->no_variables("fmi3SetShiftFraction", "Clock", vr, n));
}

// --- capabilities the FMU does not declare -------------------------------------------------------------

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t*) {
  return status(slave(instance)->error("fmi3GetNumberOfVariableDependencies: providesPerElementDependencies is false"));
}
fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t[], fmi3ValueReference[],
                                       size_t[], fmi3DependencyKind[], size_t) {
  return status(slave(instance)->error("fmi3GetVariableDependencies: providesPerElementDependencies is false"));
}
fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState, size_t*) {
  return status(slave(instance)->error("canSerializeFMUState is false"));
}
fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState, fmi3Byte[], size_t) {
  return status(slave(instance)->error("canSerializeFMUState is false"));
}
fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte[], size_t, fmi3FMUState*) {
  return status(slave(instance)->error("canSerializeFMUState is false"));
}
fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference[], size_t,
                                    const fmi3ValueReference[], size_t, const fmi3Float64[], size_t, fmi3Float64[],
                                    size_t) {
  return status(slave(instance)->error("fmi3GetAdjointDerivative: providesAdjointDerivatives is false"));
}
fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
  return status(slave(instance)->error("fmi3EnterConfigurationMode: the FMU has no structural parameters"));
}
fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
  return status(slave(instance)->error("fmi3ExitConfigurationMode: the FMU has no structural parameters"));
}
fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
  return status(slave(instance)->error("fmi3EvaluateDiscreteStates: providesEvaluateDiscreteStates is false"));
}
fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference, fmi3Float64) {
  return status(slave(instance)->error("fmi3ActivateModelPartition: the FMU has no Scheduled Execution interface"));
}

// --- FMU state, directional derivatives ----------------------------------------------------------------

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  return status(slave(instance)->get_state("fmi3GetFMUState", FMUState));
}
fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
  return status(slave(instance)->set_state("fmi3SetFMUState", FMUState));
}
fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  return status(slave(instance)->free_state(FMUState));
}
fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                        size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity) {
  return status(slave(instance)->directional_derivative("fmi3GetDirectionalDerivative", unknowns, nUnknowns, knowns,
                                                        nKnowns, seed, nSeed, sensitivity, nSensitivity));
}

// --- events (Model Exchange; Co-Simulation has no Event Mode) -------------------------------------------

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate,
                                    fmi3Boolean* terminateSimulation, fmi3Boolean* nominalsOfContinuousStatesChanged,
                                    fmi3Boolean* valuesOfContinuousStatesChanged, fmi3Boolean* nextEventTimeDefined,
                                    fmi3Float64* nextEventTime) {
  DiscreteUpdate update;
  const Status s = slave(instance)->update_discrete_states("fmi3UpdateDiscreteStates", update);
  if (s != Status::ok) return status(s);
  *discreteStatesNeedUpdate = false;  // a native model needs no iteration
  *terminateSimulation = update.terminate;
  *nominalsOfContinuousStatesChanged = false;
  *valuesOfContinuousStatesChanged = update.values_changed;
  *nextEventTimeDefined = update.next_time_defined;
  *nextEventTime = update.next_time;
  return fmi3OK;
}

// --- Model Exchange (§3.3) -----------------------------------------------------------------------------

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  return status(slave(instance)->enter_continuous_time_mode("fmi3EnterContinuousTimeMode"));
}
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean, fmi3Boolean* enterEventMode,
                                       fmi3Boolean* terminateSimulation) {
  bool enter = false, terminate = false;
  const Status s = slave(instance)->completed_integrator_step("fmi3CompletedIntegratorStep", enter, terminate);
  if (s != Status::ok) return status(s);
  *enterEventMode = enter;
  *terminateSimulation = terminate;
  return fmi3OK;
}
fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
  return status(slave(instance)->set_time("fmi3SetTime", time));
}
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
  return status(slave(instance)->set_continuous_states("fmi3SetContinuousStates", continuousStates, nContinuousStates));
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
  return status(slave(instance)->get_derivatives("fmi3GetContinuousStateDerivatives", derivatives, nContinuousStates));
}
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[], size_t nEventIndicators) {
  return status(slave(instance)->get_event_indicators("fmi3GetEventIndicators", eventIndicators, nEventIndicators));
}
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[], size_t nContinuousStates) {
  return status(slave(instance)->get_continuous_states("fmi3GetContinuousStates", continuousStates, nContinuousStates));
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[], size_t nContinuousStates) {
  return status(slave(instance)->get_nominals("fmi3GetNominalsOfContinuousStates", nominals, nContinuousStates));
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* nEventIndicators) {
  *nEventIndicators = static_cast<size_t>(slave(instance)->event_indicator_count());
  return fmi3OK;
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* nContinuousStates) {
  *nContinuousStates = static_cast<size_t>(slave(instance)->state_count());
  return fmi3OK;
}

// --- Co-Simulation (§4.3) ------------------------------------------------------------------------------

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
  // without Event Mode the FMU is in Step Mode from fmi3ExitInitializationMode on
  return status(
      slave(instance)->error("fmi3EnterStepMode: the FMU has no Event Mode in Co-Simulation (hasEventMode=\"false\")"));
}
fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues) {
  return status(slave(instance)->get_output_derivatives("fmi3GetOutputDerivatives", vr, n, orders, values, nValues));
}
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean, fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  StepReport report;
  const Status s = slave(instance)->do_step("fmi3DoStep", currentCommunicationPoint, communicationStepSize, report);
  *eventHandlingNeeded = false;  // handled inside the step
  *terminateSimulation = report.terminate;
  *earlyReturn = false;
  *lastSuccessfulTime = slave(instance)->time();
  return status(s);
}

// --- the build's description writer ---------------------------------------------------------------------

int cosima_fmu_write_model_description_fmi3(const char* path, const char* model_identifier) {
  try {
    const auto model = cosima::fmu_export::make_exported_model();
    std::ofstream out(path);
    out << cosima::fmu_export::model_description_xml_fmi3(*model, model_identifier,
                                                          cosima::fmu_export::exported_flags().can_get_and_set_state);
    return out ? 0 : 1;
  } catch (const std::exception&) {
    return 1;
  }
}

}  // extern "C"
