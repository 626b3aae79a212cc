/* cosima_test_fmi1_mass1_me / cosima_test_fmi1_mass1_cs: mass 1 of the two-mass oscillator
 * (../coupled/dual_mass.h) as FMI 1.0 Model Exchange (COSIMA_FMI1_ME) or Co-Simulation (COSIMA_FMI1_CS), the
 * equations, names, start values and value references of ../coupled/mass1.c.
 *   states s1 (start 1), v1 (start 0): s1' = v1, m1 v1' = -c1 s1 - d1 v1 + F
 *   input F; outputs s1_out = s1, v1_out = v1, a1_out = v1' (depends directly on F)
 * Co-Simulation: fmiDoStep holds F and takes DUAL_MASS_SUBSTEPS steps of dual_mass_rk4, exactly as the
 * FMI 2.0 FMU's do_step, so that a master gets bitwise the same results from both.
 * Alias variables, only in modelDescription.xml: x1 (alias of s1, vr 0) and the output minus_s1_out
 * (negatedAlias of s1_out, vr 5). */
#include "../coupled/dual_mass.h"
#include "fmi1_common.h"

enum { S1, V1, DER_S1, DER_V1, F, S1_OUT, V1_OUT, A1_OUT, M1, C1, D1, N_VARIABLES };

#define REAL FMI1_REAL
static const fmi1_variable variables[N_VARIABLES] = {
  [S1] = {"s1", 0, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 1.0, 0, 0, 0},
  [V1] = {"v1", 1, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [DER_S1] = {"der(s1)", 2, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [DER_V1] = {"der(v1)", 3, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [F] = {"F", 4, REAL, FMI1_INPUT, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [S1_OUT] = {"s1_out", 5, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [V1_OUT] = {"v1_out", 6, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [A1_OUT] = {"a1_out", 7, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [M1] = {"m1", 8, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 1.0, 1, 1e-6, 1e6},
  [C1] = {"c1", 9, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 10.0, 0, 0, 0},
  [D1] = {"d1", 10, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 1.0, 0, 0, 0},
};

static const int states[] = {S1, V1};
static const int derivatives[] = {DER_S1, DER_V1};

static mass1_parameters parameters_of(fmi1_instance *inst) {
  const mass1_parameters q = {FMI1_R(inst, M1), FMI1_R(inst, C1), FMI1_R(inst, D1), FMI1_R(inst, F)};
  return q;
}

static void compute(fmi1_instance *inst) {
  const mass1_parameters q = parameters_of(inst);
  const double x[2] = {FMI1_R(inst, S1), FMI1_R(inst, V1)};
  double dx[2];
  mass1_rhs(x, &q, dx);
  FMI1_R(inst, DER_S1) = dx[0];
  FMI1_R(inst, DER_V1) = dx[1];
  FMI1_R(inst, S1_OUT) = x[0];
  FMI1_R(inst, V1_OUT) = x[1];
  FMI1_R(inst, A1_OUT) = dx[1];
}

static fmiStatus do_step(fmi1_instance *inst, double t, double h) {
  (void)t;
  const mass1_parameters q = parameters_of(inst);
  double x[2] = {FMI1_R(inst, S1), FMI1_R(inst, V1)};
  dual_mass_step(x, h, mass1_rhs, &q);
  FMI1_R(inst, S1) = x[0];
  FMI1_R(inst, V1) = x[1];
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
#ifdef COSIMA_FMI1_ME
  .guid = "{b36cd474-93ca-436c-8e59-56438a6dedb3}",
#else
  .guid = "{15cad7c8-e245-4aa3-9008-25ab4e504174}",
#endif
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 0,
  .compute = compute,
  .do_step = do_step,
};
