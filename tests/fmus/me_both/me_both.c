/* cosima_test_me_both: one binary with <ModelExchange> and <CoSimulation> (same modelIdentifier).
 * First-order lag: state x (start 0), der(x) = (u - x)/tau, input u (start 1), output y = x.
 * As Co-Simulation, fmi2DoStep uses the exact solution for u constant over the step:
 *   x := u + (x - u)*exp(-h/tau).
 * Each instance follows the state machine of the fmuType it was instantiated with (me_common.c). */
#include <math.h>

#include "me_common.h"

enum { X, DER_X, U, Y, TAU, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [X] = {"x", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_X] = {"der(x)", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [U] = {"u", 2, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 1.0, 0, 0, 0},
  [Y] = {"y", 3, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [TAU] = {"tau", 4, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.5, 1, 1e-9, 1e9},
};

static const int states[] = {X};
static const int derivatives[] = {DER_X};

static void compute(me_instance *inst) {
  ME_R(inst, DER_X) = (ME_R(inst, U) - ME_R(inst, X)) / ME_R(inst, TAU);
  ME_R(inst, Y) = ME_R(inst, X);
}

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)t;
  const double u = ME_R(inst, U);
  ME_R(inst, X) = u + (ME_R(inst, X) - u) * exp(-h / ME_R(inst, TAU));
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_me_both",
  .guid = "{5c7e2b90-d4a6-4f13-8b0e-e96a3f182d47}",
  .model_exchange = 1,
  .can_get_and_set_fmu_state = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .nz = 0,
  .compute = compute,
  .do_step = do_step,
};
