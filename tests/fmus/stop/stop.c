/* An FMU that ends the run itself between communication points, as FMI 2.0 Model Exchange + Co-Simulation
 * (cosima_test_stop), FMI 1.0 Model Exchange (cosima_test_fmi1_stop_me) and FMI 1.0 Co-Simulation
 * (cosima_test_fmi1_stop_cs), all from this file (../both_versions.h).
 *
 * Exporter habit: a model that stops the simulation itself at a time of its own (Modelica's terminate() in a
 * `when time >= t_stop` clause, a stop block), exported as Model Exchange (a time event at t_stop whose event
 * update returns terminateSimulation = true) and as Co-Simulation (the step that reaches t_stop ends there and
 * returns Discard: FMI 2.0 with fmi2Terminated = true and fmi2LastSuccessfulTime = t_stop; FMI 1.0, which has no
 * fmiTerminated, with fmiLastSuccessfulTime = t_stop and no further step). tests/fmus/counter does the
 * Co-Simulation part for FMI 2.0 alone; this one has the Model Exchange part and both versions.
 *   x' = 1, x(0) = 0;  y = x (output);  t_stop = 12.5 (parameter): the time event that ends the run
 *
 * What a correct importer shows with communication points (output interval) 1:
 *   - Model Exchange: it integrates up to the announced time event, t = 12.5 (nextEventTime), calls the event
 *     update there, sees terminateSimulation and stops: rows t = 0, 1, ..., 12 with y = t, and a last row at
 *     t = 12.5 with y = 12.5; no row after 12.5 (whatever stop time was asked), no error.
 *   - Co-Simulation: rows t = 0, ..., 12; the step from 12 returns Discard; the importer asks why
 *     (fmi2GetBooleanStatus(fmi2Terminated) = true; fmi(2)GetRealStatus(fmi(2)LastSuccessfulTime) = 12.5), records
 *     the values there (y = 12.5, readable after a discarded step) and ends the run at t = 12.5, no error.
 *   An importer that treats Discard as a failure, retries, or keeps stepping has not understood the FMU. */
#include "../both_versions.h"

enum { X, DER_X, Y, T_STOP, N_VARIABLES };

#if BOTH_FMI1
static const fmi1_variable variables[N_VARIABLES] = {
  [X] = {"x", 0, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [DER_X] = {"der(x)", 1, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [Y] = {"y", 2, FMI1_REAL, FMI1_OUTPUT, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [T_STOP] = {"t_stop", 3, FMI1_REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 12.5, 0, 0, 0},
};
#else
static const me_variable variables[N_VARIABLES] = {
  [X] = {"x", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_X] = {"der(x)", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [Y] = {"y", 2, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [T_STOP] = {"t_stop", 3, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 12.5, 0, 0, 0},
};
#endif

static const int states[] = {X};
static const int derivatives[] = {DER_X};

static void compute(both_instance *inst) {
  BOTH_R(inst, DER_X) = 1.0;
  BOTH_R(inst, Y) = BOTH_R(inst, X);
}

/* an event update: 1 if it is the time event at t_stop, which ends the simulation */
static int stop_event(both_instance *inst) {
  const double t = BOTH_TIME(inst), t_stop = BOTH_R(inst, T_STOP);
  if (!both_reached(t, t_stop)) return 0;
  both_log(inst, BOTH_OK, "time event at t = %.17g: t_stop = %.17g reached, terminateSimulation", t, t_stop);
  return 1;
}

/* Co-Simulation: x exactly; the step that reaches t_stop ends there */
static both_status do_step(both_instance *inst, double t, double h) {
  const double t_stop = BOTH_R(inst, T_STOP);
  if (!both_reached(t + h, t_stop)) {
    BOTH_R(inst, X) += h;
    return BOTH_OK;
  }
  BOTH_R(inst, X) += fmax(0.0, t_stop - t);
  BOTH_TIME(inst) = fmax(t, t_stop);
  BOTH_SET_TERMINATED(inst);
  both_log(inst, BOTH_DISCARD, "DoStep(%.17g, %.17g): t_stop = %.17g reached, the simulation ends at t = %.17g", t, h,
           t_stop, BOTH_TIME(inst));
  return BOTH_DISCARD;
}

#if BOTH_FMI1
static void announce(fmi1_instance *inst, fmi1_event *event) {
  event->upcoming_time_event = FMI1_R(inst, T_STOP) > FMI1_TIME(inst);
  event->next_event_time = FMI1_R(inst, T_STOP);
}

static void initialize(fmi1_instance *inst, fmi1_event *event) { announce(inst, event); }

static fmiStatus event_update(fmi1_instance *inst, fmi1_event *event) {
  if (event->iteration == 0 && stop_event(inst))
    event->terminate = 1;
  else
    announce(inst, event);
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
#ifdef COSIMA_FMI1_ME
  .guid = "{23afa450-c94b-4aff-8685-880fdfeb449c}",
#else
  .guid = "{c4862ead-26e2-40e3-bbf0-9b7ad6515046}",
#endif
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .compute = compute,
  .initialize = initialize,
  .event_update = event_update,
  .do_step = do_step,
};
#else
static fmi2Status event_update(me_instance *inst, me_event *event) {
  if (event->first && !event->initial && stop_event(inst)) {
    event->terminate_simulation = 1;
    return fmi2OK;
  }
  event->next_event_time_defined = ME_R(inst, T_STOP) > ME_TIME(inst);
  event->next_event_time = ME_R(inst, T_STOP);
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_stop",
  .guid = "{242a307e-5579-4c43-ab32-d9778461937c}",
  .model_exchange = 1,
  .can_get_and_set_fmu_state = 0,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .compute = compute,
  .event_update = event_update,
  .do_step = do_step,
};
#endif
