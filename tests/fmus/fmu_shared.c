/* The part of the fmi2 functions that both runtimes of the test FMUs share (see fmu_shared.h), written from
 * the FMI 2.0.x standard (chapters 2 and 4). */
#include "fmu_shared.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- logging ------------------------------------------------------------------------------------- */

static const char *const k_categories[SHARED_N_LOG_CATEGORIES] = {
  "logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logStatusFatal", "logAll"};

static int category_of(fmi2Status status) {
  switch (status) {
    case fmi2OK: return 0;
    case fmi2Warning: return 1;
    case fmi2Discard: return 2;
    case fmi2Error: return 3;
    default: return 4;
  }
}

static void emit(const fmi2CallbackFunctions *cb, const char *instance_name, fmi2Status status, const char *message) {
  /* the message is a printf format for the importer: hand it over as an argument of "%s" */
  cb->logger(cb->componentEnvironment, instance_name ? instance_name : "", status, k_categories[category_of(status)],
             "%s", message);
}

void shared_vlog(const fmi2CallbackFunctions *cb, const char *instance_name, unsigned log_mask, fmi2Status status,
                 const char *format, va_list args) {
  if (status < fmi2Error && !(log_mask & (1u << category_of(status)))) return;
  char message[SHARED_MESSAGE_SIZE];
  vsnprintf(message, sizeof message, format, args);
  emit(cb, instance_name, status, message);
}

static void shared_log(const shared_instance *inst, fmi2Status status, const char *format, ...)
  __attribute__((format(printf, 3, 4)));
static void shared_log(const shared_instance *inst, fmi2Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  shared_vlog(inst->cb, inst->name, *inst->log_mask, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and return fmi2Error. */
#define fail(inst, ...) (shared_log((inst), fmi2Error, __VA_ARGS__), *(inst)->state = (inst)->error_state, fmi2Error)

/* ---- memory -------------------------------------------------------------------------------------- */

void *shared_allocate(const fmi2CallbackFunctions *cb, size_t n, size_t size) {
  void *p = cb->allocateMemory(n, size);
  if (p) memset(p, 0, n * size);
  return p;
}

void shared_release(const fmi2CallbackFunctions *cb, void *p) {
  if (p) cb->freeMemory(p);
}

char *shared_strdup(const fmi2CallbackFunctions *cb, const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = shared_allocate(cb, n, 1);
  if (copy) memcpy(copy, s, n);
  return copy;
}

/* ---- checks -------------------------------------------------------------------------------------- */

int shared_is_boolean(fmi2Boolean b) { return b == fmi2True || b == fmi2False; }

int shared_is_instance(fmi2Component c, unsigned magic, const char *fn, const char *model_identifier,
                       const char *note) {
  const unsigned *first_member = c;
  if (first_member && *first_member == magic) return 1;
  fprintf(stderr, "%s: %p is not a live instance of %s%s\n", fn, c, model_identifier, note);
  return 0;
}

fmi2Status shared_after_error(const fmi2CallbackFunctions *cb, const char *instance_name, const char *fn) {
  char message[SHARED_MESSAGE_SIZE];
  snprintf(message, sizeof message, "Illegal call sequence: %s after fmi2Error", fn);
  emit(cb, instance_name, fmi2Error, message);
  fprintf(stderr, "%s\n", message);
  return fmi2Error;
}

void *shared_new_instance(fmi2String instanceName, const fmi2CallbackFunctions *functions, size_t size,
                          const char *model_identifier) {
  if (!functions || !functions->logger || !functions->allocateMemory || !functions->freeMemory) {
    fprintf(stderr, "fmi2Instantiate(%s): functions, logger, allocateMemory and freeMemory must not be NULL\n",
            model_identifier);
    return NULL;
  }
  void *inst = shared_allocate(functions, 1, size);
  if (!inst)
    functions->logger(functions->componentEnvironment, instanceName ? instanceName : "", fmi2Error, "logStatusError",
                      "fmi2Instantiate: out of memory");
  return inst;
}

int shared_is_blank(const char *s) {
  for (const char *p = s; p && *p; ++p)
    if (!isspace((unsigned char)*p)) return 0;
  return 1;
}

int shared_check_instantiate(char *problem, size_t size, fmi2String fmuGUID, const char *guid,
                             fmi2Boolean visible, fmi2Boolean loggingOn) {
  if (!fmuGUID || strcmp(fmuGUID, guid) != 0)
    snprintf(problem, size, "fmuGUID \"%s\" is not the guid \"%s\" of modelDescription.xml",
             fmuGUID ? fmuGUID : "(NULL)", guid);
  else if (!shared_is_boolean(visible) || !shared_is_boolean(loggingOn))
    snprintf(problem, size, "visible = %d and loggingOn = %d must be fmi2True or fmi2False", visible, loggingOn);
  else
    return 1;
  return 0;
}

int shared_check_experiment(char problem[SHARED_MESSAGE_SIZE], fmi2Boolean toleranceDefined, fmi2Real startTime,
                            fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  const size_t size = SHARED_MESSAGE_SIZE;
  if (!shared_is_boolean(toleranceDefined) || !shared_is_boolean(stopTimeDefined))
    snprintf(problem, size, "fmi2SetupExperiment: toleranceDefined/stopTimeDefined must be fmi2True or fmi2False");
  else if (!isfinite(startTime))
    snprintf(problem, size, "fmi2SetupExperiment: startTime = %g is not finite", startTime);
  else if (stopTimeDefined && !(stopTime >= startTime))
    snprintf(problem, size, "fmi2SetupExperiment: stopTime = %.17g is before startTime = %.17g", stopTime,
             startTime);
  else
    return 1;
  return 0;
}

int shared_check_step(char problem[SHARED_MESSAGE_SIZE], fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint, double time, int stop_time_defined,
                      double stop_time) {
  const size_t size = SHARED_MESSAGE_SIZE;
  if (!shared_is_boolean(noSetFMUStatePriorToCurrentPoint))
    snprintf(problem, size, "fmi2DoStep: noSetFMUStatePriorToCurrentPoint = %d is not an fmi2Boolean",
             noSetFMUStatePriorToCurrentPoint);
  else if (!isfinite(t) || !(fabs(t - time) <= 1e-9 * fmax(1.0, fabs(time))))
    snprintf(problem, size, "fmi2DoStep: currentCommunicationPoint = %.17g, but the FMU is at t = %.17g", t, time);
  else if (!(h > 0.0) || !isfinite(h))
    snprintf(problem, size, "fmi2DoStep: communicationStepSize = %.17g, must be > 0", h);
  else if (stop_time_defined && t + h > stop_time + 1e-9 * fmax(1.0, fabs(stop_time)))
    snprintf(problem, size, "fmi2DoStep: t + h = %.17g is past the stopTime %.17g of fmi2SetupExperiment", t + h,
             stop_time);
  else
    return 1;
  return 0;
}

#define ENTER(fn, states)                                         \
  shared_instance inst_, *inst = &inst_;                          \
  {                                                               \
    fmi2Status entered_ = runtime_enter(c, fn, states, &inst_);   \
    if (entered_ != fmi2OK) return entered_;                      \
  }

fmi2Status shared_unsupported(fmi2Component c, const char *fn, shared_states states, const char *flag) {
  ENTER(fn, states)
  return fail(inst, "%s is not supported by %s (%s)", fn, inst->model_identifier, flag);
}

/* ---- common functions ---------------------------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
  ENTER("fmi2SetDebugLogging", SHARED_ALIVE)
  if (!shared_is_boolean(loggingOn))
    return fail(inst, "fmi2SetDebugLogging: loggingOn = %d is not an fmi2Boolean", loggingOn);
  if (nCategories > 0 && !categories)
    return fail(inst, "fmi2SetDebugLogging: categories is NULL, nCategories = %zu", nCategories);
  unsigned mask = 0;
  for (size_t k = 0; k < nCategories; ++k) {
    int found = -1;
    for (int j = 0; j < SHARED_N_LOG_CATEGORIES && categories[k]; ++j)
      if (strcmp(categories[k], k_categories[j]) == 0) found = j;
    if (found < 0)
      return fail(inst, "fmi2SetDebugLogging: unknown log category \"%s\"", categories[k] ? categories[k] : "(NULL)");
    mask |= strcmp(k_categories[found], "logAll") == 0 ? (unsigned)SHARED_LOG_ALL : 1u << found;
  }
  if (nCategories == 0) mask = SHARED_LOG_ALL;
  *inst->log_mask = loggingOn ? *inst->log_mask | mask : *inst->log_mask & ~mask;
  return fmi2OK;
}

/* ---- capabilities that no test FMU has ----------------------------------------------------------- */

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size) {
  (void)FMUstate;
  (void)size;
  return shared_unsupported(c, "fmi2SerializedFMUstateSize", SHARED_ALIVE, "canSerializeFMUstate=\"false\"");
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size) {
  (void)FMUstate;
  (void)serializedState;
  (void)size;
  return shared_unsupported(c, "fmi2SerializeFMUstate", SHARED_ALIVE, "canSerializeFMUstate=\"false\"");
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate) {
  (void)serializedState;
  (void)size;
  (void)FMUstate;
  return shared_unsupported(c, "fmi2DeSerializeFMUstate", SHARED_ALIVE, "canSerializeFMUstate=\"false\"");
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
  return shared_unsupported(c, "fmi2GetDirectionalDerivative", SHARED_READABLE,
                            "providesDirectionalDerivative=\"false\"");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  return shared_unsupported(c, "fmi2SetRealInputDerivatives", SHARED_CS_INPUTS, "canInterpolateInputs=\"false\"");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
  (void)vr;
  (void)nvr;
  (void)order;
  (void)value;
  return shared_unsupported(c, "fmi2GetRealOutputDerivatives", SHARED_CS_STEPPED, "maxOutputDerivativeOrder=\"0\"");
}

/* ---- Co-Simulation: no asynchronous steps (4.2.2) ------------------------------------------------ */

fmi2Status fmi2CancelStep(fmi2Component c) {
  shared_instance inst;  /* only in stepInProgress, which is never reached: no fmi2Pending */
  fmi2Status entered = runtime_enter(c, "fmi2CancelStep", SHARED_CS_PENDING, &inst);
  return entered != fmi2OK ? entered : fmi2Error;
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
#define STATUS_PRELUDE(fn, kind)                         \
  ENTER(fn, SHARED_CS_STEPPED)                           \
  if (!value) return fail(inst, "%s: value is NULL", fn); \
  if (s != (kind)) return fail(inst, "%s: status kind %s does not belong to this function", fn, kind_name(s));

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
  STATUS_PRELUDE("fmi2GetStatus", fmi2DoStepStatus)
  shared_log(inst, fmi2Discard, "fmi2GetStatus(fmi2DoStepStatus): no asynchronous fmi2DoStep is pending");
  return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
  STATUS_PRELUDE("fmi2GetRealStatus", fmi2LastSuccessfulTime)
  *value = inst->last_successful_time;
  return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
  ENTER("fmi2GetIntegerStatus", SHARED_CS_STEPPED)
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
  shared_log(inst, fmi2Discard, "fmi2GetStringStatus(fmi2PendingStatus): no asynchronous fmi2DoStep is pending");
  return fmi2Discard;
}
