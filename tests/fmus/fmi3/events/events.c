/* cosima_fmi3_events (Co-Simulation with Event Mode and early return): continuous state x, der(x) = 1 (integrated
 * exactly), a time event at t_event where x := 0 and count := count + 1.
 *   eventModeUsed and earlyReturnAllowed: the fmi3DoStep whose interval (t, t + h] holds t_event stops there:
 *     fmi3OK, eventHandlingNeeded, earlyReturn, lastSuccessfulTime = t_event (x not reset yet). The importer must
 *     call fmi3EnterEventMode and fmi3UpdateDiscreteStates (which resets x and counts), then fmi3EnterStepMode and
 *     go on from t_event; fmi3DoStep before that is an illegal call.
 *     An event at the end of the step (|t_event - (t + h)| <= 1e-9 max(1, |t_event|)) needs no early return:
 *     eventHandlingNeeded, lastSuccessfulTime = t + h.
 *   otherwise (eventModeUsed = false, or an event inside the step without earlyReturnAllowed): fmi3DoStep handles
 *     the event itself at t_event and completes the step.
 *   fmi3UpdateDiscreteStates reports nextEventTime = t_event until the event has happened.
 *   fmi3DoStep with t + h > discard_after: fmi3Discard, nothing changes (retry with a smaller step, or restore).
 *   terminate_at: the fmi3DoStep that reaches it returns terminateSimulation (with earlyReturnAllowed it stops
 *     there, earlyReturn); later fmi3DoStep calls are illegal.
 *   fmi3GetOutputDerivatives: der(x) = 1, higher orders 0. */
#include <math.h>

#include "fmi3_runtime.h"

enum { TIME, X, DER_X, COUNT, T_EVENT, DISCARD_AFTER, TERMINATE_AT, N_VARIABLES };
enum { FIRED, PENDING };  /* FMU3_DATA: the event has happened; it waits for fmi3UpdateDiscreteStates */

#define VAR(nm, v, T, C, V, I, S) \
  { .name = nm, .vr = v, .type = T, .causality = C, .variability = V, .initial = I, .start = S }

static const fmu3_variable variables[N_VARIABLES] = {
  [TIME] = VAR("time", 0, FMU3_FLOAT64, FMU3_INDEPENDENT, FMU3_CONTINUOUS, FMU3_NO_INITIAL, NULL),
  [X] = VAR("x", 1, FMU3_FLOAT64, FMU3_OUTPUT, FMU3_CONTINUOUS, FMU3_EXACT, "0"),
  [DER_X] = VAR("der(x)", 2, FMU3_FLOAT64, FMU3_LOCAL, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [COUNT] = VAR("count", 3, FMU3_INT32, FMU3_OUTPUT, FMU3_DISCRETE, FMU3_EXACT, "0"),
  [T_EVENT] = VAR("t_event", 4, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "0.35"),
  [DISCARD_AFTER] = VAR("discard_after", 5, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "1e300"),
  [TERMINATE_AT] = VAR("terminate_at", 6, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "1e300"),
};

static double tolerance(double t) { return 1e-9 * fmax(1.0, fabs(t)); }

static void compute(fmu3_instance *inst) { FMU3_F64(inst, DER_X)[0] = 1.0; }

static void reset(fmu3_instance *inst, double at) {
  FMU3_F64(inst, X)[0] = 0.0;
  FMU3_I32(inst, COUNT)[0] += 1;
  FMU3_DATA(inst, FIRED) = 1;
  FMU3_DATA(inst, PENDING) = 0;
  fmu3_log(inst, fmi3OK, "time event at t = %.17g: x := 0, count = %d", at, (int)FMU3_I32(inst, COUNT)[0]);
}

static fmi3Status do_step(fmu3_instance *inst, fmu3_step *step) {
  const double t = step->t, end = step->t + step->h;
  const double t_event = FMU3_F64(inst, T_EVENT)[0], terminate_at = FMU3_F64(inst, TERMINATE_AT)[0];
  const double discard_after = FMU3_F64(inst, DISCARD_AFTER)[0];
  if (end > discard_after + tolerance(discard_after)) {
    fmu3_log(inst, fmi3Discard, "fmi3DoStep(%.17g, %.17g): t + h is past discard_after = %.17g, nothing done", t,
             step->h, discard_after);
    return fmi3Discard;
  }
  const int event_in = !FMU3_DATA(inst, FIRED) && t_event > t + tolerance(t_event) &&
                       t_event <= end + tolerance(t_event);
  const int event_at_end = event_in && fabs(t_event - end) <= tolerance(t_event);
  double stop = end;
  int signal = 0;  /* the event is left to Event Mode */
  if (event_in && step->event_mode_used && (event_at_end || step->early_return_allowed)) {
    signal = 1;
    stop = event_at_end ? end : t_event;
  }
  int terminate = 0;
  if (terminate_at <= end + tolerance(terminate_at)) {
    const double at = fmax(terminate_at, t);
    if (step->early_return_allowed && at < stop - tolerance(at) && at > t) {
      stop = at;  /* before the event: the event is not reached */
      signal = 0;
    }
    terminate = at <= stop + tolerance(at);
  }
  if (event_in && !signal && t_event <= stop + tolerance(t_event)) {
    reset(inst, t_event);  /* handled inside the step */
    FMU3_F64(inst, X)[0] = fmax(stop - t_event, 0.0);
  } else {
    FMU3_F64(inst, X)[0] += stop - t;
  }
  if (signal) {
    FMU3_DATA(inst, PENDING) = 1;
    fmu3_log(inst, fmi3OK, "fmi3DoStep: time event at t = %.17g, eventHandlingNeeded", t_event);
  }
  if (terminate) fmu3_log(inst, fmi3OK, "fmi3DoStep: terminate_at = %.17g reached", terminate_at);
  step->end = stop;
  step->early_return = stop < end;
  step->event_handling_needed = signal;
  step->terminate_simulation = terminate;
  return fmi3OK;
}

static fmi3Status update_discrete_states(fmu3_instance *inst, fmu3_event *event) {
  if (FMU3_DATA(inst, PENDING)) {
    reset(inst, FMU3_TIME(inst));
    event->values_changed = 1;
  }
  const double t_event = FMU3_F64(inst, T_EVENT)[0];
  if (!FMU3_DATA(inst, FIRED) && t_event > FMU3_TIME(inst) + tolerance(t_event)) {
    event->next_event_time_defined = 1;
    event->next_event_time = t_event;
  }
  return fmi3OK;
}

static double output_derivative(fmu3_instance *inst, int variable, int order) {
  (void)inst;
  (void)variable;  /* only x is a continuous output */
  return order == 1 ? 1.0 : 0.0;
}

#ifdef COSIMA_EVENTS_REFUSE_EVENT_MODE
/* as some exporters do: Event Mode declared, refused when asked for */
static int refuse_event_mode(fmu3_instance *inst) {
  if (!inst->event_mode_used) return 0;
  fmu3_log(inst, fmi3Error, "Event Mode is not supported");
  return 1;
}
#define EVENTS_IDENTIFIER "cosima_fmi3_events_refused"
#define EVENTS_TOKEN "{2f0b7d9e-6c51-4b8a-93e4-5d1a0c7e3b22}"
#define EVENTS_INSTANTIATE refuse_event_mode
#elif defined(COSIMA_EVENTS_REFUSE_EARLY_RETURN)
/* Event Mode works, early return (declared by canReturnEarlyAfterIntermediateUpdate) is refused */
static int refuse_early_return(fmu3_instance *inst) {
  if (!inst->early_return_allowed) return 0;
  fmu3_log(inst, fmi3Error, "early return is not supported");
  return 1;
}
#define EVENTS_IDENTIFIER "cosima_fmi3_events_no_early_return"
#define EVENTS_TOKEN "{2f0b7d9e-6c51-4b8a-93e4-5d1a0c7e3b23}"
#define EVENTS_INSTANTIATE refuse_early_return
#else
#define EVENTS_IDENTIFIER "cosima_fmi3_events"
#define EVENTS_TOKEN "{2f0b7d9e-6c51-4b8a-93e4-5d1a0c7e3b21}"
#define EVENTS_INSTANTIATE 0
#endif

const fmu3_model fmu3_model_definition = {
  .model_identifier = EVENTS_IDENTIFIER,
  .instantiation_token = EVENTS_TOKEN,
  .instantiate = EVENTS_INSTANTIATE,
  .co_simulation = 1,
  .has_event_mode = 1,
  .can_get_and_set_fmu_state = 1,
  .can_serialize_fmu_state = 1,
  .max_output_derivative_order = 2,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .compute = compute,
  .do_step = do_step,
  .update_discrete_states = update_discrete_states,
  .output_derivative = output_derivative,
};
