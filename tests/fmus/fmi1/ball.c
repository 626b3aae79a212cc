/* cosima_test_fmi1_ball_me: FMI 1.0 Model Exchange, a bouncing ball with a state event and a time event.
 *   states h (start 1), v (start 0): h' = v, v' = -g                        (g = 9.81, e = 0.7 parameters)
 *   event indicator z = h
 *   fmiEventUpdate, first iteration of an event:
 *     time event (phase = 0 and t >= t_phase = 0.5, a constant): phase := 1
 *     state event (h <= 0 and v < 0): v := -e v, bounces += 1, contact := true, and a second iteration is
 *       needed (iterationConverged = fmiFalse), in which contact := false again
 *   so contact is fmiTrue only inside the event iteration of a bounce (an importer sees it with
 *   intermediateResults = fmiTrue), stateValuesChanged is reported for the event in which v was reset, and
 *   upcomingTimeEvent/nextEventTime = 0.5 is announced by fmiInitialize (starting before 0.5) and every
 *   fmiEventUpdate until the time event. fmiCompletedIntegratorStep never asks for an event update.
 * Value references are numbered per type, as exporters do: Real 0..6, Integer 0..1, Boolean 0. */
#include <math.h>

#include "fmi1_common.h"

enum { H, DER_H, V, DER_V, G, E, T_PHASE, BOUNCES, PHASE, CONTACT, N_VARIABLES };

static const fmi1_variable variables[N_VARIABLES] = {
  [H] = {"h", 0, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 1.0, 0, 0, 0},
  [DER_H] = {"der(h)", 1, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [V] = {"v", 2, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 1, 0.0, 0, 0, 0},
  [DER_V] = {"der(v)", 3, FMI1_REAL, FMI1_INTERNAL, FMI1_CONTINUOUS, 0, 0, 0, 0, 0},
  [G] = {"g", 4, FMI1_REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 9.81, 0, 0, 0},
  [E] = {"e", 5, FMI1_REAL, FMI1_INTERNAL, FMI1_PARAMETER, 1, 0.7, 1, 0.0, 1.0},
  [T_PHASE] = {"t_phase", 6, FMI1_REAL, FMI1_INTERNAL, FMI1_CONSTANT, 1, 0.5, 0, 0, 0},
  [BOUNCES] = {"bounces", 0, FMI1_INTEGER, FMI1_OUTPUT, FMI1_DISCRETE, 1, 0, 0, 0, 0},
  [PHASE] = {"phase", 1, FMI1_INTEGER, FMI1_OUTPUT, FMI1_DISCRETE, 0, 0, 0, 0, 0},
  [CONTACT] = {"contact", 0, FMI1_BOOLEAN, FMI1_OUTPUT, FMI1_DISCRETE, 0, 0, 0, 0, 0},
};

static const int states[] = {H, V};
static const int derivatives[] = {DER_H, DER_V};

static void compute(fmi1_instance *inst) {
  FMI1_R(inst, DER_H) = FMI1_R(inst, V);
  FMI1_R(inst, DER_V) = -FMI1_R(inst, G);
}

static void event_indicators(fmi1_instance *inst, double z[]) { z[0] = FMI1_R(inst, H); }

/* t has reached the time event (the importer stops at nextEventTime: within 1e-12 relative) */
static int at_time_event(fmi1_instance *inst) {
  const double t_phase = FMI1_R(inst, T_PHASE);
  return FMI1_TIME(inst) >= t_phase - 1e-12 * fmax(1.0, fabs(t_phase));
}

static void announce(fmi1_instance *inst, fmi1_event *event) {
  event->upcoming_time_event = FMI1_I(inst, PHASE) == 0;
  event->next_event_time = FMI1_R(inst, T_PHASE);
}

static void initialize(fmi1_instance *inst, fmi1_event *event) {
  FMI1_I(inst, PHASE) = at_time_event(inst) ? 1 : 0;
  FMI1_I(inst, CONTACT) = 0;
  announce(inst, event);
}

static fmiStatus event_update(fmi1_instance *inst, fmi1_event *event) {
  const double t = FMI1_TIME(inst);
  if (event->iteration == 0) {
    if (FMI1_I(inst, PHASE) == 0 && at_time_event(inst)) {
      FMI1_I(inst, PHASE) = 1;
      fmi1_log(inst, fmiOK, "time event at t = %.17g: phase = 1", t);
    }
    if (FMI1_R(inst, H) <= 0.0 && FMI1_R(inst, V) < 0.0) {
      FMI1_R(inst, V) = -FMI1_R(inst, E) * FMI1_R(inst, V);
      FMI1_I(inst, BOUNCES) += 1;
      FMI1_I(inst, CONTACT) = 1;
      event->converged = 0;
      fmi1_log(inst, fmiOK, "state event at t = %.17g: bounce %d, v = %.17g", t, FMI1_I(inst, BOUNCES),
               FMI1_R(inst, V));
    }
  } else {
    FMI1_I(inst, CONTACT) = 0;
  }
  announce(inst, event);
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
  .guid = "{eb0fcfa2-bd0e-4306-846d-d4dda3e66bfd}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 1,
  .compute = compute,
  .initialize = initialize,
  .event_indicators = event_indicators,
  .event_update = event_update,
};
