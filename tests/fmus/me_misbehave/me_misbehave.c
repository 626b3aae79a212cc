/* cosima_test_me_misbehave: Model Exchange only. State x (start 0), der(x) = -x + u, output y = x,
 * event indicator z = x - 10 (normally never crossed). Parameter mode (each logs what it does):
 *   0 well-behaved
 *   1 fmi2GetDerivatives returns fmi2Error when time >= fail_at
 *   2 time event at fail_at; from then on fmi2NewDiscreteStates always returns newDiscreteStatesNeeded =
 *     fmi2True (the event iteration never converges)
 *   3 time event at fail_at; from then on chattering: z = s*(1 - (time - t_e)/1e-9), with t_e the time of
 *     the last event and s = +1/-1 flipped at each event: z = +-1 at every restart and changes sign again
 *     1e-9 s later, so the state event recurs (nearly) at the same time forever
 *   4 fmi2GetDerivatives returns fmi2OK with der(x) = NaN when time >= fail_at
 *   5 time event at fail_at returns terminateSimulation = fmi2True (a normal end, not an error)
 *   6 fmi2NewDiscreteStates returns fmi2Error at the time event at fail_at
 *   7 fmi2CompletedIntegratorStep returns fmi2Error when time >= fail_at */
#include <math.h>

#include "me_common.h"

enum { X, DER_X, U, Y, MODE, FAIL_AT, N_VARIABLES };
enum { FIRED, SIGN, T_EVENT, CHATTER_EVENTS, NAN_REPORTED };  /* ME_DATA */
#define CHATTER_PERIOD 1e-9

static const me_variable variables[N_VARIABLES] = {
  [X] = {"x", 0, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_EXACT, 0.0, 0, 0, 0},
  [DER_X] = {"der(x)", 1, ME_REAL, ME_LOCAL, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [U] = {"u", 2, ME_REAL, ME_INPUT, ME_CONTINUOUS, ME_NO_INITIAL, 0.0, 0, 0, 0},
  [Y] = {"y", 3, ME_REAL, ME_OUTPUT, ME_CONTINUOUS, ME_CALCULATED, 0, 0, 0, 0},
  [MODE] = {"mode", 4, ME_INTEGER, ME_PARAMETER, ME_FIXED, ME_EXACT, 0, 1, 0, 7},
  [FAIL_AT] = {"fail_at", 5, ME_REAL, ME_PARAMETER, ME_FIXED, ME_EXACT, 0.5, 0, 0, 0},
};

static const int states[] = {X};
static const int derivatives[] = {DER_X};

static int mode(me_instance *inst) { return ME_I(inst, MODE); }
static int failing(me_instance *inst) { return ME_TIME(inst) >= ME_R(inst, FAIL_AT); }
static int has_time_event(me_instance *inst) { return mode(inst) == 2 || mode(inst) == 3 || mode(inst) == 5 || mode(inst) == 6; }

static void compute(me_instance *inst) {
  ME_R(inst, DER_X) = -ME_R(inst, X) + ME_R(inst, U);
  ME_R(inst, Y) = ME_R(inst, X);
}

static void event_indicators(me_instance *inst, double z[]) {
  if (mode(inst) == 3 && ME_DATA(inst, FIRED))
    z[0] = ME_DATA(inst, SIGN) * (1.0 - (ME_TIME(inst) - ME_DATA(inst, T_EVENT)) / CHATTER_PERIOD);
  else
    z[0] = ME_R(inst, X) - 10.0;
}

static fmi2Status derivatives_hook(me_instance *inst, double der[]) {
  if (mode(inst) == 1 && failing(inst)) {
    me_log(inst, fmi2Error, "mode 1: fmi2GetDerivatives fails at t = %.17g >= fail_at = %.17g", ME_TIME(inst),
           ME_R(inst, FAIL_AT));
    return fmi2Error;
  }
  if (mode(inst) == 4 && failing(inst)) {
    der[0] = NAN;
    if (!ME_DATA(inst, NAN_REPORTED))
      me_log(inst, fmi2OK, "mode 4: fmi2GetDerivatives returns der(x) = NaN from t = %.17g on (fail_at = %.17g)",
             ME_TIME(inst), ME_R(inst, FAIL_AT));
    ME_DATA(inst, NAN_REPORTED) = 1;
  }
  return fmi2OK;
}

static fmi2Status event_update(me_instance *inst, me_event *event) {
  const double t = ME_TIME(inst);
  if (!has_time_event(inst)) return fmi2OK;
  if (!ME_DATA(inst, FIRED) && failing(inst)) {
    ME_DATA(inst, FIRED) = 1;
    switch (mode(inst)) {
      case 2:
        me_log(inst, fmi2OK, "mode 2: time event at t = %.17g, fmi2NewDiscreteStates will always return "
                             "newDiscreteStatesNeeded = fmi2True", t);
        break;
      case 3:
        ME_DATA(inst, SIGN) = 1.0;
        ME_DATA(inst, T_EVENT) = t;
        me_log(inst, fmi2OK, "mode 3: time event at t = %.17g, the event indicator chatters from now on", t);
        break;
      case 5:
        me_log(inst, fmi2OK, "mode 5: time event at t = %.17g, terminateSimulation = fmi2True", t);
        event->terminate_simulation = 1;
        break;
      default:
        me_log(inst, fmi2Error, "mode 6: fmi2NewDiscreteStates fails at the time event at t = %.17g", t);
        return fmi2Error;
    }
  } else if (mode(inst) == 3 && ME_DATA(inst, FIRED) && event->first) {
    ME_DATA(inst, SIGN) = -ME_DATA(inst, SIGN);
    ME_DATA(inst, T_EVENT) = t;
    ME_DATA(inst, CHATTER_EVENTS) += 1;
    me_log(inst, fmi2OK, "mode 3: chattering event %.0f at t = %.17g", ME_DATA(inst, CHATTER_EVENTS), t);
  }
  if (mode(inst) == 2 && ME_DATA(inst, FIRED)) event->new_discrete_states_needed = 1;
  if (!ME_DATA(inst, FIRED)) {
    event->next_event_time_defined = 1;
    event->next_event_time = ME_R(inst, FAIL_AT);
  }
  return fmi2OK;
}

static fmi2Status completed_integrator_step(me_instance *inst, int *enter_event_mode) {
  *enter_event_mode = 0;
  if (mode(inst) == 7 && failing(inst)) {
    me_log(inst, fmi2Error, "mode 7: fmi2CompletedIntegratorStep fails at t = %.17g >= fail_at = %.17g",
           ME_TIME(inst), ME_R(inst, FAIL_AT));
    return fmi2Error;
  }
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_me_misbehave",
  .guid = "{a3d5f0c2-7e19-4b86-b2c4-58e9d16f07ab}",
  .model_exchange = 1,
  .can_get_and_set_fmu_state = 0,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 1,
  .states = states,
  .derivatives = derivatives,
  .nz = 1,
  .compute = compute,
  .event_indicators = event_indicators,
  .derivatives_hook = derivatives_hook,
  .event_update = event_update,
  .completed_integrator_step = completed_integrator_step,
};
