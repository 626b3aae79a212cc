/* cosima_test_gain: a static direct-feedthrough block y = k u + q u^2 + b (Co-Simulation, no state),
 * for initial algebraic loops: two of them connected output to input form the loop
 *   u_a = k_b u_b ... (tests/fmi/test_initialization.cpp). fmi2DoStep changes nothing. */
#include "me_common.h"

enum { U, Y, K, Q, B, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [U] = {"u", 0, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [Y] = {"y", 1, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [K] = {"k", 2, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.5, 0, 0, 0},
  [Q] = {"q", 3, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.0, 0, 0, 0},
  [B] = {"b", 4, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
};

static void compute(me_instance *inst) {
  const double u = ME_R(inst, U);
  ME_R(inst, Y) = ME_R(inst, K) * u + ME_R(inst, Q) * u * u + ME_R(inst, B);
}

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)inst;
  (void)t;
  (void)h;
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_gain",
  .guid = "{c3f5e204-8169-4d7a-9e3c-4a9f7dab2c33}",
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
