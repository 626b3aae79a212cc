#pragma once
#include "core/phi_functions.hpp"
#include "system/native/integrator.hpp"

namespace cosima {

/// Exact integration: the model's closed-form flow when it has one (OdeModel::exact_flow), else
/// linear dynamics x' = A x + B u(t) + e with polynomial inputs:
///   x(t0+h) = φ_0(hA) x0 + Σ_k k! h^{k+1} φ_{k+1}(hA) B c_k + h φ_1(hA) e,
/// c_k the input coefficients re-expanded at t0 (∫_0^h e^{A(h−r)} r^k dr = k! h^{k+1} φ_{k+1}(hA)).
/// A, B, e are read from the model once; the φ-functions are cached per step size.
class ExactLti final : public Integrator {
 public:
  [[nodiscard]] std::string_view kind() const override { return "exact"; }
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;

 private:
  bool have_matrices_ = false;
  Eigen::MatrixXd A_, B_;
  Eigen::VectorXd e_;
  PhiFunctions phi_;
  InputPolynomials shifted_;
  Eigen::VectorXd work_, forcing_, next_;
};

}  // namespace cosima
