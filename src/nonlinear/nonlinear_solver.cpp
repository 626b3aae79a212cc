#include "nonlinear/nonlinear_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/plugin.hpp"
#include "nonlinear/fixed_point.hpp"
#include "nonlinear/snes_plugin.hpp"

namespace cosima::nonlinear {

namespace {
/// The PETSc presets (SnesSolver::preset_options, in the plugin).
constexpr std::array<std::string_view, 6> kPresets = {"newtonls", "anderson",  "anderson-paper",
                                                      "ngmres",   "ngmres-ls", "petsc"};

/// A new SnesSolver from the plugin (which opens it, and PETSc, the first time).
std::unique_ptr<NonlinearSolver> open_snes(const NonlinearOptions& options, Eigen::Index size) {
  const auto create = reinterpret_cast<SnesCreate>(plugin_symbol(kSnesPlugin, "cosima_snes_create"));
  std::string error;
  std::unique_ptr<NonlinearSolver> solver(create(&options, static_cast<long>(size), &error));
  if (!solver) throw Error(error);
  return solver;
}

/// A PETSc preset that applies the convergence test to the initial guess itself and opens SNES only
/// for a guess that fails it. Every solve starts with γ(x₀) (eq. 24 at the "moving on" guess): one that
/// passes needs no iteration, and SNES would only have repeated the test. SNES, when it is needed,
/// starts from this γ(x₀) (solve_from).
class OnDemandSnes final : public NonlinearSolver {
 public:
  OnDemandSnes(NonlinearOptions options, Eigen::Index size, std::unique_ptr<NonlinearSolver> opened)
      : options_(std::move(options)), size_(size), snes_(std::move(opened)), gamma_x_(size) {}

  NonlinearResult solve(const Residual& gamma, Eigen::VectorXd& x) override {
    if (!evaluate_residual(gamma, x, gamma_x_)) {
      NonlinearResult failed;
      failed.reason = "a system failed during the iteration";
      return failed;
    }
    if (accepts(x, gamma_x_, gamma_x_.norm(), options_)) {
      NonlinearResult converged;  // x is x₀
      converged.converged = true;
      return converged;
    }
    if (!snes_) snes_ = open_snes(options_, size_);
    snes_->set_weights(weights());
    snes_->set_tolerance_scale(tolerance_scale());
    return snes_->solve_from(gamma, x, gamma_x_);
  }

 private:
  NonlinearOptions options_;
  Eigen::Index size_;
  std::unique_ptr<NonlinearSolver> snes_;  ///< null until a guess fails the test
  Eigen::VectorXd gamma_x_;
};

}  // namespace

std::string nonlinear_solver_names() {
  std::string names = "fixed-point";
  for (const std::string_view preset : kPresets) names += fmt::format(", {}", preset);
  return names;
}

std::unique_ptr<NonlinearSolver> make_nonlinear_solver(const NonlinearOptions& options, Eigen::Index size) {
  if (options.solver == "fixed-point") return std::make_unique<FixedPointSolver>(options);
  if (std::find(kPresets.begin(), kPresets.end(), options.solver) == kPresets.end()) {
    throw Error(fmt::format("unknown nonlinear solver '{}' (solvers: {})", options.solver, nonlinear_solver_names()));
  }
  // the presets' own options are valid by construction; a user's are checked by PETSc now, before the run
  std::unique_ptr<NonlinearSolver> opened = options.petsc_options.empty() ? nullptr : open_snes(options, size);
  return std::make_unique<OnDemandSnes>(options, size, std::move(opened));
}

void finalize_petsc() {
  if (void* finalize = loaded_plugin_symbol(kSnesPlugin, "cosima_snes_finalize"); finalize != nullptr) {
    reinterpret_cast<SnesFinalize>(finalize)();
  }
}

}  // namespace cosima::nonlinear
