/* cosima_test_mass2: mass 2 of the two-mass oscillator (dual_mass.h), Model Exchange and
 * Co-Simulation. Inputs s1, v1, a1 (a1 unused, as peers' test models have it); output F. Its initial
 * position is computed in Initialization Mode from its input: s2 = s1 + offset (initial="calculated"). */
#include "dual_mass.h"
#include "me_common.h"

enum { S2, V2, DER_S2, DER_V2, S1_IN, V1_IN, A1_IN, F_OUT, M2, C2, D2, C3, D3, OFFSET, N_VARIABLES };

static const me_variable variables[N_VARIABLES] = {
  [S2] = {"s2", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [V2] = {"v2", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_S2] = {"der(s2)", 2, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [DER_V2] = {"der(v2)", 3, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [S1_IN] = {"s1", 4, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [V1_IN] = {"v1", 5, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [A1_IN] = {"a1", 6, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [F_OUT] = {"F", 7, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [M2] = {"m2", 8, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 1, 1e-6, 1e6},
  [C2] = {"c2", 9, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 100.0, 0, 0, 0},
  [D2] = {"d2", 10, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
  [C3] = {"c3", 11, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 10.0, 0, 0, 0},
  [D3] = {"d3", 12, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
  [OFFSET] = {"offset", 13, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.5, 0, 0, 0},
};

static const int states[] = {S2, V2};
static const int derivatives[] = {DER_S2, DER_V2};

static mass2_parameters parameters_of(me_instance *inst) {
  const mass2_parameters q = {ME_R(inst, M2), ME_R(inst, C2), ME_R(inst, D2), ME_R(inst, C3),
                              ME_R(inst, D3), ME_R(inst, S1_IN), ME_R(inst, V1_IN)};
  return q;
}

static void compute(me_instance *inst) {
  if (ME_INITIALIZING(inst)) ME_R(inst, S2) = ME_R(inst, S1_IN) + ME_R(inst, OFFSET);  /* initial equation */
  const mass2_parameters q = parameters_of(inst);
  const double x[2] = {ME_R(inst, S2), ME_R(inst, V2)};
  double dx[2];
  mass2_rhs(x, &q, dx);
  ME_R(inst, DER_S2) = dx[0];
  ME_R(inst, DER_V2) = dx[1];
  ME_R(inst, F_OUT) = mass2_force(x, &q);
}

static fmi2Status do_step(me_instance *inst, double t, double h) {
  (void)t;
  const mass2_parameters q = parameters_of(inst);
  double x[2] = {ME_R(inst, S2), ME_R(inst, V2)};
  dual_mass_step(x, h, mass2_rhs, &q);
  ME_R(inst, S2) = x[0];
  ME_R(inst, V2) = x[1];
  return fmi2OK;
}

/* one source, two FMUs: the same model with and without <InitialUnknowns> */
#ifdef COSIMA_MASS2_INITIAL_UNKNOWNS
#define MASS2_IDENTIFIER "cosima_test_mass2_iu"
#define MASS2_GUID "{b2e4d1f3-7058-4c69-8d2b-3f8e6c9a1b23}"
#else
#define MASS2_IDENTIFIER "cosima_test_mass2"
#define MASS2_GUID "{b2e4d1f3-7058-4c69-8d2b-3f8e6c9a1b22}"
#endif

const me_model me_model_definition = {
  .model_identifier = MASS2_IDENTIFIER,
  .guid = MASS2_GUID,
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
