#pragma once
// An output estimator for a black box that can be rolled back but offers neither states nor a
// linearization (a Co-Simulation FMU with canGetAndSetFMUstate and no directional derivatives): the
// affine map Ξ̌ ↦ (ŷ, ŷ') at t_N + h of output_estimator.hpp by forward differences of real steps.
//
// Update 2 saves the system at t_N, integrates it over h with the constant inputs Ξ̌₀ = (u_N, 0, 0, 0)
// and once more per input coefficient with Ξ̌₀ + δ_jk e_jk, restoring it each time:
//     G(:, 4j+k) = (y(Ξ̌₀ + δ_jk e_jk) − y(Ξ̌₀)) / δ_jk,    K = y(Ξ̌₀) − G vec(Ξ̌₀),
// with δ_jk = √ε · max(1, |u_N,j|) / h^k, so that each probe moves the input by about √ε·|u| over
// the step. Exact for a linear system up to that difference's rounding; for a nonlinear one, the
// tangent at the inputs held constant. Cost: 1 + 4·inputs integrations per update 2, all counted.
#include "estimator/output_estimator.hpp"

namespace cosima::estimator {

class ProbeEstimator final : public OutputEstimator {
 public:
  void reset(const System& system) override;
  void begin_step(System& system, ConstVectorView u_now) override;
  bool prepare(System& system, double h) override;
  [[nodiscard]] const LinearResponse& response() const override { return response_; }
  [[nodiscard]] const Eigen::VectorXd& constant_value() const override { return constant_value_; }
  [[nodiscard]] const Eigen::VectorXd& constant_derivative() const override { return constant_derivative_; }
  [[nodiscard]] const std::string& reason() const override { return reason_; }

 private:
  /// The outputs and first derivatives at t_N + h for the inputs `inputs`, the system restored to t_N.
  bool probe(System& system, double h, const InputPolynomials& inputs, Eigen::VectorXd& y, Eigen::VectorXd& dy);

  LinearResponse response_;
  Eigen::VectorXd u_now_, constant_value_, constant_derivative_;
  Eigen::VectorXd y_base_, dy_base_, y_, dy_;
  InputPolynomials base_, perturbed_;
  StateId snapshot_ = -1;
  std::string reason_;
};

}  // namespace cosima::estimator
