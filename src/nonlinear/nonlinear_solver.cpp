#include "nonlinear/nonlinear_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "core/error.hpp"
#include "core/plugin.hpp"
#include "nonlinear/fixed_point.hpp"
#include "nonlinear/snes_plugin.hpp"

namespace cosima {

namespace {
/// The PETSc presets (SnesSolver::preset_options, in the plugin).
constexpr std::array<std::string_view, 6> kPresets = {"newtonls", "anderson",  "anderson-paper",
                                                      "ngmres",   "ngmres-ls", "petsc"};
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
  // PETSc is loaded here, on first use, not at program start (nonlinear/snes_plugin.hpp)
  const auto create = reinterpret_cast<SnesCreate>(plugin_symbol(kSnesPlugin, "cosima_snes_create"));
  std::string error;
  std::unique_ptr<NonlinearSolver> solver(create(&options, static_cast<long>(size), &error));
  if (!solver) throw Error(error);
  return solver;
}

void finalize_petsc() {
  if (void* finalize = loaded_plugin_symbol(kSnesPlugin, "cosima_snes_finalize"); finalize != nullptr) {
    reinterpret_cast<SnesFinalize>(finalize)();
  }
}

}  // namespace cosima
