/* cosima_test_resource: output value = the number in resources/data.txt, read by fmi2Instantiate
 * from the percent-decoded fmuResourceLocation (file:///abs/dir or file:/abs/dir). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu_common.h"

enum { VALUE, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [VALUE] = {"value", 1, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
};

static int read_number(const char *file, double *value) {
  FILE *f = fopen(file, "r");
  if (!f) return 0;
  char text[256];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char *end;
  *value = strtod(text, &end);
  if (end == text) return 0;
  while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') ++end;
  return *end == '\0';
}

static int instantiate(fmu_instance *inst, fmi2String resource_location) {
  char *dir = fmu_resource_directory(inst, resource_location);
  if (!dir) return 1;
  size_t n = strlen(dir);
  char *file = inst->cb.allocateMemory(n + sizeof "/data.txt", 1);
  int ok = 0;
  if (file) {
    memcpy(file, dir, n);
    memcpy(file + n, "/data.txt", sizeof "/data.txt");
    ok = read_number(file, &inst->model_data);
    if (!ok)
      fmu_log(inst, fmi2Error, "fmi2Instantiate: cannot read a number from %s (fmuResourceLocation \"%s\")", file,
              resource_location);
    inst->cb.freeMemory(file);
  }
  inst->cb.freeMemory(dir);
  return ok ? 0 : 1;
}

static void compute(fmu_instance *inst) { FMU_R(inst, VALUE) = inst->model_data; }

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_resource",
  .guid = "{a155b29b-199d-4747-9a7a-7b0ca8ce6100}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .instantiate = instantiate,
  .compute = compute,
};
