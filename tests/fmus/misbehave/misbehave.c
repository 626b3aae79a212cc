/* cosima_test_misbehave: output y = time. Parameter mode: 0 none, 1 segfault, 2 abort(), 3 exit(0),
 * 4 hang; it happens in the fmi2DoStep whose end time exceeds `at` (t + h > at + 1e-12), or in
 * fmi2Instantiate if the environment variable COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE is 1..4. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmu_common.h"

enum { Y, MODE, AT, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [Y] = {"y", 1, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [MODE] = {"mode", 2, FMU_INTEGER, FMU_PARAMETER, FMU_FIXED, 0.0, NULL, 1, 0.0, 4.0, NULL},
  [AT] = {"at", 3, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 0.5, NULL, 0, 0, 0, NULL},
};

/* the store through NULL must reach the hardware, even in sanitized builds */
__attribute__((no_sanitize("undefined"), noinline)) static void misbehave(int mode) {
  switch (mode) {
    case 1: {
      volatile int *volatile null_pointer = NULL;
      *null_pointer = 42;
      break;
    }
    case 2: abort();
    case 3: exit(0);
    case 4:
      for (;;) sleep(1000);
    default: break;
  }
}

static int instantiate(fmu_instance *inst, fmi2String resource_location) {
  (void)resource_location;
  const char *env = getenv("COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE");
  if (env && strlen(env) == 1 && env[0] >= '1' && env[0] <= '4') {
    fmu_log(inst, fmi2OK, "misbehaving in fmi2Instantiate: mode %c", env[0]);
    misbehave(env[0] - '0');
  }
  return 0;
}

static void compute(fmu_instance *inst) { FMU_R(inst, Y) = inst->time; }

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  if (FMU_I(inst, MODE) != 0 && t + h > FMU_R(inst, AT) + 1e-12) {
    fmu_log(inst, fmi2OK, "misbehaving in fmi2DoStep(%.17g, %.17g): mode %d", t, h, FMU_I(inst, MODE));
    misbehave(FMU_I(inst, MODE));
  }
  return fmi2OK;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_misbehave",
  .guid = "{da66609c-1378-4c27-b026-1ed437127269}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .instantiate = instantiate,
  .compute = compute,
  .do_step = do_step,
};
