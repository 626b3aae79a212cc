#include "system/native/exact_lti.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

StepResult ExactLti::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  stop_ = {t1};
  const OdeModel& model = rhs.model();
  if (rhs.indicator_count() > 0 || rhs.wants_step_reports()) {
    throw Error(fmt::format("integrator 'exact' cannot locate events; model '{}' has some (use cvode or dopri5)",
                            model.type()));
  }
  shift_polynomials(rhs.inputs(), t0 - rhs.origin(), shifted_);
  if (model.exact_flow(t0, t1 - t0, shifted_, x)) {
    if (!x.allFinite()) return StepResult::failure(fmt::format("exact: non-finite state at t = {}", t1));
    return StepResult::success();
  }
  if (!model.has_linear_dynamics()) {
    throw Error(fmt::format("integrator 'exact' needs linear dynamics or a closed-form flow, model '{}' has neither",
                            model.type()));
  }
  const Eigen::Index n = x.size();
  if (n == 0 || t1 <= t0) return StepResult::success();
  if (!have_matrices_) {
    const Eigen::VectorXd zero_x = Eigen::VectorXd::Zero(n);
    const Eigen::VectorXd zero_u = Eigen::VectorXd::Zero(model.input_count());
    Linearization lin;
    if (!model.jacobians(t0, zero_x, zero_u, lin)) finite_difference_jacobians(model, t0, zero_x, zero_u, lin);
    A_ = lin.A;
    B_ = lin.B;
    e_.resize(n);
    model.derivatives(t0, zero_x, zero_u, e_);
    rhs_evaluations_ += 1;
    have_matrices_ = true;
  }
  const double h = t1 - t0;
  if (phi_.max_order() != kInputCoefficients || phi_.step() != h) phi_.compute(A_, h, kInputCoefficients);
  // next = φ_0 x + φ_1 (h e) + Σ_k k! h^{k+1} φ_{k+1} B c_k   (buffers reused: no allocation)
  work_ = h * e_;
  next_.noalias() = phi_.phi(0) * x;
  next_.noalias() += phi_.phi(1) * work_;
  for (int k = 0; k <= kMaxInputDegree && B_.cols() > 0; ++k) {
    forcing_.noalias() = B_ * shifted_.col(k);
    work_.noalias() = phi_.phi(k + 1) * forcing_;
    next_ += phi_.monomial_scale(k) * work_;
  }
  x = next_;
  if (!x.allFinite()) return StepResult::failure(fmt::format("exact: non-finite state at t = {}", t1));
  return StepResult::success();
}

}  // namespace cosima
