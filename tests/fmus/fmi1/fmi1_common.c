/* The FMI 1.0 functions of the strict test FMUs (see fmi1_common.h), written from the FMI 1.0 documents:
 * Model Exchange (COSIMA_FMI1_ME) or Co-Simulation (COSIMA_FMI1_CS), compiled into each FMU with its
 * MODEL_IDENTIFIER, which prefixes every exported name. */
#include "fmi1_common.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MODEL fmi1_model_definition
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define IDENTIFIER STRINGIFY(MODEL_IDENTIFIER)

#ifdef COSIMA_FMI1_ME
#define INSTANCE_MAGIC 0x4d453130u /* "ME10" */
#define INITIALIZE "fmiInitialize"
#else
#define INSTANCE_MAGIC 0x43533130u /* "CS10" */
#define INITIALIZE "fmiInitializeSlave"
#endif

enum { MESSAGE_SIZE = 2048 };
#define ALIVE (FMI1_INSTANTIATED | FMI1_INITIALIZED | FMI1_TERMINATED)

static const char *state_name(unsigned state) {
  switch (state) {
    case FMI1_INSTANTIATED: return "instantiated (before " INITIALIZE ")";
    case FMI1_INITIALIZED: return "initialized";
    case FMI1_TERMINATED: return "terminated";
    default: return "error";
  }
}

/* "instantiated or initialized", for the states in `allowed` */
static void state_names(unsigned allowed, char *out, size_t size) {
  out[0] = '\0';
  for (unsigned s = FMI1_INSTANTIATED; s <= FMI1_TERMINATED; s <<= 1) {
    if (!(allowed & s)) continue;
    const size_t n = strlen(out);
    snprintf(out + n, size - n, "%s%s", n ? " or " : "", state_name(s));
  }
}

/* ---- logging ------------------------------------------------------------------------------------- */

static const char *category_of(fmiStatus status) {
  switch (status) {
    case fmiOK: return "log";
    case fmiWarning: return "warning";
    case fmiDiscard: return "discard";
    case fmiError: return "error";
    default: return "fatal";
  }
}

/* To the logger (c may be NULL: no instance yet) and, for errors, to stderr. The logger's message is a
   format with #<type><vr># references: the text goes as the argument of "%s", each # doubled. */
static void emit(fmiCallbackLogger logger, fmiComponent c, const char *instance_name, fmiStatus status,
                 const char *message) {
  char escaped[2 * MESSAGE_SIZE];
  size_t n = 0;
  for (const char *p = message; *p && n + 2 < sizeof escaped; ++p) {
    if (*p == '#') escaped[n++] = '#';
    escaped[n++] = *p;
  }
  escaped[n] = '\0';
  if (logger) logger(c, instance_name ? instance_name : "", status, category_of(status), "%s", escaped);
  if (status >= fmiError) fprintf(stderr, "%s (%s): %s\n", IDENTIFIER, instance_name ? instance_name : "", message);
}

static void vlog(fmi1_instance *inst, fmiStatus status, const char *format, va_list args) {
  if (status < fmiError && !inst->logging_on) return;
  char message[MESSAGE_SIZE];
  vsnprintf(message, sizeof message, format, args);
  emit(inst->logger, inst, inst->name, status, message);
}

void fmi1_log(fmi1_instance *inst, fmiStatus status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vlog(inst, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and evaluate to fmiError: return fail(inst, ...). */
#define fail(inst, ...) (fmi1_log((inst), fmiError, __VA_ARGS__), (inst)->state = FMI1_ERROR, fmiError)

/* A model callback returned `status`: fmiError/fmiFatal put the instance in the error state (the model
   logged why). */
static fmiStatus model_status(fmi1_instance *inst, fmiStatus status) {
  if (status >= fmiError) inst->state = FMI1_ERROR;
  return status;
}

/* ---- instances ------------------------------------------------------------------------------------- */

static int is_boolean(fmiBoolean b) { return b == fmiTrue || b == fmiFalse; }

static int is_blank(const char *s) {
  for (const char *p = s; p && *p; ++p)
    if (!isspace((unsigned char)*p)) return 0;
  return 1;
}

static void *allocate(fmi1_instance *inst, size_t n, size_t size) {
  void *p = inst->allocate_memory(n, size);
  if (p) memset(p, 0, n * size);
  return p;
}

static void set_start_values(fmi1_instance *inst) {
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmi1_variable *v = &MODEL.variables[k];
    const double start = v->has_start ? v->start : 0.0;
    inst->values[k].r = v->type == FMI1_REAL ? start : 0.0;
    inst->values[k].i = v->type == FMI1_REAL ? 0 : (int)start;
  }
  inst->state = FMI1_INSTANTIATED;
  inst->time = inst->time_floor = 0.0;
  inst->upcoming_time_event = 0;
  inst->next_event_time = 0.0;
  inst->event_iteration = 0;
  inst->event_states_changed = 0;
  inst->stop_time_defined = 0;
  inst->stop_time = 0.0;
  inst->terminate_requested = 0;
  memset(inst->data, 0, sizeof inst->data);
}

static void free_instance(fmi1_instance *inst) {
  inst->magic = 0;
  fmiCallbackFreeMemory free_memory = inst->free_memory;
  if (inst->values) free_memory(inst->values);
  if (inst->name) free_memory(inst->name);
  free_memory(inst);
}

/* fmiInstantiateModel/fmiInstantiateSlave, after the checks of their own arguments (`problem`, empty if
   none). */
static fmiComponent instantiate(const char *fn, fmiString instanceName, fmiString guid, fmiCallbackLogger logger,
                                fmiCallbackAllocateMemory allocate_memory, fmiCallbackFreeMemory free_memory,
                                fmiStepFinished step_finished, fmiBoolean loggingOn, const char *problem) {
  if (!logger || !allocate_memory || !free_memory) {
    char message[MESSAGE_SIZE];
    snprintf(message, sizeof message, "%s: the callbacks logger, allocateMemory and freeMemory must not be NULL", fn);
    emit(logger, NULL, instanceName, fmiError, message);
    return NULL;
  }
  fmi1_instance *inst = allocate_memory(1, sizeof *inst);
  if (!inst) {
    emit(logger, NULL, instanceName, fmiError, "out of memory");
    return NULL;
  }
  memset(inst, 0, sizeof *inst);
  inst->magic = INSTANCE_MAGIC;
  inst->logger = logger;
  inst->allocate_memory = allocate_memory;
  inst->free_memory = free_memory;
  inst->step_finished = step_finished;

  char why[MESSAGE_SIZE] = "";
  if (is_blank(instanceName))
    snprintf(why, sizeof why, "instanceName must be a non-empty string");
  else if (!(inst->name = allocate(inst, strlen(instanceName) + 1, 1)) ||
           !(inst->values = allocate(inst, (size_t)MODEL.n_variables, sizeof *inst->values)))
    snprintf(why, sizeof why, "out of memory");
  else if (!guid || strcmp(guid, MODEL.guid) != 0)
    snprintf(why, sizeof why, "GUID \"%s\" is not the guid \"%s\" of modelDescription.xml", guid ? guid : "(NULL)",
             MODEL.guid);
  else if (!is_boolean(loggingOn))
    snprintf(why, sizeof why, "loggingOn = %d is neither fmiTrue nor fmiFalse", loggingOn);
  else if (problem && problem[0])
    snprintf(why, sizeof why, "%s", problem);
  if (inst->name) memcpy(inst->name, instanceName, strlen(instanceName) + 1);
  inst->logging_on = loggingOn;
  if (why[0]) {
    char message[2 * MESSAGE_SIZE];
    snprintf(message, sizeof message, "%s: %s", fn, why);
    emit(logger, NULL, instanceName, fmiError, message); /* no instance for the importer: c = NULL */
    free_instance(inst);
    return NULL;
  }
  set_start_values(inst);
  fmi1_log(inst, fmiOK, "%s: %s instantiated", fn, IDENTIFIER);
  return inst;
}

/* ---- entering a function: the state machine ------------------------------------------------------ */

static int is_instance(fmiComponent c, const char *fn) {
  const unsigned *magic = c;
  if (magic && *magic == INSTANCE_MAGIC) return 1;
  fprintf(stderr, "Illegal call sequence: %s on %p, which is not a live instance of %s\n", fn, c, IDENTIFIER);
  return 0;
}

/* fn may be called on c now, in one of the states `allowed`: fmiOK with *out the instance. */
static fmiStatus enter(fmiComponent c, const char *fn, unsigned allowed, fmi1_instance **out) {
  *out = NULL;
  if (!is_instance(c, fn)) return fmiError;
  fmi1_instance *inst = c;
  if (inst->state == FMI1_ERROR) {
    char message[MESSAGE_SIZE];
    snprintf(message, sizeof message, "Illegal call sequence: %s after fmiError", fn);
    emit(inst->logger, inst, inst->name, fmiError, message);
    return fmiError;
  }
  if (!(inst->state & allowed)) {
    char names[256];
    state_names(allowed, names, sizeof names);
    return fail(inst, "Illegal call sequence: %s in state %s (allowed: %s)", fn, state_name(inst->state), names);
  }
  *out = inst;
  return fmiOK;
}

#define ENTER(fn, allowed)                                  \
  fmi1_instance *inst;                                      \
  {                                                         \
    const fmiStatus entered_ = enter(c, fn, allowed, &inst); \
    if (entered_ != fmiOK) return entered_;                 \
  }

#define CHECK(expression)                   \
  {                                         \
    const fmiStatus checked_ = (expression); \
    if (checked_ != fmiOK) return checked_; \
  }

static void compute(fmi1_instance *inst) { MODEL.compute(inst); }

/* ---- both kinds: version, logging ---------------------------------------------------------------- */

const char *fmiGetVersion(void) { return fmiVersion; }

fmiStatus fmiSetDebugLogging(fmiComponent c, fmiBoolean loggingOn) {
  ENTER("fmiSetDebugLogging", ALIVE)
  if (!is_boolean(loggingOn))
    return fail(inst, "fmiSetDebugLogging: loggingOn = %d is neither fmiTrue nor fmiFalse", loggingOn);
  inst->logging_on = loggingOn;
  return fmiOK;
}

/* ---- both kinds: variable access ------------------------------------------------------------------- */

static const char *type_name(int type) {
  switch (type) {
    case FMI1_REAL: return "Real";
    case FMI1_INTEGER: return "Integer";
    case FMI1_BOOLEAN: return "Boolean";
    default: return "String"; /* FMI1_STRING */
  }
}

/* the variable of `type` with value reference vr (-1: none) */
static int find_variable(int type, fmiValueReference vr) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if ((int)MODEL.variables[k].type == type && MODEL.variables[k].vr == vr) return k;
  return -1;
}

/* Common checks of fmiGetXXX/fmiSetXXX: arrays and value references of `type`. */
static fmiStatus resolve(fmi1_instance *inst, const char *fn, int type, const fmiValueReference vr[], size_t nvr,
                         const void *value) {
  if (nvr == 0) return fmiOK;
  if (!vr || !value) return fail(inst, "%s: vr or value is NULL, with nvr = %zu", fn, nvr);
  for (size_t k = 0; k < nvr; ++k) {
    if (find_variable(type, vr[k]) >= 0) continue;
    for (int other = FMI1_REAL; other <= FMI1_STRING; ++other) {
      const int i = find_variable(other, vr[k]);
      if (i >= 0)
        return fail(inst, "Illegal call sequence: %s: no %s variable has value reference %u (%s, vr %u, is %s)", fn,
                    type_name(type), vr[k], MODEL.variables[i].name, vr[k], type_name(other));
    }
    return fail(inst, "Illegal call sequence: %s: unknown value reference %u", fn, vr[k]);
  }
  return fmiOK;
}

#define GET_PRELUDE(fn, type)                                         \
  ENTER(fn, ALIVE)                                                    \
  {                                                                   \
    const fmiStatus resolved_ = resolve(inst, fn, type, vr, nvr, value); \
    if (resolved_ != fmiOK || nvr == 0) return resolved_;             \
  }                                                                   \
  compute(inst);

fmiStatus fmiGetReal(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiReal value[]) {
  GET_PRELUDE("fmiGetReal", FMI1_REAL)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(FMI1_REAL, vr[k])].r;
  return fmiOK;
}

fmiStatus fmiGetInteger(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiInteger value[]) {
  GET_PRELUDE("fmiGetInteger", FMI1_INTEGER)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(FMI1_INTEGER, vr[k])].i;
  return fmiOK;
}

fmiStatus fmiGetBoolean(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiBoolean value[]) {
  GET_PRELUDE("fmiGetBoolean", FMI1_BOOLEAN)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(FMI1_BOOLEAN, vr[k])].i ? fmiTrue : fmiFalse;
  return fmiOK;
}

fmiStatus fmiGetString(fmiComponent c, const fmiValueReference vr[], size_t nvr, fmiString value[]) {
  GET_PRELUDE("fmiGetString", FMI1_STRING)
  for (size_t k = 0; k < nvr; ++k) {
    const char *text = inst->values[find_variable(FMI1_STRING, vr[k])].s;
    value[k] = text ? text : "";
  }
  return fmiOK;
}

/* NULL if v may be set now, else why not */
static const char *not_settable(const fmi1_instance *inst, const fmi1_variable *v) {
  if (v->variability == FMI1_CONSTANT) return "it is a constant";
  if (inst->state == FMI1_INSTANTIATED)
    return v->has_start ? NULL : "it has no start value (the model computes it); before " INITIALIZE
                                 " only variables with a start value can be set";
  if (v->causality == FMI1_INPUT) return NULL;
  if (v->variability == FMI1_PARAMETER) return "it is a parameter, which can only be set before " INITIALIZE;
  return "after " INITIALIZE " only inputs can be set";
}

static fmiStatus check_set(fmi1_instance *inst, const char *fn, int type, const fmiValueReference vr[], size_t nvr,
                           const double *reals, const int *ints, const fmiBoolean *booleans) {
  for (size_t k = 0; k < nvr; ++k) {
    const fmi1_variable *v = &MODEL.variables[find_variable(type, vr[k])];
    const char *why = not_settable(inst, v);
    if (why)
      return fail(inst, "Illegal call sequence: %s: cannot set %s (vr %u) in state %s: %s", fn, v->name, vr[k],
                  state_name(inst->state), why);
    if (booleans && !is_boolean(booleans[k]))
      return fail(inst, "%s: %s = %d is neither fmiTrue nor fmiFalse", fn, v->name, booleans[k]);
    const double x = reals ? reals[k] : ints ? ints[k] : 0.0;
    if (v->has_range && !(x >= v->min && x <= v->max))
      return fail(inst, "%s: %s = %.17g is out of its range [%g, %g]", fn, v->name, x, v->min, v->max);
  }
  return fmiOK;
}

#define SET_PRELUDE(fn, type, reals, ints, booleans)                                  \
  ENTER(fn, FMI1_INSTANTIATED | FMI1_INITIALIZED)                                   \
  {                                                                                 \
    fmiStatus checked_ = resolve(inst, fn, type, vr, nvr, value);                   \
    if (checked_ == fmiOK) checked_ = check_set(inst, fn, type, vr, nvr, reals, ints, booleans); \
    if (checked_ != fmiOK || nvr == 0) return checked_;                             \
  }

fmiStatus fmiSetReal(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiReal value[]) {
  SET_PRELUDE("fmiSetReal", FMI1_REAL, value, NULL, NULL)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(FMI1_REAL, vr[k])].r = value[k];
  return fmiOK;
}

fmiStatus fmiSetInteger(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiInteger value[]) {
  SET_PRELUDE("fmiSetInteger", FMI1_INTEGER, NULL, value, NULL)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(FMI1_INTEGER, vr[k])].i = value[k];
  return fmiOK;
}

fmiStatus fmiSetBoolean(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiBoolean value[]) {
  SET_PRELUDE("fmiSetBoolean", FMI1_BOOLEAN, NULL, NULL, value)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(FMI1_BOOLEAN, vr[k])].i = value[k];
  return fmiOK;
}

fmiStatus fmiSetString(fmiComponent c, const fmiValueReference vr[], size_t nvr, const fmiString value[]) {
  SET_PRELUDE("fmiSetString", FMI1_STRING, NULL, NULL, NULL)
  /* not reached: a String variable has no start value and is no input (its text is computed by the model) */
  return fail(inst, "fmiSetString: String variables of %s cannot be set", IDENTIFIER);
}

/* ---- Model Exchange -------------------------------------------------------------------------------- */
#ifdef COSIMA_FMI1_ME

const char *fmiGetModelTypesPlatform(void) { return fmiModelTypesPlatform; }

fmiComponent fmiInstantiateModel(fmiString instanceName, fmiString GUID, fmi1MeCallbackFunctions functions,
                                 fmiBoolean loggingOn) {
  const char *problem = "";
  if (MODEL.nx > FMI1_MAX_STATES || MODEL.nx < 0 || MODEL.nz < 0 || !MODEL.compute ||
      (MODEL.nz > 0 && !MODEL.event_indicators))
    problem = "the model definition is inconsistent (nx, nz, compute, event_indicators)";
  return instantiate("fmiInstantiateModel", instanceName, GUID, functions.logger, functions.allocateMemory,
                     functions.freeMemory, NULL, loggingOn, problem);
}

void fmiFreeModelInstance(fmiComponent c) {
  if (!c) return;
  if (is_instance(c, "fmiFreeModelInstance")) free_instance(c);
}

/* After an fmiEventUpdate(intermediateResults = fmiTrue) that did not converge, the event iteration goes on. */
static fmiStatus check_no_open_iteration(fmi1_instance *inst, const char *fn) {
  if (inst->event_iteration > 0)
    return fail(inst, "Illegal call sequence: %s: the last fmiEventUpdate returned iterationConverged = fmiFalse, "
                      "fmiEventUpdate must be called again first", fn);
  return fmiOK;
}

/* After terminateSimulation = fmiTrue (fmiInitialize/fmiEventUpdate) the simulation does not go on: only
   fmiGetXXX, fmiSetTime to the same time, fmiGetContinuousStates... and fmiTerminate. */
static fmiStatus check_not_terminating(fmi1_instance *inst, const char *fn) {
  if (inst->terminate_requested)
    return fail(inst, "Illegal call sequence: %s at t = %.17g: the model returned terminateSimulation = fmiTrue, "
                      "fmiTerminate must be called", fn, inst->time);
  return fmiOK;
}

/* No step completed, nor event handled, past the time event announced by fmiInitialize/fmiEventUpdate. */
static fmiStatus check_time_event(fmi1_instance *inst, const char *fn) {
  const double t_next = inst->next_event_time;
  if (inst->upcoming_time_event && inst->time > t_next + 1e-12 * fmax(1.0, fabs(t_next)))
    return fail(inst, "Illegal call sequence: %s at t = %.17g: past the time event at nextEventTime = %.17g", fn,
                inst->time, t_next);
  return fmiOK;
}

static fmiStatus check_vector(fmi1_instance *inst, const char *fn, const char *name, const void *array, size_t n,
                              size_t expected, const char *what) {
  if (n != expected)
    return fail(inst, "Illegal call sequence: %s: %s = %zu, but the model has %zu %s", fn, name, n, expected, what);
  if (n > 0 && !array) return fail(inst, "%s: the array is NULL, with %s = %zu", fn, name, n);
  return fmiOK;
}

#define CHECK_NX(fn, array, n) \
  CHECK(check_vector(inst, fn, "nx", array, n, (size_t)MODEL.nx, "continuous states (numberOfContinuousStates)"))

fmiStatus fmiSetTime(fmiComponent c, fmiReal time) {
  ENTER("fmiSetTime", FMI1_INSTANTIATED | FMI1_INITIALIZED)
  if (!isfinite(time)) return fail(inst, "fmiSetTime: time = %g is not finite", time);
  if (inst->state == FMI1_INITIALIZED) {
    if (time != inst->time) CHECK(check_no_open_iteration(inst, "fmiSetTime"))
    if (time != inst->time) CHECK(check_not_terminating(inst, "fmiSetTime"))
    if (time < inst->time_floor)
      return fail(inst, "Illegal call sequence: fmiSetTime(%.17g): before t = %.17g of the last "
                        "fmiCompletedIntegratorStep, fmiEventUpdate or fmiInitialize", time, inst->time_floor);
  }
  inst->time = time;
  return fmiOK;
}

fmiStatus fmiSetContinuousStates(fmiComponent c, const fmiReal x[], size_t nx) {
  ENTER("fmiSetContinuousStates", FMI1_INITIALIZED)
  CHECK_NX("fmiSetContinuousStates", x, nx)
  CHECK(check_no_open_iteration(inst, "fmiSetContinuousStates"))
  CHECK(check_not_terminating(inst, "fmiSetContinuousStates"))
  for (int k = 0; k < MODEL.nx; ++k) inst->values[MODEL.states[k]].r = x[k];
  return fmiOK;
}

fmiStatus fmiCompletedIntegratorStep(fmiComponent c, fmiBoolean *callEventUpdate) {
  ENTER("fmiCompletedIntegratorStep", FMI1_INITIALIZED)
  if (!callEventUpdate) return fail(inst, "fmiCompletedIntegratorStep: callEventUpdate is NULL");
  CHECK(check_no_open_iteration(inst, "fmiCompletedIntegratorStep"))
  CHECK(check_not_terminating(inst, "fmiCompletedIntegratorStep"))
  CHECK(check_time_event(inst, "fmiCompletedIntegratorStep"))
  inst->time_floor = inst->time;
  *callEventUpdate = fmiFalse;
  return fmiOK;
}

fmiStatus fmiInitialize(fmiComponent c, fmiBoolean toleranceControlled, fmiReal relativeTolerance,
                        fmiEventInfo *eventInfo) {
  ENTER("fmiInitialize", FMI1_INSTANTIATED)
  if (!is_boolean(toleranceControlled))
    return fail(inst, "fmiInitialize: toleranceControlled = %d is neither fmiTrue nor fmiFalse", toleranceControlled);
  if (toleranceControlled && !(relativeTolerance > 0.0 && isfinite(relativeTolerance)))
    return fail(inst, "fmiInitialize: relativeTolerance = %g, must be > 0 with toleranceControlled", relativeTolerance);
  if (!eventInfo) return fail(inst, "fmiInitialize: eventInfo is NULL");
  fmi1_event event = {.iteration = 0, .converged = 1};
  if (MODEL.initialize) MODEL.initialize(inst, &event);
  compute(inst);
  inst->state = FMI1_INITIALIZED;
  inst->time_floor = inst->time;
  inst->upcoming_time_event = event.upcoming_time_event;
  inst->next_event_time = event.upcoming_time_event ? event.next_event_time : 0.0;
  inst->terminate_requested = event.terminate;
  eventInfo->iterationConverged = fmiTrue;
  eventInfo->stateValueReferencesChanged = fmiFalse;
  eventInfo->stateValuesChanged = fmiFalse;
  eventInfo->terminateSimulation = event.terminate ? fmiTrue : fmiFalse;
  eventInfo->upcomingTimeEvent = inst->upcoming_time_event ? fmiTrue : fmiFalse;
  eventInfo->nextEventTime = inst->next_event_time;
  fmi1_log(inst, fmiOK, "fmiInitialize at t = %.17g", inst->time);
  return fmiOK;
}

/* fmiGetContinuousStates, fmiGetDerivatives: x[k] = the Real variable indices[k], for the nx states */
static fmiStatus get_state_vector(fmi1_instance *inst, const char *fn, fmiReal x[], size_t nx, const int *indices) {
  CHECK_NX(fn, x, nx)
  compute(inst);
  for (int k = 0; k < MODEL.nx; ++k) x[k] = inst->values[indices[k]].r;
  return fmiOK;
}

fmiStatus fmiGetDerivatives(fmiComponent c, fmiReal derivatives[], size_t nx) {
  ENTER("fmiGetDerivatives", FMI1_INITIALIZED)
  return get_state_vector(inst, "fmiGetDerivatives", derivatives, nx, MODEL.derivatives);
}

fmiStatus fmiGetEventIndicators(fmiComponent c, fmiReal eventIndicators[], size_t ni) {
  ENTER("fmiGetEventIndicators", FMI1_INITIALIZED)
  CHECK(check_vector(inst, "fmiGetEventIndicators", "ni", eventIndicators, ni, (size_t)MODEL.nz,
                     "event indicators (numberOfEventIndicators)"))
  if (MODEL.nz == 0) return fmiOK;
  compute(inst);
  MODEL.event_indicators(inst, eventIndicators);
  return fmiOK;
}

enum { MAX_EVENT_ITERATIONS = 100 };

fmiStatus fmiEventUpdate(fmiComponent c, fmiBoolean intermediateResults, fmiEventInfo *eventInfo) {
  ENTER("fmiEventUpdate", FMI1_INITIALIZED)
  if (!is_boolean(intermediateResults))
    return fail(inst, "fmiEventUpdate: intermediateResults = %d is neither fmiTrue nor fmiFalse", intermediateResults);
  if (!eventInfo) return fail(inst, "fmiEventUpdate: eventInfo is NULL");
  CHECK(check_not_terminating(inst, "fmiEventUpdate"))
  CHECK(check_time_event(inst, "fmiEventUpdate"))
  compute(inst);
  double before[FMI1_MAX_STATES];
  for (int k = 0; k < MODEL.nx; ++k) before[k] = inst->values[MODEL.states[k]].r;
  fmi1_event event;
  for (;;) {
    event = (fmi1_event){.iteration = inst->event_iteration, .converged = 1};
    if (MODEL.event_update) {
      const fmiStatus status = model_status(inst, MODEL.event_update(inst, &event));
      if (status >= fmiError) return status;
    }
    compute(inst);
    inst->event_iteration++;
    if (event.terminate) event.converged = 1; /* the iteration ends with the simulation */
    if (event.converged || intermediateResults) break;
    if (inst->event_iteration >= MAX_EVENT_ITERATIONS)
      return fail(inst, "fmiEventUpdate at t = %.17g: no convergence in %d iterations", inst->time,
                  MAX_EVENT_ITERATIONS);
  }
  int changed = inst->event_states_changed;
  for (int k = 0; k < MODEL.nx; ++k) changed = changed || inst->values[MODEL.states[k]].r != before[k];
  /* stateValuesChanged: whether this event (all its iterations so far) changed the states */
  inst->event_states_changed = event.converged ? 0 : changed;
  if (event.converged) inst->event_iteration = 0;
  inst->time_floor = inst->time;
  inst->upcoming_time_event = event.upcoming_time_event;
  inst->next_event_time = event.upcoming_time_event ? event.next_event_time : 0.0;
  inst->terminate_requested = event.terminate;
  eventInfo->iterationConverged = event.converged ? fmiTrue : fmiFalse;
  eventInfo->stateValueReferencesChanged = fmiFalse;
  eventInfo->stateValuesChanged = changed ? fmiTrue : fmiFalse;
  eventInfo->terminateSimulation = event.terminate ? fmiTrue : fmiFalse;
  eventInfo->upcomingTimeEvent = inst->upcoming_time_event ? fmiTrue : fmiFalse;
  eventInfo->nextEventTime = inst->next_event_time;
  return fmiOK;
}

fmiStatus fmiGetContinuousStates(fmiComponent c, fmiReal states[], size_t nx) {
  ENTER("fmiGetContinuousStates", FMI1_INITIALIZED | FMI1_TERMINATED)
  return get_state_vector(inst, "fmiGetContinuousStates", states, nx, MODEL.states);
}

fmiStatus fmiGetNominalContinuousStates(fmiComponent c, fmiReal x_nominal[], size_t nx) {
  ENTER("fmiGetNominalContinuousStates", ALIVE)
  CHECK_NX("fmiGetNominalContinuousStates", x_nominal, nx)
  for (int k = 0; k < MODEL.nx; ++k) x_nominal[k] = 1.0;
  return fmiOK;
}

fmiStatus fmiGetStateValueReferences(fmiComponent c, fmiValueReference vrx[], size_t nx) {
  ENTER("fmiGetStateValueReferences", ALIVE)
  CHECK_NX("fmiGetStateValueReferences", vrx, nx)
  for (int k = 0; k < MODEL.nx; ++k) vrx[k] = MODEL.variables[MODEL.states[k]].vr;
  return fmiOK;
}

fmiStatus fmiTerminate(fmiComponent c) {
  ENTER("fmiTerminate", FMI1_INITIALIZED)
  CHECK(check_no_open_iteration(inst, "fmiTerminate"))
  inst->state = FMI1_TERMINATED;
  return fmiOK;
}

#endif /* COSIMA_FMI1_ME */

/* ---- Co-Simulation --------------------------------------------------------------------------------- */
#ifdef COSIMA_FMI1_CS

const char *fmiGetTypesPlatform(void) { return fmiPlatform; }

/* a URL: a scheme ("file:", "http:"...) first */
static int is_url(const char *s) {
  if (!s || !isalpha((unsigned char)s[0])) return 0;
  const char *p = s + 1;
  while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.') ++p;
  return *p == ':';
}

fmiComponent fmiInstantiateSlave(fmiString instanceName, fmiString fmuGUID, fmiString fmuLocation,
                                 fmiString mimeType, fmiReal timeout, fmiBoolean visible, fmiBoolean interactive,
                                 fmi1CsCallbackFunctions functions, fmiBoolean loggingOn) {
  (void)mimeType; /* for CoSimulation_Tool; a stand-alone slave has no tool to start */
  char problem[MESSAGE_SIZE] = "";
  if (!MODEL.compute || !MODEL.do_step)
    snprintf(problem, sizeof problem, "the model definition is inconsistent (compute, do_step)");
  else if (!is_url(fmuLocation))
    snprintf(problem, sizeof problem, "fmuLocation \"%s\" is not a URL (e.g. file:///path/to/the/unzipped/fmu)",
             fmuLocation ? fmuLocation : "(NULL)");
  else if (!(timeout >= 0.0) || !isfinite(timeout))
    snprintf(problem, sizeof problem, "timeout = %g, must be >= 0 (0: no timeout)", timeout);
  else if (!is_boolean(visible) || !is_boolean(interactive))
    snprintf(problem, sizeof problem, "visible = %d and interactive = %d must be fmiTrue or fmiFalse", visible,
             interactive);
  return instantiate("fmiInstantiateSlave", instanceName, fmuGUID, functions.logger, functions.allocateMemory,
                     functions.freeMemory, functions.stepFinished, loggingOn, problem);
}

void fmiFreeSlaveInstance(fmiComponent c) {
  if (!c) return;
  if (is_instance(c, "fmiFreeSlaveInstance")) free_instance(c);
}

fmiStatus fmiInitializeSlave(fmiComponent c, fmiReal tStart, fmiBoolean StopTimeDefined, fmiReal tStop) {
  ENTER("fmiInitializeSlave", FMI1_INSTANTIATED)
  if (!is_boolean(StopTimeDefined))
    return fail(inst, "fmiInitializeSlave: StopTimeDefined = %d is neither fmiTrue nor fmiFalse", StopTimeDefined);
  if (!isfinite(tStart)) return fail(inst, "fmiInitializeSlave: tStart = %g is not finite", tStart);
  if (StopTimeDefined && !(tStop >= tStart && isfinite(tStop)))
    return fail(inst, "fmiInitializeSlave: tStop = %.17g is before tStart = %.17g", tStop, tStart);
  inst->time = tStart;
  inst->stop_time_defined = StopTimeDefined;
  inst->stop_time = tStop;
  fmi1_event event = {.iteration = 0, .converged = 1};
  if (MODEL.initialize) MODEL.initialize(inst, &event);
  compute(inst);
  inst->state = FMI1_INITIALIZED;
  fmi1_log(inst, fmiOK, "fmiInitializeSlave at t = %.17g", tStart);
  return fmiOK;
}

fmiStatus fmiTerminateSlave(fmiComponent c) {
  ENTER("fmiTerminateSlave", FMI1_INITIALIZED)
  inst->state = FMI1_TERMINATED;
  return fmiOK;
}

fmiStatus fmiResetSlave(fmiComponent c) {
  ENTER("fmiResetSlave", FMI1_INITIALIZED | FMI1_TERMINATED)
  set_start_values(inst);
  return fmiOK;
}

fmiStatus fmiDoStep(fmiComponent c, fmiReal currentCommunicationPoint, fmiReal communicationStepSize,
                    fmiBoolean newStep) {
  ENTER("fmiDoStep", FMI1_INITIALIZED)
  const double t = currentCommunicationPoint, h = communicationStepSize, time = inst->time;
  if (inst->terminate_requested)
    return fail(inst, "Illegal call sequence: fmiDoStep: the slave ended the simulation at t = %.17g (its last "
                      "fmiDoStep returned fmiDiscard with fmiLastSuccessfulTime = %.17g)", time, time);
  if (!is_boolean(newStep)) return fail(inst, "fmiDoStep: newStep = %d is neither fmiTrue nor fmiFalse", newStep);
  if (!newStep)
    return fail(inst, "fmiDoStep: newStep = fmiFalse repeats a rejected step, which this slave cannot do "
                      "(canRejectSteps=\"false\")");
  if (!isfinite(t) || !(fabs(t - time) <= 1e-12 * fmax(1.0, fabs(time))))
    return fail(inst, "Illegal call sequence: fmiDoStep: currentCommunicationPoint = %.17g, but the slave is at "
                      "t = %.17g", t, time);
  if (!(h > 0.0) || !isfinite(h))
    return fail(inst, "fmiDoStep: communicationStepSize = %.17g, must be > 0 (canHandleEvents=\"false\")", h);
  if (inst->stop_time_defined && t + h > inst->stop_time + 1e-12 * fmax(1.0, fabs(inst->stop_time)))
    return fail(inst, "fmiDoStep: t + h = %.17g is past tStop = %.17g of fmiInitializeSlave", t + h, inst->stop_time);
  compute(inst);
  const fmiStatus status = model_status(inst, MODEL.do_step(inst, t, h));
  if (status <= fmiWarning) inst->time = t + h;
  return status;
}

fmiStatus fmiCancelStep(fmiComponent c) {
  ENTER("fmiCancelStep", FMI1_INITIALIZED)
  return fail(inst, "Illegal call sequence: fmiCancelStep: no fmiDoStep is pending (canRunAsynchronuously=\"false\")");
}

fmiStatus fmiSetRealInputDerivatives(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                     const fmiInteger order[], const fmiReal value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  ENTER("fmiSetRealInputDerivatives", FMI1_INSTANTIATED | FMI1_INITIALIZED)
  return fail(inst, "fmiSetRealInputDerivatives is not supported by %s (canInterpolateInputs=\"false\")", IDENTIFIER);
}

fmiStatus fmiGetRealOutputDerivatives(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                      const fmiInteger order[], fmiReal value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  ENTER("fmiGetRealOutputDerivatives", FMI1_INITIALIZED | FMI1_TERMINATED)
  return fail(inst, "fmiGetRealOutputDerivatives is not supported by %s (maxOutputDerivativeOrder=\"0\")",
              IDENTIFIER);
}

static const char *kind_name(fmiStatusKind s) {
  switch (s) {
    case fmiDoStepStatus: return "fmiDoStepStatus";
    case fmiPendingStatus: return "fmiPendingStatus";
    case fmiLastSuccessfulTime: return "fmiLastSuccessfulTime";
    default: return "(not an fmiStatusKind)";
  }
}

/* fmiGetXXXStatus: after initialization; s must be the kind that the standard gives to that function
   (kind < 0: none); value must not be NULL. */
#define STATUS_PRELUDE(fn, kind)                                                                             \
  ENTER(fn, FMI1_INITIALIZED | FMI1_TERMINATED)                                                             \
  if (!value) return fail(inst, "%s: value is NULL", fn);                                                   \
  if ((int)s != (int)(kind))                                                                                \
    return fail(inst, "%s: status kind %s does not belong to this function%s", fn, kind_name(s),          \
                (int)(kind) < 0 ? " (FMI 1.0 defines none for it)" : "");

fmiStatus fmiGetStatus(fmiComponent c, const fmiStatusKind s, fmiStatus *value) {
  STATUS_PRELUDE("fmiGetStatus", fmiDoStepStatus)
  fmi1_log(inst, fmiDiscard, "fmiGetStatus(fmiDoStepStatus): no asynchronous fmiDoStep is pending");
  return fmiDiscard;
}

fmiStatus fmiGetRealStatus(fmiComponent c, const fmiStatusKind s, fmiReal *value) {
  STATUS_PRELUDE("fmiGetRealStatus", fmiLastSuccessfulTime)
  *value = inst->time;
  return fmiOK;
}

fmiStatus fmiGetIntegerStatus(fmiComponent c, const fmiStatusKind s, fmiInteger *value) {
  STATUS_PRELUDE("fmiGetIntegerStatus", -1)
  return fmiOK; /* not reached */
}

fmiStatus fmiGetBooleanStatus(fmiComponent c, const fmiStatusKind s, fmiBoolean *value) {
  STATUS_PRELUDE("fmiGetBooleanStatus", -1)
  return fmiOK; /* not reached */
}

fmiStatus fmiGetStringStatus(fmiComponent c, const fmiStatusKind s, fmiString *value) {
  STATUS_PRELUDE("fmiGetStringStatus", fmiPendingStatus)
  fmi1_log(inst, fmiDiscard, "fmiGetStringStatus(fmiPendingStatus): no asynchronous fmiDoStep is pending");
  return fmiDiscard;
}

#endif /* COSIMA_FMI1_CS */
