#pragma once
// Solvers for the coupling equation γ(x) = 0 of the iterative methods (seed 001 eq. 24–27).
//   fixed-point   x ← x − γ(x) = Ψ(x)               (classical IFOSMONDI, eq. 26)
//   PETSc SNES    matrix-free Newton-type methods    (IFOSMONDI-JFM): newtonls, anderson, ngmres,
//                 ngmres-ls with the options of seed 001 Appendix A, or any PETSc options string
// Convergence (eq. 27): ‖γ(x)‖₂ < ε_rel ‖x‖₂ + ε_abs √n. Every non-convergence is returned with
// its reason, never thrown: the method rejects the step and retries it smaller.
#include <functional>
#include <memory>
#include <string>

#include <Eigen/Dense>

namespace cosima {

struct NonlinearOptions {
  std::string solver = "anderson";  ///< fixed-point | newtonls | anderson | ngmres | ngmres-ls | petsc
  double epsilon_abs = 1e-4;
  double epsilon_rel = 1e-4;
  int max_iterations = 100;
  std::string petsc_options;  ///< appended to the preset, e.g. "-snes_anderson_m 5"
};

struct NonlinearResult {
  bool converged = false;
  int iterations = 0;
  std::string reason;  ///< why it did not converge (or how it did)
};

/// γ(x) → gamma. Returns false when γ cannot be evaluated at x (a system failed, NaN, ...).
using Residual = std::function<bool(const Eigen::VectorXd& x, Eigen::VectorXd& gamma)>;

class NonlinearSolver {
 public:
  virtual ~NonlinearSolver() = default;
  /// Solves from x (the initial guess); x holds the last iterate on return.
  virtual NonlinearResult solve(const Residual& gamma, Eigen::VectorXd& x) = 0;
};

/// The convergence test of eq. 27.
inline bool coupling_converged(double gamma_norm, double x_norm, Eigen::Index n, const NonlinearOptions& o) {
  return gamma_norm < o.epsilon_rel * x_norm + o.epsilon_abs * std::sqrt(static_cast<double>(n));
}

/// "fixed-point" or a PETSc preset; throws Error for an unknown solver name.
std::unique_ptr<NonlinearSolver> make_nonlinear_solver(const NonlinearOptions& options, Eigen::Index size);
/// "fixed-point, newtonls, anderson, ngmres, ngmres-ls, petsc"
std::string nonlinear_solver_names();

}  // namespace cosima
