#pragma once
// The consistent start of a coupled run (FMI 2.0 §3.2.3, §4.2.4; FMI 3.0 §3.2, §4.2): every system
// enters Initialization Mode at t_start with its parameters and start values; connected outputs are
// then handed to the inputs they drive while the systems are still in Initialization Mode — an FMU
// may compute its initial state from an input there (an initial equation s = s_start − u) — until
// the exchanged values no longer change; then every system leaves Initialization Mode with those
// inputs, and the outputs at t_start are read once more (an FMU's initial event iteration may change
// them) and made consistent by further sweeps.
//
// The initial exchange solves  u = Φᵀ Y(u)  (Y: every system's outputs in Initialization Mode given
// its inputs; Φ: the connections, with their transforms and constants):
//   1. Gauss–Seidel sweeps in the connections' topological order (a system after those that feed
//      it; systems on a cycle in index order). Without a cycle one sweep is exact; every output is
//      taken to depend on every input of its system, since an FMU without InitialUnknowns declares
//      nothing else. Converged when a sweep changes no input by more than
//      tol·max(1, |u|)  (tol = kInitialTolerance).
//   2. When the sweeps do not contract (kMaxInitialSweeps without convergence, or a non-finite
//      value), a damped Newton iteration on the continuous connected inputs: F(u) = Φᵀ Y(u) − u,
//      J by forward differences (one Jacobi evaluation per input), u ← u − λ J⁻¹F with λ halved
//      until ‖F‖∞ decreases.
//   3. Neither converging is an Error naming the connections whose residuals remain, with them.
#include <cstdint>

#include "exec/executor.hpp"
#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "model/modular_model.hpp"

namespace cosima::methods {

inline constexpr double kInitialTolerance = 1e-12;
inline constexpr int kMaxInitialSweeps = 50;
inline constexpr int kMaxInitialNewton = 50;
/// Newton's Jacobian costs one evaluation of every system per unknown: loops beyond this many
/// continuous connected inputs are refused rather than ground through.
inline constexpr int kMaxNewtonUnknowns = 400;

/// Initializes every system at t_start with the exchange described above. On return every system
/// has left Initialization Mode and holds its ZOH inputs; buffers.y and buffers.u are consistent.
/// Throws Error naming the connections whose values do not settle.
InitializationReport initialize_coupled(model::ModularModel& model, exec::Executor& executor, double t_start,
                                        CouplingBuffers& buffers);

}  // namespace cosima::methods
