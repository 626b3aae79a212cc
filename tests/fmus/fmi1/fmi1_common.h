/* Shared runtime of cosima's strict FMI 1.0 test FMUs (fmi1_common.c), the FMI 1.0 counterpart of
 * ../me_common.h and ../fmu_common.h. Each FMU describes its variables and behaviour in one
 * `fmi1_model_definition`; fmi1_common.c, compiled into each FMU with MODEL_IDENTIFIER=<modelIdentifier> and
 * exactly one of
 *   COSIMA_FMI1_ME  every function of "FMI for Model Exchange 1.0" (2010-01-26), chapter 2 (the C
 *                   interface): inquiring platform and version; creation, destruction and logging
 *                   of model instances; providing independent variables and re-initialization of caching
 *                   (fmiSetTime, fmiSetContinuousStates, fmiCompletedIntegratorStep, fmiSetXXX); evaluation
 *                   of the model equations (fmiInitialize, fmiGetDerivatives, fmiGetEventIndicators,
 *                   fmiGetXXX, fmiEventUpdate, fmiGetContinuousStates, fmiGetNominalContinuousStates,
 *                   fmiGetStateValueReferences, fmiTerminate) and its calling sequence; 24 functions;
 *   COSIMA_FMI1_CS  every function of "FMI for Co-Simulation 1.0" (2010-10-12), its C API chapter
 *                   (creation, destruction and logging of slave
 *                   instances; initialization, termination and resetting; transfer of input/output values;
 *                   computation, fmiDoStep and fmiCancelStep; retrieving status information); 25 functions,
 *                   with the capabilities (<Implementation><CoSimulation_StandAlone><Capabilities>, its
 *                   description-schema chapter) that all these FMUs declare (below),
 * all prefixed <modelIdentifier>_ (fmi1.h). The modelDescription.xml files follow chapter 3 of the Model
 * Exchange document, the description schema (fmiModelDescription; ModelVariables: ScalarVariable with
 * variability, causality, alias, the type elements with start/fixed, DirectDependency) and, for
 * <Implementation>, the Co-Simulation document's extension of it.
 *
 * Checked (what the standard requires of the importer, made strict where it leaves room):
 *   - the call sequence. Model Exchange: instantiated -fmiInitialize-> initialized -fmiTerminate->
 *     terminated; Co-Simulation: instantiated -fmiInitializeSlave-> initialized (stepping)
 *     -fmiTerminateSlave-> terminated, fmiResetSlave (from initialized or terminated) back to instantiated.
 *     fmiSetXXX in instantiated and initialized, fmiGetXXX in all three (before initialization they return
 *     the start values, or what the model computes from them); fmiSetTime in instantiated (the start time)
 *     and initialized; the other Model Exchange functions and fmiDoStep only when initialized;
 *     fmiSetDebugLogging and fmiFreeModelInstance/fmiFreeSlaveInstance in every state.
 *   - value references: known, of the function's type (each base type has its own value references),
 *     no NULL arrays with nvr > 0; fmiBoolean values fmiTrue or fmiFalse; min/max where declared.
 *   - what may be set: before initialization every variable with a start value (not constants), after it
 *     only inputs (setting a parameter then is an error).
 *   - array lengths: nx = numberOfContinuousStates, ni = numberOfEventIndicators.
 *   - Model Exchange time: fmiSetTime does not go back before the last fmiCompletedIntegratorStep,
 *     fmiEventUpdate or fmiInitialize; no step is completed, and no event handled, past the nextEventTime
 *     announced by fmiInitialize/fmiEventUpdate (within 1e-12 relative); after an fmiEventUpdate with
 *     intermediateResults that returned iterationConverged = fmiFalse, fmiEventUpdate must come again before
 *     fmiSetTime (to another time), fmiSetContinuousStates, fmiCompletedIntegratorStep or fmiTerminate.
 *   - the end of the simulation that the model asks for: after terminateSimulation = fmiTrue (fmiInitialize,
 *     fmiEventUpdate) only fmiGetXXX, fmiSetTime to the same time and fmiTerminate; after a Co-Simulation
 *     slave's fmiDoStep returned fmiDiscard to end the simulation (fmiLastSuccessfulTime = where it ended;
 *     FMI 1.0 has no fmiTerminated status), no further fmiDoStep.
 *   - Co-Simulation steps: currentCommunicationPoint equal to the slave's time (within 1e-12 relative),
 *     communicationStepSize > 0 (canHandleEvents="false"), newStep = fmiTrue (canRejectSteps="false": a
 *     rejected step cannot be repeated), not past tStop of fmiInitializeSlave; fmiSetRealInputDerivatives,
 *     fmiGetRealOutputDerivatives and fmiCancelStep are not supported (canInterpolateInputs="false",
 *     maxOutputDerivativeOrder="0", canRunAsynchronuously="false") and fail.
 *   - fmiInstantiateModel/fmiInstantiateSlave: the GUID of modelDescription.xml, a non-blank instanceName,
 *     logger, allocateMemory and freeMemory not NULL, fmiBoolean arguments; Co-Simulation: fmuLocation a URL
 *     (a scheme, e.g. "file:///..."), timeout >= 0.
 * A violation returns fmiError and puts the instance in the error state; the message, through the logger
 * (status fmiError, category "error") and on stderr, is "Illegal call sequence: <function> ..." for a call
 * in the wrong state, a wrong value reference or array length, a variable that may not be set now or a
 * communication point that is not the slave's time, and "<function>: ..." for other invalid arguments. In
 * the error state every call except fmiFreeModelInstance/fmiFreeSlaveInstance returns fmiError with
 *   "Illegal call sequence: <function> after fmiError"
 * (stricter than the standard, which leaves what still works after fmiError to the FMU). Messages with
 * status fmiOK/fmiWarning go to the logger only with loggingOn (fmiInstantiateXXX, fmiSetDebugLogging);
 * errors always. A # in a message is doubled, as the logger's format wants (## for #). Instance memory
 * comes from allocateMemory and goes back through freeMemory.
 *
 * Alias variables (ScalarVariable's alias attribute): an alias or negatedAlias variable has the value
 * reference of its base variable and is not in `variables`: fmiGetReal on that value reference gives the
 * base variable's value, and the importer negates it for a negatedAlias name (the FMU cannot know which
 * name was meant). */
#ifndef COSIMA_TEST_FMI1_COMMON_H
#define COSIMA_TEST_FMI1_COMMON_H

#include "fmi1.h"

#if defined(COSIMA_FMI1_ME) == defined(COSIMA_FMI1_CS)
#error "compile with exactly one of COSIMA_FMI1_ME (Model Exchange) and COSIMA_FMI1_CS (Co-Simulation)"
#endif

/* FMI1_STRING: read-only text that the model's compute() points at (static storage of the model); such a
   variable has no start value and can never be set (fmiSetString fails) */
typedef enum { FMI1_REAL, FMI1_INTEGER, FMI1_BOOLEAN, FMI1_STRING } fmi1_type;
typedef enum { FMI1_INPUT, FMI1_OUTPUT, FMI1_INTERNAL } fmi1_causality;
typedef enum { FMI1_CONSTANT, FMI1_PARAMETER, FMI1_DISCRETE, FMI1_CONTINUOUS } fmi1_variability;

typedef struct {
  const char *name;
  fmiValueReference vr; /* unique among the variables of its type */
  fmi1_type type;
  fmi1_causality causality;
  fmi1_variability variability;
  int has_start; /* a start attribute: may be set before initialization (an input also after) */
  double start;  /* Real, Integer, Boolean (0/1); without start the model computes the value */
  int has_range; /* Real/Integer: min and max declared */
  double min, max;
} fmi1_variable;

typedef struct {
  double r;      /* Real */
  int i;         /* Integer, Boolean */
  const char *s; /* String: set by compute() (NULL reads as "") */
} fmi1_value;

/* fmiInitialize and each iteration of fmiEventUpdate (Model Exchange): what the runtime tells the model,
   and what the model answers. */
typedef struct {
  int iteration;           /* in: 0 for the first iteration of an event, then 1, 2... */
  int converged;           /* out, preset 1: 0 asks for another iteration (iterationConverged) */
  int upcoming_time_event; /* out, preset 0 */
  double next_event_time;  /* out */
  int terminate;           /* out, preset 0: terminateSimulation (then only fmiGetXXX and fmiTerminate) */
} fmi1_event;

typedef struct fmi1_instance fmi1_instance;

enum { FMI1_MAX_STATES = 4, FMI1_N_DATA = 4 }; /* nx <= FMI1_MAX_STATES */

typedef struct {
  const char *guid;
  const fmi1_variable *variables;
  int n_variables;
  int nx;                 /* numberOfContinuousStates (Model Exchange) */
  const int *states;      /* nx indices into variables (fmiGetStateValueReferences) */
  const int *derivatives; /* nx indices: the derivative of states[k] */
  int nz;                 /* numberOfEventIndicators (Model Exchange) */
  /* required: recompute everything calculated (derivatives, outputs) from time, states, inputs and
     parameters; called before every read, must not change the states */
  void (*compute)(fmi1_instance *inst);
  /* optional: the initial equations, in fmiInitialize/fmiInitializeSlave (start values, inputs and parameters
     are set; time is the start time); Model Exchange: may announce the first time event */
  void (*initialize)(fmi1_instance *inst, fmi1_event *event);
  /* Model Exchange, nz > 0: the event indicators, after compute() */
  void (*event_indicators)(fmi1_instance *inst, double z[]);
  /* Model Exchange, optional: one iteration of fmiEventUpdate (log why on failure) */
  fmiStatus (*event_update)(fmi1_instance *inst, fmi1_event *event);
  /* Co-Simulation, required: the model's part of fmiDoStep, after the checks and compute(); on fmiOK the
     runtime sets time = t + h. On fmiDiscard the model has set the time it reached (fmiLastSuccessfulTime)
     and, if it ends the simulation there, terminate_requested (FMI 1.0 has no fmiTerminated status: every
     later fmiDoStep then fails) */
  fmiStatus (*do_step)(fmi1_instance *inst, double t, double h);
} fmi1_model;

/* Each FMU defines exactly this object. */
extern const fmi1_model fmi1_model_definition;

enum { FMI1_INSTANTIATED = 1u << 0, FMI1_INITIALIZED = 1u << 1, FMI1_TERMINATED = 1u << 2, FMI1_ERROR = 1u << 3 };

struct fmi1_instance {
  unsigned magic;
  fmiCallbackLogger logger;
  fmiCallbackAllocateMemory allocate_memory;
  fmiCallbackFreeMemory free_memory;
  fmiStepFinished step_finished; /* Co-Simulation; never called (no asynchronous steps) */
  char *name;
  int logging_on;
  unsigned state;
  double time;
  /* Model Exchange */
  double time_floor;       /* fmiSetTime may not go back before it */
  int upcoming_time_event; /* as last announced by fmiInitialize/fmiEventUpdate */
  double next_event_time;
  int event_iteration;      /* iterations of the current event done so far (intermediateResults) */
  int event_states_changed; /* ... and whether they changed the states */
  /* Co-Simulation */
  int stop_time_defined;
  double stop_time;
  fmi1_value *values; /* one per variable, in the order of fmi1_model_definition.variables */
  /* the model asked to end the simulation (terminateSimulation, or fmiDiscard of a Co-Simulation slave that
     ends there): Model Exchange allows then only fmiGetXXX, fmiSetTime to the same time and fmiTerminate */
  int terminate_requested;
  double data[FMI1_N_DATA]; /* the model's own discrete state, zero at instantiation and fmiResetSlave */
};

/* Log through the importer's logger; fmiOK/fmiWarning/fmiDiscard only with loggingOn. */
void fmi1_log(fmi1_instance *inst, fmiStatus status, const char *format, ...) __attribute__((format(printf, 3, 4)));

#define FMI1_R(inst, idx) ((inst)->values[idx].r)
#define FMI1_I(inst, idx) ((inst)->values[idx].i)
#define FMI1_S(inst, idx) ((inst)->values[idx].s)
#define FMI1_TIME(inst) ((inst)->time)
#define FMI1_DATA(inst, k) ((inst)->data[k])

#endif
