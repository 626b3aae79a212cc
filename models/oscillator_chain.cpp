// The scaling model (issue: parallel and distributed execution): one mass of a chain or ring of
// N coupled oscillators, m x'' = −k (x − x_left) − k (x − x_right) − c x', coupled to its
// neighbours through their positions. Linear, so every method (MISSILES included) applies; the
// cost of a step is set per system by the scenario ("step_cost"), not here.
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class Oscillator final : public ModelBase<Oscillator> {
 public:
  enum Param { m, k, c, x0 };
  Oscillator()
      : ModelBase("scaling.oscillator", shared_structure([] {
                    return Structure{.states = {"x", "v"},
                                     .inputs = {"x_left", "x_right"},
                                     .outputs = {"x"},
                                     .parameters = {{"m", 1.0, "mass [kg]"},
                                                    {"k", 1.0, "spring rate to each neighbour [N/m]"},
                                                    {"c", 0.1, "damping [N/(m/s)]"},
                                                    {"x0", 0.0, "initial position [m]"}},
                                     .linear_time_invariant = true};
                  })) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(x0), 0.0); }
  void derivatives(double /*t*/, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = (-p(k) * (2.0 * x(0) - u(0) - u(1)) - p(c) * x(1)) / p(m);
  }
  void outputs(double /*t*/, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef y) const override { y(0) = x(0); }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -2.0 * p(k) / p(m), -p(c) / p(m);
    out.B.resize(2, 2);
    out.B << 0.0, 0.0, p(k) / p(m), p(k) / p(m);
    out.C.resize(1, 2);
    out.C << 1.0, 0.0;
    out.D = Eigen::MatrixXd::Zero(1, 2);
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_oscillator() { return std::make_unique<Oscillator>(); }

}  // namespace cosima::models
