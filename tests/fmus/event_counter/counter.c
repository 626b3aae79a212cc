/* The time-event counter of FMI 1.0 exporters, as FMI 1.0 Model Exchange (cosima_test_fmi1_counter_me), FMI 1.0
 * Co-Simulation (cosima_test_fmi1_counter_cs) and FMI 2.0 Model Exchange + Co-Simulation
 * (cosima_test_event_counter), all from this file (../both_versions.h).
 *
 * Exporter habit (the FMU SDK's `inc` example and FMUs made after it): an Integer output `counter` that starts
 * at 1; fmiInitialize announces the first time event (eventInfo: upcomingTimeEvent = fmiTrue, nextEventTime = 1,
 * iterationConverged = fmiTrue) and every fmiEventUpdate adds 1 and announces the next second: the FMU trusts
 * the importer to call fmiEventUpdate only at its events. At the event where the counter would reach 13 it asks
 * to end the simulation (terminateSimulation) instead; unlike `inc`, which shows 13 in that same update, it
 * leaves 12, so that the last value does not depend on whether an importer records the values of a terminating
 * event update.
 *   counter      Integer output, discrete, start 1; + 1 at each event handled after the initialization
 *   events at t = 1, 2, 3, ... (nextEventTime = the next whole second); the event at t = 12 ends the simulation
 * FMI 2.0 Model Exchange: the event iteration that follows fmi2ExitInitializationMode (required by the standard,
 * 3.2.3) changes nothing; each Event Mode entered by fmi2EnterEventMode counts, like an FMI 1.0 fmiEventUpdate,
 * and the event at t = 12 returns terminateSimulation = fmi2True from fmi2NewDiscreteStates.
 * Co-Simulation (both versions): fmiDoStep/fmi2DoStep handles the events inside (t, t + h], the one at t + h
 * included, so the values at a communication point are those after its event. The step that reaches t = 12
 * returns fmiDiscard/fmi2Discard with fmi(2)LastSuccessfulTime = 12 (FMI 2.0: fmi2GetBooleanStatus(fmi2Terminated)
 * = fmi2True; FMI 1.0 has no such status and the slave refuses further steps).
 *
 * What a correct importer shows (no inputs, no state events, fmiCompletedIntegratorStep never asks for an event,
 * so the only events are the announced time events):
 *   - FMI 1.0 Model Exchange: no fmiEventUpdate right after fmiInitialize (the standard's calling sequence goes
 *     from fmiInitialize, iterationConverged = fmiTrue, straight into the integration; fmiEventUpdate follows a
 *     time, state or step event), then one fmiEventUpdate at each of t = 1, 2, ..., 12.
 *   - counter = 1 on [0, 1), 2 from the event at t = 1, ..., 12 from the event at t = 11; the event at t = 12
 *     keeps 12 and ends the run: the last time is 12, with counter = 12; 13 never appears.
 *   - Co-Simulation with communication step 1: 1, 2, ..., 12 at t = 0, 1, ..., 11, and 12 at t = 12, where the
 *     step returns Discard and the run ends.
 * An importer that calls fmiEventUpdate after fmiInitialize shows 2 at t = 0, k + 2 at t = k and ends at t = 11
 * (where its counter would reach 13). */
#include "../both_versions.h"

enum { COUNTER, N_VARIABLES };
enum { NEXT_EVENT };          /* BOTH_DATA: the time event announced last */
enum { COUNTER_LIMIT = 13 };  /* the value at which the FMU ends the simulation instead */

#if BOTH_FMI1
static const fmi1_variable variables[N_VARIABLES] = {
  [COUNTER] = {"counter", 0, FMI1_INTEGER, FMI1_OUTPUT, FMI1_DISCRETE, 1, 1.0, 0, 0, 0},
};
#else
static const me_variable variables[N_VARIABLES] = {
  [COUNTER] = {"counter", 1, ME_INTEGER, ME_OUTPUT, ME_DISCRETE, ME_EXACT, 1.0, 0, 0, 0},
};
#endif

/* The model's part of one event (`initial`: the initialization, which changes nothing): 1 if the model ends
   the simulation here, else 0 with the next time event in BOTH_DATA(NEXT_EVENT). */
static int counter_event(both_instance *inst, int initial) {
  const double t = BOTH_TIME(inst);
  BOTH_DATA(inst, NEXT_EVENT) = floor(t + 1e-9) + 1.0;
  if (initial) return 0;
  if (BOTH_I(inst, COUNTER) + 1 >= COUNTER_LIMIT) {
    both_log(inst, BOTH_OK, "event at t = %.17g: counter would reach %d, terminateSimulation", t, COUNTER_LIMIT);
    return 1;
  }
  BOTH_I(inst, COUNTER) += 1;
  both_log(inst, BOTH_OK, "event at t = %.17g: counter = %d", t, BOTH_I(inst, COUNTER));
  return 0;
}

static void compute(both_instance *inst) { (void)inst; }  /* nothing is calculated */

/* Co-Simulation: the events in (t, t + h] */
static both_status do_step(both_instance *inst, double t, double h) {
  const double end = t + h;
  for (double k = floor(t + 1e-9) + 1.0; both_reached(end, k); k += 1.0) {
    BOTH_TIME(inst) = k;
    if (counter_event(inst, 0)) {
      BOTH_SET_TERMINATED(inst);
      both_log(inst, BOTH_DISCARD, "DoStep(%.17g, %.17g): the simulation ends at t = %.17g", t, h, k);
      return BOTH_DISCARD;  /* time = k: the last successful time */
    }
  }
  return BOTH_OK;
}

#if BOTH_FMI1
static void initialize(fmi1_instance *inst, fmi1_event *event) {
  counter_event(inst, 1);
  event->upcoming_time_event = 1;
  event->next_event_time = FMI1_DATA(inst, NEXT_EVENT);
}

static fmiStatus event_update(fmi1_instance *inst, fmi1_event *event) {
  if (event->iteration == 0 && counter_event(inst, 0)) {
    event->terminate = 1;
    return fmiOK;
  }
  event->upcoming_time_event = 1;
  event->next_event_time = FMI1_DATA(inst, NEXT_EVENT);
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
#ifdef COSIMA_FMI1_ME
  .guid = "{fd0e2195-324d-4110-80d2-23299beb0172}",
#else
  .guid = "{8071c2b9-cd61-4279-933d-a5ea7e0ce179}",
#endif
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .initialize = initialize,
  .event_update = event_update,
  .do_step = do_step,
};
#else
static fmi2Status event_update(me_instance *inst, me_event *event) {
  if (event->first && counter_event(inst, event->initial)) {
    event->terminate_simulation = 1;
    return fmi2OK;
  }
  event->next_event_time_defined = 1;
  event->next_event_time = ME_DATA(inst, NEXT_EVENT);
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_event_counter",
  .guid = "{8cd406f8-b4fe-4893-8c5a-fa88a0c99a7b}",
  .model_exchange = 1,
  .can_get_and_set_fmu_state = 0,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .event_update = event_update,
  .do_step = do_step,
};
#endif
