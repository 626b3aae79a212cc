/* cosima_test_vanderpol: the Van der Pol oscillator as Model Exchange, as the Reference FMU has it:
 *   x0' = x1,  x1' = mu (1 - x0^2) x1 - x0,  x0(0) = 2, x1(0) = 0,  mu = 1.
 * Outputs are the states. Its nominals are 2 and 3 (fmi2GetNominalsOfContinuousStates and the
 * <Real nominal=...> of the states), as a tool that scales states declares them. */
#include "me_common.h"

enum { X0, X1, DER_X0, DER_X1, MU, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [X0] = {"x0", 0, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_EXACT, 2.0, 0, 0, 0},
  [X1] = {"x1", 1, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_X0] = {"der(x0)", 2, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [DER_X1] = {"der(x1)", 3, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [MU] = {"mu", 4, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
};

static const int states[] = {X0, X1};
static const int derivatives[] = {DER_X0, DER_X1};

static void compute(me_instance *inst) {
  const double x0 = ME_R(inst, X0), x1 = ME_R(inst, X1);
  ME_R(inst, DER_X0) = x1;
  ME_R(inst, DER_X1) = ME_R(inst, MU) * (1.0 - x0 * x0) * x1 - x0;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_vanderpol",
  .guid = "{e5b7a426-a38b-4f9c-b05e-6cbf9fcd4e55}",
  .model_exchange = 1,
  .can_get_and_set_fmu_state = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 0,
  .compute = compute,
};
