/* Discrete states of every type, discrete inputs and FMI 1.0 aliases, as FMI 1.0 Model Exchange
 * (cosima_test_fmi1_values_me), FMI 1.0 Co-Simulation (cosima_test_fmi1_values_cs) and FMI 2.0 Model Exchange +
 * Co-Simulation (cosima_test_event_values), all from this file (../both_versions.h).
 *
 * Exporter habits (the FMU SDK's `values` example, and FMI 1.0 exporters' alias tables):
 *   - Integer, Boolean and String discrete states that only change at time events, one per second:
 *       int_out += 1, bool_out toggles, string_out = "spring", "summer", "autumn", "winter" by int_out mod 4
 *   - a continuous state x' = -x (x(0) = 1), output x_out = x
 *   - discrete inputs that feed outputs directly: int_sum = int_out + int_in (int_in start 5),
 *     bool_xor = bool_out xor bool_in (bool_in start false); a Real input real_in (start 2.5)
 *   - event_updates counts the event updates after the initialization: FMI 1.0 every fmiEventUpdate call, FMI 2.0
 *     every Event Mode entered by fmi2EnterEventMode, Co-Simulation every internal time event. An event update
 *     that is not at a time event changes nothing else, so extra calls show only there.
 *   - FMI 1.0 aliases (modelDescription only, the FMU stores the base variable): real_out, an output, alias of the
 *     input real_in (same valueReference 3: legal in FMI 1.0); minus_x, an output, negatedAlias of the state x
 *     (valueReference 0: the importer negates what fmiGetReal returns); p_alias, alias of the parameter p (vr 4).
 *     The FMI 2.0 build declares them as separate calculated variables (real_out, minus_x outputs, p_alias a
 *     calculatedParameter: vr 5, 6, 7) with the same values, so the versions compare by name.
 * Value references are unique across types (Real 0..7, Integer 10..13, Boolean 20..22, String 30).
 *
 * What a correct importer shows, with the inputs at their start values:
 *   - at t = k (k = 1, 2, ...; after the event at k): int_out = k, bool_out = (k odd), string_out =
 *     {spring, summer, autumn, winter}[k mod 4], int_sum = k + 5, bool_xor = bool_out, event_updates = k;
 *     at t = 0: 0, false, "spring", 5, false, 0.
 *   - x = exp(-t) (Co-Simulation: exactly, per step; Model Exchange: the importer's integration of x' = -x,
 *     e.g. explicit Euler with step h: (1 - h)^(t/h)); x_out = x, minus_x = -x, real_out = real_in = 2.5,
 *     p_alias = p = 3.
 *   - setting a discrete input to the value it already has is no event: event_updates stays equal to the number
 *     of time events passed (FMI 1.0: an importer calls fmiEventUpdate when a discrete input changes, FMI 2.0 sets
 *     discrete inputs in Event Mode, but neither when nothing changed). A changed int_in/bool_in shows in
 *     int_sum/bool_xor at once (direct feedthrough) and adds one event update where the importer handles it. */
#include "../both_versions.h"

enum {
  X, DER_X, X_OUT, REAL_IN, P, INT_OUT, INT_IN, INT_SUM, EVENT_UPDATES, BOOL_OUT, BOOL_IN, BOOL_XOR, STRING_OUT,
  N_FMI1_VARIABLES,
  REAL_OUT = N_FMI1_VARIABLES, MINUS_X, P_ALIAS,  /* FMI 2.0 only: FMI 1.0 has them as aliases */
  N_FMI2_VARIABLES
};
enum { NEXT_EVENT, ANNOUNCED };  /* BOTH_DATA: the time event announced last; NEXT_EVENT is set */

#if BOTH_FMI1
#define N_VARIABLES N_FMI1_VARIABLES
#define VAR(name, vr, type, causality, variability, has_start, start) \
  {name, vr, FMI1_##type, FMI1_##causality, FMI1_##variability, has_start, start, 0, 0, 0}
static const fmi1_variable variables[N_VARIABLES] = {
  [X] = VAR("x", 0, REAL, INTERNAL, CONTINUOUS, 1, 1.0),
  [DER_X] = VAR("der(x)", 1, REAL, INTERNAL, CONTINUOUS, 0, 0),
  [X_OUT] = VAR("x_out", 2, REAL, OUTPUT, CONTINUOUS, 0, 0),
  [REAL_IN] = VAR("real_in", 3, REAL, INPUT, CONTINUOUS, 1, 2.5),
  [P] = VAR("p", 4, REAL, INTERNAL, PARAMETER, 1, 3.0),
  [INT_OUT] = VAR("int_out", 10, INTEGER, OUTPUT, DISCRETE, 1, 0),
  [INT_IN] = VAR("int_in", 11, INTEGER, INPUT, DISCRETE, 1, 5),
  [INT_SUM] = VAR("int_sum", 12, INTEGER, OUTPUT, DISCRETE, 0, 0),
  [EVENT_UPDATES] = VAR("event_updates", 13, INTEGER, OUTPUT, DISCRETE, 0, 0),
  [BOOL_OUT] = VAR("bool_out", 20, BOOLEAN, OUTPUT, DISCRETE, 1, 0),
  [BOOL_IN] = VAR("bool_in", 21, BOOLEAN, INPUT, DISCRETE, 1, 0),
  [BOOL_XOR] = VAR("bool_xor", 22, BOOLEAN, OUTPUT, DISCRETE, 0, 0),
  [STRING_OUT] = VAR("string_out", 30, STRING, OUTPUT, DISCRETE, 0, 0),
};
#else
#define N_VARIABLES N_FMI2_VARIABLES
#define VAR(name, vr, type, causality, variability, initial, start) \
  {name, vr, ME_##type, ME_##causality, ME_##variability, ME_##initial, start, 0, 0, 0}
static const me_variable variables[N_VARIABLES] = {
  [X] = VAR("x", 0, REAL, LOCAL, CONTINUOUS, EXACT, 1.0),
  [DER_X] = VAR("der(x)", 1, REAL, LOCAL, CONTINUOUS, CALCULATED, 0),
  [X_OUT] = VAR("x_out", 2, REAL, OUTPUT, CONTINUOUS, CALCULATED, 0),
  [REAL_IN] = VAR("real_in", 3, REAL, INPUT, CONTINUOUS, NO_INITIAL, 2.5),
  [P] = VAR("p", 4, REAL, PARAMETER, FIXED, EXACT, 3.0),
  [INT_OUT] = VAR("int_out", 10, INTEGER, OUTPUT, DISCRETE, EXACT, 0),
  [INT_IN] = VAR("int_in", 11, INTEGER, INPUT, DISCRETE, NO_INITIAL, 5),
  [INT_SUM] = VAR("int_sum", 12, INTEGER, OUTPUT, DISCRETE, CALCULATED, 0),
  [EVENT_UPDATES] = VAR("event_updates", 13, INTEGER, OUTPUT, DISCRETE, EXACT, 0),
  [BOOL_OUT] = VAR("bool_out", 20, BOOLEAN, OUTPUT, DISCRETE, EXACT, 0),
  [BOOL_IN] = VAR("bool_in", 21, BOOLEAN, INPUT, DISCRETE, NO_INITIAL, 0),
  [BOOL_XOR] = VAR("bool_xor", 22, BOOLEAN, OUTPUT, DISCRETE, CALCULATED, 0),
  [STRING_OUT] = VAR("string_out", 30, STRING, OUTPUT, DISCRETE, CALCULATED, 0),
  [REAL_OUT] = VAR("real_out", 5, REAL, OUTPUT, CONTINUOUS, CALCULATED, 0),
  [MINUS_X] = VAR("minus_x", 6, REAL, OUTPUT, CONTINUOUS, CALCULATED, 0),
  [P_ALIAS] = VAR("p_alias", 7, REAL, CALCULATED_PARAMETER, FIXED, CALCULATED, 0),
};
#endif

static const int states[] = {X};
static const int derivatives[] = {DER_X};
static const char *const seasons[] = {"spring", "summer", "autumn", "winter"};

static void compute(both_instance *inst) {
  BOTH_R(inst, DER_X) = -BOTH_R(inst, X);
  BOTH_R(inst, X_OUT) = BOTH_R(inst, X);
  BOTH_I(inst, INT_SUM) = BOTH_I(inst, INT_OUT) + BOTH_I(inst, INT_IN);
  BOTH_I(inst, BOOL_XOR) = (BOTH_I(inst, BOOL_OUT) != 0) != (BOTH_I(inst, BOOL_IN) != 0);
  const int season = BOTH_I(inst, INT_OUT) % 4;
  BOTH_S(inst, STRING_OUT) = seasons[season < 0 ? season + 4 : season];
#if !BOTH_FMI1
  ME_R(inst, REAL_OUT) = ME_R(inst, REAL_IN);
  ME_R(inst, MINUS_X) = -ME_R(inst, X);
  ME_R(inst, P_ALIAS) = ME_R(inst, P);
#endif
}

/* the first time event: the next whole second after the start */
static void announce_first(both_instance *inst) {
  BOTH_DATA(inst, NEXT_EVENT) = floor(BOTH_TIME(inst) + 1e-9) + 1.0;
  BOTH_DATA(inst, ANNOUNCED) = 1;
}

/* an event update after the initialization: counted; a time event if the announced time is reached */
static void event(both_instance *inst) {
  const double t = BOTH_TIME(inst);
  BOTH_I(inst, EVENT_UPDATES) += 1;
  if (!both_reached(t, BOTH_DATA(inst, NEXT_EVENT))) {
    both_log(inst, BOTH_OK, "event update %d at t = %.17g: no time event", BOTH_I(inst, EVENT_UPDATES), t);
    return;
  }
  BOTH_I(inst, INT_OUT) += 1;
  BOTH_I(inst, BOOL_OUT) = !BOTH_I(inst, BOOL_OUT);
  BOTH_DATA(inst, NEXT_EVENT) = floor(t + 1e-9) + 1.0;
  both_log(inst, BOTH_OK, "event update %d at t = %.17g: time event, int_out = %d", BOTH_I(inst, EVENT_UPDATES), t,
           BOTH_I(inst, INT_OUT));
}

/* Co-Simulation: the time events in (t, t + h] (at their times), x exactly */
static both_status do_step(both_instance *inst, double t, double h) {
  if (!BOTH_DATA(inst, ANNOUNCED)) announce_first(inst);
  while (both_reached(t + h, BOTH_DATA(inst, NEXT_EVENT))) {
    BOTH_TIME(inst) = BOTH_DATA(inst, NEXT_EVENT);
    event(inst);
  }
  BOTH_R(inst, X) *= exp(-h);
  return BOTH_OK;
}

#if BOTH_FMI1
static void initialize(fmi1_instance *inst, fmi1_event *info) {
  announce_first(inst);
  info->upcoming_time_event = 1;
  info->next_event_time = FMI1_DATA(inst, NEXT_EVENT);
}

static fmiStatus event_update(fmi1_instance *inst, fmi1_event *info) {
  if (info->iteration == 0) event(inst);
  info->upcoming_time_event = 1;
  info->next_event_time = FMI1_DATA(inst, NEXT_EVENT);
  return fmiOK;
}

const fmi1_model fmi1_model_definition = {
#ifdef COSIMA_FMI1_ME
  .guid = "{21c7c742-af02-4623-acd5-ce642d59781d}",
#else
  .guid = "{2adc5762-c36b-41e8-a64e-13e9fe15b334}",
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
static fmi2Status event_update(me_instance *inst, me_event *info) {
  if (info->first) {
    if (info->initial)
      announce_first(inst);
    else
      event(inst);
  }
  info->next_event_time_defined = 1;
  info->next_event_time = ME_DATA(inst, NEXT_EVENT);
  return fmi2OK;
}

const me_model me_model_definition = {
  .model_identifier = "cosima_test_event_values",
  .guid = "{ec1bdc1b-0bb8-4cdb-bc43-1bcebd03ec83}",
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
