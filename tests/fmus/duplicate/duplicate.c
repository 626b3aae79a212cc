/* cosima_test_fmi1_duplicate_me: FMI 1.0 Model Exchange, a PI controller whose model description declares three
 * internal variables twice.
 *
 * Exporter habit: hand-written FMI 1.0 model descriptions (a controller FMU at the heart of a peer's demo) in
 * which ScalarVariable elements were copied: the internal variables p_part, i_part and u_raw each appear twice,
 * with the same name, valueReference, type and variability (only the description differs). FMI 1.0 wants
 * unique names; the duplicates are otherwise harmless: each pair is one variable of the FMU.
 *   integral' = e, integral(0) = 0;  e input (start 1);  kp = 2, ki = 0.5 (parameters)
 *   p_part = kp e,  i_part = ki integral,  u_raw = p_part + i_part,  u = u_raw (output)
 *
 * What a correct importer shows: it loads the FMU (a warning naming p_part, i_part and u_raw is fine; refusing
 * an FMU for identical internal duplicates is not needed), and with e = 1: u = 2 + 0.5 t (explicit Euler gives
 * it exactly: integral = t); the internal variables read p_part = 2, i_part = 0.5 t, u_raw = u. */
#include "fmi1_common.h"

enum { INTEGRAL, DER_INTEGRAL, E, U, KP, KI, P_PART, I_PART, U_RAW, N_VARIABLES };

#define REAL FMI1_REAL
static const fmi1_variable variables[N_VARIABLES] = {
  [INTEGRAL] = {"integral", 0, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [DER_INTEGRAL] = {"der(integral)", 1, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [E] = {"e", 2, REAL, FMI1_INPUT, FMI1_CONTINUOUS, 1, 1.0, 0, 0, 0},
  [U] = {"u", 3, REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [KP] = {"kp", 4, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 2.0, 0, 0, 0},
  [KI] = {"ki", 5, REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 0.5, 0, 0, 0},
  [P_PART] = {"p_part", 6, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [I_PART] = {"i_part", 7, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [U_RAW] = {"u_raw", 8, REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
};

static const int states[] = {INTEGRAL};
static const int derivatives[] = {DER_INTEGRAL};

static void compute(fmi1_instance *inst) {
  FMI1_R(inst, DER_INTEGRAL) = FMI1_R(inst, E);
  FMI1_R(inst, P_PART) = FMI1_R(inst, KP) * FMI1_R(inst, E);
  FMI1_R(inst, I_PART) = FMI1_R(inst, KI) * FMI1_R(inst, INTEGRAL);
  FMI1_R(inst, U_RAW) = FMI1_R(inst, P_PART) + FMI1_R(inst, I_PART);
  FMI1_R(inst, U) = FMI1_R(inst, U_RAW);
}

const fmi1_model fmi1_model_definition = {
  .guid = "{1fb4360b-970e-43d8-9ac7-43909e824ad4}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .compute = compute,
};
