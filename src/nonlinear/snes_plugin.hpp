#pragma once
// The PETSc SNES solvers are a plugin, libcosima_snes.so (core/plugin.hpp), opened the first time a
// solve needs SNES (or a solver with petsc_options is made: make_nonlinear_solver). Its C entry points:
//   cosima_snes_create(options, size, &error)  a new SnesSolver, or nullptr with the reason in error
//   cosima_snes_finalize()                     PetscFinalize if PETSc was initialized (before MPI_Finalize)
#include <string>

#include "core/plugin.hpp"
#include "nonlinear/nonlinear_solver.hpp"

namespace cosima::nonlinear {

inline constexpr const char* kSnesPlugin = "libcosima_snes.so";
using SnesCreate = NonlinearSolver* (*)(const NonlinearOptions* options, long size, std::string* error);
using SnesFinalize = void (*)();

}  // namespace cosima::nonlinear
