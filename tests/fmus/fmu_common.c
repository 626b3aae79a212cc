/* The fmi2 functions of the test FMUs, written from the FMI 2.0.x standard (chapters 2 and 4):
 * state machine of section 4.2.4, made stricter where the standard leaves room (see fmu_common.h). */
#include "fmu_common.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL fmu_model_definition
#define INSTANCE_MAGIC 0x46e2c05au

/* States of the Co-Simulation state machine that these FMUs can reach (no asynchronous steps, so never
   stepInProgress or stepCanceled). A bit mask, so that each function lists where it is allowed. */
enum {
  ST_INSTANTIATED = 1u << 0,
  ST_INIT = 1u << 1,
  ST_STEP_COMPLETE = 1u << 2,
  ST_STEP_FAILED = 1u << 3,
  ST_TERMINATED = 1u << 4,
  ST_ERROR = 1u << 5,
};
#define ST_ALIVE (ST_INSTANTIATED | ST_INIT | ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED)
#define ST_READABLE (ST_INIT | ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED)
#define ST_WRITABLE (ST_INSTANTIATED | ST_INIT | ST_STEP_COMPLETE)

static const char *state_name(unsigned state) {
  switch (state) {
    case ST_INSTANTIATED: return "instantiated";
    case ST_INIT: return "initializationMode";
    case ST_STEP_COMPLETE: return "stepComplete";
    case ST_STEP_FAILED: return "stepFailed";
    case ST_TERMINATED: return "terminated";
    default: return "error";
  }
}

/* fmi2Fatal concerns every instance of the FMU (standard, 2.1.3): one flag for the loaded library. */
static int g_fatal = 0;

/* ---- logging ------------------------------------------------------------------------------------- */

static const char *const k_categories[] = {"logEvents",     "logStatusWarning", "logStatusDiscard",
                                           "logStatusError", "logStatusFatal",   "logAll"};
enum { N_CATEGORIES = sizeof k_categories / sizeof k_categories[0], LOG_ALL_MASK = (1u << N_CATEGORIES) - 1 };

static int category_of(fmi2Status status) {
  switch (status) {
    case fmi2OK: return 0;
    case fmi2Warning: return 1;
    case fmi2Discard: return 2;
    case fmi2Error: return 3;
    default: return 4;
  }
}

static void vlog(fmu_instance *inst, fmi2Status status, const char *format, va_list args) {
  int category = category_of(status);
  if (status < fmi2Error && !(inst->log_mask & (1u << category))) return;
  char message[2048];
  vsnprintf(message, sizeof message, format, args);
  /* the message is a printf format for the importer: hand it over as an argument of "%s" */
  inst->cb.logger(inst->cb.componentEnvironment, inst->name ? inst->name : "", status, k_categories[category], "%s",
                  message);
}

void fmu_log(fmu_instance *inst, fmi2Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vlog(inst, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and return fmi2Error. */
static fmi2Status fail(fmu_instance *inst, const char *format, ...) __attribute__((format(printf, 2, 3)));
static fmi2Status fail(fmu_instance *inst, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vlog(inst, fmi2Error, format, args);
  va_end(args);
  inst->state = ST_ERROR;
  return fmi2Error;
}

/* ---- memory -------------------------------------------------------------------------------------- */

static void *allocate(fmu_instance *inst, size_t n, size_t size) {
  void *p = inst->cb.allocateMemory(n, size);
  if (p) memset(p, 0, n * size);
  return p;
}

static void release(fmu_instance *inst, void *p) {
  if (p) inst->cb.freeMemory(p);
}

char *fmu_strdup(fmu_instance *inst, const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = allocate(inst, n, 1);
  if (copy) memcpy(copy, s, n);
  return copy;
}

int fmu_set_string(fmu_instance *inst, int idx, const char *s) {
  char *copy = fmu_strdup(inst, s);
  if (!copy) return 0;
  release(inst, inst->values[idx].s);
  inst->values[idx].s = copy;
  return 1;
}

static void release_returned(fmu_instance *inst) {
  for (size_t k = 0; k < inst->n_returned; ++k) release(inst, inst->returned[k]);
  release(inst, inst->returned);
  inst->returned = NULL;
  inst->n_returned = 0;
}

static int set_start_values(fmu_instance *inst) {
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu_variable *v = &MODEL.variables[k];
    inst->values[k].r = v->start;
    if (v->type != FMU_REAL) inst->values[k].i = (int)v->start; /* a Real start (1e300) fits no int */
    if (v->type == FMU_STRING && !fmu_set_string(inst, k, v->start_string ? v->start_string : "")) return 0;
  }
  return 1;
}

/* ---- entering a function: the state machine ------------------------------------------------------ */

/* Checks that `fn` may be called now; on success *out is the instance and fmi2OK is returned. */
static fmi2Status enter(fmi2Component c, const char *fn, unsigned allowed, fmu_instance **out) {
  *out = NULL;
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: %s after fmi2Fatal\n", fn);
    return fmi2Fatal;
  }
  fmu_instance *inst = c;
  if (!inst || inst->magic != INSTANCE_MAGIC) {
    fprintf(stderr, "%s: %p is not a live instance of %s\n", fn, c, MODEL.model_identifier);
    return fmi2Error;
  }
  release_returned(inst);
  if (inst->state == ST_ERROR) {
    fmu_log(inst, fmi2Error, "Illegal call sequence: %s after fmi2Error", fn);
    fprintf(stderr, "Illegal call sequence: %s after fmi2Error\n", fn);
    return fmi2Error;
  }
  if (!(inst->state & allowed)) return fail(inst, "Illegal call sequence: %s in state %s", fn, state_name(inst->state));
  *out = inst;
  return fmi2OK;
}

#define ENTER(fn, allowed)                              \
  fmu_instance *inst;                                   \
  {                                                     \
    fmi2Status entered_ = enter(c, fn, allowed, &inst); \
    if (entered_ != fmi2OK) return entered_;            \
  }

static int is_boolean(fmi2Boolean b) { return b == fmi2True || b == fmi2False; }

/* ---- common functions ---------------------------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
  ENTER("fmi2SetDebugLogging", ST_ALIVE)
  if (!is_boolean(loggingOn)) return fail(inst, "fmi2SetDebugLogging: loggingOn = %d is not an fmi2Boolean", loggingOn);
  if (nCategories > 0 && !categories) return fail(inst, "fmi2SetDebugLogging: categories is NULL, nCategories = %zu", nCategories);
  unsigned mask = 0;
  for (size_t k = 0; k < nCategories; ++k) {
    int found = -1;
    for (int j = 0; j < N_CATEGORIES && categories[k]; ++j)
      if (strcmp(categories[k], k_categories[j]) == 0) found = j;
    if (found < 0)
      return fail(inst, "fmi2SetDebugLogging: unknown log category \"%s\"", categories[k] ? categories[k] : "(NULL)");
    mask |= strcmp(k_categories[found], "logAll") == 0 ? (unsigned)LOG_ALL_MASK : 1u << found;
  }
  if (nCategories == 0) mask = LOG_ALL_MASK;
  inst->log_mask = loggingOn ? inst->log_mask | mask : inst->log_mask & ~mask;
  return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: fmi2Instantiate after fmi2Fatal\n");
    return NULL;
  }
  if (!functions || !functions->logger || !functions->allocateMemory || !functions->freeMemory) {
    fprintf(stderr, "fmi2Instantiate(%s): functions, logger, allocateMemory and freeMemory must not be NULL\n",
            MODEL.model_identifier);
    return NULL;
  }
  fmu_instance *inst = functions->allocateMemory(1, sizeof *inst);
  if (!inst) {
    functions->logger(functions->componentEnvironment, instanceName ? instanceName : "", fmi2Error, "logStatusError",
                      "fmi2Instantiate: out of memory");
    return NULL;
  }
  memset(inst, 0, sizeof *inst);
  memcpy(&inst->cb, functions, sizeof inst->cb);
  inst->log_mask = LOG_ALL_MASK;  /* loggingOn is checked below, and may be invalid */
  inst->state = ST_INSTANTIATED;
  inst->magic = INSTANCE_MAGIC;

  char problem[512] = "";
  int blank = 1;
  for (const char *p = instanceName; p && *p; ++p) blank = blank && isspace((unsigned char)*p);
  if (!instanceName || blank)
    snprintf(problem, sizeof problem, "instanceName must be a non-empty string");
  else if (!(inst->name = fmu_strdup(inst, instanceName)) ||
           !(inst->values = allocate(inst, (size_t)MODEL.n_variables, sizeof *inst->values)) || !set_start_values(inst))
    snprintf(problem, sizeof problem, "out of memory");
  else if (fmuType != fmi2CoSimulation)
    snprintf(problem, sizeof problem, "fmuType = %d, but %s is a Co-Simulation FMU (fmi2CoSimulation = %d)",
             (int)fmuType, MODEL.model_identifier, (int)fmi2CoSimulation);
  else if (!fmuGUID || strcmp(fmuGUID, MODEL.guid) != 0)
    snprintf(problem, sizeof problem, "fmuGUID \"%s\" is not the guid \"%s\" of modelDescription.xml",
             fmuGUID ? fmuGUID : "(NULL)", MODEL.guid);
  else if (!is_boolean(visible) || !is_boolean(loggingOn))
    snprintf(problem, sizeof problem, "visible = %d and loggingOn = %d must be fmi2True or fmi2False", visible,
             loggingOn);
  if (problem[0]) {
    fmu_log(inst, fmi2Error, "fmi2Instantiate: %s", problem);
    inst->magic = 0;
    if (inst->values)
      for (int k = 0; k < MODEL.n_variables; ++k) release(inst, inst->values[k].s);
    release(inst, inst->values);
    release(inst, inst->name);
    inst->cb.freeMemory(inst);
    return NULL;
  }
  inst->log_mask = loggingOn ? LOG_ALL_MASK : 0;
  if (MODEL.instantiate && MODEL.instantiate(inst, fmuResourceLocation) != 0) {
    fmi2FreeInstance(inst);
    return NULL;
  }
  fmu_log(inst, fmi2OK, "fmi2Instantiate: %s instantiated", MODEL.model_identifier);
  return inst;
}

void fmi2FreeInstance(fmi2Component c) {
  if (!c) return;  /* the standard: a NULL pointer is ignored */
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: fmi2FreeInstance after fmi2Fatal\n");
    return;
  }
  fmu_instance *inst = c;
  if (inst->magic != INSTANCE_MAGIC) {
    fprintf(stderr, "fmi2FreeInstance: %p is not a live instance of %s (freed twice?)\n", c, MODEL.model_identifier);
    return;
  }
  release_returned(inst);
  inst->magic = 0;
  for (int k = 0; k < MODEL.n_variables; ++k) release(inst, inst->values[k].s);
  release(inst, inst->values);
  release(inst, inst->name);
  fmi2CallbackFreeMemory free_memory = inst->cb.freeMemory;
  free_memory(inst);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  ENTER("fmi2SetupExperiment", ST_INSTANTIATED)
  (void)tolerance;
  if (!is_boolean(toleranceDefined) || !is_boolean(stopTimeDefined))
    return fail(inst, "fmi2SetupExperiment: toleranceDefined/stopTimeDefined must be fmi2True or fmi2False");
  if (!isfinite(startTime)) return fail(inst, "fmi2SetupExperiment: startTime = %g is not finite", startTime);
  if (stopTimeDefined && !(stopTime >= startTime))
    return fail(inst, "fmi2SetupExperiment: stopTime = %.17g is before startTime = %.17g", stopTime, startTime);
  inst->time = inst->last_successful_time = startTime;
  inst->stop_time_defined = stopTimeDefined;
  inst->stop_time = stopTime;
  inst->experiment_set_up = 1;
  return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  ENTER("fmi2EnterInitializationMode", ST_INSTANTIATED)
  if (!inst->experiment_set_up)
    return fail(inst, "Illegal call sequence: fmi2EnterInitializationMode in state instantiated "
                      "(fmi2SetupExperiment must be called first)");
  inst->state = ST_INIT;
  return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  ENTER("fmi2ExitInitializationMode", ST_INIT)
  inst->state = ST_STEP_COMPLETE;
  return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
  ENTER("fmi2Terminate", ST_STEP_COMPLETE | ST_STEP_FAILED)
  inst->state = ST_TERMINATED;
  return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
  ENTER("fmi2Reset", ST_ALIVE)
  if (!set_start_values(inst)) return fail(inst, "fmi2Reset: out of memory");
  inst->state = ST_INSTANTIATED;
  inst->experiment_set_up = 0;
  inst->time = inst->last_successful_time = 0.0;
  inst->stop_time_defined = 0;
  inst->terminated = 0;
  inst->steps = 0;
  return fmi2OK;
}

/* ---- variable access ----------------------------------------------------------------------------- */

static const char *type_name(fmu_type type) {
  static const char *const names[] = {"Real", "Integer", "Boolean", "String", "Enumeration"};
  return names[type];
}

static int find_variable(fmi2ValueReference vr) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (MODEL.variables[k].vr == vr) return k;
  return -1;
}

/* Common part of fmi2GetXXX/fmi2SetXXX: state, arrays, value references and their types. The indices
   of the variables are stored in idx[] (at most nvr entries; allocated). */
static fmi2Status resolve(fmi2Component c, const char *fn, int set, fmu_type type, const fmi2ValueReference vr[],
                          size_t nvr, const void *value, fmu_instance **out, int **idx) {
  *idx = NULL;
  fmi2Status status = enter(c, fn, set ? ST_WRITABLE : ST_READABLE, out);
  if (status != fmi2OK) return status;
  fmu_instance *inst = *out;
  if (nvr == 0) return fmi2OK;
  if (!vr || !value) return fail(inst, "%s: NULL vr or value array with nvr = %zu", fn, nvr);
  if (!(*idx = allocate(inst, nvr, sizeof **idx))) return fail(inst, "%s: out of memory", fn);
  for (size_t k = 0; k < nvr; ++k) {
    int i = find_variable(vr[k]);
    if (i < 0) {
      release(inst, *idx);
      *idx = NULL;
      return fail(inst, "%s: unknown value reference %u", fn, vr[k]);
    }
    fmu_type actual = MODEL.variables[i].type;
    if (actual != type && !(type == FMU_INTEGER && actual == FMU_ENUMERATION)) {
      release(inst, *idx);
      *idx = NULL;
      return fail(inst, "%s: value reference %u is %s, of type %s, not %s", fn, vr[k], MODEL.variables[i].name,
                  type_name(actual), type_name(type));
    }
    (*idx)[k] = i;
  }
  return fmi2OK;
}

#define RESOLVE(fn, set, type)                                                     \
  fmu_instance *inst;                                                              \
  int *idx;                                                                      \
  {                                                                                \
    fmi2Status resolved_ = resolve(c, fn, set, type, vr, nvr, value, &inst, &idx); \
    if (resolved_ != fmi2OK || nvr == 0) return resolved_;                         \
  }

static void compute(fmu_instance *inst) {
  if (MODEL.compute) MODEL.compute(inst);
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
  RESOLVE("fmi2GetReal", 0, FMU_REAL)
  compute(inst);
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[idx[k]].r;
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
  RESOLVE("fmi2GetInteger", 0, FMU_INTEGER)
  compute(inst);
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[idx[k]].i;
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
  RESOLVE("fmi2GetBoolean", 0, FMU_BOOLEAN)
  compute(inst);
  for (size_t k = 0; k < nvr; ++k) value[k] = inst->values[idx[k]].i ? fmi2True : fmi2False;
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
  RESOLVE("fmi2GetString", 0, FMU_STRING)
  compute(inst);
  /* fresh copies, freed at the next call: an importer keeping them longer reads freed memory */
  inst->returned = allocate(inst, nvr, sizeof *inst->returned);
  if (!inst->returned) {
    release(inst, idx);
    return fail(inst, "fmi2GetString: out of memory");
  }
  inst->n_returned = nvr;
  for (size_t k = 0; k < nvr; ++k) {
    inst->returned[k] = fmu_strdup(inst, inst->values[idx[k]].s);
    if (!inst->returned[k]) {
      release(inst, idx);
      return fail(inst, "fmi2GetString: out of memory");
    }
    value[k] = inst->returned[k];
  }
  release(inst, idx);
  return fmi2OK;
}

/* NULL if variable k may be set in the current state, else why not. */
static const char *not_settable(const fmu_instance *inst, const fmu_variable *v) {
  switch (v->causality) {
    case FMU_INPUT: return NULL;  /* ST_WRITABLE already checked */
    case FMU_PARAMETER:
      if (v->variability == FMU_CONSTANT) return "it is a constant";
      if (inst->state != ST_STEP_COMPLETE || v->variability == FMU_TUNABLE) return NULL;
      return "it is a fixed parameter, and fmi2ExitInitializationMode was called";
    case FMU_CALCULATED_PARAMETER: return "it is a calculatedParameter";
    case FMU_OUTPUT: return "it is an output";
    default: return "it is a local variable";
  }
}

static fmi2Status check_settable(fmu_instance *inst, const char *fn, const fmi2ValueReference vr[], size_t nvr,
                                 const int *idx) {
  for (size_t k = 0; k < nvr; ++k) {
    const char *why = not_settable(inst, &MODEL.variables[idx[k]]);
    if (why) return fail(inst, "%s: cannot set %s (vr %u) in state %s: %s", fn, MODEL.variables[idx[k]].name, vr[k],
                         state_name(inst->state), why);
  }
  return fmi2OK;
}

static fmi2Status check_range(fmu_instance *inst, const fmu_variable *v, double x) {
  if (v->type == FMU_ENUMERATION) {
    const fmu_enumeration *e = v->enumeration;
    for (int j = 0; j < e->n_items; ++j)
      if (e->items[j] == x) return fmi2OK;
    return fail(inst, "%s: %g is not a legal value of %s (%d..%d)", v->name, x, e->name, e->items[0],
                e->items[e->n_items - 1]);
  }
  if (v->has_range && !(x >= v->min && x <= v->max))
    return fail(inst, "%s: %.17g is out of its range [%g, %g]", v->name, x, v->min, v->max);
  return fmi2OK;
}

#define CHECK(expression)                           \
  {                                                 \
    fmi2Status checked_ = (expression);             \
    if (checked_ != fmi2OK) {                       \
      release(inst, idx);                         \
      return checked_;                              \
    }                                               \
  }

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
  RESOLVE("fmi2SetReal", 1, FMU_REAL)
  CHECK(check_settable(inst, "fmi2SetReal", vr, nvr, idx))
  for (size_t k = 0; k < nvr; ++k) CHECK(check_range(inst, &MODEL.variables[idx[k]], value[k]))
  for (size_t k = 0; k < nvr; ++k) inst->values[idx[k]].r = value[k];
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
  RESOLVE("fmi2SetInteger", 1, FMU_INTEGER)
  CHECK(check_settable(inst, "fmi2SetInteger", vr, nvr, idx))
  for (size_t k = 0; k < nvr; ++k) CHECK(check_range(inst, &MODEL.variables[idx[k]], value[k]))
  for (size_t k = 0; k < nvr; ++k) inst->values[idx[k]].i = value[k];
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
  RESOLVE("fmi2SetBoolean", 1, FMU_BOOLEAN)
  CHECK(check_settable(inst, "fmi2SetBoolean", vr, nvr, idx))
  for (size_t k = 0; k < nvr; ++k)
    if (!is_boolean(value[k]))
      CHECK(fail(inst, "%s: %d is not an fmi2Boolean (fmi2True = 1, fmi2False = 0)", MODEL.variables[idx[k]].name,
                 value[k]))
  for (size_t k = 0; k < nvr; ++k) inst->values[idx[k]].i = value[k];
  release(inst, idx);
  return fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
  RESOLVE("fmi2SetString", 1, FMU_STRING)
  CHECK(check_settable(inst, "fmi2SetString", vr, nvr, idx))
  for (size_t k = 0; k < nvr; ++k)
    if (!value[k]) CHECK(fail(inst, "%s: NULL string", MODEL.variables[idx[k]].name))
  for (size_t k = 0; k < nvr; ++k)
    if (!fmu_set_string(inst, idx[k], value[k])) CHECK(fail(inst, "fmi2SetString: out of memory"))
  release(inst, idx);
  return fmi2OK;
}

/* ---- unsupported capabilities -------------------------------------------------------------------- */

#define UNSUPPORTED(fn, allowed, flag)                                                        \
  {                                                                                           \
    ENTER(fn, allowed)                                                                        \
    return fail(inst, "%s is not supported by %s (%s)", fn, MODEL.model_identifier, flag); \
  }

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  (void)FMUstate;
  UNSUPPORTED("fmi2GetFMUstate", ST_ALIVE, "canGetAndSetFMUstate=\"false\"")
}
fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
  (void)FMUstate;
  UNSUPPORTED("fmi2SetFMUstate", ST_ALIVE, "canGetAndSetFMUstate=\"false\"")
}
fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  (void)FMUstate;
  UNSUPPORTED("fmi2FreeFMUstate", ST_ALIVE, "canGetAndSetFMUstate=\"false\"")
}
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size) {
  (void)FMUstate;
  (void)size;
  UNSUPPORTED("fmi2SerializedFMUstateSize", ST_ALIVE, "canSerializeFMUstate=\"false\"")
}
fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size) {
  (void)FMUstate;
  (void)serializedState;
  (void)size;
  UNSUPPORTED("fmi2SerializeFMUstate", ST_ALIVE, "canSerializeFMUstate=\"false\"")
}
fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate) {
  (void)serializedState;
  (void)size;
  (void)FMUstate;
  UNSUPPORTED("fmi2DeSerializeFMUstate", ST_ALIVE, "canSerializeFMUstate=\"false\"")
}
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[]) {
  (void)vUnknown_ref;
  (void)nUnknown;
  (void)vKnown_ref;
  (void)nKnown;
  (void)dvKnown;
  (void)dvUnknown;
  UNSUPPORTED("fmi2GetDirectionalDerivative", ST_READABLE, "providesDirectionalDerivative=\"false\"")
}
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  UNSUPPORTED("fmi2SetRealInputDerivatives", ST_WRITABLE, "canInterpolateInputs=\"false\"")
}
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  UNSUPPORTED("fmi2GetRealOutputDerivatives", ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED,
              "maxOutputDerivativeOrder=\"0\"")
}

/* ---- stepping ------------------------------------------------------------------------------------ */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  ENTER("fmi2DoStep", ST_STEP_COMPLETE)
  const double t = currentCommunicationPoint, h = communicationStepSize;
  if (!is_boolean(noSetFMUStatePriorToCurrentPoint))
    return fail(inst, "fmi2DoStep: noSetFMUStatePriorToCurrentPoint = %d is not an fmi2Boolean",
                noSetFMUStatePriorToCurrentPoint);
  if (!isfinite(t) || !(fabs(t - inst->time) <= 1e-9 * fmax(1.0, fabs(inst->time))))
    return fail(inst, "fmi2DoStep: currentCommunicationPoint = %.17g, but the FMU is at t = %.17g", t, inst->time);
  if (!(h > 0.0) || !isfinite(h))
    return fail(inst, "fmi2DoStep: communicationStepSize = %.17g, must be > 0", h);
  if (inst->stop_time_defined && t + h > inst->stop_time + 1e-9 * fmax(1.0, fabs(inst->stop_time)))
    return fail(inst, "fmi2DoStep: t + h = %.17g is past the stopTime %.17g of fmi2SetupExperiment", t + h,
                inst->stop_time);
  fmi2Status status = MODEL.do_step ? MODEL.do_step(inst, t, h) : fmi2OK;
  switch (status) {
    case fmi2OK:
    case fmi2Warning:
      inst->time = t + h;
      inst->steps++;
      inst->last_successful_time = inst->time;
      break;
    case fmi2Discard:
      inst->last_successful_time = inst->time;
      inst->state = ST_STEP_FAILED;
      break;
    case fmi2Fatal: g_fatal = 1; break;
    default: inst->state = ST_ERROR; break;
  }
  return status;
}

fmi2Status fmi2CancelStep(fmi2Component c) {
  ENTER("fmi2CancelStep", 0)  /* only in stepInProgress, which is never reached: no fmi2Pending */
  return fmi2Error;
}

static const char *kind_name(fmi2StatusKind s) {
  switch (s) {
    case fmi2DoStepStatus: return "fmi2DoStepStatus";
    case fmi2PendingStatus: return "fmi2PendingStatus";
    case fmi2LastSuccessfulTime: return "fmi2LastSuccessfulTime";
    case fmi2Terminated: return "fmi2Terminated";
    default: return "(not an fmi2StatusKind)";
  }
}

/* fmi2GetXXXStatus: allowed in stepComplete, stepFailed and terminated; s must be the kind that the
   standard gives to that function; value must not be NULL. */
#define STATUS_PRELUDE(fn, kind)                                                                           \
  ENTER(fn, ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED)                                             \
  if (!value) return fail(inst, "%s: value is NULL", fn);                                                  \
  if (s != (kind)) return fail(inst, "%s: status kind %s does not belong to this function", fn, kind_name(s));

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
  STATUS_PRELUDE("fmi2GetStatus", fmi2DoStepStatus)
  fmu_log(inst, fmi2Discard, "fmi2GetStatus(fmi2DoStepStatus): no asynchronous fmi2DoStep is pending");
  return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
  STATUS_PRELUDE("fmi2GetRealStatus", fmi2LastSuccessfulTime)
  *value = inst->last_successful_time;
  return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
  ENTER("fmi2GetIntegerStatus", ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED)
  (void)value;
  return fail(inst, "fmi2GetIntegerStatus: no integer status is defined (asked for %s)", kind_name(s));
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value) {
  STATUS_PRELUDE("fmi2GetBooleanStatus", fmi2Terminated)
  *value = inst->terminated ? fmi2True : fmi2False;
  return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value) {
  STATUS_PRELUDE("fmi2GetStringStatus", fmi2PendingStatus)
  fmu_log(inst, fmi2Discard, "fmi2GetStringStatus(fmi2PendingStatus): no asynchronous fmi2DoStep is pending");
  return fmi2Discard;
}

/* ---- resources ----------------------------------------------------------------------------------- */

static int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* RFC 3986 path characters that need no percent-encoding: unreserved, sub-delims, ':', '@', '/' */
static int allowed_in_path(char ch) {
  return isalnum((unsigned char)ch) || (ch && strchr("-._~!$&'()*+,;=:@/", ch) != NULL);
}

char *fmu_resource_directory(fmu_instance *inst, const char *uri) {
  if (!uri) {
    fmu_log(inst, fmi2Error, "fmuResourceLocation is NULL");
    return NULL;
  }
  const char *path;
  if (strncmp(uri, "file:///", 8) == 0)
    path = uri + 7;
  else if (strncmp(uri, "file:/", 6) == 0 && uri[6] != '/')
    path = uri + 5;
  else {
    fmu_log(inst, fmi2Error, "fmuResourceLocation \"%s\" is not a file:///absolute/path or file:/absolute/path URI", uri);
    return NULL;
  }
  char *decoded = fmu_strdup(inst, path);  /* decoding only shortens */
  if (!decoded) {
    fmu_log(inst, fmi2Error, "out of memory");
    return NULL;
  }
  size_t n = 0;
  for (const char *p = path; *p; ++p) {
    if (*p == '%') {
      int hi = hex_digit(p[1]), lo = hi < 0 ? -1 : hex_digit(p[2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
        fmu_log(inst, fmi2Error, "fmuResourceLocation \"%s\": bad percent-encoding at \"%.3s\"", uri, p);
        release(inst, decoded);
        return NULL;
      }
      decoded[n++] = (char)(hi * 16 + lo);
      p += 2;
    } else if (allowed_in_path(*p)) {
      decoded[n++] = *p;
    } else {
      fmu_log(inst, fmi2Error, "fmuResourceLocation \"%s\": character '%c' (0x%02x) must be percent-encoded", uri, *p,
              (unsigned char)*p);
      release(inst, decoded);
      return NULL;
    }
  }
  while (n > 1 && decoded[n - 1] == '/') --n;
  decoded[n] = '\0';
  return decoded;
}
