#pragma once
// What MISSILES and COSTARICA read of a system inside a step without integrating it: its outputs
// and their derivatives at t_N + h as an affine map of the input coefficients Ξ̌ (seed 000 eq. 11,
// 32, 34):
//     ŷ = G_V vec(Ξ̌) + K_V,    ŷ' = G_D vec(Ξ̌) + K_D.
// Two estimators produce it:
//   StepEstimator   (step_estimator.hpp)  from the system's states and linearization A, B, C, D;
//   ProbeEstimator  (probe_estimator.hpp) for a black box with rollback but neither: by perturbed
//                                          steps with restore (1 + 4·inputs integrations per update 2).
// Call order per macro-step: begin_step (update 1, at t_N), prepare (update 2, per step size),
// then any number of estimates (update 3: estimate_outputs with response() and the constants).
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/vector_view.hpp"
#include "estimator/linear_response.hpp"
#include "system/system.hpp"

namespace cosima::estimator {

struct EstimatorOptions;

class OutputEstimator {
 public:
  virtual ~OutputEstimator() = default;
  /// Sizes the workspaces for this system and forgets any history (start of a run, after a jump).
  virtual void reset(const System& system) = 0;
  /// Update 1 at the system's current time t_N; u_now are its inputs at t_N.
  virtual void begin_step(System& system, ConstVectorView u_now) = 0;
  /// Update 2 for a step of size h; the system is at t_N before and after. False with reason().
  virtual bool prepare(System& system, double h) = 0;
  [[nodiscard]] virtual const LinearResponse& response() const = 0;
  [[nodiscard]] virtual const Eigen::VectorXd& constant_value() const = 0;
  [[nodiscard]] virtual const Eigen::VectorXd& constant_derivative() const = 0;
  [[nodiscard]] virtual const std::string& reason() const = 0;
};

/// Whether `system` can be estimated, and how: from its linearization, else by perturbed steps.
enum class EstimatorKind : std::uint8_t { linearization, probing };
/// The kind `system` allows (linearization when it has states and A, B, C, D; probing when it has
/// rollback), or nullopt.
std::optional<EstimatorKind> estimator_kind(const System& system);
/// The estimator for `system` (estimator_kind); throws CapabilityError naming what it lacks.
std::unique_ptr<OutputEstimator> make_output_estimator(const System& system, const EstimatorOptions& options);

}  // namespace cosima::estimator
