/* The shared runtime of cosima's strict FMI 3.0 test FMUs (fmi3_runtime.c): every fmi3 function of the standard,
 * the state machines of chapters 2.3 (common states), 3.2 (Model Exchange) and 4.2 (Co-Simulation), logging,
 * value access for all types (arrays in row-major order, sizes from <Dimension> elements, also those that a
 * structural parameter sets), FMU states (copy, restore, serialize) and the generic parts of fmi3DoStep,
 * fmi3UpdateDiscreteStates, fmi3GetDirectionalDerivative and the Model Exchange functions. Each FMU describes its
 * variables and behaviour in one `fmu3_model_definition` (see fmu3_model below) and is linked with this runtime.
 *
 * Strictness: a call the state machine forbids, an unknown value reference or one of another type, a wrong
 * nValues/nContinuousStates/nSeed..., a value out of its declared range, setting a variable that its causality,
 * variability and initial forbid in the current state... returns fmi3Error, puts the instance in the error state
 * and logs (category logStatusError)
 *   "Illegal call sequence: <function> in state <state>"                for calls the state machine forbids
 *   "Illegal call sequence: <function> in state <state>: <why>"         for calls a condition forbids
 *   "<function>: <what is wrong>"                                        for wrong arguments
 * States: Instantiated, ConfigurationMode, InitializationMode, EventMode, StepMode, ContinuousTimeMode,
 * ReconfigurationMode, Terminated, and Error (after fmi3Error: only fmi3SetFMUState, fmi3FreeFMUState,
 * fmi3Reset, fmi3FreeInstance, fmi3SetDebugLogging and the serialization functions are allowed, standard 2.2.3).
 * After fmi3Fatal every later call into the library (any instance, fmi3FreeInstance included) prints
 *   "Illegal call sequence: <function> in state Fatal"   to stderr and returns fmi3Fatal (nothing is freed).
 * Logging: only with loggingOn (fmi3Instantiate* or fmi3SetDebugLogging) is logMessage called (standard 2.3.1);
 * error and fatal messages that are not logged that way are printed to stderr instead.
 * Where the standard leaves room, these FMUs decide:
 *   - fmi3Get{VariableType} is refused in Instantiated; structural parameters are set only in ConfigurationMode;
 *   - Event Mode is left (fmi3EnterStepMode, fmi3EnterContinuousTimeMode) only after fmi3UpdateDiscreteStates
 *     returned discreteStatesNeedUpdate = fmi3False, and not after it returned terminateSimulation = fmi3True;
 *   - fmi3DoStep returning fmi3Discard changes nothing: the instance stays in StepMode at the same time (retry with
 *     another step size, or fmi3SetFMUState); after eventHandlingNeeded (until fmi3EnterEventMode) or
 *     terminateSimulation, fmi3DoStep is illegal;
 *   - Model Exchange: fmi3SetTime may not go back before the last fmi3CompletedIntegratorStep/Event Mode, nor past
 *     nextEventTime in ContinuousTimeMode;
 *   - fmi3SerializeFMUState wants exactly the size fmi3SerializedFMUStateSize gave. */
#ifndef COSIMA_TEST_FMI3_RUNTIME_H
#define COSIMA_TEST_FMI3_RUNTIME_H

#include <stddef.h>

#include "fmi3.h"

typedef enum {
  FMU3_FLOAT32, FMU3_FLOAT64, FMU3_INT8, FMU3_UINT8, FMU3_INT16, FMU3_UINT16, FMU3_INT32, FMU3_UINT32,
  FMU3_INT64, FMU3_UINT64, FMU3_BOOLEAN, FMU3_STRING, FMU3_BINARY, FMU3_ENUMERATION, FMU3_CLOCK
} fmu3_type;
typedef enum {
  FMU3_PARAMETER, FMU3_CALCULATED_PARAMETER, FMU3_STRUCTURAL_PARAMETER, FMU3_INPUT, FMU3_OUTPUT, FMU3_LOCAL,
  FMU3_INDEPENDENT
} fmu3_causality;
typedef enum { FMU3_CONSTANT, FMU3_FIXED, FMU3_TUNABLE, FMU3_DISCRETE, FMU3_CONTINUOUS } fmu3_variability;
/* FMU3_NO_INITIAL: inputs and the independent variable (no initial attribute) */
typedef enum { FMU3_NO_INITIAL, FMU3_EXACT, FMU3_APPROX, FMU3_CALCULATED } fmu3_initial;

typedef struct {
  const char *name;  /* the EnumerationType, e.g. "Color" */
  int n_items;
  const long long *items;  /* item values */
} fmu3_enumeration;

/* One <Dimension>: size > 0 a fixed size (start="size"), size == 0 the value of the UInt64 structural parameter
   with value reference vr. */
typedef struct {
  unsigned long long size;
  fmi3ValueReference vr;
} fmu3_dimension;

enum { FMU3_MAX_DIMENSIONS = 4, FMU3_N_DATA = 8 };

typedef struct {
  const char *name;
  fmi3ValueReference vr;
  fmu3_type type;
  fmu3_causality causality;
  fmu3_variability variability;
  fmu3_initial initial;
  /* as in modelDescription.xml: numbers separated by white space, row-major (an array element without a start
     value starts at 0), "true"/"false", hexadecimal bytes for Binary, the text for String; NULL: 0, false, "",
     no bytes. Unused for initial = calculated. */
  const char *start;
  int has_range;  /* min and max declared (numeric types; an Enumeration is checked against its items) */
  long double min, max;
  const fmu3_enumeration *enumeration;
  int n_dimensions;  /* 0: a scalar; String, Binary and Clock variables are scalars */
  fmu3_dimension dimensions[FMU3_MAX_DIMENSIONS];
} fmu3_variable;

/* The value of a variable: `count` elements (the product of its dimensions) of the type's C type (fmi3Float64,
   fmi3Int8, ..., fmi3Boolean, fmi3Clock; fmi3Int64 for an Enumeration), char * for String, fmu3_bytes for Binary. */
typedef struct {
  size_t size;
  unsigned char *bytes;
} fmu3_bytes;

typedef struct {
  void *data;
  size_t count;     /* current number of elements */
  size_t capacity;  /* elements allocated: with the maxima of the structural parameters */
} fmu3_value;

typedef struct fmu3_instance fmu3_instance;

/* fmi3DoStep: what the runtime tells the model, and what the model answers. */
typedef struct {
  double t, h;                  /* in: currentCommunicationPoint, communicationStepSize */
  int event_mode_used, early_return_allowed;  /* in: from fmi3InstantiateCoSimulation */
  double end;                   /* out: the time reached, t + h on entry; less only with early_return */
  int event_handling_needed;    /* out: only with event_mode_used */
  int terminate_simulation;     /* out */
  int early_return;             /* out: only with early_return_allowed, and then end < t + h */
} fmu3_step;

/* fmi3UpdateDiscreteStates: what the runtime tells the model, and what the model answers (all 0 on entry). */
typedef struct {
  int initial;  /* in: Event Mode was entered by fmi3ExitInitializationMode */
  int first;    /* in: first fmi3UpdateDiscreteStates since Event Mode was entered */
  int discrete_states_need_update, terminate_simulation, nominals_changed, values_changed;
  int next_event_time_defined;
  double next_event_time;
} fmu3_event;

typedef struct {
  const char *model_identifier;
  const char *instantiation_token;
  int model_exchange;  /* <ModelExchange> is declared */
  int co_simulation;   /* <CoSimulation> is declared */
  int has_event_mode;  /* <CoSimulation hasEventMode="true"> */
  int has_clocks;      /* eventModeUsed is then required (standard 2.3.1) */
  int can_get_and_set_fmu_state, can_serialize_fmu_state;
  int max_output_derivative_order;  /* <CoSimulation maxOutputDerivativeOrder>; > 0 needs output_derivative */
  const fmu3_variable *variables;
  int n_variables;
  int nx;                  /* continuous states (Model Exchange): indices into variables, scalar Float64 */
  const int *states;
  const int *derivatives;  /* der(states[k]) */
  int nz;                  /* event indicators (<EventIndicator>): indices, scalar Float64 */
  const int *event_indicators;
  /* optional: end of fmi3Instantiate*; nonzero = fail (log why first) */
  int (*instantiate)(fmu3_instance *inst);
  /* optional: recompute every calculated value (outputs, derivatives, event indicators; in Instantiated and
     Initialization Mode also the calculated start values) from time, states, inputs and parameters. Called
     before values are read and at fmi3ExitInitializationMode. */
  void (*compute)(fmu3_instance *inst);
  /* Co-Simulation: the model's part of fmi3DoStep, after the runtime's checks. On fmi3OK/fmi3Warning the runtime
     sets time = step->end. On fmi3Discard the model must not have changed anything. */
  fmi3Status (*do_step)(fmu3_instance *inst, fmu3_step *step);
  /* optional: the model's part of fmi3UpdateDiscreteStates */
  fmi3Status (*update_discrete_states)(fmu3_instance *inst, fmu3_event *event);
  /* optional: the model's part of fmi3CompletedIntegratorStep */
  fmi3Status (*completed_integrator_step)(fmu3_instance *inst, int *enter_event_mode, int *terminate_simulation);
  /* non-NULL: providesDirectionalDerivatives="true". The partial derivative of scalar Float64 variable `unknown`
     with respect to scalar Float64 variable `known` (indices) into *d, after compute(); 0 if that pair is not
     allowed (the runtime then fails the call). */
  int (*partial_derivative)(fmu3_instance *inst, int unknown, int known, double *d);
  /* max_output_derivative_order > 0: d^order/dt^order of continuous Float64 output `variable` (index) */
  double (*output_derivative)(fmu3_instance *inst, int variable, int order);
} fmu3_model;

/* Each FMU defines exactly this object. */
extern const fmu3_model fmu3_model_definition;

/* The states of the instance, a bit mask each. */
enum {
  FMU3_INSTANTIATED = 1u << 0,
  FMU3_CONFIGURATION_MODE = 1u << 1,
  FMU3_INITIALIZATION_MODE = 1u << 2,
  FMU3_EVENT_MODE = 1u << 3,
  FMU3_STEP_MODE = 1u << 4,
  FMU3_CONTINUOUS_TIME_MODE = 1u << 5,
  FMU3_RECONFIGURATION_MODE = 1u << 6,
  FMU3_TERMINATED = 1u << 7,
  FMU3_ERROR = 1u << 8,
};

/* Everything fmi3GetFMUState copies, with the values of all variables. */
typedef struct {
  unsigned mode;
  unsigned reconfiguration_return;  /* the state fmi3ExitConfigurationMode returns to from ReconfigurationMode */
  double time;
  double start_time;
  int stop_time_defined;
  double stop_time;
  double time_floor;            /* Model Exchange: fmi3SetTime may not go back before it */
  int initial_event;            /* Event Mode entered by fmi3ExitInitializationMode */
  int update_calls;             /* fmi3UpdateDiscreteStates calls in the current Event Mode */
  int converged;                /* the last one returned discreteStatesNeedUpdate = fmi3False */
  int next_event_time_defined;  /* as last returned by fmi3UpdateDiscreteStates */
  double next_event_time;
  int event_pending;            /* Co-Simulation: fmi3DoStep returned eventHandlingNeeded = fmi3True */
  int terminate_requested;      /* fmi3DoStep/fmi3UpdateDiscreteStates/fmi3CompletedIntegratorStep said terminate */
  double data[FMU3_N_DATA];     /* the model's own discrete state */
} fmu3_status;

struct fmu3_instance {
  unsigned magic;
  char *name;
  fmi3InstanceEnvironment environment;
  fmi3LogMessageCallback log_message;
  int logging_on;
  unsigned log_mask;
  int model_exchange;  /* instantiated with fmi3InstantiateModelExchange, else Co-Simulation */
  int event_mode_used, early_return_allowed;
  fmu3_status s;
  fmu3_value *values;  /* one per variable, in the order of fmu3_model_definition.variables */
  void **returned;     /* strings and bytes handed out by fmi3GetString/fmi3GetBinary; freed at the next call */
  size_t n_returned;
  struct fmu3_snapshot *snapshots;  /* FMU states still alive, freed with the instance */
};

/* Log through logMessage: category logEvents for fmi3OK, logStatusXXX otherwise; only when logging is on and
   that category is enabled (errors and fatal messages go to stderr otherwise). */
void fmu3_log(fmu3_instance *inst, fmi3Status status, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Replace the String (Binary) value of scalar variable idx; 0 on allocation failure. */
int fmu3_set_string(fmu3_instance *inst, int idx, const char *s);
int fmu3_set_binary(fmu3_instance *inst, int idx, const void *bytes, size_t size);

/* Element access, for the models */
#define FMU3_F32(inst, idx) ((fmi3Float32 *)(inst)->values[idx].data)
#define FMU3_F64(inst, idx) ((fmi3Float64 *)(inst)->values[idx].data)
#define FMU3_I8(inst, idx) ((fmi3Int8 *)(inst)->values[idx].data)
#define FMU3_U8(inst, idx) ((fmi3UInt8 *)(inst)->values[idx].data)
#define FMU3_I16(inst, idx) ((fmi3Int16 *)(inst)->values[idx].data)
#define FMU3_U16(inst, idx) ((fmi3UInt16 *)(inst)->values[idx].data)
#define FMU3_I32(inst, idx) ((fmi3Int32 *)(inst)->values[idx].data)
#define FMU3_U32(inst, idx) ((fmi3UInt32 *)(inst)->values[idx].data)
#define FMU3_I64(inst, idx) ((fmi3Int64 *)(inst)->values[idx].data)  /* Int64 and Enumeration */
#define FMU3_U64(inst, idx) ((fmi3UInt64 *)(inst)->values[idx].data)
#define FMU3_BOOL(inst, idx) ((fmi3Boolean *)(inst)->values[idx].data)
#define FMU3_CLOCK(inst, idx) ((fmi3Clock *)(inst)->values[idx].data)
#define FMU3_STR(inst, idx) (((char **)(inst)->values[idx].data)[0])
#define FMU3_BIN(inst, idx) (((fmu3_bytes *)(inst)->values[idx].data)[0])
#define FMU3_COUNT(inst, idx) ((inst)->values[idx].count)
#define FMU3_TIME(inst) ((inst)->s.time)
#define FMU3_DATA(inst, k) ((inst)->s.data[k])
/* Instantiated, ConfigurationMode or Initialization Mode: calculated start values still follow the parameters */
#define FMU3_INITIALIZING(inst) \
  (((inst)->s.mode & (FMU3_INSTANTIATED | FMU3_CONFIGURATION_MODE | FMU3_INITIALIZATION_MODE)) != 0)

#endif
