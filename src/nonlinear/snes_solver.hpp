#pragma once
// PETSc SNES with a matrix-free Jacobian (MatCreateSNESMF, PCNONE) and the convergence test of
// seed 001 eq. 27. Presets carry the options of the paper's Appendix A (tables 3–6); the options
// string is applied after the preset, to a private options database of this solver.
// Built into the plugin libcosima_snes.so only (nonlinear/snes_plugin.hpp).
//
// "anderson" fits table 4 to the problem: memory m = min(30, n), and the mixing parameter β set
// from the coupling's spectral radius. Anderson's next iterate is x_{k+1} = x̄_k − β γ(x̄_k), with
// x̄_k the least-squares combination of the last iterates; on an affine γ(x) = x − Ψ(x) its error
// is ((1 − β) I + β J_Ψ) e(x̄_k). Table 4's β = 1 multiplies the error of the combination by J_Ψ —
// by up to ρ(J_Ψ) = √(D_SD/D_D) = 10 on B1 at D_D = 0.01, where the iterate that passes eq. 27 then
// has its residual in the force, which the plate integrates ×1/D_D (state error 4.2e-5 at ε = 1e-4
// and 1e-5 alike, NewtonLS 7e-7). So after each solve the Ritz values of J_Ψ on the span of the
// iterates (J_Ψ Δx = Δx − Δγ for every pair of them) estimate ρ(J_Ψ), and the next solve mixes with
// β = 1/max(1, ρ): unchanged (1) on contractive couplings, where any β < 1 costs an iteration (B3 at
// ε = 1e-5: 2 per step instead of 1); on B1 at D_D = 0.01 the estimate is 10.0 and the state error
// 5e-6 for the same 3 iterations per step. (At ε = 1e-6 there β = 1 stagnates until its memory drops
// the first iterates, 10 iterations and an exact solve, where β = 0.1 stops after 6.6 at 2e-6; from
// ε = 1e-7 both take the 10.)
// "-snes_anderson_beta" in the options string fixes β instead; "anderson-paper" is table 4 as
// published (m = 30, β = 1).
#include <petscsnes.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include "nonlinear/nonlinear_solver.hpp"

namespace cosima::nonlinear {

class SnesSolver final : public NonlinearSolver {
 public:
  SnesSolver(const NonlinearOptions& options, Eigen::Index size);
  ~SnesSolver() override;
  SnesSolver(const SnesSolver&) = delete;
  SnesSolver& operator=(const SnesSolver&) = delete;

  NonlinearResult solve(const Residual& gamma, Eigen::VectorXd& x) override;
  NonlinearResult solve_from(const Residual& gamma, Eigen::VectorXd& x, const Eigen::VectorXd& gamma_x) override;
  /// The PETSc options of a preset for `size` unknowns: "newtonls", "anderson" (memory min(30, size);
  /// β is then adapted per solve), "anderson-paper" (seed 001 table 4 as published, memory 30),
  /// "ngmres", "ngmres-ls", "petsc": none.
  static std::string preset_options(const std::string& preset, Eigen::Index size);

 private:
  void configure(const std::string& preset);
  /// SNESSolve from x; with gamma_x = γ(x) given, SNES starts from it instead of evaluating γ at x.
  NonlinearResult run(const Residual& gamma, Eigen::VectorXd& x, const Eigen::VectorXd* gamma_x);
  void release();
  /// β = 1/max(1, ρ) for the next solve, ρ the largest Ritz value of J_Ψ over this solve's iterates.
  void adapt_mixing();
  /// γ at x into f (and into Anderson's record); false when a system failed or γ is not finite.
  bool evaluate_into(Vec x, Vec f);
  /// Anderson's record of the solve's iterates and residuals ("anderson" only).
  void record(const Eigen::VectorXd& x, const Eigen::VectorXd& gamma_x);
  /// The convergence test of eq. 27 (or componentwise) at x with residual f of 2-norm f_norm.
  [[nodiscard]] bool converges_at(Vec x, Vec f, PetscReal f_norm) const;
  static PetscErrorCode evaluate(SNES snes, Vec x, Vec f, void* context);
  static PetscErrorCode converged(SNES snes, PetscInt iteration, PetscReal x_norm, PetscReal step_norm,
                                  PetscReal f_norm, SNESConvergedReason* reason, void* context);

  NonlinearOptions options_;
  Eigen::Index size_;
  SNES snes_ = nullptr;
  Vec x_ = nullptr, f_ = nullptr;
  Vec f_initial_ = nullptr;  ///< γ(x₀) given to solve_from
  Mat jacobian_ = nullptr;
  PetscOptions database_ = nullptr;
  const Residual* gamma_ = nullptr;
  Eigen::VectorXd x_buffer_, f_buffer_;
  bool evaluation_failed_ = false;
  // "anderson": the last iterates and residuals of the solve (columns, a ring), and the β in use
  bool adapt_mixing_ = false;
  Eigen::MatrixXd iterates_, residuals_;
  Eigen::Index evaluations_ = 0;
  double beta_ = 1.0;
  /// adapt_mixing()'s workspaces, sized at their first use and kept: one per number of steps r
  /// (Δx, J_Ψ Δx and their SVD, n × r) and one per rank k (the k × k Ritz matrix and its eigenvalues)
  struct StepSpan {
    Eigen::MatrixXd steps, changes;
    Eigen::JacobiSVD<Eigen::MatrixXd> svd;
  };
  struct RitzProblem {
    Eigen::MatrixXd projected, ritz;
    Eigen::EigenSolver<Eigen::MatrixXd> eigen;
  };
  std::vector<StepSpan> spans_;
  std::vector<RitzProblem> ritz_;
  /// ρ(J_Ψ) on the span of the recorded steps against the last iterate (Rayleigh–Ritz); NaN when they span nothing
  double ritz_radius(Eigen::Index recorded, Eigen::Index last);
};

}  // namespace cosima::nonlinear
