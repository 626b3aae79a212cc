/* cosima_fmi3_clocked (Co-Simulation with an input Clock): for testing that an importer refuses FMUs with clocks.
 * tick is a triggered input Clock, y a Float64 output clocked by it: the number of ticks so far. In Event Mode,
 * fmi3SetClock(tick, fmi3ClockActive) and fmi3UpdateDiscreteStates count a tick (and deactivate the clock).
 * The standard requires eventModeUsed = fmi3True for an FMU with clocks: fmi3InstantiateCoSimulation with
 * eventModeUsed = fmi3False returns NULL. fmi3DoStep does nothing else. */
#include "fmi3_runtime.h"

enum { TIME, TICK, Y, N_VARIABLES };
enum { TICKS };  /* FMU3_DATA */

static const fmu3_variable variables[N_VARIABLES] = {
  [TIME] = { .name = "time", .vr = 0, .type = FMU3_FLOAT64, .causality = FMU3_INDEPENDENT,
             .variability = FMU3_CONTINUOUS, .initial = FMU3_NO_INITIAL },
  [TICK] = { .name = "tick", .vr = 1, .type = FMU3_CLOCK, .causality = FMU3_INPUT, .variability = FMU3_DISCRETE,
             .initial = FMU3_NO_INITIAL },
  [Y] = { .name = "y", .vr = 2, .type = FMU3_FLOAT64, .causality = FMU3_OUTPUT, .variability = FMU3_DISCRETE,
          .initial = FMU3_CALCULATED },
};

static void compute(fmu3_instance *inst) { FMU3_F64(inst, Y)[0] = FMU3_DATA(inst, TICKS); }

static fmi3Status update_discrete_states(fmu3_instance *inst, fmu3_event *event) {
  (void)event;
  if (FMU3_CLOCK(inst, TICK)[0]) {
    FMU3_DATA(inst, TICKS) += 1;
    FMU3_CLOCK(inst, TICK)[0] = fmi3ClockInactive;
    fmu3_log(inst, fmi3OK, "tick %g at t = %.17g", FMU3_DATA(inst, TICKS), FMU3_TIME(inst));
  }
  return fmi3OK;
}

static fmi3Status do_step(fmu3_instance *inst, fmu3_step *step) {
  (void)inst;
  (void)step;
  return fmi3OK;
}

const fmu3_model fmu3_model_definition = {
  .model_identifier = "cosima_fmi3_clocked",
  .instantiation_token = "{c7e19a53-2b6d-4e80-a4f7-8d05b3c1e962}",
  .co_simulation = 1,
  .has_event_mode = 1,
  .has_clocks = 1,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
  .update_discrete_states = update_discrete_states,
};
