#pragma once
// FMI 1.0 C API, written for cosima from the two FMI 1.0 documents: "FMI for Model Exchange 1.0"
// (§3: fmiModelTypes.h, fmiModelFunctions.h) and "FMI for Co-Simulation 1.0" (§3: fmiPlatformTypes.h,
// fmiFunctions.h). Only what cosima calls is declared. The types carry the prefix fmi1 here because
// the two documents give one name (fmiCallbackFunctions) two layouts; the layouts and signatures are
// the standard's. Every exported function is named <modelIdentifier>_fmiXxx (ME §3.1, CS §3.1).
#include <cstddef>

extern "C" {

// --- fmiModelTypes.h / fmiPlatformTypes.h ----------------------------------------------------------
using fmi1Component = void*;
using fmi1ValueReference = unsigned int;
using fmi1Real = double;
using fmi1Integer = int;
using fmi1Boolean = char;
using fmi1String = const char*;
inline constexpr fmi1Boolean fmi1True = 1;
inline constexpr fmi1Boolean fmi1False = 0;
/// A state without a variable (fmiGetStateValueReferences, ME §3.2.2).
inline constexpr fmi1ValueReference fmi1UndefinedValueReference = static_cast<fmi1ValueReference>(-1);

// --- fmiModelFunctions.h / fmiFunctions.h ----------------------------------------------------------
/// fmiStatus; fmiPending exists in Co-Simulation only (asynchronous steps, which cosima does not ask for).
enum fmi1Status { fmi1OK, fmi1Warning, fmi1Discard, fmi1Error, fmi1Fatal, fmi1Pending };
/// fmiStatusKind (CS §3.5): what fmiGetXXXStatus reports.
enum fmi1StatusKind { fmi1DoStepStatus, fmi1PendingStatus, fmi1LastSuccessfulTime };

using fmi1CallbackLogger = void (*)(fmi1Component, fmi1String instanceName, fmi1Status status, fmi1String category,
                                    fmi1String message, ...);
using fmi1CallbackAllocateMemory = void* (*)(std::size_t, std::size_t);
using fmi1CallbackFreeMemory = void (*)(void*);
using fmi1StepFinished = void (*)(fmi1Component, fmi1Status);

/// Model Exchange's fmiCallbackFunctions (ME §3.2.1), passed by value.
struct fmi1MeCallbackFunctions {
  fmi1CallbackLogger logger;
  fmi1CallbackAllocateMemory allocateMemory;
  fmi1CallbackFreeMemory freeMemory;
};
/// Co-Simulation's fmiCallbackFunctions (CS §3.3), passed by value: one member more.
struct fmi1CsCallbackFunctions {
  fmi1CallbackLogger logger;
  fmi1CallbackAllocateMemory allocateMemory;
  fmi1CallbackFreeMemory freeMemory;
  fmi1StepFinished stepFinished;
};

/// fmiEventInfo (ME §3.2.2): what fmiInitialize and fmiEventUpdate report.
struct fmi1EventInfo {
  fmi1Boolean iterationConverged;
  fmi1Boolean stateValueReferencesChanged;
  fmi1Boolean stateValuesChanged;
  fmi1Boolean terminateSimulation;
  fmi1Boolean upcomingTimeEvent;
  fmi1Real nextEventTime;
};

// both interfaces
using fmi1GetVersionTYPE = const char* (*)();
using fmi1SetDebugLoggingTYPE = fmi1Status (*)(fmi1Component, fmi1Boolean);
using fmi1SetRealTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, const fmi1Real[]);
using fmi1SetIntegerTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, const fmi1Integer[]);
using fmi1SetBooleanTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, const fmi1Boolean[]);
using fmi1SetStringTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, const fmi1String[]);
using fmi1GetRealTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, fmi1Real[]);
using fmi1GetIntegerTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, fmi1Integer[]);
using fmi1GetBooleanTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, fmi1Boolean[]);
using fmi1GetStringTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t, fmi1String[]);

// Model Exchange (ME §3.2)
using fmi1InstantiateModelTYPE = fmi1Component (*)(fmi1String instanceName, fmi1String GUID,
                                                   fmi1MeCallbackFunctions functions, fmi1Boolean loggingOn);
using fmi1FreeModelInstanceTYPE = void (*)(fmi1Component);
using fmi1SetTimeTYPE = fmi1Status (*)(fmi1Component, fmi1Real);
using fmi1SetContinuousStatesTYPE = fmi1Status (*)(fmi1Component, const fmi1Real[], std::size_t);
using fmi1CompletedIntegratorStepTYPE = fmi1Status (*)(fmi1Component, fmi1Boolean* callEventUpdate);
using fmi1InitializeTYPE = fmi1Status (*)(fmi1Component, fmi1Boolean toleranceControlled, fmi1Real relativeTolerance,
                                          fmi1EventInfo* eventInfo);
using fmi1GetDerivativesTYPE = fmi1Status (*)(fmi1Component, fmi1Real[], std::size_t);
using fmi1GetEventIndicatorsTYPE = fmi1Status (*)(fmi1Component, fmi1Real[], std::size_t);
using fmi1EventUpdateTYPE = fmi1Status (*)(fmi1Component, fmi1Boolean intermediateResults, fmi1EventInfo* eventInfo);
using fmi1GetContinuousStatesTYPE = fmi1Status (*)(fmi1Component, fmi1Real[], std::size_t);
using fmi1GetNominalContinuousStatesTYPE = fmi1Status (*)(fmi1Component, fmi1Real[], std::size_t);
using fmi1GetStateValueReferencesTYPE = fmi1Status (*)(fmi1Component, fmi1ValueReference[], std::size_t);
using fmi1TerminateTYPE = fmi1Status (*)(fmi1Component);

// Co-Simulation (CS §3.3 – §3.5)
using fmi1InstantiateSlaveTYPE = fmi1Component (*)(fmi1String instanceName, fmi1String fmuGUID, fmi1String fmuLocation,
                                                   fmi1String mimeType, fmi1Real timeout, fmi1Boolean visible,
                                                   fmi1Boolean interactive, fmi1CsCallbackFunctions functions,
                                                   fmi1Boolean loggingOn);
using fmi1InitializeSlaveTYPE = fmi1Status (*)(fmi1Component, fmi1Real tStart, fmi1Boolean StopTimeDefined,
                                               fmi1Real tStop);
using fmi1TerminateSlaveTYPE = fmi1Status (*)(fmi1Component);
using fmi1FreeSlaveInstanceTYPE = void (*)(fmi1Component);
using fmi1SetRealInputDerivativesTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t,
                                                       const fmi1Integer[], const fmi1Real[]);
using fmi1GetRealOutputDerivativesTYPE = fmi1Status (*)(fmi1Component, const fmi1ValueReference[], std::size_t,
                                                        const fmi1Integer[], fmi1Real[]);
using fmi1DoStepTYPE = fmi1Status (*)(fmi1Component, fmi1Real currentCommunicationPoint, fmi1Real communicationStepSize,
                                      fmi1Boolean newStep);
using fmi1GetRealStatusTYPE = fmi1Status (*)(fmi1Component, fmi1StatusKind, fmi1Real*);

}  // extern "C"
