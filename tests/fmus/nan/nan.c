/* cosima_test_nan: output y = the FMU's time (no direct feedthrough from input u), except that from
 * time >= nan_at on, fmi2GetReal returns y = NaN (or +Inf if use_inf) with status fmi2OK. */
#include <math.h>

#include "fmu_common.h"

enum { U, Y, NAN_AT, USE_INF, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [U] = {"u", 1, FMU_REAL, FMU_INPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [Y] = {"y", 2, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [NAN_AT] = {"nan_at", 3, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 0.5, NULL, 0, 0, 0, NULL},
  [USE_INF] = {"use_inf", 4, FMU_BOOLEAN, FMU_PARAMETER, FMU_FIXED, 0.0, NULL, 0, 0, 0, NULL},
};

static void compute(fmu_instance *inst) {
  const double at = FMU_R(inst, NAN_AT);
  if (inst->time >= at - 1e-9 * fmax(1.0, fabs(at)))
    FMU_R(inst, Y) = FMU_I(inst, USE_INF) ? INFINITY : NAN;
  else
    FMU_R(inst, Y) = inst->time;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_nan",
  .guid = "{c32ffb1b-d259-4bb0-b1ef-db5f2c88dae2}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
};
