/* cosima_test_me_ball (and cosima_test_me_ball_nostate, the same source built with
 * COSIMA_ME_BALL_NOSTATE: canGetAndSetFMUstate="false"): Model Exchange only, a bouncing ball with a
 * state event, a time event and optional step events.
 *   states h, v (start h0, v0): der(h) = v, der(v) = -g
 *   event indicator z = h + 1e-10 (so that z != 0 at the restart after a bounce, where h = 0: 3.2.2)
 *   Event Mode, in this order:
 *     time event (not kicked yet and time >= t_kick): v := v + dv_kick, kick_time := time, kicked
 *     state event (h <= 0 and v < 0): h := 0, v := -e*v, bounces += 1, impact_time := time
 *     nextEventTime = t_kick until the kick is applied, undefined afterwards
 *   step events: with step_event_every = n > 0, every n-th fmi2CompletedIntegratorStep returns
 *     enterEventMode = fmi2True. step_events counts the entries into Event Mode by fmi2EnterEventMode
 *     whose first fmi2NewDiscreteStates finds neither a time nor a state event (so also an event that the
 *     importer raises for another reason).
 * bounces, kick_time, impact_time and step_events are discrete states: only fmi2Get/SetFMUstate can take them back. */
#include <math.h>

#include "me_common.h"

#ifdef COSIMA_ME_BALL_NOSTATE
#define MODEL_IDENTIFIER "cosima_test_me_ball_nostate"
#define GUID "{6f1c2a8e-5b3d-4e7a-9c0f-2d8b71e4a953}"
#define CAN_GET_AND_SET_FMU_STATE 0
#else
#define MODEL_IDENTIFIER "cosima_test_me_ball"
#define GUID "{0b9e4d71-3c2a-4f58-8e6d-a41f7c25b0e8}"
#define CAN_GET_AND_SET_FMU_STATE 1
#endif

enum { H, DER_H, V, DER_V, H_OUT, V_OUT, BOUNCES, KICK_TIME, STEP_EVENTS,
       H0, V0, G, E, T_KICK, DV_KICK, STEP_EVENT_EVERY, IMPACT_TIME, N_VARIABLES };
enum { KICKED, STEPS };  /* ME_DATA: kick applied; fmi2CompletedIntegratorStep calls */

#define CALC ME_CALCULATED
static const me_variable variables[N_VARIABLES] = {
  [H] = {"h", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [DER_H] = {"der(h)", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [V] = {"v", 2, ME_REAL, ME_LOCAL, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [DER_V] = {"der(v)", 3, ME_REAL, ME_LOCAL, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [H_OUT] = {"h_out", 10, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [V_OUT] = {"v_out", 11, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, CALC, 0, 0, 0, 0},
  [BOUNCES] = {"bounces", 12, ME_INTEGER, ME_OUTPUT, ME_DISCRETE, ME_EXACT, 0, 0, 0, 0},
  [KICK_TIME] = {"kick_time", 13, ME_REAL, ME_OUTPUT, ME_DISCRETE, ME_EXACT, -1, 0, 0, 0},
  [STEP_EVENTS] = {"step_events", 14, ME_INTEGER, ME_OUTPUT, ME_DISCRETE, ME_EXACT, 0, 0, 0, 0},
  [H0] = {"h0", 20, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
  [V0] = {"v0", 21, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.0, 0, 0, 0},
  [G] = {"g", 22, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 9.81, 0, 0, 0},
  [E] = {"e", 23, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.8, 1, 0.0, 1.0},
  [T_KICK] = {"t_kick", 24, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.5, 0, 0, 0},
  [DV_KICK] = {"dv_kick", 25, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 1.0, 0, 0, 0},
  [STEP_EVENT_EVERY] = {"step_event_every", 26, ME_INTEGER, ME_PARAMETER, ME_FIXED, ME_EXACT, 0, 1, 0, 1e9},
  [IMPACT_TIME] = {"impact_time", 15, ME_REAL, ME_OUTPUT, ME_DISCRETE, ME_EXACT, -1, 0, 0, 0},
};

static const int states[] = {H, V};
static const int derivatives[] = {DER_H, DER_V};

static void compute(me_instance *inst) {
  if (ME_INITIALIZING(inst)) {
    ME_R(inst, H) = ME_R(inst, H0);
    ME_R(inst, V) = ME_R(inst, V0);
  }
  ME_R(inst, DER_H) = ME_R(inst, V);
  ME_R(inst, DER_V) = -ME_R(inst, G);
  ME_R(inst, H_OUT) = ME_R(inst, H);
  ME_R(inst, V_OUT) = ME_R(inst, V);
}

static void event_indicators(me_instance *inst, double z[]) { z[0] = ME_R(inst, H) + 1e-10; }

static fmi2Status event_update(me_instance *inst, me_event *event) {
  const double t = ME_TIME(inst);
  const int time_event = !ME_DATA(inst, KICKED) && t >= ME_R(inst, T_KICK);
  if (time_event) {
    ME_R(inst, V) += ME_R(inst, DV_KICK);
    ME_R(inst, KICK_TIME) = t;
    ME_DATA(inst, KICKED) = 1;
    me_log(inst, fmi2OK, "time event at t = %.17g: kick, v = %.17g", t, ME_R(inst, V));
  }
  const int state_event = ME_R(inst, H) <= 0.0 && ME_R(inst, V) < 0.0;
  if (state_event) {
    ME_R(inst, H) = 0.0;
    ME_R(inst, V) = -ME_R(inst, E) * ME_R(inst, V);
    ME_I(inst, BOUNCES) += 1;
    ME_R(inst, IMPACT_TIME) = t;
    me_log(inst, fmi2OK, "state event at t = %.17g: bounce %d, v = %.17g", t, ME_I(inst, BOUNCES), ME_R(inst, V));
  }
  if (event->first && !event->initial && !time_event && !state_event) {
    ME_I(inst, STEP_EVENTS) += 1;
    me_log(inst, fmi2OK, "event at t = %.17g without time or state event: step_events = %d", t,
           ME_I(inst, STEP_EVENTS));
  }
  if (!ME_DATA(inst, KICKED)) {
    event->next_event_time_defined = 1;
    event->next_event_time = ME_R(inst, T_KICK);
  }
  return fmi2OK;
}

static fmi2Status completed_integrator_step(me_instance *inst, int *enter_event_mode) {
  const int every = ME_I(inst, STEP_EVENT_EVERY);
  ME_DATA(inst, STEPS) += 1;
  *enter_event_mode = every > 0 && fmod(ME_DATA(inst, STEPS), every) == 0.0;
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = MODEL_IDENTIFIER,
  .guid = GUID,
  .model_exchange = 1,
  .can_get_and_set_fmu_state = CAN_GET_AND_SET_FMU_STATE,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 1,
  .compute = compute,
  .event_indicators = event_indicators,
  .event_update = event_update,
  .completed_integrator_step = completed_integrator_step,
};
