/* The fmi2 functions of the Model Exchange test FMUs, written from the FMI 2.0.x standard (chapters 2
 * and 3, and 4 for the FMUs that also provide Co-Simulation): state machine and table of section 3.2.3,
 * made stricter where the standard leaves room (see me_common.h). The functions and helpers that the
 * Co-Simulation runtime has too are in fmu_shared.c. */
#include "me_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmu_shared.h"

#define MODEL me_model_definition
#define INSTANCE_MAGIC 0x4d45c05au
#define SNAPSHOT_MAGIC 0x4d455354u

#define ME_ALIVE (ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE | ME_TERMINATED)
#define CS_ALIVE (ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_STEP_COMPLETE | ME_STEP_FAILED | ME_TERMINATED)
#define ME_READABLE (ME_INITIALIZATION_MODE | ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE | ME_TERMINATED)
#define CS_READABLE (ME_INITIALIZATION_MODE | ME_STEP_COMPLETE | ME_STEP_FAILED | ME_TERMINATED)

/* the interface(s) a function belongs to */
enum { IF_ME = 1, IF_CS = 2, IF_BOTH = 3 };

static const char *mode_name(unsigned mode) {
  switch (mode) {
    case ME_INSTANTIATED: return "instantiated";
    case ME_INITIALIZATION_MODE: return "Initialization Mode";
    case ME_EVENT_MODE: return "Event Mode";
    case ME_CONTINUOUS_TIME_MODE: return "Continuous-Time Mode";
    case ME_STEP_COMPLETE: return "stepComplete";
    case ME_STEP_FAILED: return "stepFailed";
    case ME_TERMINATED: return "terminated";
    default: return "error";
  }
}

/* ---- logging ------------------------------------------------------------------------------------- */

void me_log(me_instance *inst, fmi2Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  shared_vlog(&inst->cb, inst->name, inst->log_mask, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and evaluate to fmi2Error: return fail(inst, ...). */
#define fail(inst, ...) (me_log((inst), fmi2Error, __VA_ARGS__), (inst)->s.mode = ME_ERROR, fmi2Error)

/* A model callback returned `status`: fmi2Error/fmi2Fatal put the instance in the error state (the model
   logged why). These FMUs never return fmi2Fatal themselves. */
static fmi2Status model_status(me_instance *inst, fmi2Status status) {
  if (status >= fmi2Error) inst->s.mode = ME_ERROR;
  return status;
}

/* ---- memory, start values ------------------------------------------------------------------------ */

static void *allocate(me_instance *inst, size_t n, size_t size) { return shared_allocate(&inst->cb, n, size); }
static void release(me_instance *inst, void *p) { shared_release(&inst->cb, p); }

static void set_start_values(me_instance *inst) {
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const me_variable *v = &MODEL.variables[k];
    double start = v->initial == ME_CALCULATED ? 0.0 : v->start;
    inst->values[k].r = start;
    inst->values[k].i = v->type == ME_REAL ? 0 : (int)start;
  }
  memset(&inst->s, 0, sizeof inst->s);
  inst->s.mode = ME_INSTANTIATED;
}

static void compute(me_instance *inst) { MODEL.compute(inst); }

/* ---- entering a function: the state machine ------------------------------------------------------ */

/* Checks that `fn` (of interface `iface`) may be called now: in one of the states me_allowed (Model
   Exchange instance) or cs_allowed (Co-Simulation instance). On success *out is the instance. */
static fmi2Status enter(fmi2Component c, const char *fn, int iface, unsigned me_allowed, unsigned cs_allowed,
                        me_instance **out) {
  *out = NULL;
  if (!shared_is_instance(c, INSTANCE_MAGIC, fn, MODEL.model_identifier, "")) return fmi2Error;
  me_instance *inst = c;
  if (inst->s.mode == ME_ERROR) return shared_after_error(&inst->cb, inst->name, fn);
  const int me = inst->type == fmi2ModelExchange;
  if (!(iface & (me ? IF_ME : IF_CS))) {
    if (me && !MODEL.do_step)
      return fail(inst, "%s: Co-Simulation is not provided by %s (no <CoSimulation> in modelDescription.xml)", fn,
                  MODEL.model_identifier);
    return fail(inst, "Illegal call sequence: %s is a %s function, but the instance was instantiated as %s", fn,
                me ? "Co-Simulation" : "Model Exchange", me ? "fmi2ModelExchange" : "fmi2CoSimulation");
  }
  if (!(inst->s.mode & (me ? me_allowed : cs_allowed)))
    return fail(inst, "Illegal call sequence: %s in state %s", fn, mode_name(inst->s.mode));
  *out = inst;
  return fmi2OK;
}

#define ENTER(fn, iface, me_allowed, cs_allowed)                                \
  me_instance *inst;                                                            \
  {                                                                             \
    fmi2Status entered_ = enter(c, fn, iface, me_allowed, cs_allowed, &inst); \
    if (entered_ != fmi2OK) return entered_;                                    \
  }

/* The functions of fmu_shared.c enter here: their states mapped to those of 3.2.3 and 4.2.4. */
fmi2Status runtime_enter(fmi2Component c, const char *fn, shared_states states, shared_instance *shared) {
  static const struct {
    int iface;
    unsigned me_allowed, cs_allowed;
  } allowed[] = {
    [SHARED_ALIVE] = {IF_BOTH, ME_ALIVE, CS_ALIVE},
    [SHARED_READABLE] = {IF_BOTH, ME_READABLE, CS_READABLE},
    [SHARED_CS_INPUTS] = {IF_CS, 0, ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_STEP_COMPLETE},
    [SHARED_CS_STEPPED] = {IF_CS, 0, ME_STEP_COMPLETE | ME_STEP_FAILED | ME_TERMINATED},
    [SHARED_CS_PENDING] = {IF_CS, 0, 0},
  };
  ENTER(fn, allowed[states].iface, allowed[states].me_allowed, allowed[states].cs_allowed)
  /* a Co-Simulation slave asks to terminate (fmi2GetBooleanStatus) only if its do_step says so */
  *shared = (shared_instance){&inst->cb, inst->name, &inst->log_mask, &inst->s.mode, ME_ERROR, MODEL.model_identifier,
                              inst->s.last_successful_time, inst->s.terminated};
  return fmi2OK;
}

/* ---- instantiation ------------------------------------------------------------------------------- */

static void free_instance(me_instance *inst);

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
  (void)fmuResourceLocation;  /* no resources */
  me_instance *inst = shared_new_instance(instanceName, functions, sizeof *inst, MODEL.model_identifier);
  if (!inst) return NULL;
  memcpy(&inst->cb, functions, sizeof inst->cb);
  inst->log_mask = SHARED_LOG_ALL;  /* loggingOn is checked below, and may be invalid */
  inst->magic = INSTANCE_MAGIC;
  inst->type = fmuType;

  char problem[512] = "";
  if (shared_is_blank(instanceName))
    snprintf(problem, sizeof problem, "instanceName must be a non-empty string");
  else if (!(inst->name = shared_strdup(&inst->cb, instanceName)) ||
           !(inst->values = allocate(inst, (size_t)MODEL.n_variables, sizeof *inst->values)))
    snprintf(problem, sizeof problem, "out of memory");
  else if (fmuType == fmi2ModelExchange && !MODEL.model_exchange)
    snprintf(problem, sizeof problem, "fmuType = fmi2ModelExchange, but %s provides Co-Simulation only",
             MODEL.model_identifier);
  else if (fmuType == fmi2CoSimulation && !MODEL.do_step)
    snprintf(problem, sizeof problem,
             "fmuType = fmi2CoSimulation, but %s provides Model Exchange only (no <CoSimulation> element)",
             MODEL.model_identifier);
  else if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)
    snprintf(problem, sizeof problem, "fmuType = %d is not an fmi2Type", (int)fmuType);
  else
    shared_check_instantiate(problem, sizeof problem, fmuGUID, MODEL.guid, visible, loggingOn);
  if (problem[0]) {
    me_log(inst, fmi2Error, "fmi2Instantiate: %s", problem);
    free_instance(inst);
    return NULL;
  }
  inst->log_mask = loggingOn ? SHARED_LOG_ALL : 0;
  set_start_values(inst);
  me_log(inst, fmi2OK, "fmi2Instantiate: %s instantiated for %s", MODEL.model_identifier,
         fmuType == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation");
  return inst;
}

/* ---- FMU states (2.1.8) ---------------------------------------------------------------------------- */

typedef struct me_snapshot {
  unsigned magic;
  struct me_snapshot *next;
  me_status s;
  me_value *values;
} me_snapshot;

static void free_snapshot(me_instance *inst, me_snapshot *snapshot) {
  snapshot->magic = 0;
  release(inst, snapshot->values);
  release(inst, snapshot);
}

static void free_instance(me_instance *inst) {
  inst->magic = 0;
  while (inst->snapshots) {
    me_snapshot *next = inst->snapshots->next;
    free_snapshot(inst, inst->snapshots);
    inst->snapshots = next;
  }
  release(inst, inst->values);
  release(inst, inst->name);
  fmi2CallbackFreeMemory free_memory = inst->cb.freeMemory;
  free_memory(inst);
}

void fmi2FreeInstance(fmi2Component c) {
  if (!c) return;  /* the standard: a NULL pointer is ignored */
  if (shared_is_instance(c, INSTANCE_MAGIC, "fmi2FreeInstance", MODEL.model_identifier, " (freed twice?)"))
    free_instance(c);
}

/* The snapshot `state` if it was made by fmi2GetFMUstate of this instance and not freed since, else NULL. */
static me_snapshot *find_snapshot(me_instance *inst, fmi2FMUstate state) {
  for (me_snapshot *s = inst->snapshots; s; s = s->next)
    if ((void *)s == state && s->magic == SNAPSHOT_MAGIC) return s;
  return NULL;
}

/* fmi2Get/Set/FreeFMUstate: allowed in any state, supported if the model says so */
#define FMU_STATE_PRELUDE(fn)                                                       \
  if (!MODEL.can_get_and_set_fmu_state)                                             \
    return shared_unsupported(c, fn, SHARED_ALIVE, "canGetAndSetFMUstate=\"false\""); \
  ENTER(fn, IF_BOTH, ME_ALIVE, CS_ALIVE)

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  FMU_STATE_PRELUDE("fmi2GetFMUstate")
  if (!FMUstate) return fail(inst, "fmi2GetFMUstate: FMUstate is NULL");
  me_snapshot *snapshot = NULL;
  if (*FMUstate) {  /* "If on entry *FMUstate is not NULL, ... the memory is reused" */
    if (!(snapshot = find_snapshot(inst, *FMUstate)))
      return fail(inst, "fmi2GetFMUstate: *FMUstate = %p is neither NULL nor an FMU state of this instance",
                  *FMUstate);
  } else {
    if (!(snapshot = allocate(inst, 1, sizeof *snapshot))) return fail(inst, "fmi2GetFMUstate: out of memory");
    if (!(snapshot->values = allocate(inst, (size_t)MODEL.n_variables, sizeof *snapshot->values))) {
      release(inst, snapshot);
      return fail(inst, "fmi2GetFMUstate: out of memory");
    }
    snapshot->magic = SNAPSHOT_MAGIC;
    snapshot->next = inst->snapshots;
    inst->snapshots = snapshot;
  }
  snapshot->s = inst->s;
  memcpy(snapshot->values, inst->values, (size_t)MODEL.n_variables * sizeof *inst->values);
  *FMUstate = snapshot;
  return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
  FMU_STATE_PRELUDE("fmi2SetFMUstate")
  me_snapshot *snapshot = find_snapshot(inst, FMUstate);
  if (!snapshot)
    return fail(inst, "fmi2SetFMUstate: %p is not an FMU state of this instance (never made, or freed)", FMUstate);
  inst->s = snapshot->s;
  memcpy(inst->values, snapshot->values, (size_t)MODEL.n_variables * sizeof *inst->values);
  return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  FMU_STATE_PRELUDE("fmi2FreeFMUstate")
  if (!FMUstate) return fail(inst, "fmi2FreeFMUstate: FMUstate is NULL");
  if (!*FMUstate) return fmi2OK;  /* "If a null pointer is provided, the call is ignored" */
  me_snapshot **link = &inst->snapshots;
  while (*link && (void *)*link != *FMUstate) link = &(*link)->next;
  if (!*link)
    return fail(inst, "fmi2FreeFMUstate: %p is not an FMU state of this instance (freed twice?)", *FMUstate);
  me_snapshot *snapshot = *link;
  *link = snapshot->next;
  free_snapshot(inst, snapshot);
  *FMUstate = NULL;
  return fmi2OK;
}

/* ---- initialization, termination ----------------------------------------------------------------- */

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  ENTER("fmi2SetupExperiment", IF_BOTH, ME_INSTANTIATED, ME_INSTANTIATED)
  (void)tolerance;
  char problem[SHARED_MESSAGE_SIZE];
  if (!shared_check_experiment(problem, toleranceDefined, startTime, stopTimeDefined, stopTime))
    return fail(inst, "%s", problem);
  inst->s.time = inst->s.time_floor = inst->s.last_successful_time = startTime;
  inst->s.stop_time_defined = stopTimeDefined;
  inst->s.stop_time = stopTime;
  inst->s.experiment_set_up = 1;
  return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  ENTER("fmi2EnterInitializationMode", IF_BOTH, ME_INSTANTIATED, ME_INSTANTIATED)
  if (!inst->s.experiment_set_up)
    return fail(inst, "Illegal call sequence: fmi2EnterInitializationMode in state instantiated "
                      "(fmi2SetupExperiment must be called first, 2.1.6)");
  inst->s.mode = ME_INITIALIZATION_MODE;
  return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  ENTER("fmi2ExitInitializationMode", IF_BOTH, ME_INITIALIZATION_MODE, ME_INITIALIZATION_MODE)
  compute(inst);  /* still in Initialization Mode: the calculated start values */
  if (inst->type == fmi2ModelExchange) {
    /* 3.2.3: "When the Initialization Mode is terminated with fmi2ExitInitializationMode, then Event Mode is
       directly entered" */
    inst->s.mode = ME_EVENT_MODE;
    inst->s.initial_event = 1;
    inst->s.event_iterations = 0;
    inst->s.converged = 0;
    inst->s.time_floor = inst->s.time;
  } else {
    inst->s.mode = ME_STEP_COMPLETE;
  }
  compute(inst);
  return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
  ENTER("fmi2Terminate", IF_BOTH, ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE, ME_STEP_COMPLETE | ME_STEP_FAILED)
  inst->s.mode = ME_TERMINATED;
  return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
  ENTER("fmi2Reset", IF_BOTH, ME_ALIVE, CS_ALIVE)
  set_start_values(inst);
  return fmi2OK;
}

/* ---- variable access ----------------------------------------------------------------------------- */

static const char *type_name(me_type type) {
  static const char *const names[] = {"Real", "Integer", "Boolean", "String"};
  return names[type];
}

static int find_variable(fmi2ValueReference vr) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (MODEL.variables[k].vr == vr) return k;
  return -1;
}

/* Common checks of fmi2GetXXX/fmi2SetXXX: arrays, value references and their types. */
static fmi2Status resolve(me_instance *inst, const char *fn, int type, const fmi2ValueReference vr[], size_t nvr,
                          const void *value) {
  if (nvr == 0) return fmi2OK;
  if (!vr || !value) return fail(inst, "%s: NULL vr or value array with nvr = %zu", fn, nvr);
  for (size_t k = 0; k < nvr; ++k) {
    int i = find_variable(vr[k]);
    if (i < 0) return fail(inst, "%s: unknown value reference %u", fn, vr[k]);
    if ((int)MODEL.variables[i].type != type)
      return fail(inst, "%s: value reference %u is %s, of type %s", fn, vr[k], MODEL.variables[i].name,
                  type_name(MODEL.variables[i].type));
  }
  return fmi2OK;
}

#define GET_PRELUDE(fn, type)                                         \
  ENTER(fn, IF_BOTH, ME_READABLE, CS_READABLE)                        \
  {                                                                   \
    fmi2Status resolved_ = resolve(inst, fn, type, vr, nvr, value); \
    if (resolved_ != fmi2OK || nvr == 0) return resolved_;            \
  }                                                                   \
  compute(inst);

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
  GET_PRELUDE("fmi2GetReal", ME_REAL)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(vr[k])].r;
  return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
  GET_PRELUDE("fmi2GetInteger", ME_INTEGER)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(vr[k])].i;
  return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
  GET_PRELUDE("fmi2GetBoolean", ME_BOOLEAN)
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[find_variable(vr[k])].i ? fmi2True : fmi2False;
  return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
  GET_PRELUDE("fmi2GetString", ME_STRING)
  for (size_t k = 0; k < nvr; ++k) {
    const char *text = inst->values[find_variable(vr[k])].s;
    value[k] = text ? text : "";
  }
  return fmi2OK;
}

/* NULL if v may be set in the current state, else why not: footnotes of the table in 3.2.3 (and of 4.2.4
   for Co-Simulation, where stepComplete follows the rule of Event Mode). */
static const char *not_settable(const me_instance *inst, const me_variable *v) {
  const int input = v->causality == ME_INPUT;
  if (v->variability == ME_CONSTANT) return "it is a constant";
  switch (inst->s.mode) {
    case ME_INSTANTIATED:
      if (input || v->initial == ME_EXACT || v->initial == ME_APPROX) return NULL;
      return "before Initialization Mode, only variables with initial = \"exact\" or \"approx\" and inputs can be set";
    case ME_INITIALIZATION_MODE:
      if (input || v->initial == ME_EXACT) return NULL;
      return "in Initialization Mode, only variables with initial = \"exact\" and inputs can be set";
    case ME_EVENT_MODE:
    case ME_STEP_COMPLETE:
      if (input || (v->causality == ME_PARAMETER && v->variability == ME_TUNABLE)) return NULL;
      if (v->causality == ME_PARAMETER) return "it is a fixed parameter, and fmi2ExitInitializationMode was called";
      return "after initialization, only inputs and tunable parameters can be set";
    default:  /* Continuous-Time Mode (fmi2SetReal only) */
      if (input && v->variability == ME_CONTINUOUS) return NULL;
      return "in Continuous-Time Mode, only inputs of variability \"continuous\" can be set";
  }
}

static fmi2Status check_set(me_instance *inst, const char *fn, const fmi2ValueReference vr[], size_t nvr,
                            const double *reals, const int *ints) {
  for (size_t k = 0; k < nvr; ++k) {
    const me_variable *v = &MODEL.variables[find_variable(vr[k])];
    const char *why = not_settable(inst, v);
    if (why)
      return fail(inst, "%s: cannot set %s (vr %u) in %s: %s", fn, v->name, vr[k], mode_name(inst->s.mode), why);
    double x = reals ? reals[k] : ints[k];
    if (v->type == ME_BOOLEAN && !shared_is_boolean(ints[k]))
      return fail(inst, "%s: %s = %d is not an fmi2Boolean (fmi2True = 1, fmi2False = 0)", fn, v->name, ints[k]);
    if (v->has_range && !(x >= v->min && x <= v->max))
      return fail(inst, "%s: %s = %.17g is out of its range [%g, %g]", fn, v->name, x, v->min, v->max);
  }
  return fmi2OK;
}

#define SET_PRELUDE(fn, type, me_allowed, reals, ints)                      \
  ENTER(fn, IF_BOTH, me_allowed, ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_STEP_COMPLETE) \
  {                                                                         \
    fmi2Status checked_ = resolve(inst, fn, type, vr, nvr, value);        \
    if (checked_ == fmi2OK) checked_ = check_set(inst, fn, vr, nvr, reals, ints); \
    if (checked_ != fmi2OK || nvr == 0) return checked_;                    \
  }

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
  SET_PRELUDE("fmi2SetReal", ME_REAL,
              ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE, value, NULL)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(vr[k])].r = value[k];
  return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
  SET_PRELUDE("fmi2SetInteger", ME_INTEGER, ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_EVENT_MODE, NULL, value)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(vr[k])].i = value[k];
  return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
  SET_PRELUDE("fmi2SetBoolean", ME_BOOLEAN, ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_EVENT_MODE, NULL, value)
  for (size_t k = 0; k < nvr; ++k) inst->values[find_variable(vr[k])].i = value[k];
  return fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
  ENTER("fmi2SetString", IF_BOTH, ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_EVENT_MODE,
        ME_INSTANTIATED | ME_INITIALIZATION_MODE | ME_STEP_COMPLETE)
  fmi2Status resolved = resolve(inst, "fmi2SetString", ME_STRING, vr, nvr, value);
  if (resolved != fmi2OK || nvr == 0) return resolved;
  /* String variables are computed by the model only */
  const me_variable *v = &MODEL.variables[find_variable(vr[0])];
  const char *why = not_settable(inst, v);
  return fail(inst, "fmi2SetString: cannot set %s (vr %u) in %s: %s", v->name, vr[0], mode_name(inst->s.mode),
              why ? why : "its text is computed by the model");
}

/* ---- Model Exchange: time, states, events (3.2) ---------------------------------------------------- */

/* 3.2.2: "If nextEventTimeDefined = fmi2True, then the simulation shall integrate at most until
   time = nextEventTime". Checked where a step is accepted (and where the event is entered). */
static fmi2Status check_time_event(me_instance *inst, const char *fn) {
  const double t_next = inst->s.next_event_time;
  if (inst->s.next_event_time_defined && inst->s.time > t_next + 1e-12 * fmax(1.0, fabs(t_next)))
    return fail(inst, "%s at t = %.17g: the time event at nextEventTime = %.17g (fmi2NewDiscreteStates) was passed",
                fn, inst->s.time, t_next);
  return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
  ENTER("fmi2SetTime", IF_ME, ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE, 0)
  if (!isfinite(time)) return fail(inst, "fmi2SetTime: time = %g is not finite", time);
  if (time < inst->s.time_floor)
    return fail(inst, "fmi2SetTime(%.17g): going back in time over the last fmi2CompletedIntegratorStep or event "
                      "at t = %.17g is not allowed (3.2.2)", time, inst->s.time_floor);
  if (inst->s.stop_time_defined && time > inst->s.stop_time + 1e-9 * fmax(1.0, fabs(inst->s.stop_time)))
    return fail(inst, "fmi2SetTime(%.17g): past the stopTime %.17g of fmi2SetupExperiment (2.1.6)", time,
                inst->s.stop_time);
  if (inst->s.enter_event_mode_requested && time != inst->s.time)
    return fail(inst, "fmi2SetTime(%.17g): fmi2CompletedIntegratorStep at t = %.17g returned enterEventMode = "
                      "fmi2True, fmi2EnterEventMode must be called first", time, inst->s.time);
  inst->s.time = time;
  return fmi2OK;
}

static fmi2Status check_vector(me_instance *inst, const char *fn, const char *name, const void *array, size_t n,
                               size_t expected, const char *what) {
  if (n != expected)
    return fail(inst, "%s: %s = %zu, but the FMU has %zu %s", fn, name, n, expected, what);
  if (n > 0 && !array) return fail(inst, "%s: NULL array with %s = %zu", fn, name, n);
  return fmi2OK;
}

#define CHECK(expression)                    \
  {                                          \
    fmi2Status checked_ = (expression);      \
    if (checked_ != fmi2OK) return checked_; \
  }

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
  ENTER("fmi2SetContinuousStates", IF_ME, ME_CONTINUOUS_TIME_MODE, 0)
  CHECK(check_vector(inst, "fmi2SetContinuousStates", "nx", x, nx, (size_t)MODEL.nx, "continuous states"))
  for (int k = 0; k < MODEL.nx; ++k) inst->values[MODEL.states[k]].r = x[k];
  return fmi2OK;
}

/* fmi2GetContinuousStates, fmi2GetDerivatives: x[k] = the Real variable indices[k], for the nx states */
static fmi2Status get_state_vector(me_instance *inst, const char *fn, fmi2Real x[], size_t nx, const int *indices) {
  CHECK(check_vector(inst, fn, "nx", x, nx, (size_t)MODEL.nx, "continuous states"))
  compute(inst);
  for (int k = 0; k < MODEL.nx; ++k) x[k] = inst->values[indices[k]].r;
  return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
  ENTER("fmi2GetContinuousStates", IF_ME, ME_READABLE, 0)
  return get_state_vector(inst, "fmi2GetContinuousStates", x, nx, MODEL.states);
}

/* The table of 3.2.3 allows it in instantiated but not in Initialization Mode; FMI 2.0.3 swapped that
   (fmi-standard #1301). Either revision's importer is accepted. */
fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
  ENTER("fmi2GetNominalsOfContinuousStates", IF_ME, ME_INSTANTIATED | ME_READABLE, 0)
  CHECK(check_vector(inst, "fmi2GetNominalsOfContinuousStates", "nx", x_nominal, nx, (size_t)MODEL.nx,
                     "continuous states"))
  for (int k = 0; k < MODEL.nx; ++k) x_nominal[k] = 1.0;
  return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
  ENTER("fmi2GetDerivatives", IF_ME, ME_READABLE, 0)
  CHECK(get_state_vector(inst, "fmi2GetDerivatives", derivatives, nx, MODEL.derivatives))
  return MODEL.derivatives_hook ? model_status(inst, MODEL.derivatives_hook(inst, derivatives)) : fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni) {
  ENTER("fmi2GetEventIndicators", IF_ME, ME_READABLE, 0)
  CHECK(check_vector(inst, "fmi2GetEventIndicators", "ni", eventIndicators, ni, (size_t)MODEL.nz,
                     "event indicators (numberOfEventIndicators)"))
  if (MODEL.nz == 0) return fmi2OK;
  compute(inst);
  MODEL.event_indicators(inst, eventIndicators);
  return fmi2OK;
}

fmi2Status fmi2EnterEventMode(fmi2Component c) {
  ENTER("fmi2EnterEventMode", IF_ME, ME_EVENT_MODE | ME_CONTINUOUS_TIME_MODE, 0)
  if (inst->s.terminate_requested)
    return fail(inst, "fmi2EnterEventMode: fmi2NewDiscreteStates returned terminateSimulation = fmi2True, "
                      "fmi2Terminate must be called (3.2.2)");
  if (inst->s.mode == ME_CONTINUOUS_TIME_MODE) CHECK(check_time_event(inst, "fmi2EnterEventMode"))
  inst->s.mode = ME_EVENT_MODE;
  inst->s.time_floor = inst->s.time;
  inst->s.enter_event_mode_requested = 0;
  inst->s.initial_event = 0;
  inst->s.event_iterations = 0;
  inst->s.converged = 0;
  return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo) {
  ENTER("fmi2NewDiscreteStates", IF_ME, ME_EVENT_MODE, 0)
  if (!eventInfo) return fail(inst, "fmi2NewDiscreteStates: fmi2eventInfo is NULL");
  if (inst->s.terminate_requested)
    return fail(inst, "fmi2NewDiscreteStates: the previous call returned terminateSimulation = fmi2True, "
                      "fmi2Terminate must be called (3.2.2)");
  double before[ME_MAX_STATES];
  compute(inst);
  for (int k = 0; k < MODEL.nx; ++k) before[k] = inst->values[MODEL.states[k]].r;
  me_event event = {.initial = inst->s.initial_event, .first = inst->s.event_iterations == 0};
  if (MODEL.event_update) {
    fmi2Status status = model_status(inst, MODEL.event_update(inst, &event));
    if (status >= fmi2Error) return status;
  }
  compute(inst);
  int changed = 0;
  for (int k = 0; k < MODEL.nx; ++k) changed = changed || inst->values[MODEL.states[k]].r != before[k];
  eventInfo->newDiscreteStatesNeeded = event.new_discrete_states_needed ? fmi2True : fmi2False;
  eventInfo->terminateSimulation = event.terminate_simulation ? fmi2True : fmi2False;
  eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
  eventInfo->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
  eventInfo->nextEventTimeDefined = event.next_event_time_defined ? fmi2True : fmi2False;
  eventInfo->nextEventTime = event.next_event_time_defined ? event.next_event_time : 0.0;
  inst->s.event_iterations++;
  inst->s.converged = !event.new_discrete_states_needed;
  inst->s.terminate_requested = event.terminate_simulation;
  inst->s.next_event_time_defined = event.next_event_time_defined;
  inst->s.next_event_time = eventInfo->nextEventTime;
  return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
  ENTER("fmi2EnterContinuousTimeMode", IF_ME, ME_EVENT_MODE, 0)
  /* 3.2.2/3.2.3: the event iteration ends when fmi2NewDiscreteStates returns newDiscreteStatesNeeded =
     fmi2False; with terminateSimulation = fmi2True, fmi2Terminate follows */
  if (inst->s.terminate_requested)
    return fail(inst, "fmi2EnterContinuousTimeMode: fmi2NewDiscreteStates returned terminateSimulation = fmi2True, "
                      "fmi2Terminate must be called");
  if (inst->s.event_iterations == 0)
    return fail(inst, "fmi2EnterContinuousTimeMode: fmi2NewDiscreteStates was not called in this Event Mode "
                      "(3.2.3: after an event is processed, fmi2NewDiscreteStates must be called)");
  if (!inst->s.converged)
    return fail(inst, "fmi2EnterContinuousTimeMode: the last fmi2NewDiscreteStates returned "
                      "newDiscreteStatesNeeded = fmi2True (the event iteration has not converged)");
  inst->s.mode = ME_CONTINUOUS_TIME_MODE;
  inst->s.time_floor = inst->s.time;
  return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation) {
  ENTER("fmi2CompletedIntegratorStep", IF_ME, ME_CONTINUOUS_TIME_MODE, 0)
  if (!shared_is_boolean(noSetFMUStatePriorToCurrentPoint))
    return fail(inst, "fmi2CompletedIntegratorStep: noSetFMUStatePriorToCurrentPoint = %d is not an fmi2Boolean",
                noSetFMUStatePriorToCurrentPoint);
  if (!enterEventMode || !terminateSimulation)
    return fail(inst, "fmi2CompletedIntegratorStep: enterEventMode and terminateSimulation must not be NULL");
  if (inst->s.enter_event_mode_requested)
    return fail(inst, "fmi2CompletedIntegratorStep: the previous call returned enterEventMode = fmi2True, "
                      "fmi2EnterEventMode must be called first");
  CHECK(check_time_event(inst, "fmi2CompletedIntegratorStep"))
  inst->s.time_floor = inst->s.time;
  int enter_event = 0;
  if (MODEL.completed_integrator_step) {
    compute(inst);
    fmi2Status status = model_status(inst, MODEL.completed_integrator_step(inst, &enter_event));
    if (status >= fmi2Error) return status;
  }
  inst->s.enter_event_mode_requested = enter_event;
  *enterEventMode = enter_event ? fmi2True : fmi2False;
  *terminateSimulation = fmi2False;
  return fmi2OK;
}

/* ---- Co-Simulation (4.2), for the FMUs with me_model.do_step ---------------------------------------- */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  ENTER("fmi2DoStep", IF_CS, 0, ME_STEP_COMPLETE)
  const double t = currentCommunicationPoint, h = communicationStepSize;
  char problem[SHARED_MESSAGE_SIZE];
  if (!shared_check_step(problem, t, h, noSetFMUStatePriorToCurrentPoint, inst->s.time, inst->s.stop_time_defined,
                         inst->s.stop_time))
    return fail(inst, "%s", problem);
  compute(inst);
  fmi2Status status = model_status(inst, MODEL.do_step(inst, t, h));
  if (status <= fmi2Warning) {
    inst->s.time = inst->s.last_successful_time = t + h;
  } else if (status == fmi2Discard) {  /* the model has set the time it reached */
    inst->s.last_successful_time = inst->s.time;
    inst->s.mode = ME_STEP_FAILED;
  }
  return status;
}
