#include "nonlinear/fixed_point.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cosima::nonlinear {

NonlinearResult FixedPointSolver::solve(const Residual& gamma, Eigen::VectorXd& x) {
  // The contraction factor is estimated from ‖γ‖ over the last kWindow iterations: the fixed point
  // converges only if the spectral radius of Ψ's Jacobian is below one.
  constexpr int kWindow = 10;
  norms_.clear();
  NonlinearResult result;
  double first_norm = -1.0;
  for (int iteration = 0;; ++iteration) {
    result.iterations = iteration;
    if (!gamma(x, residual_)) {
      result.reason = "a system failed during the iteration";
      return result;
    }
    const double norm = residual_.norm();
    if (!std::isfinite(norm)) {
      result.reason = "the residual is not finite";
      return result;
    }
    if (accepts(x, residual_, norm, options_)) {
      result.converged = true;
      result.reason = "converged";  // (eq. 27; short: no allocation per solve)
      return result;
    }
    if (first_norm < 0.0) first_norm = norm;
    norms_.push_back(norm);
    if (norms_.size() > 2 * static_cast<std::size_t>(kWindow)) {
      const double rho = std::pow(norm / norms_[norms_.size() - 1 - kWindow], 1.0 / kWindow);
      if (rho >= 0.999) {
        result.reason = fmt::format("the fixed point does not contract (estimated spectral radius ≈ {:.3f} ≥ 1)", rho);
        return result;
      }
    }
    if (norm > 1e6 * std::max(first_norm, 1e-300)) {
      result.reason = fmt::format("the fixed point diverges (‖γ‖ grew from {:.3g} to {:.3g})", first_norm, norm);
      return result;
    }
    if (iteration == options_.max_iterations) {
      result.reason = fmt::format("no convergence in {} iterations (‖γ‖ = {:.3g})", options_.max_iterations, norm);
      return result;
    }
    x -= residual_;  // x ← Ψ(x)
  }
}

}  // namespace cosima::nonlinear
