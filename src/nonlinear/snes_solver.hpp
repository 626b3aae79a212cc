#pragma once
// PETSc SNES with a matrix-free Jacobian (MatCreateSNESMF, PCNONE) and the convergence test of
// seed 001 eq. 27. Presets carry the options of the paper's Appendix A (tables 3–6); the options
// string is applied after the preset, to a private options database of this solver.
// Built into the plugin libcosima_snes.so only (nonlinear/snes_plugin.hpp).
#include <petscsnes.h>

#include "nonlinear/nonlinear_solver.hpp"

namespace cosima {

class SnesSolver final : public NonlinearSolver {
 public:
  SnesSolver(const NonlinearOptions& options, Eigen::Index size);
  ~SnesSolver() override;
  SnesSolver(const SnesSolver&) = delete;
  SnesSolver& operator=(const SnesSolver&) = delete;

  NonlinearResult solve(const Residual& gamma, Eigen::VectorXd& x) override;
  /// The PETSc options of a preset for `size` unknowns: "newtonls", "anderson" (memory min(30, size)),
  /// "anderson-paper" (seed 001 table 4 as published, memory 30), "ngmres", "ngmres-ls", "petsc": none.
  static std::string preset_options(const std::string& preset, Eigen::Index size);

 private:
  void configure(const std::string& preset);
  void release();
  static PetscErrorCode evaluate(SNES snes, Vec x, Vec f, void* context);
  static PetscErrorCode converged(SNES snes, PetscInt iteration, PetscReal x_norm, PetscReal step_norm,
                                  PetscReal f_norm, SNESConvergedReason* reason, void* context);

  NonlinearOptions options_;
  Eigen::Index size_;
  SNES snes_ = nullptr;
  Vec x_ = nullptr, f_ = nullptr;
  Mat jacobian_ = nullptr;
  PetscOptions database_ = nullptr;
  const Residual* gamma_ = nullptr;
  Eigen::VectorXd x_buffer_, f_buffer_;
  bool evaluation_failed_ = false;
};

}  // namespace cosima
