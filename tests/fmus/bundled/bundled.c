/* cosima_test_bundled: an FMU that carries its own copy of a library cosima also loads, as FMUs
 * exported by Modelica tools carry SUNDIALS: its binary exports N_VNew_Serial (SUNDIALS' serial
 * N_Vector constructor, same name and shape) and calls it from fmi2Instantiate. The copy returns a
 * marker; fmi2Instantiate fails, naming the cause, unless the call reached the FMU's own copy —
 * as it does when the importer lets an FMU's references bind inside its own library first. The
 * output `own_copy` is 1 when they did. */
#include <stddef.h>

#include "fmu_common.h"

enum { OWN_COPY, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [OWN_COPY] = {"own_copy", 1, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
};

static int marker;

/* the bundled library's symbol: exported (default visibility), as a shared or static copy exports it */
__attribute__((visibility("default"), noinline)) void *N_VNew_Serial(long length, void *context) {
  (void)length;
  (void)context;
  return &marker;
}

static int instantiate(fmu_instance *inst, fmi2String resource_location) {
  (void)resource_location;
  static int context;  /* anything but NULL: another library's constructor must not dereference NULL */
  if (N_VNew_Serial(1, &context) != &marker) {
    fmu_log(inst, fmi2Error, "N_VNew_Serial bound to another library's copy, not this FMU's own");
    return 1;
  }
  FMU_R(inst, OWN_COPY) = 1.0;
  return 0;
}

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  (void)inst;
  (void)t;
  (void)h;
  return fmi2OK;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_bundled",
  .guid = "{d4a6f315-927a-4e8b-af4d-5bae8ebc3d44}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .instantiate = instantiate,
  .do_step = do_step,
};
