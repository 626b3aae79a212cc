/* Shared part of cosima's strict FMI 2.0 Co-Simulation test FMUs: the fmi2 functions themselves,
 * the instance state machine, logging and value access. Each FMU only describes its variables and
 * behaviour in one `fmu_model_definition` (see fmu_model below) and is linked with fmu_common.c (and
 * fmu_shared.c, the part that the Model Exchange runtime shares).
 *
 * Strictness: a call the standard forbids in the current state, an unknown value reference, a value
 * reference of another type, an out-of-range value... returns fmi2Error and puts the instance in the
 * error state, where any later call except fmi2FreeInstance is reported as
 *   "Illegal call sequence: <function> after fmi2Error"   (logger and stderr).
 * After fmi2Fatal, any later call into this library (any instance, fmi2FreeInstance included) prints
 *   "Illegal call sequence: <function> after fmi2Fatal"   (stderr). */
#ifndef COSIMA_TEST_FMU_COMMON_H
#define COSIMA_TEST_FMU_COMMON_H

#include "fmi2.h"

#ifdef __cplusplus
extern "C" { /* a model written in C++ (cpp_streams) */
#endif

typedef enum { FMU_REAL, FMU_INTEGER, FMU_BOOLEAN, FMU_STRING, FMU_ENUMERATION } fmu_type;
typedef enum { FMU_PARAMETER, FMU_CALCULATED_PARAMETER, FMU_INPUT, FMU_OUTPUT, FMU_LOCAL } fmu_causality;
typedef enum { FMU_CONSTANT, FMU_FIXED, FMU_TUNABLE, FMU_DISCRETE, FMU_CONTINUOUS } fmu_variability;

typedef struct {
  const char *name;  /* SimpleType name, e.g. "Mode" */
  int n_items;
  const int *items;  /* item values */
} fmu_enumeration;

typedef struct {
  const char *name;
  fmi2ValueReference vr;
  fmu_type type;
  fmu_causality causality;
  fmu_variability variability;
  double start;              /* Real, Integer, Boolean (0/1), Enumeration */
  const char *start_string;  /* String */
  int has_range;             /* Real/Integer: min and max declared */
  double min, max;
  const fmu_enumeration *enumeration;  /* Enumeration: its declared type */
} fmu_variable;

typedef struct {
  double r;  /* Real */
  int i;     /* Integer, Boolean, Enumeration */
  char *s;   /* String, owned by the instance */
} fmu_value;

typedef struct fmu_instance fmu_instance;

typedef struct {
  const char *model_identifier;
  const char *guid;
  const fmu_variable *variables;
  int n_variables;
  /* optional: called at the end of fmi2Instantiate; nonzero = fail (log why first) */
  int (*instantiate)(fmu_instance *inst, fmi2String resource_location);
  /* optional: recompute the outputs from the current values, before every fmi2GetXXX */
  void (*compute)(fmu_instance *inst);
  /* optional: the model's part of fmi2DoStep, after the common checks. On fmi2OK the common code sets
     time = t + h and counts the step; on fmi2Discard the model sets time and `terminated` itself. */
  fmi2Status (*do_step)(fmu_instance *inst, double t, double h);
  /* optional: called first in fmi2FreeInstance */
  void (*free_instance)(fmu_instance *inst);
  /* optional: the model's part of fmi2SetupExperiment, after the common checks, with time and stop time set
     (an exporter's habit there, e.g. restoring start values with fmu_restore_start); nonzero = fail (log why
     first) */
  int (*setup_experiment)(fmu_instance *inst);
  /* optional: the model's part of fmi2ExitInitializationMode, in Initialization Mode still (an exporter's
     habit there, e.g. changing a parameter itself) */
  void (*exit_initialization)(fmu_instance *inst);
} fmu_model;

/* Each FMU defines exactly this object. */
extern const fmu_model fmu_model_definition;

struct fmu_instance {
  unsigned magic;
  fmi2CallbackFunctions cb;
  char *name;
  unsigned state;
  int experiment_set_up;
  unsigned log_mask;
  double time;
  int stop_time_defined;
  double stop_time;
  double last_successful_time;
  int terminated;  /* fmi2GetBooleanStatus(fmi2Terminated) */
  int steps;       /* completed fmi2DoStep calls */
  double model_data;  /* free for the model (resource: the value read at instantiation) */
  fmu_value *values;  /* one per variable, in the order of fmu_model_definition.variables */
  char **returned;    /* strings handed out by fmi2GetString; freed at the next call */
  size_t n_returned;
};

/* Log through the importer's logger. Category from the status (logEvents for fmi2OK, logStatusXXX
   otherwise); fmi2OK/fmi2Warning/fmi2Discard messages only when that category is switched on. */
void fmu_log(fmu_instance *inst, fmi2Status status, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Allocation with the importer's allocateMemory/freeMemory. */
char *fmu_strdup(fmu_instance *inst, const char *s);
int fmu_set_string(fmu_instance *inst, int idx, const char *s); /* 0 on allocation failure */
/* Variable idx back to its start value (as fmi2Instantiate sets it); 0 on allocation failure (String). */
int fmu_restore_start(fmu_instance *inst, int idx);

/* fmuResourceLocation ("file:///abs/dir" or "file:/abs/dir", percent-encoded) -> "/abs/dir", allocated
   with fmu_strdup, without trailing '/'; NULL (and an error logged) for anything else. */
char *fmu_resource_directory(fmu_instance *inst, const char *uri);

#define FMU_R(inst, idx) ((inst)->values[idx].r)
#define FMU_I(inst, idx) ((inst)->values[idx].i)
#define FMU_S(inst, idx) ((inst)->values[idx].s)

#ifdef __cplusplus
}
#endif

#endif
