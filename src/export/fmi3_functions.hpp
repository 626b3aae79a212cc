#pragma once
// The FMI 3.0 functions an exported FMU defines (fmi3_slave.cpp), declared here from the FMI 3.0
// standard (§2.2 fmi3Functions.h) with C linkage and default visibility, so that a definition that
// strays from the standard's signature does not compile. The types are the importer's
// (fmi/v3/fmi3_api.hpp: fmi3PlatformTypes.h, fmi3FunctionTypes.h).
#include <cstddef>
#include <cstdint>

#include "fmi/v3/fmi3_api.hpp"

#define COSIMA_FMI3_EXPORT __attribute__((visibility("default")))

extern "C" {

// --- fmi3Functions.h: common functions (§2.3) -------------------------------------------------------
COSIMA_FMI3_EXPORT const char* fmi3GetVersion(void);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                                  const fmi3String categories[]);
COSIMA_FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                             fmi3String resourcePath, fmi3Boolean visible,
                                                             fmi3Boolean loggingOn,
                                                             fmi3InstanceEnvironment instanceEnvironment,
                                                             fmi3LogMessageCallback logMessage);
COSIMA_FMI3_EXPORT fmi3Instance
fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
                            fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                            fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
                            size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
                            fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate);
COSIMA_FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption);
COSIMA_FMI3_EXPORT void fmi3FreeInstance(fmi3Instance instance);

COSIMA_FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                          fmi3Float64 tolerance, fmi3Float64 startTime,
                                                          fmi3Boolean stopTimeDefined, fmi3Float64 stopTime);
COSIMA_FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance instance);

#define COSIMA_FMI3_GET_SET(Type)                                                                                \
  COSIMA_FMI3_EXPORT fmi3Status fmi3Get##Type(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                                              size_t nValueReferences, fmi3##Type values[], size_t nValues);     \
  COSIMA_FMI3_EXPORT fmi3Status fmi3Set##Type(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                                              size_t nValueReferences, const fmi3##Type values[], size_t nValues);
COSIMA_FMI3_GET_SET(Float32)
COSIMA_FMI3_GET_SET(Float64)
COSIMA_FMI3_GET_SET(Int8)
COSIMA_FMI3_GET_SET(UInt8)
COSIMA_FMI3_GET_SET(Int16)
COSIMA_FMI3_GET_SET(UInt16)
COSIMA_FMI3_GET_SET(Int32)
COSIMA_FMI3_GET_SET(UInt32)
COSIMA_FMI3_GET_SET(Int64)
COSIMA_FMI3_GET_SET(UInt64)
COSIMA_FMI3_GET_SET(Boolean)
COSIMA_FMI3_GET_SET(String)
#undef COSIMA_FMI3_GET_SET
COSIMA_FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                                            size_t nValues);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, const size_t valueSizes[],
                                            const fmi3Binary values[], size_t nValues);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Clock values[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, const fmi3Clock values[]);

COSIMA_FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                                                  fmi3ValueReference valueReference,
                                                                  size_t* nDependencies);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                          size_t elementIndicesOfDependent[],
                                                          fmi3ValueReference independents[],
                                                          size_t elementIndicesOfIndependents[],
                                                          fmi3DependencyKind dependencyKinds[], size_t nDependencies);

COSIMA_FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState);
COSIMA_FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState);
COSIMA_FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t* size);
COSIMA_FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                                    fmi3Byte serializedState[], size_t size);
COSIMA_FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                                      size_t size, fmi3FMUState* FMUState);

COSIMA_FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                           size_t nUnknowns, const fmi3ValueReference knowns[],
                                                           size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                           fmi3Float64 sensitivity[], size_t nSensitivity);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                       size_t nUnknowns, const fmi3ValueReference knowns[],
                                                       size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                       fmi3Float64 sensitivity[], size_t nSensitivity);

COSIMA_FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance);

COSIMA_FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                     size_t nValueReferences, fmi3Float64 intervals[],
                                                     fmi3IntervalQualifier qualifiers[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                      size_t nValueReferences, fmi3UInt64 counters[],
                                                      fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                  size_t nValueReferences, fmi3Float64 shifts[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                   size_t nValueReferences, fmi3UInt64 counters[],
                                                   fmi3UInt64 resolutions[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                     size_t nValueReferences, const fmi3Float64 intervals[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                      size_t nValueReferences, const fmi3UInt64 counters[],
                                                      const fmi3UInt64 resolutions[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                  size_t nValueReferences, const fmi3Float64 shifts[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                                   const fmi3UInt64 resolutions[]);
COSIMA_FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate,
                                                       fmi3Boolean* terminateSimulation,
                                                       fmi3Boolean* nominalsOfContinuousStatesChanged,
                                                       fmi3Boolean* valuesOfContinuousStatesChanged,
                                                       fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime);

// --- Model Exchange (§3.3) --------------------------------------------------------------------------
COSIMA_FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                                          fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                          fmi3Boolean* enterEventMode,
                                                          fmi3Boolean* terminateSimulation);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time);
COSIMA_FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                                      size_t nContinuousStates);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                                                size_t nContinuousStates);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                                     size_t nEventIndicators);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                                      size_t nContinuousStates);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                                                size_t nContinuousStates);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* nEventIndicators);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* nContinuousStates);

// --- Co-Simulation (§4.3) ---------------------------------------------------------------------------
COSIMA_FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance instance);
COSIMA_FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                                       const fmi3ValueReference valueReferences[],
                                                       size_t nValueReferences, const fmi3Int32 orders[],
                                                       fmi3Float64 values[], size_t nValues);
COSIMA_FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                         fmi3Float64 communicationStepSize,
                                         fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean* eventHandlingNeeded,
                                         fmi3Boolean* terminateSimulation, fmi3Boolean* earlyReturn,
                                         fmi3Float64* lastSuccessfulTime);

// --- Scheduled Execution (§5.2) -----------------------------------------------------------------------
COSIMA_FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                                         fmi3Float64 activationTime);

/// Not FMI: used by the build (cosima_fmu_describe 3.0) to write the FMI 3.0 modelDescription.xml.
COSIMA_FMI3_EXPORT int cosima_fmu_write_model_description_fmi3(const char* path, const char* model_identifier);

}  // extern "C"
