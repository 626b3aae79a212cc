/* One species of a Lotka–Volterra pair as a Co-Simulation FMU, written as peer masters' example FMUs
 * are: dx/dt = x (a + b u) with the other species' population u as input, solved exactly over each
 * communication step with u held, x(t + h) = x(t) exp((a + b u) h), and the output x declared to
 * depend directly on u (lotka.xml; lotka_all.xml leaves the dependencies out, so the output depends on
 * every input by the standard's default, 2.2.8). Prey: a > 0, b < 0; predator: a < 0, b > 0.
 * The model identifier comes from the build (LOTKA_IDENTIFIER). */
#include <math.h>

#include "me_common.h"

enum { U, X, A, B, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [U] = {"u", 0, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 1.0, 0, 0, 0},
  [X] = {"x", 1, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_EXACT, 1.0, 0, 0, 0},
  [A] = {"a", 2, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
  [B] = {"b", 3, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, -1.0, 0, 0, 0},
};

static void compute(me_instance *inst) { (void)inst; }

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)t;
  ME_R(inst, X) *= exp((ME_R(inst, A) + ME_R(inst, B) * ME_R(inst, U)) * h);
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = LOTKA_IDENTIFIER,
  .guid = "{5b0e6a52-2f4c-4a8e-9d51-3c7a0f1e8b21}",
  .model_exchange = 0,
  .can_get_and_set_fmu_state = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 0,
  .states = 0,
  .derivatives = 0,
  .nz = 0,
  .compute = compute,
  .do_step = do_step,
};
