/* FMI 1.0 C types and function prototypes of both kinds, written after the FMI 1.0 documents: "FMI for
 * Model Exchange 1.0" chapter 2 (fmiModelTypes.h, fmiModelFunctions.h) and "FMI for Co-Simulation 1.0"
 * chapter 3 (fmiPlatformTypes.h, fmiFunctions.h). Names and signatures are those of the standard, with two
 * exceptions: the two kinds' callback structs, both called fmiCallbackFunctions there, are
 * fmi1MeCallbackFunctions (3 members) and fmi1CsCallbackFunctions (4 members, + stepFinished) here, since
 * both kinds share this header; and fmiStatus has Co-Simulation's fmiPending on the end for both.
 *
 * Every function is exported as <MODEL_IDENTIFIER>_<name> (fmiPaste/fmiFullName, as the standard's headers
 * do) with default visibility; the FMUs are compiled with hidden visibility otherwise. MODEL_IDENTIFIER must
 * be defined, as a C identifier (not a string), to the modelIdentifier of modelDescription.xml. */
#ifndef COSIMA_TEST_FMI1_H
#define COSIMA_TEST_FMI1_H

#include <stddef.h>

#ifndef MODEL_IDENTIFIER
#error "define MODEL_IDENTIFIER to the modelIdentifier of modelDescription.xml (a C identifier)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FMI1_EXPORT __attribute__((visibility("default")))

/* the real function names: MODEL_IDENTIFIER + "_" + name */
#define fmiPaste(a, b) a##b
#define fmiPasteB(a, b) fmiPaste(a, b)
#define fmiFullName(name) fmiPasteB(MODEL_IDENTIFIER, name)

#define fmiVersion "1.0"
#define fmiModelTypesPlatform "standard32" /* Model Exchange: fmiGetModelTypesPlatform */
#define fmiPlatform "standard32"           /* Co-Simulation: fmiGetTypesPlatform */

/* platform "standard32" */
typedef void *fmiComponent;
typedef unsigned int fmiValueReference;
typedef double fmiReal;
typedef int fmiInteger;
typedef char fmiBoolean;
typedef const char *fmiString;

#define fmiTrue 1
#define fmiFalse 0
#define fmiUndefinedValueReference ((fmiValueReference)(-1))

typedef enum { fmiOK, fmiWarning, fmiDiscard, fmiError, fmiFatal, fmiPending /* Co-Simulation only */ } fmiStatus;

/* The message is a printf format in which #<type><vr># stands for the name of a variable and ## for #. */
typedef void (*fmiCallbackLogger)(fmiComponent c, fmiString instanceName, fmiStatus status, fmiString category,
                                  fmiString message, ...);
typedef void *(*fmiCallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmiCallbackFreeMemory)(void *obj);
typedef void (*fmiStepFinished)(fmiComponent c, fmiStatus status);

/* Model Exchange's fmiCallbackFunctions */
typedef struct {
  fmiCallbackLogger logger;
  fmiCallbackAllocateMemory allocateMemory;
  fmiCallbackFreeMemory freeMemory;
} fmi1MeCallbackFunctions;

/* Co-Simulation's fmiCallbackFunctions */
typedef struct {
  fmiCallbackLogger logger;
  fmiCallbackAllocateMemory allocateMemory;
  fmiCallbackFreeMemory freeMemory;
  fmiStepFinished stepFinished;
} fmi1CsCallbackFunctions;

typedef struct {
  fmiBoolean iterationConverged;
  fmiBoolean stateValueReferencesChanged;
  fmiBoolean stateValuesChanged;
  fmiBoolean terminateSimulation;
  fmiBoolean upcomingTimeEvent;
  fmiReal nextEventTime;
} fmiEventInfo;

typedef enum { fmiDoStepStatus, fmiPendingStatus, fmiLastSuccessfulTime } fmiStatusKind;

/* ---- both kinds -------------------------------------------------------------------------------------- */

#define fmiGetVersion fmiFullName(_fmiGetVersion)
#define fmiSetDebugLogging fmiFullName(_fmiSetDebugLogging)
#define fmiSetReal fmiFullName(_fmiSetReal)
#define fmiSetInteger fmiFullName(_fmiSetInteger)
#define fmiSetBoolean fmiFullName(_fmiSetBoolean)
#define fmiSetString fmiFullName(_fmiSetString)
#define fmiGetReal fmiFullName(_fmiGetReal)
#define fmiGetInteger fmiFullName(_fmiGetInteger)
#define fmiGetBoolean fmiFullName(_fmiGetBoolean)
#define fmiGetString fmiFullName(_fmiGetString)

FMI1_EXPORT const char *fmiGetVersion(void);
FMI1_EXPORT fmiStatus fmiSetDebugLogging(fmiComponent c, fmiBoolean loggingOn);
FMI1_EXPORT fmiStatus fmiSetReal(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiReal value[]);
FMI1_EXPORT fmiStatus fmiSetInteger(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    const fmiInteger value[]);
FMI1_EXPORT fmiStatus fmiSetBoolean(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    const fmiBoolean value[]);
FMI1_EXPORT fmiStatus fmiSetString(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiString value[]);
FMI1_EXPORT fmiStatus fmiGetReal(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiReal value[]);
FMI1_EXPORT fmiStatus fmiGetInteger(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiInteger value[]);
FMI1_EXPORT fmiStatus fmiGetBoolean(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiBoolean value[]);
FMI1_EXPORT fmiStatus fmiGetString(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiString value[]);

/* ---- Model Exchange ------------------------------------------------------------------------------------ */

#define fmiGetModelTypesPlatform fmiFullName(_fmiGetModelTypesPlatform)
#define fmiInstantiateModel fmiFullName(_fmiInstantiateModel)
#define fmiFreeModelInstance fmiFullName(_fmiFreeModelInstance)
#define fmiSetTime fmiFullName(_fmiSetTime)
#define fmiSetContinuousStates fmiFullName(_fmiSetContinuousStates)
#define fmiCompletedIntegratorStep fmiFullName(_fmiCompletedIntegratorStep)
#define fmiInitialize fmiFullName(_fmiInitialize)
#define fmiGetDerivatives fmiFullName(_fmiGetDerivatives)
#define fmiGetEventIndicators fmiFullName(_fmiGetEventIndicators)
#define fmiEventUpdate fmiFullName(_fmiEventUpdate)
#define fmiGetContinuousStates fmiFullName(_fmiGetContinuousStates)
#define fmiGetNominalContinuousStates fmiFullName(_fmiGetNominalContinuousStates)
#define fmiGetStateValueReferences fmiFullName(_fmiGetStateValueReferences)
#define fmiTerminate fmiFullName(_fmiTerminate)

FMI1_EXPORT const char *fmiGetModelTypesPlatform(void);
FMI1_EXPORT fmiComponent fmiInstantiateModel(fmiString instanceName, fmiString GUID,
                                             fmi1MeCallbackFunctions functions, fmiBoolean loggingOn);
FMI1_EXPORT void fmiFreeModelInstance(fmiComponent c);
FMI1_EXPORT fmiStatus fmiSetTime(fmiComponent c, fmiReal time);
FMI1_EXPORT fmiStatus fmiSetContinuousStates(fmiComponent c, const fmiReal x[], size_t nx);
FMI1_EXPORT fmiStatus fmiCompletedIntegratorStep(fmiComponent c, fmiBoolean *callEventUpdate);
FMI1_EXPORT fmiStatus fmiInitialize(fmiComponent c, fmiBoolean toleranceControlled, fmiReal relativeTolerance,
                                    fmiEventInfo *eventInfo);
FMI1_EXPORT fmiStatus fmiGetDerivatives(fmiComponent c, fmiReal derivatives[], size_t nx);
FMI1_EXPORT fmiStatus fmiGetEventIndicators(fmiComponent c, fmiReal eventIndicators[], size_t ni);
FMI1_EXPORT fmiStatus fmiEventUpdate(fmiComponent c, fmiBoolean intermediateResults, fmiEventInfo *eventInfo);
FMI1_EXPORT fmiStatus fmiGetContinuousStates(fmiComponent c, fmiReal states[], size_t nx);
FMI1_EXPORT fmiStatus fmiGetNominalContinuousStates(fmiComponent c, fmiReal x_nominal[], size_t nx);
FMI1_EXPORT fmiStatus fmiGetStateValueReferences(fmiComponent c, fmiValueReference vrx[], size_t nx);
FMI1_EXPORT fmiStatus fmiTerminate(fmiComponent c);

/* ---- Co-Simulation ------------------------------------------------------------------------------------- */

#define fmiGetTypesPlatform fmiFullName(_fmiGetTypesPlatform)
#define fmiInstantiateSlave fmiFullName(_fmiInstantiateSlave)
#define fmiInitializeSlave fmiFullName(_fmiInitializeSlave)
#define fmiTerminateSlave fmiFullName(_fmiTerminateSlave)
#define fmiResetSlave fmiFullName(_fmiResetSlave)
#define fmiFreeSlaveInstance fmiFullName(_fmiFreeSlaveInstance)
#define fmiSetRealInputDerivatives fmiFullName(_fmiSetRealInputDerivatives)
#define fmiGetRealOutputDerivatives fmiFullName(_fmiGetRealOutputDerivatives)
#define fmiCancelStep fmiFullName(_fmiCancelStep)
#define fmiDoStep fmiFullName(_fmiDoStep)
#define fmiGetStatus fmiFullName(_fmiGetStatus)
#define fmiGetRealStatus fmiFullName(_fmiGetRealStatus)
#define fmiGetIntegerStatus fmiFullName(_fmiGetIntegerStatus)
#define fmiGetBooleanStatus fmiFullName(_fmiGetBooleanStatus)
#define fmiGetStringStatus fmiFullName(_fmiGetStringStatus)

FMI1_EXPORT const char *fmiGetTypesPlatform(void);
FMI1_EXPORT fmiComponent fmiInstantiateSlave(fmiString instanceName, fmiString fmuGUID, fmiString fmuLocation,
                                             fmiString mimeType, fmiReal timeout, fmiBoolean visible,
                                             fmiBoolean interactive, fmi1CsCallbackFunctions functions,
                                             fmiBoolean loggingOn);
FMI1_EXPORT fmiStatus fmiInitializeSlave(fmiComponent c, fmiReal tStart, fmiBoolean StopTimeDefined, fmiReal tStop);
FMI1_EXPORT fmiStatus fmiTerminateSlave(fmiComponent c);
FMI1_EXPORT fmiStatus fmiResetSlave(fmiComponent c);
FMI1_EXPORT void fmiFreeSlaveInstance(fmiComponent c);
FMI1_EXPORT fmiStatus fmiSetRealInputDerivatives(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                                 const fmiInteger order[], const fmiReal value[]);
FMI1_EXPORT fmiStatus fmiGetRealOutputDerivatives(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                                  const fmiInteger order[], fmiReal value[]);
FMI1_EXPORT fmiStatus fmiCancelStep(fmiComponent c);
FMI1_EXPORT fmiStatus fmiDoStep(fmiComponent c, fmiReal currentCommunicationPoint, fmiReal communicationStepSize,
                                fmiBoolean newStep);
FMI1_EXPORT fmiStatus fmiGetStatus(fmiComponent c, const fmiStatusKind s, fmiStatus *value);
FMI1_EXPORT fmiStatus fmiGetRealStatus(fmiComponent c, const fmiStatusKind s, fmiReal *value);
FMI1_EXPORT fmiStatus fmiGetIntegerStatus(fmiComponent c, const fmiStatusKind s, fmiInteger *value);
FMI1_EXPORT fmiStatus fmiGetBooleanStatus(fmiComponent c, const fmiStatusKind s, fmiBoolean *value);
FMI1_EXPORT fmiStatus fmiGetStringStatus(fmiComponent c, const fmiStatusKind s, fmiString *value);

#ifdef __cplusplus
}
#endif

#endif
