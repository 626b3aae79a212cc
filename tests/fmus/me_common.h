/* Shared part of cosima's strict FMI 2.0 Model Exchange test FMUs (me_common.c), the counterpart of
 * fmu_common.h for chapter 3 of the standard: the fmi2 functions, the state machine of section 3.2.3,
 * logging, value access and FMU states. Each FMU describes its variables and behaviour in one
 * `me_model_definition` and is linked with me_common.c and fmu_shared.c (not with fmu_common.c). An FMU may also
 * provide Co-Simulation (me_model.do_step): an instance then follows the state machine of the interface
 * it was instantiated with (section 3.2.3 or 4.2.4; CS without asynchronous steps; stepFailed only after a
 * do_step that returns fmi2Discard).
 *
 * Strictness, as in fmu_common.h: a call the standard forbids in the current state, an array of the
 * wrong length (nx, nz), an unknown value reference or one of another type, setting a variable that its
 * causality/variability/initial forbids in the current state (table of 3.2.3), going back in time over
 * the last fmi2CompletedIntegratorStep/fmi2EnterEventMode, a time past stopTime or past a time event...
 * returns fmi2Error and puts the instance in the error state, where any later call except
 * fmi2FreeInstance returns fmi2Error and is reported as
 *   "Illegal call sequence: <function> after fmi2Error"   (logger and stderr).
 * This is stricter than the standard, which still allows fmi2GetXXX (debugging), fmi2Reset and
 * fmi2SetFMUstate after fmi2Error (2.1.3). */
#ifndef COSIMA_TEST_ME_COMMON_H
#define COSIMA_TEST_ME_COMMON_H

#include "fmi2.h"

/* ME_STRING: read-only text that the model's compute() points at (static storage of the model); such a
   variable can never be set (fmi2SetString fails) */
typedef enum { ME_REAL, ME_INTEGER, ME_BOOLEAN, ME_STRING } me_type;
typedef enum { ME_PARAMETER, ME_CALCULATED_PARAMETER, ME_INPUT, ME_OUTPUT, ME_LOCAL } me_causality;
typedef enum { ME_CONSTANT, ME_FIXED, ME_TUNABLE, ME_DISCRETE, ME_CONTINUOUS } me_variability;
/* ME_NO_INITIAL: inputs (start required, initial not allowed: table of 2.2.7) */
typedef enum { ME_NO_INITIAL, ME_EXACT, ME_APPROX, ME_CALCULATED } me_initial;

typedef struct {
  const char *name;
  fmi2ValueReference vr;
  me_type type;
  me_causality causality;
  me_variability variability;
  me_initial initial;
  double start;  /* unused for initial = calculated */
  int has_range; /* Real/Integer: min and max declared */
  double min, max;
} me_variable;

typedef struct {
  double r;       /* Real */
  int i;          /* Integer, Boolean */
  const char *s;  /* String: set by compute() (NULL reads as "") */
} me_value;

/* fmi2NewDiscreteStates: what the common code tells the model, and what the model answers. The common
   code sets valuesOfContinuousStatesChanged itself, by comparing the states before and after. */
typedef struct {
  int initial;  /* in: Event Mode was entered by fmi2ExitInitializationMode, not fmi2EnterEventMode */
  int first;    /* in: first fmi2NewDiscreteStates since Event Mode was entered */
  int new_discrete_states_needed, terminate_simulation, next_event_time_defined;  /* out, all 0 on entry */
  double next_event_time;
} me_event;

typedef struct me_instance me_instance;

enum { ME_MAX_STATES = 4, ME_N_DATA = 8 };  /* nx <= ME_MAX_STATES */

typedef struct {
  const char *model_identifier;
  const char *guid;
  int model_exchange;           /* <ModelExchange> is declared */
  int can_get_and_set_fmu_state;
  const me_variable *variables;
  int n_variables;
  int nx;                       /* continuous states (<Derivatives>) */
  const int *states;            /* nx indices into variables */
  const int *derivatives;       /* nx indices: der(states[k]) */
  int nz;                       /* numberOfEventIndicators */
  /* required: recompute all calculated values (derivatives, outputs; the calculated start values of the
     states while inst->mode is instantiated or Initialization Mode) from time, states, inputs, parameters */
  void (*compute)(me_instance *inst);
  /* nz > 0: the event indicators, after compute() */
  void (*event_indicators)(me_instance *inst, double z[]);
  /* optional: fmi2GetDerivatives, after compute() and the copy of the derivatives into der[]: may change
     der[] or fail (log why first) */
  fmi2Status (*derivatives_hook)(me_instance *inst, double der[]);
  /* optional: the model's part of fmi2NewDiscreteStates (log why on failure) */
  fmi2Status (*event_update)(me_instance *inst, me_event *event);
  /* optional: the model's part of fmi2CompletedIntegratorStep */
  fmi2Status (*completed_integrator_step)(me_instance *inst, int *enter_event_mode);
  /* non-NULL: <CoSimulation> is declared too, and this is the model's part of fmi2DoStep (after the
     common checks; on fmi2OK the common code sets time = t + h). On fmi2Discard the model has set ME_TIME
     to where it got (fmi2LastSuccessfulTime) and, if it ends the simulation, s.terminated
     (fmi2GetBooleanStatus(fmi2Terminated)); the instance goes to stepFailed (4.2.4). */
  fmi2Status (*do_step)(me_instance *inst, double t, double h);
} me_model;

/* Each FMU defines exactly this object. */
extern const me_model me_model_definition;

/* States of the instance: a bit mask, so that each function lists where it is allowed. */
enum {
  ME_INSTANTIATED = 1u << 0,
  ME_INITIALIZATION_MODE = 1u << 1,
  ME_EVENT_MODE = 1u << 2,
  ME_CONTINUOUS_TIME_MODE = 1u << 3,
  ME_STEP_COMPLETE = 1u << 4, /* Co-Simulation instances */
  ME_TERMINATED = 1u << 5,
  ME_ERROR = 1u << 6,
  ME_STEP_FAILED = 1u << 7,   /* Co-Simulation instances, after fmi2DoStep returned fmi2Discard */
};

/* Everything fmi2GetFMUstate copies (with the values of all variables). */
typedef struct {
  unsigned mode;
  int experiment_set_up;
  double time;
  int stop_time_defined;
  double stop_time;
  double time_floor;             /* fmi2SetTime may not go back before (3.2.2 fmi2CompletedIntegratorStep) */
  int enter_event_mode_requested; /* by the last fmi2CompletedIntegratorStep */
  int initial_event;             /* Event Mode entered by fmi2ExitInitializationMode */
  int event_iterations;          /* fmi2NewDiscreteStates calls in the current Event Mode */
  int converged;                 /* the last one returned newDiscreteStatesNeeded = fmi2False */
  int terminate_requested;       /* ... or terminateSimulation = fmi2True */
  int next_event_time_defined;   /* as last returned by fmi2NewDiscreteStates */
  double next_event_time;
  double last_successful_time;   /* Co-Simulation */
  int terminated;                /* Co-Simulation: fmi2GetBooleanStatus(fmi2Terminated), set by the model */
  double data[ME_N_DATA];        /* the model's own discrete state */
} me_status;

struct me_instance {
  unsigned magic;
  fmi2CallbackFunctions cb;
  char *name;
  fmi2Type type;
  unsigned log_mask;
  struct me_snapshot *snapshots;  /* fmi2GetFMUstate copies still alive, freed with the instance */
  me_status s;
  me_value *values;  /* one per variable, in the order of me_model_definition.variables */
};

/* Log through the importer's logger. Category from the status (logEvents for fmi2OK, logStatusXXX
   otherwise); fmi2OK/fmi2Warning/fmi2Discard messages only when that category is switched on. */
void me_log(me_instance *inst, fmi2Status status, const char *format, ...) __attribute__((format(printf, 3, 4)));

#define ME_R(inst, idx) ((inst)->values[idx].r)
#define ME_I(inst, idx) ((inst)->values[idx].i)
#define ME_S(inst, idx) ((inst)->values[idx].s)
#define ME_TIME(inst) ((inst)->s.time)
#define ME_DATA(inst, k) ((inst)->s.data[k])
/* instantiated or Initialization Mode: calculated start values still follow the parameters */
#define ME_INITIALIZING(inst) (((inst)->s.mode & (ME_INSTANTIATED | ME_INITIALIZATION_MODE)) != 0)

#endif
