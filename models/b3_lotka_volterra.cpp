// B3 — seed 000 §4.3 (eq. 55–56), seed 003 §4.2: Lotka–Volterra split into prey and predator.
//   prey      p' = α p − β p q   (input q)
//   predator  q' = δ p q − γ q   (input p)
// Both are linear in their own state, so each has a closed-form flow for polynomial inputs:
//   p(t0+h) = p(t0) exp(α h − β ∫_0^h q),   q(t0+h) = q(t0) exp(δ ∫_0^h p − γ h)
// (integrator 'exact': one exp per step, as the Lotka–Volterra FMUs of MasterSim's examples).
#include <cmath>

#include "core/polynomial.hpp"
#include "core/small_matrix.hpp"
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

/// A = a, B = b, C = 1, D = 0 (one state, its output, one input), written in place: the estimators
/// linearize both species at every macro-step.
void set_scalar_linearization(Linearization& out, double a, double b) {
  for (Eigen::MatrixXd* m : {&out.A, &out.B, &out.C, &out.D}) ensure_shape(*m, 1, 1);
  out.A(0, 0) = a;
  out.B(0, 0) = b;
  out.C(0, 0) = 1.0;
  out.D(0, 0) = 0.0;
}

class Prey final : public ModelBase<Prey> {
 public:
  enum Param { alpha, beta, p0 };
  Prey()
      : ModelBase("b3.prey", {.states = {"p"},
                              .inputs = {"q"},
                              .outputs = {"p"},
                              .parameters = {{"alpha", 2.0 / 3.0, "natural birth rate"},
                                             {"beta", 4.0 / 3.0, "predation rate"},
                                             {"p0", 1.0, "initial prey population"}},
                              .outputs_depend_on_time = false}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Constant(1, p(p0)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = p(alpha) * x(0) - p(beta) * x(0) * u(0);
  }
  bool exact_flow(double, double h, const InputPolynomials& u, VectorRef x) const override {
    x(0) *= std::exp(p(alpha) * h - p(beta) * integral(u.row(0), h));
    return true;
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y(0) = x(0); }
  bool jacobians(double, ConstVectorRef x, ConstVectorRef u, Linearization& out) const override {
    set_scalar_linearization(out, p(alpha) - p(beta) * u(0), -p(beta) * x(0));
    return true;
  }
};

class Predator final : public ModelBase<Predator> {
 public:
  enum Param { delta, gamma, q0 };
  Predator()
      : ModelBase("b3.predator", {.states = {"q"},
                                  .inputs = {"p"},
                                  .outputs = {"q"},
                                  .parameters = {{"delta", 1.0, "growth rate from predation"},
                                                 {"gamma", 1.0, "natural death rate"},
                                                 {"q0", 1.0, "initial predator population"}},
                                  .outputs_depend_on_time = false}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Constant(1, p(q0)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = p(delta) * u(0) * x(0) - p(gamma) * x(0);
  }
  bool exact_flow(double, double h, const InputPolynomials& u, VectorRef x) const override {
    x(0) *= std::exp(p(delta) * integral(u.row(0), h) - p(gamma) * h);
    return true;
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y(0) = x(0); }
  bool jacobians(double, ConstVectorRef x, ConstVectorRef u, Linearization& out) const override {
    set_scalar_linearization(out, p(delta) * u(0) - p(gamma), p(delta) * x(0));
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b3_prey() { return std::make_unique<Prey>(); }
std::unique_ptr<OdeModel> make_b3_predator() { return std::make_unique<Predator>(); }

}  // namespace cosima::models
