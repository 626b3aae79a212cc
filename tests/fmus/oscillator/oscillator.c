/* cosima_test_oscillator: a Co-Simulation FMU without inputs, as a third-party FMU often comes:
 * no input interpolation, no output derivatives, no directional derivatives, but rollback
 * (canGetAndSetFMUstate) and variable communication steps.
 * Harmonic oscillator x'' = -omega^2 x, x(0) = 1, v(0) = 0; fmi2DoStep rotates (x, v/omega) exactly:
 *   x := x cos(omega h) + (v/omega) sin(omega h),  v := v cos(omega h) - omega x sin(omega h).
 * Outputs x_out = x, v_out = v: x_out(t) = cos(omega t) exactly at every communication point. */
#include <math.h>

#include "me_common.h"

enum { X, V, DER_X, DER_V, X_OUT, V_OUT, OMEGA, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [X] = {"x", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 1.0, 0, 0, 0},
  [V] = {"v", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_X] = {"der(x)", 2, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [DER_V] = {"der(v)", 3, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [X_OUT] = {"x_out", 4, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [V_OUT] = {"v_out", 5, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [OMEGA] = {"omega", 6, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 2.0, 1, 1e-6, 1e6},
};

static const int states[] = {X, V};
static const int derivatives[] = {DER_X, DER_V};

static void compute(me_instance *inst) {
  const double omega = ME_R(inst, OMEGA);
  ME_R(inst, DER_X) = ME_R(inst, V);
  ME_R(inst, DER_V) = -omega * omega * ME_R(inst, X);
  ME_R(inst, X_OUT) = ME_R(inst, X);
  ME_R(inst, V_OUT) = ME_R(inst, V);
}

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)t;
  const double omega = ME_R(inst, OMEGA), x = ME_R(inst, X), v = ME_R(inst, V);
  const double c = cos(omega * h), s = sin(omega * h);
  ME_R(inst, X) = x * c + v / omega * s;
  ME_R(inst, V) = v * c - omega * x * s;
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_oscillator",
  .guid = "{0b6f1c52-7a43-4c1e-9d2f-5e8a61c4b3d7}",
  .model_exchange = 0,
  .can_get_and_set_fmu_state = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 0,
  .compute = compute,
  .do_step = do_step,
};
