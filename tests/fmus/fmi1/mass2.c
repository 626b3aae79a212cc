/* cosima_test_fmi1_mass2_me / cosima_test_fmi1_mass2_cs: mass 2 of the two-mass oscillator
 * (../coupled/dual_mass.h) as FMI 1.0 Model Exchange (COSIMA_FMI1_ME) or Co-Simulation (COSIMA_FMI1_CS), the
 * equations, names, start values and value references of ../coupled/mass2.c.
 *   states s2, v2 (start 0): s2' = v2, m2 v2' = -F - c3 s2 - d3 v2
 *   inputs s1, v1, a1 (a1 unused); output F = c2 (s2 - s1) + d2 (v2 - v1) (depends directly on s1, v1)
 *   initial equation, in fmiInitialize/fmiInitializeSlave: s2 = s1 + offset. Its start value 0.5 is
 *   fixed="false", a guess: what fmiGetReal returns before initialization.
 * New here: the output s2_out = s2 (vr 14), the base of the negated alias below.
 * Co-Simulation: fmiDoStep holds the inputs and takes DUAL_MASS_SUBSTEPS steps of dual_mass_rk4, exactly as
 * the FMI 2.0 FMU's do_step, so that a master gets bitwise the same results from both.
 * Alias variables, only in modelDescription.xml: x2 (alias of s2, vr 0) and the output minus_s2_out
 * (negatedAlias of s2_out, vr 14). */
#include "../coupled/dual_mass.h"
#include "fmi1_common.h"

enum { S2, V2, DER_S2, DER_V2, S1_IN, V1_IN, A1_IN, F_OUT, M2, C2, D2, C3, D3, OFFSET, S2_OUT, N_VARIABLES };

#define REAL FMI1_REAL
static const fmi1_variable variables[N_VARIABLES] = {
  [S2] = {"s2", 0, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.5, 0, 0, 0},
  [V2] = {"v2", 1, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [DER_S2] = {"der(s2)", 2, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [DER_V2] = {"der(v2)", 3, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [S1_IN] = {"s1", 4, REAL, FMI1_INPUT, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [V1_IN] = {"v1", 5, REAL, FMI1_INPUT, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [A1_IN] = {"a1", 6, REAL, FMI1_INPUT, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [F_OUT] = {"F", 7, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [M2] = {"m2", 8, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 1.0, 1, 1e-6, 1e6},
  [C2] = {"c2", 9, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 100.0, 0, 0, 0},
  [D2] = {"d2", 10, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 1.0, 0, 0, 0},
  [C3] = {"c3", 11, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 10.0, 0, 0, 0},
  [D3] = {"d3", 12, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 1.0, 0, 0, 0},
  [OFFSET] = {"offset", 13, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 0.5, 0, 0, 0},
  [S2_OUT] = {"s2_out", 14, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
};

static const int states[] = {S2, V2};
static const int derivatives[] = {DER_S2, DER_V2};

static mass2_parameters parameters_of(fmi1_instance *inst) {
  const mass2_parameters q = {FMI1_R(inst, M2), FMI1_R(inst, C2), FMI1_R(inst, D2), FMI1_R(inst, C3),
                              FMI1_R(inst, D3), FMI1_R(inst, S1_IN), FMI1_R(inst, V1_IN)};
  return q;
}

static void initialize(fmi1_instance *inst, fmi1_event *event) {
  (void)event;
  FMI1_R(inst, S2) = FMI1_R(inst, S1_IN) + FMI1_R(inst, OFFSET); /* initial equation */
}

static void compute(fmi1_instance *inst) {
  const mass2_parameters q = parameters_of(inst);
  const double x[2] = {FMI1_R(inst, S2), FMI1_R(inst, V2)};
  double dx[2];
  mass2_rhs(x, &q, dx);
  FMI1_R(inst, DER_S2) = dx[0];
  FMI1_R(inst, DER_V2) = dx[1];
  FMI1_R(inst, F_OUT) = mass2_force(x, &q);
  FMI1_R(inst, S2_OUT) = x[0];
}

static fmiStatus do_step(fmi1_instance *inst, double t, double h) {
  (void)t;
  const mass2_parameters q = parameters_of(inst);
  double x[2] = {FMI1_R(inst, S2), FMI1_R(inst, V2)};
  dual_mass_step(x, h, mass2_rhs, &q);
  FMI1_R(inst, S2) = x[0];
  FMI1_R(inst, V2) = x[1];
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
#ifdef COSIMA_FMI1_ME
  .guid = "{8f70ca6c-4cad-4205-8224-19292919d982}",
#else
  .guid = "{4ea8bbbb-71d0-430a-abcd-c8813657ab26}",
#endif
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 0,
  .compute = compute,
  .initialize = initialize,
  .do_step = do_step,
};
