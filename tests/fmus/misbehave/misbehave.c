/* cosima_test_misbehave: output y = time. Parameter mode: 0 none, 1 segfault, 2 abort(), 3 exit(0),
 * 4 hang, 5 stack overflow (unbounded recursion), 6 segfault under the FMU's own SIGSEGV handler
 * (installed at its first fmi2GetXXX, in Initialization Mode; it exits 139 without a word, as some
 * runtimes do), 7 segfault in
 * fmi2FreeInstance (after a run that went well), 8 a stray write over every shared writable mapping
 * of its process (0xFF over each: the mailboxes of a process executor's child), then fmi2OK, 9 bytes
 * written to every descriptor from 3 to 63, then exit(70) (a dead process with data left on its
 * socket), 10 SIGSEGV reset to the default, then a segfault; modes 1-6 and 8-10 happen in the
 * fmi2DoStep whose end time
 * exceeds `at` (t + h > at + 1e-12), or in fmi2Instantiate if the environment variable
 * COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE is 1..4. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmu_common.h"

enum { Y, MODE, AT, N_VARIABLES };

static const fmu_variable variables[N_VARIABLES] = {
  [Y] = {"y", 1, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, NULL, 0, 0, 0, NULL},
  [MODE] = {"mode", 2, FMU_INTEGER, FMU_PARAMETER, FMU_FIXED, 0.0, NULL, 1, 0.0, 10.0, NULL},
  [AT] = {"at", 3, FMU_REAL, FMU_PARAMETER, FMU_FIXED, 0.5, NULL, 0, 0, 0, NULL},
};

/* recursion the compiler cannot turn into a loop: each frame keeps a buffer alive past the call;
   the bound (far beyond any stack) only keeps the compiler from calling it infinite */
static volatile long recursion_bound = 1L << 40;
__attribute__((noinline)) static int recurse(volatile char *previous, long depth) {
  volatile char frame[512];
  frame[0] = (char)depth;
  frame[511] = previous ? previous[0] : 0;
  if (depth >= recursion_bound) return frame[511];
  return recurse(frame, depth + 1) + frame[511];
}

static void own_handler(int signal) {
  (void)signal;
  _exit(139);
}

/* 0xFF over every mapping of this process that is shared and writable ("rw-s" in /proc/self/maps) */
static void scribble_over_shared_mappings(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[512];
  while (fgets(line, sizeof line, maps)) {
    unsigned long from = 0, to = 0;
    char permissions[5] = {0};
    if (sscanf(line, "%lx-%lx %4s", &from, &to, permissions) == 3 && strcmp(permissions, "rw-s") == 0)
      memset((void *)from, 0xFF, to - from);
  }
  fclose(maps);
}

/* the store through NULL must reach the hardware, even in sanitized builds */
__attribute__((no_sanitize("undefined"), noinline)) static void misbehave(int mode) {
  switch (mode) {
    case 1:
    case 6:
    case 7: {
      volatile int *volatile null_pointer = NULL;
      *null_pointer = 42;
      break;
    }
    case 10: {
      signal(SIGSEGV, SIG_DFL);
      volatile int *volatile null_pointer = NULL;
      *null_pointer = 42;
      break;
    }
    case 8: scribble_over_shared_mappings(); break;
    case 9:
      for (int fd = 3; fd < 64; ++fd) {
        static const char junk[] = "junk from an FMU\n";
        (void)!write(fd, junk, sizeof junk - 1);
      }
      exit(70);
    case 5: (void)recurse(NULL, 0); break;
    case 2: abort();
    case 3: exit(0);
    case 4:
      for (;;) sleep(1000);
    default: break;
  }
}

static int instantiate(fmu_instance *inst, fmi2String resource_location) {
  (void)resource_location;
  const char *env = getenv("COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE");
  if (env && strlen(env) == 1 && env[0] >= '1' && env[0] <= '4') {
    fmu_log(inst, fmi2OK, "misbehaving in fmi2Instantiate: mode %c", env[0]);
    misbehave(env[0] - '0');
  }
  return 0;
}

static void compute(fmu_instance *inst) {
  /* mode 6: a runtime that installs its own handler while it initializes (the first fmi2GetXXX) */
  static int own_handler_installed = 0;
  if (FMU_I(inst, MODE) == 6 && !own_handler_installed) {
    signal(SIGSEGV, own_handler);
    own_handler_installed = 1;
  }
  FMU_R(inst, Y) = inst->time;
}

static void free_misbehaving(fmu_instance *inst) {
  if (FMU_I(inst, MODE) == 7) misbehave(7);
}

static fmi2Status do_step(fmu_instance *inst, double t, double h) {
  if (FMU_I(inst, MODE) != 0 && FMU_I(inst, MODE) != 7 && t + h > FMU_R(inst, AT) + 1e-12) {
    fmu_log(inst, fmi2OK, "misbehaving in fmi2DoStep(%.17g, %.17g): mode %d", t, h, FMU_I(inst, MODE));
    misbehave(FMU_I(inst, MODE));
  }
  return fmi2OK;
}

const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_misbehave",
  .guid = "{da66609c-1378-4c27-b026-1ed437127269}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .instantiate = instantiate,
  .compute = compute,
  .do_step = do_step,
  .free_instance = free_misbehaving,
};
