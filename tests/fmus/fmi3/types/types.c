/* cosima_fmi3_types (Co-Simulation and Model Exchange): one input and one direct-feedthrough output of every FMI 3.0 type, a few
 * parameters, arrays and a continuous state.
 *   y_<T> = u_<T> + 1 for the integer types (wrapping around at the end of the type's range), + 0.5 for Float32
 *   and Float64; y_Boolean = not u_Boolean; y_String = u_String + "!"; y_Binary = the bytes of u_Binary reversed;
 *   y_Enumeration = u_Enumeration (an item of Color)
 *   structural parameter n (UInt64, 1..16): ua[n] input, ya[n] = 2 ua output
 *   parameter P[2][3] (start 1..6 row-major), output M[2][3] = P
 *   continuous state x (an output, start 0): der(x) = u_Float64, integrated exactly by fmi3DoStep
 *   local steps (UInt64): the fmi3DoStep calls so far; output count = u_UInt64 + steps (wrapping around) */
#include <stdlib.h>
#include <string.h>

#include "fmi3_runtime.h"

enum {
  TIME, K, BIG, UBIG, LABEL, FLAG,
  U_F32, U_F64, U_I8, U_U8, U_I16, U_U16, U_I32, U_U32, U_I64, U_U64, U_BOOL, U_STR, U_BIN, U_ENUM,
  Y_F32, Y_F64, Y_I8, Y_U8, Y_I16, Y_U16, Y_I32, Y_U32, Y_I64, Y_U64, Y_BOOL, Y_STR, Y_BIN, Y_ENUM,
  N, UA, YA, P, M, X, DER_X, STEPS, COUNT, N_VARIABLES
};

static const long long color_items[] = {1, 2, 3};  /* red, green, blue */
static const fmu3_enumeration color = {"Color", 3, color_items};

#define VAR(nm, v, T, C, V, I, S) \
  { .name = nm, .vr = v, .type = T, .causality = C, .variability = V, .initial = I, .start = S }
#define PAR(nm, v, T, V, S) VAR(nm, v, T, FMU3_PARAMETER, V, FMU3_EXACT, S)
#define IN(nm, v, T, V, S) VAR(nm, v, T, FMU3_INPUT, V, FMU3_NO_INITIAL, S)
#define OUT(nm, v, T, V) VAR(nm, v, T, FMU3_OUTPUT, V, FMU3_CALCULATED, NULL)
#define DIM_N { .size = 0, .vr = 50 }

static const fmu3_variable variables[N_VARIABLES] = {
  [TIME] = VAR("time", 0, FMU3_FLOAT64, FMU3_INDEPENDENT, FMU3_CONTINUOUS, FMU3_NO_INITIAL, NULL),
  [K] = PAR("k", 1, FMU3_FLOAT64, FMU3_TUNABLE, "2.5"),
  [BIG] = PAR("big", 2, FMU3_INT64, FMU3_FIXED, "4611686018427387904"),
  [UBIG] = PAR("ubig", 3, FMU3_UINT64, FMU3_FIXED, "18446744073709551615"),
  [LABEL] = PAR("label", 4, FMU3_STRING, FMU3_FIXED, "cosima"),
  [FLAG] = PAR("flag", 5, FMU3_BOOLEAN, FMU3_FIXED, "true"),

  [U_F32] = IN("u_Float32", 10, FMU3_FLOAT32, FMU3_CONTINUOUS, "0.25"),
  [U_F64] = IN("u_Float64", 11, FMU3_FLOAT64, FMU3_CONTINUOUS, "1"),
  [U_I8] = { .name = "u_Int8", .vr = 12, .type = FMU3_INT8, .causality = FMU3_INPUT, .variability = FMU3_DISCRETE,
             .initial = FMU3_NO_INITIAL, .start = "-8", .has_range = 1, .min = -100, .max = 100 },
  [U_U8] = IN("u_UInt8", 13, FMU3_UINT8, FMU3_DISCRETE, "200"),
  [U_I16] = IN("u_Int16", 14, FMU3_INT16, FMU3_DISCRETE, "-1000"),
  [U_U16] = IN("u_UInt16", 15, FMU3_UINT16, FMU3_DISCRETE, "60000"),
  [U_I32] = IN("u_Int32", 16, FMU3_INT32, FMU3_DISCRETE, "-100000"),
  [U_U32] = IN("u_UInt32", 17, FMU3_UINT32, FMU3_DISCRETE, "4000000000"),
  [U_I64] = IN("u_Int64", 18, FMU3_INT64, FMU3_DISCRETE, "-5000000000"),
  [U_U64] = IN("u_UInt64", 19, FMU3_UINT64, FMU3_DISCRETE, "10000000000000000000"),
  [U_BOOL] = IN("u_Boolean", 20, FMU3_BOOLEAN, FMU3_DISCRETE, "false"),
  [U_STR] = IN("u_String", 21, FMU3_STRING, FMU3_DISCRETE, "hello"),
  [U_BIN] = IN("u_Binary", 22, FMU3_BINARY, FMU3_DISCRETE, "00ff10"),
  [U_ENUM] = { .name = "u_Enumeration", .vr = 23, .type = FMU3_ENUMERATION, .causality = FMU3_INPUT,
               .variability = FMU3_DISCRETE, .initial = FMU3_NO_INITIAL, .start = "2", .enumeration = &color },

  [Y_F32] = OUT("y_Float32", 30, FMU3_FLOAT32, FMU3_CONTINUOUS),
  [Y_F64] = OUT("y_Float64", 31, FMU3_FLOAT64, FMU3_CONTINUOUS),
  [Y_I8] = OUT("y_Int8", 32, FMU3_INT8, FMU3_DISCRETE),
  [Y_U8] = OUT("y_UInt8", 33, FMU3_UINT8, FMU3_DISCRETE),
  [Y_I16] = OUT("y_Int16", 34, FMU3_INT16, FMU3_DISCRETE),
  [Y_U16] = OUT("y_UInt16", 35, FMU3_UINT16, FMU3_DISCRETE),
  [Y_I32] = OUT("y_Int32", 36, FMU3_INT32, FMU3_DISCRETE),
  [Y_U32] = OUT("y_UInt32", 37, FMU3_UINT32, FMU3_DISCRETE),
  [Y_I64] = OUT("y_Int64", 38, FMU3_INT64, FMU3_DISCRETE),
  [Y_U64] = OUT("y_UInt64", 39, FMU3_UINT64, FMU3_DISCRETE),
  [Y_BOOL] = OUT("y_Boolean", 40, FMU3_BOOLEAN, FMU3_DISCRETE),
  [Y_STR] = OUT("y_String", 41, FMU3_STRING, FMU3_DISCRETE),
  [Y_BIN] = OUT("y_Binary", 42, FMU3_BINARY, FMU3_DISCRETE),
  [Y_ENUM] = { .name = "y_Enumeration", .vr = 43, .type = FMU3_ENUMERATION, .causality = FMU3_OUTPUT,
               .variability = FMU3_DISCRETE, .initial = FMU3_CALCULATED, .enumeration = &color },

  [N] = { .name = "n", .vr = 50, .type = FMU3_UINT64, .causality = FMU3_STRUCTURAL_PARAMETER,
          .variability = FMU3_FIXED, .initial = FMU3_EXACT, .start = "3", .has_range = 1, .min = 1, .max = 16 },
  [UA] = { .name = "ua", .vr = 51, .type = FMU3_FLOAT64, .causality = FMU3_INPUT, .variability = FMU3_CONTINUOUS,
           .initial = FMU3_NO_INITIAL, .start = "1 2 3", .n_dimensions = 1, .dimensions = {DIM_N} },
  [YA] = { .name = "ya", .vr = 52, .type = FMU3_FLOAT64, .causality = FMU3_OUTPUT, .variability = FMU3_CONTINUOUS,
           .initial = FMU3_CALCULATED, .n_dimensions = 1, .dimensions = {DIM_N} },
  [P] = { .name = "P", .vr = 53, .type = FMU3_FLOAT64, .causality = FMU3_PARAMETER, .variability = FMU3_FIXED,
          .initial = FMU3_EXACT, .start = "1 2 3 4 5 6", .n_dimensions = 2, .dimensions = {{2, 0}, {3, 0}} },
  [M] = { .name = "M", .vr = 54, .type = FMU3_FLOAT64, .causality = FMU3_OUTPUT, .variability = FMU3_DISCRETE,
          .initial = FMU3_CALCULATED, .n_dimensions = 2, .dimensions = {{2, 0}, {3, 0}} },
  [X] = VAR("x", 60, FMU3_FLOAT64, FMU3_OUTPUT, FMU3_CONTINUOUS, FMU3_EXACT, "0"),
  [DER_X] = VAR("der(x)", 61, FMU3_FLOAT64, FMU3_LOCAL, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [STEPS] = VAR("steps", 62, FMU3_UINT64, FMU3_LOCAL, FMU3_DISCRETE, FMU3_EXACT, "0"),
  [COUNT] = OUT("count", 63, FMU3_UINT64, FMU3_DISCRETE),
};

static void compute(fmu3_instance *inst) {
  FMU3_F32(inst, Y_F32)[0] = FMU3_F32(inst, U_F32)[0] + 0.5f;
  FMU3_F64(inst, Y_F64)[0] = FMU3_F64(inst, U_F64)[0] + 0.5;
  /* + 1 in the unsigned type of the same width: wraps around (the conversion back is modulo 2^N with gcc/clang) */
  FMU3_I8(inst, Y_I8)[0] = (fmi3Int8)(fmi3UInt8)((fmi3UInt8)FMU3_I8(inst, U_I8)[0] + 1u);
  FMU3_U8(inst, Y_U8)[0] = (fmi3UInt8)(FMU3_U8(inst, U_U8)[0] + 1u);
  FMU3_I16(inst, Y_I16)[0] = (fmi3Int16)(fmi3UInt16)((fmi3UInt16)FMU3_I16(inst, U_I16)[0] + 1u);
  FMU3_U16(inst, Y_U16)[0] = (fmi3UInt16)(FMU3_U16(inst, U_U16)[0] + 1u);
  FMU3_I32(inst, Y_I32)[0] = (fmi3Int32)((fmi3UInt32)FMU3_I32(inst, U_I32)[0] + 1u);
  FMU3_U32(inst, Y_U32)[0] = FMU3_U32(inst, U_U32)[0] + 1u;
  FMU3_I64(inst, Y_I64)[0] = (fmi3Int64)((fmi3UInt64)FMU3_I64(inst, U_I64)[0] + 1u);
  FMU3_U64(inst, Y_U64)[0] = FMU3_U64(inst, U_U64)[0] + 1u;
  FMU3_BOOL(inst, Y_BOOL)[0] = !FMU3_BOOL(inst, U_BOOL)[0];
  FMU3_I64(inst, Y_ENUM)[0] = FMU3_I64(inst, U_ENUM)[0];
  FMU3_U64(inst, COUNT)[0] = FMU3_U64(inst, U_U64)[0] + FMU3_U64(inst, STEPS)[0];

  const char *u = FMU3_STR(inst, U_STR);
  const size_t n = strlen(u);
  char *text = malloc(n + 2);
  if (text) {  /* out of memory: y_String keeps its old value */
    memcpy(text, u, n);
    memcpy(text + n, "!", 2);
    fmu3_set_string(inst, Y_STR, text);
    free(text);
  }
  const fmu3_bytes *b = &FMU3_BIN(inst, U_BIN);
  unsigned char *reversed = malloc(b->size ? b->size : 1);
  if (reversed) {
    for (size_t k = 0; k < b->size; ++k) reversed[k] = b->bytes[b->size - 1 - k];
    fmu3_set_binary(inst, Y_BIN, reversed, b->size);
    free(reversed);
  }

  for (size_t k = 0; k < FMU3_COUNT(inst, YA); ++k) FMU3_F64(inst, YA)[k] = 2.0 * FMU3_F64(inst, UA)[k];
  for (size_t k = 0; k < FMU3_COUNT(inst, M); ++k) FMU3_F64(inst, M)[k] = FMU3_F64(inst, P)[k];
  FMU3_F64(inst, DER_X)[0] = FMU3_F64(inst, U_F64)[0];
}

static fmi3Status do_step(fmu3_instance *inst, fmu3_step *step) {
  FMU3_F64(inst, X)[0] += FMU3_F64(inst, U_F64)[0] * step->h;  /* u_Float64 is constant over the step */
  FMU3_U64(inst, STEPS)[0] += 1u;
  return fmi3OK;
}

static const int states[] = {X};
static const int derivatives[] = {DER_X};

const fmu3_model fmu3_model_definition = {
  .model_identifier = "cosima_fmi3_types",
  .instantiation_token = "{8c4e810f-3df3-4a00-8276-176fa3c9f000}",
  .model_exchange = 1,
  .co_simulation = 1,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .can_get_and_set_fmu_state = 1,
  .can_serialize_fmu_state = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
};
