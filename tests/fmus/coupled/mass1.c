/* cosima_test_mass1: mass 1 of the two-mass oscillator (dual_mass.h), Model Exchange and
 * Co-Simulation. States s1 (start s1_start), v1 (start 0); input F; outputs s1_out, v1_out, a1_out. */
#include "dual_mass.h"
#include "me_common.h"

enum { S1, V1, DER_S1, DER_V1, F, S1_OUT, V1_OUT, A1_OUT, M1, C1, D1, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [S1] = {"s1", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 1.0, 0, 0, 0},
  [V1] = {"v1", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_S1] = {"der(s1)", 2, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [DER_V1] = {"der(v1)", 3, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [F] = {"F", 4, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [S1_OUT] = {"s1_out", 5, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [V1_OUT] = {"v1_out", 6, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [A1_OUT] = {"a1_out", 7, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [M1] = {"m1", 8, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 1, 1e-6, 1e6},
  [C1] = {"c1", 9, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 10.0, 0, 0, 0},
  [D1] = {"d1", 10, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
};

static const int states[] = {S1, V1};
static const int derivatives[] = {DER_S1, DER_V1};

static mass1_parameters parameters_of(me_instance *inst) {
  const mass1_parameters q = {ME_R(inst, M1), ME_R(inst, C1), ME_R(inst, D1), ME_R(inst, F)};
  return q;
}

static void compute(me_instance *inst) {
  const mass1_parameters q = parameters_of(inst);
  const double x[2] = {ME_R(inst, S1), ME_R(inst, V1)};
  double dx[2];
  mass1_rhs(x, &q, dx);
  ME_R(inst, DER_S1) = dx[0];
  ME_R(inst, DER_V1) = dx[1];
  ME_R(inst, S1_OUT) = x[0];
  ME_R(inst, V1_OUT) = x[1];
  ME_R(inst, A1_OUT) = dx[1];
}

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)t;
  const mass1_parameters q = parameters_of(inst);
  double x[2] = {ME_R(inst, S1), ME_R(inst, V1)};
  dual_mass_step(x, h, mass1_rhs, &q);
  ME_R(inst, S1) = x[0];
  ME_R(inst, V1) = x[1];
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_mass1",
  .guid = "{a1d3c0e2-6f47-4b58-9c1a-2e7d5b8f0a11}",
  .model_exchange = 1,
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
