// B2 — seed 000 §4.2 (eq. 53–54): two 10⁴ kg bodies between walls, springs and dampers; S1 the
// left body (input: force F from the right, measured positively towards the right body), S2 the
// right body, whose output becomes a constant pulling force after t_switch (the "behaviour change").
#include <limits>
#include <vector>

#include "core/slots.hpp"
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class LeftBody final : public ModelBase<LeftBody> {
 public:
  enum Param { m1, c1, d1, x_l0, v_l0 };
  LeftBody()
      : ModelBase("b2.left", {.states = {"x_l", "v_l"},
                              .inputs = {"F"},
                              .outputs = {"x_l", "v_l"},
                              .parameters = {{"m1", 1e4, "mass [kg]"},
                                             {"c1", 1e3, "left spring rate [N/m]"},
                                             {"d1", 1e3, "left damper rating [N/(m/s)]"},
                                             {"x_l0", 1.0, "initial position [m]"},
                                             {"v_l0", 0.0, "initial velocity [m/s]"}},
                              .linear_time_invariant = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(x_l0), p(v_l0)); }
  void derivatives(double /*t*/, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = (-p(c1) * x(0) - p(d1) * x(1) + u(0)) / p(m1);
  }
  void outputs(double /*t*/, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef y) const override { y = x; }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -p(c1) / p(m1), -p(d1) / p(m1);
    out.B.resize(2, 1);
    out.B << 0.0, 1.0 / p(m1);
    out.C = Eigen::MatrixXd::Identity(2, 2);
    out.D = Eigen::MatrixXd::Zero(2, 1);
    return true;
  }
};

class RightBody final : public ModelBase<RightBody> {
 public:
  enum Param { m2, c2, c3, d2, d3, x_r0, v_r0, t_switch, F_after, announce_switch };
  RightBody()
      : ModelBase("b2.right", {.states = {"x_r", "v_r"},
                               .inputs = {"x_l", "v_l"},
                               .outputs = {"F"},
                               .parameters = {{"m2", 1e4, "mass [kg]"},
                                              {"c2", 1e3, "coupling spring rate [N/m]"},
                                              {"c3", 1e3, "right spring rate [N/m]"},
                                              {"d2", 0.0, "coupling damper rating [N/(m/s)]"},
                                              {"d3", 1e3, "right damper rating [N/(m/s)]"},
                                              {"x_r0", 0.0, "initial position [m]"},
                                              {"v_r0", 0.0, "initial velocity [m/s]"},
                                              {"t_switch", 100.0, "time the body vanishes [s]"},
                                              {"F_after", 1000.0, "constant pulling force afterwards [N]"},
                                              {"announce_switch", 1.0,
                                               "1: the switch is a declared time event; 0: the output switches "
                                               "at t_switch unannounced (tests of jump detection)"}},
                               .feedthrough = {{0, 0}, {0, 1}},
                               .linear_dynamics = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(x_r0), p(v_r0)); }
  Eigen::VectorXd start(double t_start, ConstVectorRef /*u*/) override {
    switched_ = t_start >= p(t_switch);
    return initial_state();
  }
  // The behaviour change is a declared time event (FMI 2.0 ME's nextEventTime): the output switches
  // in handle_event, so that a step ending at t_switch sees the left limit and the master can ask
  // for the right one (System call order, 5.).
  [[nodiscard]] double next_time_event(double /*t*/) const override {
    return switched_ || p(announce_switch) == 0.0 ? std::numeric_limits<double>::infinity() : p(t_switch);
  }
  EventOutcome handle_event(double /*t*/, VectorRef /*x*/, ConstVectorRef /*u*/, const EventCause& cause) override {
    if (cause.time_event) switched_ = true;
    return {};
  }
  [[nodiscard]] bool has_discrete_state() const override { return true; }
  int save_discrete_state(int overwrite) override {
    const int slot = acquire_slot(saved_, overwrite);
    saved_[static_cast<std::size_t>(slot)] = {switched_, true};
    return slot;
  }
  void restore_discrete_state(int slot) override { switched_ = saved_.at(static_cast<std::size_t>(slot)).switched; }
  void release_discrete_state(int slot) override { saved_.at(static_cast<std::size_t>(slot)).in_use = false; }
  void derivatives(double /*t*/, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    const double coupling = p(c2) * (x(0) - u(0)) + p(d2) * (x(1) - u(1));
    dx(0) = x(1);
    dx(1) = (-coupling - p(c3) * x(0) - p(d3) * x(1)) / p(m2);
  }
  void outputs(double t, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    y(0) = switched(t) ? p(F_after) : p(c2) * (x(0) - u(0)) + p(d2) * (x(1) - u(1));
  }
  bool jacobians(double t, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -(p(c2) + p(c3)) / p(m2), -(p(d2) + p(d3)) / p(m2);
    out.B.resize(2, 2);
    out.B << 0.0, 0.0, p(c2) / p(m2), p(d2) / p(m2);
    const double active = switched(t) ? 0.0 : 1.0;
    out.C.resize(1, 2);
    out.C << active * p(c2), active * p(d2);
    out.D.resize(1, 2);
    out.D << -active * p(c2), -active * p(d2);
    return true;
  }

 private:
  /// Announced: from the handled event on; unannounced: from t_switch on, whatever the steps.
  [[nodiscard]] bool switched(double t) const { return switched_ || (p(announce_switch) == 0.0 && t >= p(t_switch)); }
  struct Saved {
    bool switched = false;
    bool in_use = false;
  };
  bool switched_ = false;  ///< the body has vanished: F = F_after
  std::vector<Saved> saved_;
};

}  // namespace

std::unique_ptr<OdeModel> make_b2_left() { return std::make_unique<LeftBody>(); }
std::unique_ptr<OdeModel> make_b2_right() { return std::make_unique<RightBody>(); }

}  // namespace cosima::models
