/* cosima_test_types: one parameter, input and direct-feedthrough output of every FMI 2.0 type.
 *   y_real = gain * u_real, y_int = u_int + offset, y_bool = invert ? !u_bool : u_bool,
 *   y_mode = u_mode, y_text = prefix + u_text, steps = completed fmi2DoStep calls, level = 1.
 * fmi2DoStep returns fmi2Error once t + h > fail_at and fmi2Fatal once t + h > fatal_at. */
#include <string.h>

#include "fmu_common.h"

static const int mode_items[] = {1, 2, 3};   /* slow, medium, fast */
static const int level_items[] = {1, 2};     /* low, high */
static const fmu_enumeration mode = {"Mode", 3, mode_items};
static const fmu_enumeration level = {"Level", 2, level_items};

enum { GAIN, OFFSET, INVERT, BASE_MODE, PREFIX, FAIL_AT, FATAL_AT,
       U_REAL, U_INT, U_BOOL, U_MODE, U_TEXT,
       Y_REAL, Y_INT, Y_BOOL, Y_MODE, Y_TEXT, STEPS, LEVEL, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [GAIN] = {"gain", 1, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 2.0, NULL, 1, -100.0, 100.0, NULL},
  [OFFSET] = {"offset", 2, FMU_INTEGER, FMU_PARAMETER, FMU_FIXED, 1.0, NULL, 1, -10.0, 10.0, NULL},
  [INVERT] = {"invert", 3, FMU_BOOLEAN, FMU_PARAMETER, FMU_FIXED, 1.0, NULL, 0, 0, 0, NULL},
  [BASE_MODE] = {"base_mode", 4, FMU_ENUMERATION, FMU_PARAMETER, FMU_FIXED, 1.0, NULL, 0, 0, 0, &mode},
  [PREFIX] = {"prefix", 5, FMU_STRING, FMU_PARAMETER, FMU_FIXED, 0.0, "p:", 0, 0, 0, NULL},
  [FAIL_AT] = {"fail_at", 6, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 1e300, NULL, 0, 0, 0, NULL},
  [FATAL_AT] = {"fatal_at", 7, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 1e300, NULL, 0, 0, 0, NULL},
  [U_REAL] = {"u_real", 10, FMU_REAL, FMU_INPUT, FMU_CONTINUOUS, 0.5, NULL, 0, 0, 0, NULL},
  [U_INT] = {"u_int", 11, FMU_INTEGER, FMU_INPUT, FMU_DISCRETE, 7.0, NULL, 1, -5.0, 100.0, NULL},
  [U_BOOL] = {"u_bool", 12, FMU_BOOLEAN, FMU_INPUT, FMU_DISCRETE, 1.0, NULL, 0, 0, 0, NULL},
  [U_MODE] = {"u_mode", 13, FMU_ENUMERATION, FMU_INPUT, FMU_DISCRETE, 2.0, NULL, 0, 0, 0, &mode},
  [U_TEXT] = {"u_text", 14, FMU_STRING, FMU_INPUT, FMU_DISCRETE, 0.0, "hello", 0, 0, 0, NULL},
  [Y_REAL] = {"y_real", 20, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [Y_INT] = {"y_int", 21, FMU_INTEGER, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [Y_BOOL] = {"y_bool", 22, FMU_BOOLEAN, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [Y_MODE] = {"y_mode", 23, FMU_ENUMERATION, FMU_OUTPUT, FMU_DISCRETE, 1.0, NULL, 0, 0, 0, &mode},
  [Y_TEXT] = {"y_text", 24, FMU_STRING, FMU_OUTPUT, FMU_DISCRETE, 0.0, "", 0, 0, 0, NULL},
  [STEPS] = {"steps", 25, FMU_INTEGER, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [LEVEL] = {"level", 26, FMU_ENUMERATION, FMU_OUTPUT, FMU_DISCRETE, 1.0, NULL, 0, 0, 0, &level},
};

static void compute(fmu_instance *inst) {
  FMU_R(inst, Y_REAL) = FMU_R(inst, GAIN) * FMU_R(inst, U_REAL);
  FMU_I(inst, Y_INT) = FMU_I(inst, U_INT) + FMU_I(inst, OFFSET);
  FMU_I(inst, Y_BOOL) = FMU_I(inst, INVERT) ? !FMU_I(inst, U_BOOL) : FMU_I(inst, U_BOOL);
  FMU_I(inst, Y_MODE) = FMU_I(inst, U_MODE);
  FMU_I(inst, STEPS) = inst->steps;
  FMU_I(inst, LEVEL) = 1;
  const char *prefix = FMU_S(inst, PREFIX), *text = FMU_S(inst, U_TEXT);
  size_t n = strlen(prefix), m = strlen(text);
  char *joined = inst->cb.allocateMemory(n + m + 1, 1);
  if (!joined) return;  /* keeps the previous y_text */
  memcpy(joined, prefix, n);
  memcpy(joined + n, text, m + 1);
  inst->cb.freeMemory(FMU_S(inst, Y_TEXT));
  FMU_S(inst, Y_TEXT) = joined;
}

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  if (t + h > FMU_R(inst, FATAL_AT)) {
    fmu_log(inst, fmi2Fatal, "fatal_at reached at t = %.17g (fatal_at = %.17g)", t + h, FMU_R(inst, FATAL_AT));
    return fmi2Fatal;
  }
  if (t + h > FMU_R(inst, FAIL_AT)) {
    fmu_log(inst, fmi2Error, "fail_at reached at t = %.17g (fail_at = %.17g)", t + h, FMU_R(inst, FAIL_AT));
    return fmi2Error;
  }
  return fmi2OK;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_types",
  .guid = "{d4eaac0d-bb82-433a-8ea5-b7447766f68a}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
};
