/* What the two runtimes of the test FMUs share: fmu_common.c (Co-Simulation) and me_common.c (Model Exchange,
 * and Co-Simulation for the FMUs that provide both). Internal to the runtimes: the model files include
 * fmu_common.h or me_common.h, never this header.
 *
 * fmu_shared.c holds
 *   - helpers (shared_*): logging through the importer's logger in the categories of fmi2SetDebugLogging,
 *     memory through its callbacks, the reports of calls on no instance or after fmi2Error, and the checks of
 *     the arguments that both runtimes make. A check returns 0 when it refuses, with the whole message in
 *     `problem` (SHARED_MESSAGE_SIZE chars), for the runtime to fail the instance with.
 *   - the fmi2 functions that are the same in both runtimes (version and platform, fmi2SetDebugLogging, the
 *     capabilities that no test FMU has, fmi2CancelStep and the Co-Simulation status functions). They reach
 *     the instance through runtime_enter(), which each runtime implements with its own state machine. */
#ifndef COSIMA_TEST_FMU_SHARED_H
#define COSIMA_TEST_FMU_SHARED_H

#include <stdarg.h>
#include <stddef.h>

#include "fmi2.h"

/* the log categories: logEvents, logStatusWarning, logStatusDiscard, logStatusError, logStatusFatal, logAll */
enum { SHARED_N_LOG_CATEGORIES = 6, SHARED_LOG_ALL = (1u << SHARED_N_LOG_CATEGORIES) - 1 };
/* a log message, longer ones are cut */
enum { SHARED_MESSAGE_SIZE = 2048 };

/* ---- the runtime's side ------------------------------------------------------------------------------ */

/* Where a function of fmu_shared.c may be called; each runtime maps these to the states it has. */
typedef enum {
  SHARED_ALIVE,       /* either interface, any state but the error state */
  SHARED_READABLE,    /* either interface, where fmi2GetReal may be called */
  SHARED_CS_INPUTS,   /* Co-Simulation: instantiated, initializationMode, stepComplete */
  SHARED_CS_STEPPED,  /* Co-Simulation: stepComplete, stepFailed (if the runtime has it), terminated */
  SHARED_CS_PENDING,  /* Co-Simulation: stepInProgress, which no test FMU reaches */
} shared_states;

/* An instance of either runtime, as the fmi2 functions of fmu_shared.c see it. */
typedef struct {
  const fmi2CallbackFunctions *cb;
  const char *name;
  unsigned *log_mask;
  unsigned *state;              /* a failed call sets *state = error_state */
  unsigned error_state;
  const char *model_identifier;
  double last_successful_time;  /* Co-Simulation: fmi2GetRealStatus */
  int terminated;               /* Co-Simulation: fmi2GetBooleanStatus */
} shared_instance;

/* Implemented by each runtime: the check at the start of its own fmi2 functions, that fn may be called on c
   now, in one of `states`. fmi2OK with *inst filled in; else what the runtime returns for that call (it has
   reported why, and put the instance in the error state where it has one). */
fmi2Status runtime_enter(fmi2Component c, const char *fn, shared_states states, shared_instance *inst);

/* fn, allowed in `states`, is not supported (capability flag `flag` of modelDescription.xml): after
   runtime_enter, fails the instance with "<fn> is not supported by <modelIdentifier> (<flag>)". */
fmi2Status shared_unsupported(fmi2Component c, const char *fn, shared_states states, const char *flag);

/* ---- helpers --------------------------------------------------------------------------------------- */

/* Log through the importer's logger, category from the status (logEvents for fmi2OK, logStatusXXX otherwise);
   fmi2OK/fmi2Warning/fmi2Discard messages only when that category is on in log_mask. */
void shared_vlog(const fmi2CallbackFunctions *cb, const char *instance_name, unsigned log_mask, fmi2Status status,
                 const char *format, va_list args) __attribute__((format(printf, 5, 0)));

/* Allocation with the importer's allocateMemory (zeroed) and freeMemory (NULL is ignored). */
void *shared_allocate(const fmi2CallbackFunctions *cb, size_t n, size_t size);
void shared_release(const fmi2CallbackFunctions *cb, void *p);
char *shared_strdup(const fmi2CallbackFunctions *cb, const char *s);

int shared_is_boolean(fmi2Boolean b);  /* fmi2True or fmi2False */

/* c is a live instance: `magic` is its first member. Else prints "<fn>: <c> is not a live instance of
   <modelIdentifier><note>" to stderr and returns 0. */
int shared_is_instance(fmi2Component c, unsigned magic, const char *fn, const char *model_identifier,
                       const char *note);
/* fn was called on an instance in the error state: "Illegal call sequence: <fn> after fmi2Error" to the logger
   and to stderr; returns fmi2Error. */
fmi2Status shared_after_error(const fmi2CallbackFunctions *cb, const char *instance_name, const char *fn);

/* fmi2Instantiate, up to the instance: functions must be complete (else printed to stderr), then a zeroed
   instance of `size` bytes (else "out of memory" logged). NULL on either failure. */
void *shared_new_instance(fmi2String instanceName, const fmi2CallbackFunctions *functions, size_t size,
                          const char *model_identifier);
int shared_is_blank(const char *s);  /* NULL, empty or only white space */
/* fmi2Instantiate, after the checks of the runtime: fmuGUID, visible and loggingOn. The problem, without the
   function name, goes into `problem` (size chars). */
int shared_check_instantiate(char *problem, size_t size, fmi2String fmuGUID, const char *guid,
                             fmi2Boolean visible, fmi2Boolean loggingOn);

/* The arguments of fmi2SetupExperiment. */
int shared_check_experiment(char problem[SHARED_MESSAGE_SIZE], fmi2Boolean toleranceDefined, fmi2Real startTime,
                            fmi2Boolean stopTimeDefined, fmi2Real stopTime);
/* The arguments of fmi2DoStep, for an instance at `time` with the stop time of fmi2SetupExperiment. */
int shared_check_step(char problem[SHARED_MESSAGE_SIZE], fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint, double time, int stop_time_defined,
                      double stop_time);

#endif
