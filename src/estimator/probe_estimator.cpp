#include "estimator/probe_estimator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "estimator/step_estimator.hpp"

namespace cosima::estimator {

std::optional<EstimatorKind> estimator_kind(const System& system) {
  if (system.has(Capability::state_access) && system.has(Capability::linearization))
    return EstimatorKind::linearization;
  if (system.has(Capability::rollback)) return EstimatorKind::probing;
  return std::nullopt;
}

std::unique_ptr<OutputEstimator> make_output_estimator(const System& system, const EstimatorOptions& options) {
  const auto kind = estimator_kind(system);
  if (!kind) StepEstimator::require_capabilities(system, "an output estimator (or rollback, to probe it)");
  if (kind == EstimatorKind::linearization) return std::make_unique<StepEstimator>(options);
  return std::make_unique<ProbeEstimator>();
}

void ProbeEstimator::reset(const System& system) {
  const Eigen::Index inputs = system.input_count(), outputs = system.output_count();
  response_.GV.setZero(outputs, kInputCoefficients * inputs);
  response_.GD.setZero(outputs, kInputCoefficients * inputs);
  u_now_.setZero(inputs);
  constant_value_.setZero(outputs);
  constant_derivative_.setZero(outputs);
  base_.setZero(inputs, kInputCoefficients);
  perturbed_.setZero(inputs, kInputCoefficients);
}

void ProbeEstimator::begin_step(System& /*system*/, ConstVectorView u_now) { u_now_ = u_now; }

bool ProbeEstimator::probe(System& system, double h, const InputPolynomials& inputs, Eigen::VectorXd& y,
                           Eigen::VectorXd& dy) {
  system.restore_state(snapshot_);
  system.set_inputs(inputs);
  const StepResult result = system.do_step(h);
  if (!result.ok()) {
    reason_ = fmt::format("probing system '{}' over a step of {}: {}", system.name(), h, result.reason);
    system.restore_state(snapshot_);
    return false;
  }
  y.resize(system.output_count());
  dy.resize(system.output_count());
  system.outputs(y);
  system.output_derivatives(1, dy);
  return true;
}

bool ProbeEstimator::prepare(System& system, double h) {
  if (snapshot_ < 0)
    snapshot_ = system.save_state();
  else
    system.save_state(snapshot_);
  base_.setZero();
  base_.col(0) = u_now_;
  if (!probe(system, h, base_, y_base_, dy_base_)) return false;
  const double root_epsilon = std::sqrt(std::numeric_limits<double>::epsilon());
  for (Eigen::Index j = 0; j < base_.rows(); ++j) {
    // a discrete or non-Real input is held over the step: no response to it (and a perturbed
    // Integer, Boolean or Enumeration value would be refused by the system)
    const PortInfo& input = system.input_info(static_cast<int>(j));
    if (input.kind != PortKind::real || !input.continuous) continue;
    double delta = root_epsilon * std::max(1.0, std::abs(u_now_(j)));  // δ_j0; δ_jk = δ_j0 / h^k
    for (int k = 0; k < kInputCoefficients; ++k, delta /= h) {
      perturbed_ = base_;
      perturbed_(j, k) += delta;
      if (!probe(system, h, perturbed_, y_, dy_)) return false;
      const Eigen::Index column = kInputCoefficients * j + k;  // vec(Ξ̌) index 4j + k
      response_.GV.col(column) = (y_ - y_base_) / delta;
      response_.GD.col(column) = (dy_ - dy_base_) / delta;
    }
  }
  system.restore_state(snapshot_);
  // K = y(Ξ̌₀) − G vec(Ξ̌₀)
  const Eigen::Map<const Eigen::VectorXd> xi(base_.data(), base_.size());
  constant_value_ = y_base_;
  constant_value_.noalias() -= response_.GV * xi;
  constant_derivative_ = dy_base_;
  constant_derivative_.noalias() -= response_.GD * xi;
  return true;
}

}  // namespace cosima::estimator
