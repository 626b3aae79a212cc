/* cosima_fmi3_me (Model Exchange and Co-Simulation in one binary): a bouncing ball.
 *   states h (start h0) and v (start 0), both outputs: der(h) = v, der(v) = -g + u (u a continuous input)
 *   event indicator h: in Event Mode, h <= 0 and v < 0 is a bounce: v := -e v, h := max(h, 0), bounces += 1
 *   time event at t_kick: v := v + 1 (nextEventTime = t_kick until then)
 *   Event Mode handles the time event first, then the bounce.
 *   fmi3GetDirectionalDerivative: Model Exchange, unknowns der(h), der(v), h, v with respect to knowns h, v, u;
 *   Co-Simulation, unknowns h, v, der(h), der(v) with respect to u only (the states are not knowns there).
 *   Co-Simulation: fmi3DoStep integrates exactly (the flight is a parabola), with the bounces located exactly and
 *   the kick at t_kick; a bounce slower than 1e-6 leaves the ball resting at h = 0 while -g + u <= 0.
 *   fmi3GetOutputDerivatives (Co-Simulation): dh/dt = v, d2h/dt2 = dv/dt = -g + u (0 while resting), d2v/dt2 = 0. */
#include <math.h>

#include "fmi3_runtime.h"

enum { TIME, H, DER_H, V, DER_V, U, BOUNCES, G, E, H0, T_KICK, N_VARIABLES };
enum { KICKED, RESTING };  /* FMU3_DATA */

#define VAR(nm, v, T, C, V, I, S) \
  { .name = nm, .vr = v, .type = T, .causality = C, .variability = V, .initial = I, .start = S }

static const fmu3_variable variables[N_VARIABLES] = {
  [TIME] = VAR("time", 0, FMU3_FLOAT64, FMU3_INDEPENDENT, FMU3_CONTINUOUS, FMU3_NO_INITIAL, NULL),
  [H] = VAR("h", 1, FMU3_FLOAT64, FMU3_OUTPUT, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [DER_H] = VAR("der(h)", 2, FMU3_FLOAT64, FMU3_LOCAL, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [V] = VAR("v", 3, FMU3_FLOAT64, FMU3_OUTPUT, FMU3_CONTINUOUS, FMU3_EXACT, "0"),
  [DER_V] = VAR("der(v)", 4, FMU3_FLOAT64, FMU3_LOCAL, FMU3_CONTINUOUS, FMU3_CALCULATED, NULL),
  [U] = VAR("u", 5, FMU3_FLOAT64, FMU3_INPUT, FMU3_CONTINUOUS, FMU3_NO_INITIAL, "0"),
  [BOUNCES] = VAR("bounces", 6, FMU3_INT32, FMU3_OUTPUT, FMU3_DISCRETE, FMU3_EXACT, "0"),
  [G] = VAR("g", 7, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "9.81"),
  [E] = { .name = "e", .vr = 8, .type = FMU3_FLOAT64, .causality = FMU3_PARAMETER, .variability = FMU3_FIXED,
          .initial = FMU3_EXACT, .start = "0.8", .has_range = 1, .min = 0, .max = 1 },
  [H0] = VAR("h0", 9, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "1"),
  [T_KICK] = VAR("t_kick", 10, FMU3_FLOAT64, FMU3_PARAMETER, FMU3_FIXED, FMU3_EXACT, "0.5"),
};

static const int states[] = {H, V};
static const int derivatives[] = {DER_H, DER_V};
static const int event_indicators[] = {H};

#define R(k) (FMU3_F64(inst, k)[0])

static double acceleration(fmu3_instance *inst) { return -R(G) + R(U); }

static void compute(fmu3_instance *inst) {
  if (FMU3_INITIALIZING(inst)) R(H) = R(H0);
  R(DER_H) = R(V);
  R(DER_V) = acceleration(inst);
}

static double tolerance(double t) { return 1e-9 * fmax(1.0, fabs(t)); }

static fmi3Status update_discrete_states(fmu3_instance *inst, fmu3_event *event) {
  const double t = FMU3_TIME(inst), t_kick = R(T_KICK);
  if (!FMU3_DATA(inst, KICKED) && t >= t_kick - tolerance(t_kick)) {
    R(V) += 1.0;
    FMU3_DATA(inst, KICKED) = 1;
    event->values_changed = 1;
    fmu3_log(inst, fmi3OK, "time event at t = %.17g: kick, v = %.17g", t, R(V));
  }
  if (R(H) <= 0.0 && R(V) < 0.0) {
    R(H) = fmax(R(H), 0.0);
    R(V) = -R(E) * R(V);
    FMU3_I32(inst, BOUNCES)[0] += 1;
    event->values_changed = 1;
    fmu3_log(inst, fmi3OK, "state event at t = %.17g: bounce %d, v = %.17g", t, (int)FMU3_I32(inst, BOUNCES)[0],
             R(V));
  }
  if (!FMU3_DATA(inst, KICKED)) {
    event->next_event_time_defined = 1;
    event->next_event_time = t_kick;
  }
  return fmi3OK;
}

static int partial_derivative(fmu3_instance *inst, int unknown, int known, double *d) {
  if (inst->model_exchange) {
    if (known != H && known != V && known != U) return 0;
    switch (unknown) {
      case DER_H: *d = known == V; return 1;
      case DER_V: *d = known == U; return 1;
      case H: *d = known == H; return 1;
      case V: *d = known == V; return 1;
      default: return 0;
    }
  }
  if (known != U) return 0;
  switch (unknown) {
    case H:
    case V:
    case DER_H: *d = 0.0; return 1;
    case DER_V: *d = 1.0; return 1;
    default: return 0;
  }
}

/* the first time tau > 0 at which h + v tau + a tau^2 / 2 reaches 0 going down; -1 if never */
static double landing(double h, double v, double a) {
  if (h <= 0.0 && (v < 0.0 || (v == 0.0 && a < 0.0))) return 0.0;  /* on or below the floor, going down */
  double best = -1.0;
  if (a == 0.0) return v < 0.0 ? -h / v : -1.0;
  const double disc = v * v - 2.0 * a * h;
  if (disc < 0.0) return -1.0;
  const double r = sqrt(disc), roots[2] = {(-v - r) / a, (-v + r) / a};
  for (int k = 0; k < 2; ++k)
    if (roots[k] > 0.0 && v + a * roots[k] < 0.0 && (best < 0.0 || roots[k] < best)) best = roots[k];
  return best;
}

static fmi3Status do_step(fmu3_instance *inst, fmu3_step *step) {
  const double end = step->t + step->h, a = acceleration(inst), t_kick = R(T_KICK);
  double t = step->t, h = R(H), v = R(V);
  int kicked = FMU3_DATA(inst, KICKED) != 0, resting = FMU3_DATA(inst, RESTING) != 0, bounces = FMU3_I32(inst, BOUNCES)[0];
  if (resting && a > 0.0) resting = 0;  /* u > g lifts the ball */
  for (int events = 0; t < end; ++events) {
    if (events > 100000) {
      fmu3_log(inst, fmi3Error, "fmi3DoStep: more than 100000 events in one step");
      return fmi3Error;
    }
    double next = end;
    int kind = 0;  /* 1 kick, 2 bounce */
    if (!kicked && t_kick <= end + tolerance(t_kick)) next = fmin(fmax(t_kick, t), end), kind = 1;
    const double tau = resting ? -1.0 : landing(h, v, a);
    if (tau >= 0.0 && t + tau < next) next = t + tau, kind = 2;
    const double dt = next - t;
    if (!resting) {
      h += v * dt + 0.5 * a * dt * dt;
      v += a * dt;
    }
    t = next;
    if (kind == 1) {
      v += 1.0;
      kicked = 1;
      resting = 0;
      fmu3_log(inst, fmi3OK, "fmi3DoStep: kick at t = %.17g, v = %.17g", t, v);
    } else if (kind == 2) {
      h = 0.0;
      v = -R(E) * v;
      bounces += 1;
      if (v < 1e-6 && a <= 0.0) {
        v = 0.0;
        resting = 1;
      }
      fmu3_log(inst, fmi3OK, "fmi3DoStep: bounce %d at t = %.17g, v = %.17g", bounces, t, v);
    }
    if (kind == 0) break;
  }
  R(H) = h;
  R(V) = v;
  FMU3_I32(inst, BOUNCES)[0] = bounces;
  FMU3_DATA(inst, KICKED) = kicked;
  FMU3_DATA(inst, RESTING) = resting;
  return fmi3OK;
}

static double output_derivative(fmu3_instance *inst, int variable, int order) {
  const double a = FMU3_DATA(inst, RESTING) ? 0.0 : acceleration(inst);
  if (variable == H) return order == 1 ? R(V) : a;
  return order == 1 ? a : 0.0;
}

const fmu3_model fmu3_model_definition = {
  .model_identifier = "cosima_fmi3_me",
  .instantiation_token = "{5b3c1e7a-90d4-4f26-b8a1-e2c94d0f6a37}",
  .model_exchange = 1,
  .co_simulation = 1,
  .can_get_and_set_fmu_state = 1,
  .can_serialize_fmu_state = 1,
  .max_output_derivative_order = 2,
  .variables = variables,
  .n_variables = N_VARIABLES,
  .nx = 2,
  .states = states,
  .derivatives = derivatives,
  .nz = 1,
  .event_indicators = event_indicators,
  .compute = compute,
  .do_step = do_step,
  .update_discrete_states = update_discrete_states,
  .partial_derivative = partial_derivative,
  .output_derivative = output_derivative,
};
