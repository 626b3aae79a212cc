#pragma once
// FMI 2.0 C API, written for cosima from the FMI 2.0.x standard (chapter 2.1: fmi2TypesPlatform.h,
// fmi2FunctionTypes.h, fmi2Functions.h). Only what cosima calls is declared; the names and
// signatures are the standard's so that an FMU compiled against the official headers links.
#include <cstddef>

extern "C" {

// --- fmi2TypesPlatform.h ---------------------------------------------------------------------------
using fmi2Component = void*;
using fmi2ComponentEnvironment = void*;
using fmi2FMUstate = void*;
using fmi2ValueReference = unsigned int;
using fmi2Real = double;
using fmi2Integer = int;
using fmi2Boolean = int;
using fmi2Char = char;
using fmi2String = const fmi2Char*;
using fmi2Byte = char;
inline constexpr fmi2Boolean fmi2True = 1;
inline constexpr fmi2Boolean fmi2False = 0;

// --- fmi2FunctionTypes.h ---------------------------------------------------------------------------
enum fmi2Status { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending };
enum fmi2Type { fmi2ModelExchange, fmi2CoSimulation };
enum fmi2StatusKind { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated };

using fmi2CallbackLogger = void (*)(fmi2ComponentEnvironment, fmi2String instanceName, fmi2Status status,
                                    fmi2String category, fmi2String message, ...);
using fmi2CallbackAllocateMemory = void* (*)(std::size_t, std::size_t);
using fmi2CallbackFreeMemory = void (*)(void*);
using fmi2StepFinished = void (*)(fmi2ComponentEnvironment, fmi2Status);

struct fmi2CallbackFunctions {
  fmi2CallbackLogger logger;
  fmi2CallbackAllocateMemory allocateMemory;
  fmi2CallbackFreeMemory freeMemory;
  fmi2StepFinished stepFinished;
  fmi2ComponentEnvironment componentEnvironment;
};

// Common functions
using fmi2GetTypesPlatformTYPE = const char* (*)();
using fmi2GetVersionTYPE = const char* (*)();
using fmi2SetDebugLoggingTYPE = fmi2Status (*)(fmi2Component, fmi2Boolean, std::size_t, const fmi2String[]);
using fmi2InstantiateTYPE = fmi2Component (*)(fmi2String instanceName, fmi2Type, fmi2String guid,
                                              fmi2String resourceLocation, const fmi2CallbackFunctions*,
                                              fmi2Boolean visible, fmi2Boolean loggingOn);
using fmi2FreeInstanceTYPE = void (*)(fmi2Component);
using fmi2SetupExperimentTYPE = fmi2Status (*)(fmi2Component, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime);
using fmi2EnterInitializationModeTYPE = fmi2Status (*)(fmi2Component);
using fmi2ExitInitializationModeTYPE = fmi2Status (*)(fmi2Component);
using fmi2TerminateTYPE = fmi2Status (*)(fmi2Component);
using fmi2ResetTYPE = fmi2Status (*)(fmi2Component);
using fmi2GetRealTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, fmi2Real[]);
using fmi2GetIntegerTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, fmi2Integer[]);
using fmi2GetBooleanTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, fmi2Boolean[]);
using fmi2GetStringTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, fmi2String[]);
using fmi2SetRealTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, const fmi2Real[]);
using fmi2SetIntegerTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, const fmi2Integer[]);
using fmi2SetBooleanTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, const fmi2Boolean[]);
using fmi2SetStringTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t, const fmi2String[]);
using fmi2GetFMUstateTYPE = fmi2Status (*)(fmi2Component, fmi2FMUstate*);
using fmi2SetFMUstateTYPE = fmi2Status (*)(fmi2Component, fmi2FMUstate);
using fmi2FreeFMUstateTYPE = fmi2Status (*)(fmi2Component, fmi2FMUstate*);
using fmi2GetDirectionalDerivativeTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference unknowns[], std::size_t,
                                                        const fmi2ValueReference knowns[], std::size_t,
                                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[]);
// Model Exchange functions (FMI 2.0 §3.2)
struct fmi2EventInfo {
  fmi2Boolean newDiscreteStatesNeeded;
  fmi2Boolean terminateSimulation;
  fmi2Boolean nominalsOfContinuousStatesChanged;
  fmi2Boolean valuesOfContinuousStatesChanged;
  fmi2Boolean nextEventTimeDefined;
  fmi2Real nextEventTime;
};
using fmi2EnterEventModeTYPE = fmi2Status (*)(fmi2Component);
using fmi2NewDiscreteStatesTYPE = fmi2Status (*)(fmi2Component, fmi2EventInfo*);
using fmi2EnterContinuousTimeModeTYPE = fmi2Status (*)(fmi2Component);
using fmi2CompletedIntegratorStepTYPE = fmi2Status (*)(fmi2Component, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                                       fmi2Boolean* enterEventMode, fmi2Boolean* terminateSimulation);
using fmi2SetTimeTYPE = fmi2Status (*)(fmi2Component, fmi2Real);
using fmi2SetContinuousStatesTYPE = fmi2Status (*)(fmi2Component, const fmi2Real[], std::size_t);
using fmi2GetDerivativesTYPE = fmi2Status (*)(fmi2Component, fmi2Real[], std::size_t);
using fmi2GetEventIndicatorsTYPE = fmi2Status (*)(fmi2Component, fmi2Real[], std::size_t);
using fmi2GetContinuousStatesTYPE = fmi2Status (*)(fmi2Component, fmi2Real[], std::size_t);
using fmi2GetNominalsOfContinuousStatesTYPE = fmi2Status (*)(fmi2Component, fmi2Real[], std::size_t);

// Co-Simulation functions
using fmi2SetRealInputDerivativesTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t,
                                                       const fmi2Integer order[], const fmi2Real value[]);
using fmi2GetRealOutputDerivativesTYPE = fmi2Status (*)(fmi2Component, const fmi2ValueReference[], std::size_t,
                                                        const fmi2Integer order[], fmi2Real value[]);
using fmi2DoStepTYPE = fmi2Status (*)(fmi2Component, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                                      fmi2Boolean noSetFMUStatePriorToCurrentPoint);
using fmi2CancelStepTYPE = fmi2Status (*)(fmi2Component);
using fmi2GetStatusTYPE = fmi2Status (*)(fmi2Component, fmi2StatusKind, fmi2Status*);
using fmi2GetRealStatusTYPE = fmi2Status (*)(fmi2Component, fmi2StatusKind, fmi2Real*);
using fmi2GetIntegerStatusTYPE = fmi2Status (*)(fmi2Component, fmi2StatusKind, fmi2Integer*);
using fmi2GetBooleanStatusTYPE = fmi2Status (*)(fmi2Component, fmi2StatusKind, fmi2Boolean*);
using fmi2GetStringStatusTYPE = fmi2Status (*)(fmi2Component, fmi2StatusKind, fmi2String*);

}  // extern "C"
