#pragma once
// FMI 3.0 C API, written for cosima from the FMI 3.0 standard (§2.2: fmi3PlatformTypes.h,
// fmi3FunctionTypes.h, fmi3Functions.h): the types, and the function types the importer calls
// through; the export kit declares the functions it defines on these types
// (export/fmi3_functions.hpp). The names and signatures are the standard's so that an FMU
// compiled against the official headers links.
#include <cstddef>
#include <cstdint>

extern "C" {

// --- fmi3PlatformTypes.h ---------------------------------------------------------------------------
using fmi3Instance = void*;
using fmi3InstanceEnvironment = void*;
using fmi3FMUState = void*;
using fmi3ValueReference = std::uint32_t;
using fmi3Float32 = float;
using fmi3Float64 = double;
using fmi3Int8 = std::int8_t;
using fmi3UInt8 = std::uint8_t;
using fmi3Int16 = std::int16_t;
using fmi3UInt16 = std::uint16_t;
using fmi3Int32 = std::int32_t;
using fmi3UInt32 = std::uint32_t;
using fmi3Int64 = std::int64_t;
using fmi3UInt64 = std::uint64_t;
using fmi3Boolean = bool;
using fmi3Char = char;
using fmi3String = const fmi3Char*;
using fmi3Byte = std::uint8_t;
using fmi3Binary = const fmi3Byte*;
using fmi3Clock = bool;

// --- fmi3FunctionTypes.h ---------------------------------------------------------------------------
enum fmi3Status { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal };
enum fmi3DependencyKind { fmi3Independent, fmi3Constant, fmi3Fixed, fmi3Tunable, fmi3Discrete, fmi3Dependent };
enum fmi3IntervalQualifier { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged };

using fmi3LogMessageCallback = void (*)(fmi3InstanceEnvironment, fmi3Status status, fmi3String category,
                                        fmi3String message);
using fmi3ClockUpdateCallback = void (*)(fmi3InstanceEnvironment);
using fmi3LockPreemptionCallback = void (*)();
using fmi3UnlockPreemptionCallback = void (*)();
using fmi3IntermediateUpdateCallback = void (*)(fmi3InstanceEnvironment, fmi3Float64 intermediateUpdateTime,
                                                fmi3Boolean intermediateVariableSetRequested,
                                                fmi3Boolean intermediateVariableGetAllowed,
                                                fmi3Boolean intermediateStepFinished, fmi3Boolean canReturnEarly,
                                                fmi3Boolean* earlyReturnRequested, fmi3Float64* earlyReturnTime);

// common functions (§2.3)
using fmi3InstantiateModelExchangeTYPE = fmi3Instance (*)(fmi3String instanceName, fmi3String instantiationToken,
                                                          fmi3String resourcePath, fmi3Boolean visible,
                                                          fmi3Boolean loggingOn, fmi3InstanceEnvironment,
                                                          fmi3LogMessageCallback);
using fmi3InstantiateCoSimulationTYPE = fmi3Instance (*)(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], std::size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment, fmi3LogMessageCallback, fmi3IntermediateUpdateCallback);
using fmi3FreeInstanceTYPE = void (*)(fmi3Instance);
using fmi3EnterInitializationModeTYPE = fmi3Status (*)(fmi3Instance, fmi3Boolean toleranceDefined,
                                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime);
using fmi3ExitInitializationModeTYPE = fmi3Status (*)(fmi3Instance);
using fmi3EnterEventModeTYPE = fmi3Status (*)(fmi3Instance);
using fmi3TerminateTYPE = fmi3Status (*)(fmi3Instance);

using fmi3GetBinaryTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference[], std::size_t nValueReferences,
                                         std::size_t valueSizes[], fmi3Binary values[], std::size_t nValues);
using fmi3SetBinaryTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference[], std::size_t nValueReferences,
                                         const std::size_t valueSizes[], const fmi3Binary values[],
                                         std::size_t nValues);

using fmi3GetFMUStateTYPE = fmi3Status (*)(fmi3Instance, fmi3FMUState*);
using fmi3SetFMUStateTYPE = fmi3Status (*)(fmi3Instance, fmi3FMUState);
using fmi3FreeFMUStateTYPE = fmi3Status (*)(fmi3Instance, fmi3FMUState*);
using fmi3GetDirectionalDerivativeTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference unknowns[],
                                                        std::size_t nUnknowns, const fmi3ValueReference knowns[],
                                                        std::size_t nKnowns, const fmi3Float64 seed[],
                                                        std::size_t nSeed, fmi3Float64 sensitivity[],
                                                        std::size_t nSensitivity);
using fmi3UpdateDiscreteStatesTYPE = fmi3Status (*)(fmi3Instance, fmi3Boolean* discreteStatesNeedUpdate,
                                                    fmi3Boolean* terminateSimulation,
                                                    fmi3Boolean* nominalsOfContinuousStatesChanged,
                                                    fmi3Boolean* valuesOfContinuousStatesChanged,
                                                    fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime);

// Model Exchange (§3.3)
using fmi3EnterContinuousTimeModeTYPE = fmi3Status (*)(fmi3Instance);
using fmi3CompletedIntegratorStepTYPE = fmi3Status (*)(fmi3Instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                       fmi3Boolean* enterEventMode, fmi3Boolean* terminateSimulation);
using fmi3SetTimeTYPE = fmi3Status (*)(fmi3Instance, fmi3Float64 time);
using fmi3SetContinuousStatesTYPE = fmi3Status (*)(fmi3Instance, const fmi3Float64 continuousStates[],
                                                   std::size_t nContinuousStates);
using fmi3GetContinuousStateDerivativesTYPE = fmi3Status (*)(fmi3Instance, fmi3Float64 derivatives[],
                                                             std::size_t nContinuousStates);
using fmi3GetEventIndicatorsTYPE = fmi3Status (*)(fmi3Instance, fmi3Float64 eventIndicators[],
                                                  std::size_t nEventIndicators);
using fmi3GetContinuousStatesTYPE = fmi3Status (*)(fmi3Instance, fmi3Float64 continuousStates[],
                                                   std::size_t nContinuousStates);

// Co-Simulation (§4.3)
using fmi3EnterStepModeTYPE = fmi3Status (*)(fmi3Instance);
using fmi3GetOutputDerivativesTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference[],
                                                    std::size_t nValueReferences, const fmi3Int32 orders[],
                                                    fmi3Float64 values[], std::size_t nValues);
using fmi3DoStepTYPE = fmi3Status (*)(fmi3Instance, fmi3Float64 currentCommunicationPoint,
                                      fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                      fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime);

}  // extern "C"

// fmi3GetFloat64TYPE … fmi3SetBooleanTYPE, one template over the C value type (C++ only)
template <class T>
using fmi3GetTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference[], std::size_t nValueReferences, T values[],
                                   std::size_t nValues);
template <class T>
using fmi3SetTYPE = fmi3Status (*)(fmi3Instance, const fmi3ValueReference[], std::size_t nValueReferences,
                                   const T values[], std::size_t nValues);
