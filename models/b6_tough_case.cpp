// B6 — seed 000 §4.1 (eq. 44–45), the "tough case": x' = a(t), y = x + b(t); the input exists but
// has no effect, so any linearization is blind to the dynamics and COSTARICA must reduce to ZOH.
// Here a(t) = a_amp·cos(a_freq·t), b(t) = b_amp·sin(b_freq·t).
#include <cmath>

#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class Tough final : public ModelBase<Tough> {
 public:
  enum Param { a_amp, a_freq, b_amp, b_freq, x0 };
  Tough()
      : ModelBase("b6.tough", {.states = {"x"},
                               .inputs = {"u"},
                               .outputs = {"y"},
                               .parameters = {{"a_amp", 1.0, "amplitude of a(t)"},
                                              {"a_freq", 1.0, "angular frequency of a(t) [rad/s]"},
                                              {"b_amp", 0.5, "amplitude of b(t)"},
                                              {"b_freq", 3.0, "angular frequency of b(t) [rad/s]"},
                                              {"x0", 0.0, "initial state"}}}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Constant(1, p(x0)); }
  void derivatives(double t, ConstVectorRef, ConstVectorRef, VectorRef dx) const override {
    dx(0) = p(a_amp) * std::cos(p(a_freq) * t);
  }
  void outputs(double t, ConstVectorRef x, ConstVectorRef, VectorRef y) const override {
    y(0) = x(0) + p(b_amp) * std::sin(p(b_freq) * t);
  }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A = Eigen::MatrixXd::Zero(1, 1);
    out.B = Eigen::MatrixXd::Zero(1, 1);
    out.C = Eigen::MatrixXd::Identity(1, 1);
    out.D = Eigen::MatrixXd::Zero(1, 1);
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b6_tough() { return std::make_unique<Tough>(); }

}  // namespace cosima::models
