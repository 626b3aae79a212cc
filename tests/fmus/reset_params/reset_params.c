/* cosima_test_reset_params, and cosima_test_changes_param (the same source built with COSIMA_CHANGES_PARAM):
 * FMI 2.0 Co-Simulation FMUs with two habits of real exporters around initialization.
 *   parameters (fixed): k = 1 (Real), n = 2 (Integer), flag = false (Boolean), label = "default" (String)
 *   input u = 1 (Real)
 *   outputs y_k = k, y_n = n, y_flag = flag, y_label = label, y_u = u, and x (start 0) with dx/dt = k u,
 *     advanced by ONE explicit Euler step per fmi2DoStep (k and u of the start of the step), as 20-sim's and
 *     other simple exporters do: x(t + h) = x(t) + h k u(t).
 *
 * cosima_test_reset_params, exporter habit (20-sim): fmi2SetupExperiment restores every parameter and input to
 * its start value, so values an importer set before fmi2SetupExperiment (allowed by the standard: any variable
 * with initial = "exact" or "approx" in state instantiated) are silently lost. With loggingOn it logs each value
 * it threw away.
 * What a correct (robust) importer shows: it sets the parameters and inputs after fmi2SetupExperiment (before
 * or in Initialization Mode), so the user's values hold: with k = 3, n = 7, flag = true, label = "set", u = 2:
 * y_k = 3, y_n = 7, y_flag = true, y_label = "set", y_u = 2 and x = 6 t at every communication point t. With the
 * defaults: y_k = 1, y_n = 2, y_flag = false, y_label = "default", y_u = 1, x = t. An importer that sets them
 * only before fmi2SetupExperiment shows the defaults whatever the user asked.
 *
 * cosima_test_changes_param, exporter habit: the FMU changes a fixed parameter itself during
 * fmi2ExitInitializationMode: k is clamped to at most 10 (k = 100 set by the user reads back 10), without any
 * warning or status other than fmi2OK (only a logEvents message with loggingOn). fmi2SetupExperiment resets
 * nothing in this variant.
 * What a correct importer shows: the run uses the FMU's k (y_k = 10, x = 10 u t), and the importer warns that
 * the FMU changed k, naming k, the value set (100) and the value read back (10), e.g. by reading the parameters
 * back after fmi2ExitInitializationMode. */
#include <stdio.h>
#include <string.h>

#include "fmu_common.h"

#ifdef COSIMA_CHANGES_PARAM
#define MODEL_IDENTIFIER "cosima_test_changes_param"
#define GUID "{0749fe0d-10fe-4cd3-819d-42abab082632}"
#define RESET_IN_SETUP_EXPERIMENT 0
#define K_MAX 10.0
#else
#define MODEL_IDENTIFIER "cosima_test_reset_params"
#define GUID "{8979718a-89de-43f4-b512-5e5d41c9d85e}"
#define RESET_IN_SETUP_EXPERIMENT 1
#endif

enum { K, N, FLAG, LABEL, U, Y_K, Y_N, Y_FLAG, Y_LABEL, Y_U, X, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [K] = {"k", 1, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 1.0, NULL, 0, 0, 0, NULL},
  [N] = {"n", 2, FMU_INTEGER, FMU_PARAMETER, FMU_FIXED, 2.0, NULL, 0, 0, 0, NULL},
  [FLAG] = {"flag", 3, FMU_BOOLEAN, FMU_PARAMETER, FMU_FIXED, 0.0, NULL, 0, 0, 0, NULL},
  [LABEL] = {"label", 4, FMU_STRING, FMU_PARAMETER, FMU_FIXED, 0.0, "default", 0, 0, 0, NULL},
  [U] = {"u", 5, FMU_REAL, FMU_INPUT, FMU_CONTINUOUS, 1.0, NULL, 0, 0, 0, NULL},
  [Y_K] = {"y_k", 11, FMU_REAL, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [Y_N] = {"y_n", 12, FMU_INTEGER, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [Y_FLAG] = {"y_flag", 13, FMU_BOOLEAN, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [Y_LABEL] = {"y_label", 14, FMU_STRING, FMU_OUTPUT, FMU_DISCRETE, 0.0, "", 0, 0, 0, NULL},
  [Y_U] = {"y_u", 15, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [X] = {"x", 16, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
};

static void compute(fmu_instance *inst) {
  FMU_R(inst, Y_K) = FMU_R(inst, K);
  FMU_I(inst, Y_N) = FMU_I(inst, N);
  FMU_I(inst, Y_FLAG) = FMU_I(inst, FLAG);
  if (!fmu_set_string(inst, Y_LABEL, FMU_S(inst, LABEL))) fmu_log(inst, fmi2Warning, "y_label: out of memory");
  FMU_R(inst, Y_U) = FMU_R(inst, U);
}

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  (void)t;
  FMU_R(inst, X) += h * FMU_R(inst, K) * FMU_R(inst, U);  /* one explicit Euler step */
  return fmi2OK;
}

#if RESET_IN_SETUP_EXPERIMENT
/* the value of variable k as text, for the log */
static void describe(fmu_instance *inst, int k, char *text, size_t size) {
  switch (variables[k].type) {
    case FMU_REAL: snprintf(text, size, "%.17g", FMU_R(inst, k)); break;
    case FMU_STRING: snprintf(text, size, "\"%s\"", FMU_S(inst, k)); break;
    case FMU_BOOLEAN: snprintf(text, size, "%s", FMU_I(inst, k) ? "true" : "false"); break;
    default: snprintf(text, size, "%d", FMU_I(inst, k)); break;
  }
}

static int setup_experiment(fmu_instance *inst) {
  for (int k = 0; k < N_VARIABLES; ++k) {
    if (variables[k].causality != FMU_PARAMETER && variables[k].causality != FMU_INPUT) continue;
    char before[256], after[256];
    describe(inst, k, before, sizeof before);
    if (!fmu_restore_start(inst, k)) {
      fmu_log(inst, fmi2Error, "fmi2SetupExperiment: out of memory");
      return 1;
    }
    describe(inst, k, after, sizeof after);
    if (strcmp(before, after) != 0)
      fmu_log(inst, fmi2OK, "fmi2SetupExperiment: %s = %s restored to its start value %s", variables[k].name, before,
              after);
  }
  return 0;
}
#endif

#ifdef K_MAX
static void exit_initialization(fmu_instance *inst) {
  if (FMU_R(inst, K) > K_MAX) {
    fmu_log(inst, fmi2OK, "fmi2ExitInitializationMode: k = %.17g clamped to %g", FMU_R(inst, K), K_MAX);
    FMU_R(inst, K) = K_MAX;
  }
}
#endif

const fmu_model fmu_model_definition = {
  .model_identifier = MODEL_IDENTIFIER,
  .guid = GUID,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
#if RESET_IN_SETUP_EXPERIMENT
  .setup_experiment = setup_experiment,
#endif
#ifdef K_MAX
  .exit_initialization = exit_initialization,
#endif
};
