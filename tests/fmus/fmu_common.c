/* The fmi2 functions of the test FMUs, written from the FMI 2.0.x standard (chapters 2 and 4):
 * state machine of section 4.2.4, made stricter where the standard leaves room (see fmu_common.h).
 * The functions and helpers that the Model Exchange runtime has too are in fmu_shared.c. */
#include "fmu_common.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmu_shared.h"

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

void fmu_log(fmu_instance *inst, fmi2Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  shared_vlog(&inst->cb, inst->name, inst->log_mask, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and evaluate to fmi2Error: return fail(inst, ...). */
#define fail(inst, ...) (fmu_log((inst), fmi2Error, __VA_ARGS__), (inst)->state = ST_ERROR, fmi2Error)

/* ---- memory -------------------------------------------------------------------------------------- */

static void *allocate(fmu_instance *inst, size_t n, size_t size) { return shared_allocate(&inst->cb, n, size); }
static void release(fmu_instance *inst, void *p) { shared_release(&inst->cb, p); }
char *fmu_strdup(fmu_instance *inst, const char *s) { return shared_strdup(&inst->cb, s); }

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

int fmu_restore_start(fmu_instance *inst, int idx) {
  const fmu_variable *v = &MODEL.variables[idx];
  inst->values[idx].r = v->start;
  if (v->type != FMU_REAL) inst->values[idx].i = (int)v->start; /* a Real start (1e300) fits no int */
  return v->type != FMU_STRING || fmu_set_string(inst, idx, v->start_string ? v->start_string : "");
}

static int set_start_values(fmu_instance *inst) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (!fmu_restore_start(inst, k)) return 0;
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
  if (!shared_is_instance(c, INSTANCE_MAGIC, fn, MODEL.model_identifier, "")) return fmi2Error;
  fmu_instance *inst = c;
  release_returned(inst);
  if (inst->state == ST_ERROR) return shared_after_error(&inst->cb, inst->name, fn);
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

/* The functions of fmu_shared.c enter here: their states mapped to those of 4.2.4. */
fmi2Status runtime_enter(fmi2Component c, const char *fn, shared_states states, shared_instance *shared) {
  static const unsigned allowed[] = {
    [SHARED_ALIVE] = ST_ALIVE,
    [SHARED_READABLE] = ST_READABLE,
    [SHARED_CS_INPUTS] = ST_WRITABLE,
    [SHARED_CS_STEPPED] = ST_STEP_COMPLETE | ST_STEP_FAILED | ST_TERMINATED,
    [SHARED_CS_PENDING] = 0,
  };
  ENTER(fn, allowed[states])
  *shared = (shared_instance){&inst->cb, inst->name, &inst->log_mask, &inst->state, ST_ERROR, MODEL.model_identifier,
                              inst->last_successful_time, inst->terminated};
  return fmi2OK;
}

static void free_instance(fmu_instance *inst) {
  release_returned(inst);
  inst->magic = 0;
  if (inst->values)
    for (int k = 0; k < MODEL.n_variables; ++k) release(inst, inst->values[k].s);
  release(inst, inst->values);
  release(inst, inst->name);
  fmi2CallbackFreeMemory free_memory = inst->cb.freeMemory;
  free_memory(inst);
}

/* ---- instantiation ------------------------------------------------------------------------------- */

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: fmi2Instantiate after fmi2Fatal\n");
    return NULL;
  }
  fmu_instance *inst = shared_new_instance(instanceName, functions, sizeof *inst, MODEL.model_identifier);
  if (!inst) return NULL;
  memcpy(&inst->cb, functions, sizeof inst->cb);
  inst->log_mask = SHARED_LOG_ALL;  /* loggingOn is checked below, and may be invalid */
  inst->state = ST_INSTANTIATED;
  inst->magic = INSTANCE_MAGIC;

  char problem[512] = "";
  if (shared_is_blank(instanceName))
    snprintf(problem, sizeof problem, "instanceName must be a non-empty string");
  else if (!(inst->name = fmu_strdup(inst, instanceName)) ||
           !(inst->values = allocate(inst, (size_t)MODEL.n_variables, sizeof *inst->values)) || !set_start_values(inst))
    snprintf(problem, sizeof problem, "out of memory");
  else if (fmuType != fmi2CoSimulation)
    snprintf(problem, sizeof problem, "fmuType = %d, but %s is a Co-Simulation FMU (fmi2CoSimulation = %d)",
             (int)fmuType, MODEL.model_identifier, (int)fmi2CoSimulation);
  else
    shared_check_instantiate(problem, sizeof problem, fmuGUID, MODEL.guid, visible, loggingOn);
  if (problem[0]) {
    fmu_log(inst, fmi2Error, "fmi2Instantiate: %s", problem);
    free_instance(inst);
    return NULL;
  }
  inst->log_mask = loggingOn ? SHARED_LOG_ALL : 0;
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
  if (shared_is_instance(c, INSTANCE_MAGIC, "fmi2FreeInstance", MODEL.model_identifier, " (freed twice?)")) {
    if (MODEL.free_instance) MODEL.free_instance(c);
    free_instance(c);
  }
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  ENTER("fmi2SetupExperiment", ST_INSTANTIATED)
  (void)tolerance;
  char problem[SHARED_MESSAGE_SIZE];
  if (!shared_check_experiment(problem, toleranceDefined, startTime, stopTimeDefined, stopTime))
    return fail(inst, "%s", problem);
  inst->time = inst->last_successful_time = startTime;
  inst->stop_time_defined = stopTimeDefined;
  inst->stop_time = stopTime;
  inst->experiment_set_up = 1;
  if (MODEL.setup_experiment && MODEL.setup_experiment(inst) != 0) {
    inst->state = ST_ERROR;
    return fmi2Error;
  }
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
  if (MODEL.exit_initialization) MODEL.exit_initialization(inst);
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
    if (!shared_is_boolean(value[k]))
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

/* ---- FMU states (the other capabilities that no test FMU has are in fmu_shared.c) --------------- */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  (void)FMUstate;
  return shared_unsupported(c, "fmi2GetFMUstate", SHARED_ALIVE, "canGetAndSetFMUstate=\"false\"");
}
fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
  (void)FMUstate;
  return shared_unsupported(c, "fmi2SetFMUstate", SHARED_ALIVE, "canGetAndSetFMUstate=\"false\"");
}
fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
  (void)FMUstate;
  return shared_unsupported(c, "fmi2FreeFMUstate", SHARED_ALIVE, "canGetAndSetFMUstate=\"false\"");
}

/* ---- stepping ------------------------------------------------------------------------------------ */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  ENTER("fmi2DoStep", ST_STEP_COMPLETE)
  const double t = currentCommunicationPoint, h = communicationStepSize;
  char problem[SHARED_MESSAGE_SIZE];
  if (!shared_check_step(problem, t, h, noSetFMUStatePriorToCurrentPoint, inst->time, inst->stop_time_defined,
                         inst->stop_time))
    return fail(inst, "%s", problem);
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
