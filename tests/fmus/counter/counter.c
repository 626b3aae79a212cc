/* cosima_test_counter: count += 1 at every completed fmi2DoStep, time_out = the FMU's time.
 * The FMU wants to stop at terminate_at: the step that reaches it returns fmi2Discard with
 * fmi2Terminated = true and fmi2LastSuccessfulTime = terminate_at (the step ending exactly there is
 * completed and counted; a step crossing it only advances the time to terminate_at). */
#include <math.h>

#include "fmu_common.h"

enum { COUNT, TIME_OUT, TERMINATE_AT, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [COUNT] = {"count", 1, FMU_INTEGER, FMU_OUTPUT, FMU_DISCRETE, 0.0, NULL, 0, 0, 0, NULL},
  [TIME_OUT] = {"time_out", 2, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [TERMINATE_AT] = {"terminate_at", 3, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 1e300, NULL, 0, 0, 0, NULL},
};

static void compute(fmu_instance *inst) { FMU_R(inst, TIME_OUT) = inst->time; }

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  const double end = t + h, stop = FMU_R(inst, TERMINATE_AT);
  if (end < stop - 1e-9) {
    FMU_I(inst, COUNT) += 1;
    return fmi2OK;
  }
  if (fabs(end - stop) <= 1e-9) {
    FMU_I(inst, COUNT) += 1;
    inst->time = end;
  } else {
    inst->time = stop > t ? stop : t;  /* only up to terminate_at; the step is not completed */
  }
  inst->terminated = 1;
  fmu_log(inst, fmi2OK, "terminating at t = %.17g", inst->time);
  fmu_log(inst, fmi2Discard, "fmi2DoStep(%.17g, %.17g): terminate_at = %.17g reached, fmi2Terminated = true", t, h,
          stop);
  return fmi2Discard;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_counter",
  .guid = "{de9383fa-0121-4f4f-9860-e7aeff0d10c9}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
};
