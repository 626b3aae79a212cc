#pragma once
// Solvers for the coupling equation γ(x) = 0 of the iterative methods (seed 001 eq. 24–27).
//   fixed-point   x ← x − γ(x) = Ψ(x)               (classical IFOSMONDI, eq. 26)
//   PETSc SNES    matrix-free Newton-type methods    (IFOSMONDI-JFM): newtonls, anderson, ngmres,
//                 ngmres-ls with the options of seed 001 Appendix A, or any PETSc options string
// Convergence, Criterion::norm (eq. 27 as published): ‖γ(x)‖₂ < ε_rel ‖x‖₂ + ε_abs √n. One norm
// over all unknowns lets the largest ones set the tolerance of all: on B1 the interface position
// (~50 m) lets the force (~0.06 N) converge to a few per cent. Criterion::componentwise weighs each
// unknown against its own scale, as SUNDIALS' WRMS norm does:
//   √( (1/n) Σ_i ( w_i γ_i / (ε_rel |w_i x_i| + ε_abs) )² ) < 1,
// with w from set_weights() (IFOSMONDI: 1 for values, the step h for derivatives, which is what an
// error in u̇ moves the Hermite interface by). eq. 27 also adds derivatives to values in ‖x‖: on B1
// at D_D = 0.01 the plate's acceleration (≈ 5 m/s²) sets the tolerance of the first steps while the
// values are ≤ 0.1, the position x_C (up to 54 m) later on. Yet it is not what ended Anderson there
// after 3 iterations with a force a few per cent off (state error 4.2e-5): ‖γ‖ of that iterate is
// 6e-5 and ε = 1e-5 accepts the same iterates; the force came from the mixing parameter
// (nonlinear/snes_solver.hpp). So eq. 27 stays the default, componentwise an option. Every
// non-convergence is returned with its reason, never thrown: the method rejects the step and
// retries it smaller.
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>

#include <Eigen/Dense>

namespace cosima::nonlinear {

enum class Criterion : std::uint8_t { norm, componentwise };

struct NonlinearOptions {
  /// fixed-point | newtonls | anderson (memory min(30, n), β adapted) | anderson-paper (table 4) |
  /// ngmres | ngmres-ls | petsc
  std::string solver = "anderson";
  double epsilon_abs = 1e-4;
  double epsilon_rel = 1e-4;
  int max_iterations = 100;
  std::string petsc_options;  ///< appended to the preset, e.g. "-snes_anderson_m 5"
  Criterion criterion = Criterion::norm;
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
  /// solve() from an x whose residual gamma_x = γ(x) the caller has evaluated already (and not
  /// accepted): a solver that can start from it does not evaluate γ at x again. The default does.
  virtual NonlinearResult solve_from(const Residual& gamma, Eigen::VectorXd& x, const Eigen::VectorXd& /*gamma_x*/) {
    return solve(gamma, x);
  }
  /// Weights w of the unknowns in the componentwise criterion (none: all ones).
  void set_weights(const Eigen::VectorXd& weights) { weights_ = weights; }
  [[nodiscard]] const Eigen::VectorXd& weights() const { return weights_; }
  /// Factor s on both tolerances of the criterion (ε_rel s, ε_abs s) for the next solves; 1 by default.
  void set_tolerance_scale(double scale) { scale_ = scale; }
  [[nodiscard]] double tolerance_scale() const { return scale_; }

 protected:
  /// The convergence test of o.criterion at (x, γ(x)), ‖γ(x)‖₂ = gamma_norm: eq. 27 or componentwise.
  [[nodiscard]] bool accepts(const Eigen::Ref<const Eigen::VectorXd>& x, const Eigen::Ref<const Eigen::VectorXd>& gamma,
                             double gamma_norm, const NonlinearOptions& o) const;
  /// The componentwise criterion at (x, γ(x)).
  [[nodiscard]] bool converged_componentwise(const Eigen::Ref<const Eigen::VectorXd>& x,
                                             const Eigen::Ref<const Eigen::VectorXd>& gamma,
                                             const NonlinearOptions& o) const {
    double sum = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double w = weights_.size() == 0 ? 1.0 : weights_(i);
      const double ratio = w * gamma(i) / (scale_ * (o.epsilon_rel * std::abs(w * x(i)) + o.epsilon_abs));
      sum += ratio * ratio;
    }
    return x.size() == 0 || sum < static_cast<double>(x.size());
  }

 private:
  Eigen::VectorXd weights_;
  double scale_ = 1.0;
};

/// The convergence test of eq. 27 (Criterion::norm), its tolerances times scale.
inline bool coupling_converged(double gamma_norm, double x_norm, Eigen::Index n, const NonlinearOptions& o,
                               double scale = 1.0) {
  return gamma_norm < scale * (o.epsilon_rel * x_norm + o.epsilon_abs * std::sqrt(static_cast<double>(n)));
}

/// γ(x) into gamma_x; false when a system failed (γ returned false or threw) or γ is not finite.
inline bool evaluate_residual(const Residual& gamma, const Eigen::VectorXd& x, Eigen::VectorXd& gamma_x) {
  try {
    return gamma(x, gamma_x) && gamma_x.allFinite();
  } catch (const std::exception&) {
    return false;
  }
}

inline bool NonlinearSolver::accepts(const Eigen::Ref<const Eigen::VectorXd>& x,
                                     const Eigen::Ref<const Eigen::VectorXd>& gamma, double gamma_norm,
                                     const NonlinearOptions& o) const {
  return o.criterion == Criterion::componentwise ? converged_componentwise(x, gamma, o)
                                                 : coupling_converged(gamma_norm, x.norm(), x.size(), o, scale_);
}

/// "fixed-point" or a PETSc preset; throws Error for an unknown solver name. A preset without
/// petsc_options opens PETSc (nonlinear/snes_plugin.hpp: ≈ 0.1 s with MPI as a singleton) at the
/// first solve whose initial guess fails the convergence test, which the returned solver applies
/// itself: a run whose guesses all pass (B3 at δt = 1e-4) never loads PETSc. With petsc_options,
/// PETSc opens here, so that the user's options are checked before the run.
std::unique_ptr<NonlinearSolver> make_nonlinear_solver(const NonlinearOptions& options, Eigen::Index size);
/// "fixed-point, newtonls, anderson, anderson-paper, ngmres, ngmres-ls, petsc"
std::string nonlinear_solver_names();

/// Finalizes PETSc if this process initialized it (also done at exit). Must run before MPI_Finalize
/// when the program initialized MPI itself (the MPI executor). Does nothing when PETSc never loaded.
void finalize_petsc();

}  // namespace cosima::nonlinear
