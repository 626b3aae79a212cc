#pragma once
// Small models with closed-form solutions for the tests.
#include <cmath>

#include "core/polynomial.hpp"
#include "system/native/ode_model.hpp"

namespace cosima::testing {

/// x' = A x + B u, y = C x + D u with A = [[−1, 0], [1, −2]] (e^{At} in closed form).
class LinearPair final : public OdeModel {
 public:
  LinearPair()
      : OdeModel("test.linear_pair", {.states = {"x1", "x2"},
                                      .inputs = {"u"},
                                      .outputs = {"y"},
                                      .parameters = {{"x1_0", 1.0, ""}, {"x2_0", -0.5, ""}},
                                      .feedthrough = {{0, 0}},
                                      .linear_time_invariant = true}) {
    A << -1.0, 0.0, 1.0, -2.0;
    B << 1.0, 0.5;
    C << 1.0, 2.0;
  }
  Eigen::Matrix2d A;
  Eigen::Vector2d B;
  Eigen::RowVector2d C;
  double D = 0.25;

  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(0), p(1)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override { dx = A * x + B * u(0); }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override { y(0) = C * x + D * u(0); }
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<LinearPair>(*this); }

  /// Closed form for u(t) = polynomial row 0 of `u` in t (origin 0).
  [[nodiscard]] Eigen::Vector2d solution(double t, const InputPolynomials& u) const {
    Eigen::Matrix2d E;
    E << std::exp(-t), 0.0, std::exp(-t) - std::exp(-2 * t), std::exp(-2 * t);
    const Eigen::Matrix2d Ainv = A.inverse();
    auto particular = [&](double time) {
      Eigen::Vector2d xp = Eigen::Vector2d::Zero();
      Eigen::Matrix2d power = Ainv;
      Eigen::VectorXd derivative(1);
      for (int k = 0; k <= kMaxInputDegree; ++k) {
        evaluate_polynomials(u, time, k, derivative);
        xp -= power * B * derivative(0);
        power = power * Ainv;
      }
      return xp;
    };
    return E * (initial_state() - particular(0.0)) + particular(t);
  }
};

inline InputPolynomials cubic_input() {
  InputPolynomials u(1, kInputCoefficients);
  u << 1.0, 2.0, -1.5, 0.4;
  return u;
}

}  // namespace cosima::testing
