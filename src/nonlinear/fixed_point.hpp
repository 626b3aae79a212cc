#pragma once
#include <vector>

#include "nonlinear/nonlinear_solver.hpp"

namespace cosima::nonlinear {

/// x_{m+1} = Ψ(x_m) = x_m − γ(x_m) (seed 001 eq. 26). Stops early when ‖γ‖ grows a millionfold
/// (divergence) or turns non-finite.
class FixedPointSolver final : public NonlinearSolver {
 public:
  explicit FixedPointSolver(const NonlinearOptions& options) : options_(options) {}
  NonlinearResult solve(const Residual& gamma, Eigen::VectorXd& x) override;

 private:
  NonlinearOptions options_;
  Eigen::VectorXd residual_;
  std::vector<double> norms_;
};

}  // namespace cosima::nonlinear
