#pragma once
// COSTARICA (seed 000): the step estimator that stands in for a system without rollback inside
// the iterations of an iterative method. Call order per macro-step [t_N, t_N + h), which is the
// lazy update of Algorithm 3:
//   begin_step(system, u_N)   update 1, once per t_N: A, B, C, D, x_N, f(t_N), y_N from the
//                             system; f_C = f(t_N) − A x_N − B u_N; y_C,N (eq. 12) recorded
//   prepare(h)                update 2, once per step size: G_V, G_D, P, R (linear_response.hpp),
//                             the control part at t_N + h, and the constant terms
//                                 K_V = P_V x_N + R_V f_C + ŷ_C(h),  K_D = P_D x_N + R_D f_C + ŷ'_C(h)
//   estimate(Ξ̌)               update 3, per iteration: ŷ = G_V vec(Ξ̌) + K_V, ŷ' = G_D vec(Ξ̌) + K_D
//                             (seed 000 eq. 11, 32, 34) — two matrix–vector products.
// The system itself is only read; the method integrates it once with the converged inputs.
#include <string>
#include <string_view>

#include <Eigen/Dense>

#include "core/polynomial.hpp"
#include "estimator/control_part.hpp"
#include "estimator/linear_response.hpp"
#include "estimator/output_estimator.hpp"
#include "system/system.hpp"

namespace cosima::estimator {

struct EstimatorOptions {
  LinearResponseOptions response;
  ControlReconstruction control = ControlReconstruction::flexible;
  /// Include f_C = f(t_N) − A x_N − B u_N (seed 003 eq. 10–14). Seed 000 as published omits it;
  /// the drift is then left to the control part.
  bool affine_term = true;
};

class StepEstimator final : public OutputEstimator {
 public:
  /// Throws CapabilityError unless the system offers what COSTARICA reads: states and their
  /// derivatives (state_access) and A, B, C, D (linearization).
  static void require_capabilities(const System& system, std::string_view needed_by);

  explicit StepEstimator(EstimatorOptions options = {});

  /// Sizes the workspaces for this system and forgets the control history and the linearization
  /// (start of a run, a restart): begin_step comes next.
  void reset(const System& system) override;
  /// Update 1 at the system's current time t_N; u_now are its inputs at t_N.
  void begin_step(System& system, ConstVectorView u_now) override;
  /// Update 2 for a step of size h. False with reason() when the inverse Laplace failed.
  bool prepare(double h);
  bool prepare(System& /*system*/, double h) override { return prepare(h); }
  /// Update 3: estimated outputs and derivatives at t_N + h for the inputs ǔ(s), s ∈ [0, h].
  void estimate(const InputPolynomials& inputs, Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> dy) const;

  [[nodiscard]] const LinearResponse& response() const override { return response_; }
  [[nodiscard]] const Eigen::VectorXd& constant_value() const override { return constant_value_; }
  [[nodiscard]] const Eigen::VectorXd& constant_derivative() const override { return constant_derivative_; }
  [[nodiscard]] const std::string& reason() const override { return builder_.reason(); }
  [[nodiscard]] const EstimatorOptions& options() const { return options_; }
  /// Whether the updates take the 1 × 1 path (one state, input and output; step_estimator.cpp).
  [[nodiscard]] bool scalar() const { return scalar_; }

 private:
  /// Update 1 and update 2's constant terms, for a system of one state, one input and one output
  /// (Scalar: fixed-size views of the same storage, step_estimator.cpp) or of any size.
  template <bool Scalar>
  void update_1(System& system, const Linearization& lin, ConstVectorView u_now);
  template <bool Scalar>
  void constant_terms();

  EstimatorOptions options_;
  LinearResponseBuilder builder_;
  bool scalar_ = false;  ///< one state, one input, one output, and a 1 × 1 linearization so far
  LinearResponse response_;
  bool response_current_ = false;  ///< response_ is for lin_ (unchanged since it was computed)
  double response_h_ = 0.0;        ///< and for this step
  ControlPart control_;
  Linearization lin_;
  Eigen::VectorXd x_, f_c_, y_c_;
  Eigen::VectorXd control_value_, control_derivative_;
  Eigen::VectorXd constant_value_, constant_derivative_;
};

/// Update 3 from operators and constant terms:  ŷ = G_V vec(Ξ̌) + K_V,  ŷ' = G_D vec(Ξ̌) + K_D.
void estimate_outputs(const LinearResponse& response, const Eigen::VectorXd& constant_value,
                      const Eigen::VectorXd& constant_derivative, const InputPolynomials& inputs,
                      Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> dy);

}  // namespace cosima::estimator
