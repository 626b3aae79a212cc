/* cosima_fmi3_misbehave (Co-Simulation): output y = time. Parameter mode: 0 none, 1 fmi3DoStep returns fmi3Error,
 * 2 fmi3Discard (nothing changes), 3 y becomes NaN (from then on), 4 segmentation fault, 5 fmi3Fatal; it happens
 * in every fmi3DoStep whose end exceeds `at` (t + h > at + 1e-12). */
#include <math.h>
#include <stddef.h>

#include "fmi3_runtime.h"

enum { TIME, Y, MODE, AT, N_VARIABLES };
enum { NAN_OUTPUT };  /* FMU3_DATA: mode 3 has struck */

#define VAR(nm, v, T, C, V, I, S) \
  { .name = nm, .vr = v, .type = T, .causality = C, .variability = V, .initial = I, .start = S }

static const fmu3_variable variables[N_VARIABLES] = {
  [TIME] = VAR("time", 0, FMU3_FLOAT64, FMU3_INDEPENDENT, FMU3_CONTINUOUS, FMU3_NO_INITIAL, NULL),
  [Y] = VAR("y", 1, FMU3_FLOAT64, FMU3_OUTPUT, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [MODE] = { .name = "mode", .vr = 2, .type = FMU3_INT32, .causality = FMU3_PARAMETER, .variability = FMU3_FIXED,
             .initial = FMU3_EXACT, .start = "0", .has_range = 1, .min = 0, .max = 5 },
  [AT] = VAR("at", 3, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "0.5"),
};

static void compute(fmu3_instance *inst) {
  FMU3_F64(inst, Y)[0] = FMU3_DATA(inst, NAN_OUTPUT) ? NAN : FMU3_TIME(inst);
}

/* the store through NULL must reach the hardware, even in sanitized builds */
__attribute__((no_sanitize("undefined"), noinline)) static void segfault(void) {
  volatile int *volatile null_pointer = NULL;
  *null_pointer = 42;
}

static fmi3Status do_step(fmu3_instance *inst, fmu3_step *step) {
  const int mode = FMU3_I32(inst, MODE)[0];
  if (mode == 0 || !(step->t + step->h > FMU3_F64(inst, AT)[0] + 1e-12)) return fmi3OK;
  fmu3_log(inst, fmi3OK, "misbehaving in fmi3DoStep(%.17g, %.17g): mode %d", step->t, step->h, mode);
  switch (mode) {
    case 1:
      fmu3_log(inst, fmi3Error, "fmi3DoStep: mode 1, fmi3Error at t + h = %.17g", step->t + step->h);
      return fmi3Error;
    case 2:
      fmu3_log(inst, fmi3Discard, "fmi3DoStep: mode 2, fmi3Discard at t + h = %.17g", step->t + step->h);
      return fmi3Discard;
    case 3: FMU3_DATA(inst, NAN_OUTPUT) = 1; return fmi3OK;
    case 4: segfault(); return fmi3OK;
    default:
      fmu3_log(inst, fmi3Fatal, "fmi3DoStep: mode 5, fmi3Fatal at t + h = %.17g", step->t + step->h);
      return fmi3Fatal;
  }
}

const fmu3_model fmu3_model_definition = {
  .model_identifier = "cosima_fmi3_misbehave",
  .instantiation_token = "{a4d2e6f1-7b38-4c05-9e1d-3f8b6a2c0d94}",
  .co_simulation = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
};
