// B8 — an event model (issue: Model Exchange): a bouncing ball with a state event and a time event.
//   h' = v,  v' = −g;  event indicator z = h + 1e-10 (so that z ≠ 0 at the restart, where h = 0)
//   state event  (h ≤ 0, v < 0):   h := 0,  v := −e v
//   time event   t = t_kick:       v := v + dv_kick
// Impact times have a closed form (parabolic flights, tests/me/test_me.cpp). The same model is the
// hand-written strict test FMU tests/fmus/me_ball, whose discrete outputs record the events.
#include <limits>

#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class BouncingBall final : public ModelBase<BouncingBall> {
 public:
  enum Param { h0, v0, g, e, t_kick, dv_kick };
  BouncingBall()
      : ModelBase("b8.ball", {.states = {"h", "v"},
                              .outputs = {"h", "v"},
                              .parameters = {{"h0", 1.0, "initial height [m]"},
                                             {"v0", 0.0, "initial velocity [m/s]"},
                                             {"g", 9.81, "gravity [m/s²]"},
                                             {"e", 0.8, "coefficient of restitution"},
                                             {"t_kick", 1.5, "time of the kick [s] (time event)"},
                                             {"dv_kick", 1.0, "velocity added by the kick [m/s]"}},
                              .outputs_depend_on_time = false}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(h0), p(v0)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = -p(g);
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y = x; }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A = Eigen::Matrix2d{{0.0, 1.0}, {0.0, 0.0}};
    out.B.resize(2, 0);
    out.C = Eigen::Matrix2d::Identity();
    out.D.resize(2, 0);
    return true;
  }
  [[nodiscard]] int event_indicator_count() const override { return 1; }
  void event_indicators(double, ConstVectorRef x, ConstVectorRef, VectorRef z) const override { z(0) = x(0) + 1e-10; }
  [[nodiscard]] double next_time_event(double t) const override {
    return t < p(t_kick) ? p(t_kick) : std::numeric_limits<double>::infinity();
  }
  EventOutcome handle_event(double, VectorRef x, ConstVectorRef, const EventCause& cause) override {
    EventOutcome outcome;
    if (cause.time_event) {
      x(1) += p(dv_kick);
      outcome.states_changed = true;
    }
    if (x(0) <= 0.0 && x(1) < 0.0) {
      x(0) = 0.0;
      x(1) = -p(e) * x(1);
      outcome.states_changed = true;
    }
    return outcome;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b8_ball() { return std::make_unique<BouncingBall>(); }

}  // namespace cosima::models
