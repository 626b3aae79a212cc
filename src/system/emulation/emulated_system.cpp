#include "system/emulation/emulated_system.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {

constexpr int kHistoryPoints = kMaxInputDegree + 1;

/// Fornberg's table c(j, d) with  f^(d)(z) ≈ Σ_j c(j, d) f(x_j)  for d = 0..c.cols()−1: the
/// derivatives at z of the polynomial interpolating f at the nodes x_0..x_n, n = c.rows()−1, any
/// distinct nodes (Fornberg's recurrence, Math. Comp. 51 (1988), on the Lagrange basis, which stays
/// well conditioned where a Vandermonde solve is not). Fills `c` in place: no allocation.
void differentiation_weights(const Eigen::Ref<const Eigen::VectorXd>& x, double z, Eigen::Ref<Eigen::MatrixXd> c) {
  const Eigen::Index n = x.size() - 1;
  const int max_order = static_cast<int>(c.cols()) - 1;
  c.setZero();
  c(0, 0) = 1.0;
  double c1 = 1.0, c4 = x(0) - z;
  for (Eigen::Index i = 1; i <= n; ++i) {
    const int top = static_cast<int>(std::min<Eigen::Index>(i, max_order));
    double c2 = 1.0;
    const double c5 = c4;
    c4 = x(i) - z;
    for (Eigen::Index j = 0; j < i; ++j) {
      const double c3 = x(i) - x(j);
      c2 *= c3;
      if (j == i - 1) {
        for (int k = top; k >= 1; --k) c(i, k) = c1 * (k * c(i - 1, k - 1) - c5 * c(i - 1, k)) / c2;
        c(i, 0) = -c1 * c5 * c(i - 1, 0) / c2;
      }
      for (int k = top; k >= 1; --k) c(j, k) = (c4 * c(j, k) - k * c(j, k - 1)) / c3;
      c(j, 0) = c4 * c(j, 0) / c3;
    }
    c1 = c2;
  }
}

/// The held values of the K sub-steps for p = τ^d on [0, 1] (row k, column d): the sub-step means
/// m̄_k corrected by the least change that gives the held signal the first J = min(K, 4) moments of
/// τ^d:  M c = t,  M_jk = ∫_{k/K}^{(k+1)/K} τ^j dτ,  t_j = 1/(j + d + 1),  c = m̄ + Mᵀ(MMᵀ)⁻¹(t − M m̄).
/// For K ≤ 4 that is M's solution; beyond, the interior stays within O(δ²) of the means (J = 4:
/// the cubic's coefficients are all there is to match, and MMᵀ stays 4 × 4).
Eigen::MatrixXd moment_matching_weights(int substeps) {
  const int matched = std::min(substeps, kMaxInputDegree + 1);
  const auto power_integral = [&](int k, int j) {  // ∫_{k/K}^{(k+1)/K} τ^j dτ
    return (std::pow((k + 1.0) / substeps, j + 1) - std::pow(static_cast<double>(k) / substeps, j + 1)) / (j + 1);
  };
  Eigen::MatrixXd moments(matched, substeps), means(substeps, kMaxInputDegree + 1),
      targets(matched, kMaxInputDegree + 1);
  for (int k = 0; k < substeps; ++k) {
    for (int j = 0; j < matched; ++j) moments(j, k) = power_integral(k, j);
    for (int d = 0; d <= kMaxInputDegree; ++d) means(k, d) = power_integral(k, d) * substeps;
  }
  for (int j = 0; j < matched; ++j) {
    for (int d = 0; d <= kMaxInputDegree; ++d) targets(j, d) = 1.0 / (j + d + 1);
  }
  const Eigen::MatrixXd gram = moments * moments.transpose();
  return means + moments.transpose() * gram.fullPivLu().solve(targets - moments * means);
}

}  // namespace

EmulatedSystem::EmulatedSystem(std::unique_ptr<System> inner, CapabilitySet emulate, EmulationOptions options)
    : SystemDecorator(std::move(inner)), emulate_(emulate.only(kEmulable)) {
  if (options.substeps < 1) {
    throw Error(fmt::format("system '{}': emulation_substeps = {} must be at least 1", name(), options.substeps));
  }
  substeps_ = inner_->has(Capability::variable_step) ? options.substeps : 1;
  feedthrough_ = inner_->has_feedthrough();
  const Eigen::Index inputs = inner_->input_count(), outputs = inner_->output_count();
  polynomials_.setZero(inputs, kInputCoefficients);
  held_.setZero(inputs, kInputCoefficients);
  shifted_.setZero(inputs, kInputCoefficients);
  held_weights_ = moment_matching_weights(substeps_);
  source_ = options.derivatives;
  if (source_ == DerivativeSource::automatic) {  // a fixed-step system has no sub-steps to differentiate
    source_ = substeps_ == 1 ? DerivativeSource::history : DerivativeSource::substeps;
  }
  const int max_order = source_ == DerivativeSource::history ? kMaxInputDegree : std::min(substeps_, kMaxInputDegree);
  samples_.setZero(outputs, substeps_ + 1);
  derivatives_.setZero(outputs, max_order);
  Eigen::MatrixXd table(substeps_ + 1, max_order + 1);
  differentiation_weights(Eigen::VectorXd::LinSpaced(substeps_ + 1, 0.0, substeps_), substeps_, table);
  weights_ = table.rightCols(max_order);
  history_.values.setZero(outputs, kHistoryPoints);
  history_.times.setZero(kHistoryPoints);
  nodes_.setZero(kHistoryPoints);
  history_weights_.setZero(kHistoryPoints, kMaxInputDegree + 1);
}

int EmulatedSystem::provided_output_derivative_order() const {
  return emulates(Capability::output_derivatives) ? static_cast<int>(derivatives_.cols())
                                                  : inner_->max_output_derivative_order();
}

void EmulatedSystem::enter_initialization(double t_start) {
  inner_->enter_initialization(t_start);
  derivatives_.setZero();
  history_.count = 0;  // the first point is the outputs at the first step's start, under its inputs
}

void EmulatedSystem::exit_initialization() { inner_->exit_initialization(); }

void EmulatedSystem::record_history() {
  const double t = inner_->time(), tolerance = 1e-12 * std::max(1.0, std::abs(t));
  // the history is of the past: a time before its newest point (the system moved back without a
  // snapshot of this layer) voids it
  if (history_.count > 0 && t < history_.times(history_.newest) - tolerance) history_.count = 0;
  // a step too short to tell its end from its start refreshes the newest point instead: coinciding
  // nodes would divide by zero
  const bool same = history_.count > 0 && t - history_.times(history_.newest) <= tolerance;
  if (!same) {
    history_.newest = (history_.newest + 1) % kHistoryPoints;
    history_.count = std::min(history_.count + 1, kHistoryPoints);
  }
  history_.times(history_.newest) = t;
  inner_->outputs(history_.values.col(history_.newest));
}

void EmulatedSystem::differentiate_history() {
  // nodes oldest first, relative to the newest (z = 0); column d of the table weighs the points for
  // the d-th derivative of their interpolation polynomial at z: order p + 1 − d with p + 1 points
  const int points = history_.count;
  const int oldest = (history_.newest - (points - 1) + kHistoryPoints) % kHistoryPoints;
  const double t = history_.times(history_.newest);
  for (int j = 0; j < points; ++j) nodes_(j) = history_.times((oldest + j) % kHistoryPoints) - t;
  differentiation_weights(nodes_.head(points), 0.0, history_weights_.topRows(points));
  derivatives_.setZero();  // orders ≥ points stay 0: the points do not determine them yet
  for (int j = 0; j < points; ++j) {
    const auto value = history_.values.col((oldest + j) % kHistoryPoints);
    for (Eigen::Index d = 1; d < std::min<Eigen::Index>(points, derivatives_.cols() + 1); ++d) {
      derivatives_.col(d - 1).noalias() += history_weights_(j, d) * value;
    }
  }
}

void EmulatedSystem::hold_inputs_at(double s) {
  for (Eigen::Index row = 0; row < polynomials_.rows(); ++row) {
    double value = 0.0;
    for (int k = kMaxInputDegree; k >= 0; --k) value = value * s + polynomials_(row, k);
    held_(row, 0) = value;
  }
  inner_->set_inputs(held_);
}

void EmulatedSystem::apply_inputs(const InputPolynomials& polynomials) {
  polynomials_ = polynomials;
  if (emulates(Capability::interpolate_inputs))
    hold_inputs_at(0.0);
  else
    inner_->set_inputs(polynomials_);
}

StepResult EmulatedSystem::integrate(double h) {
  const bool interpolate = emulates(Capability::interpolate_inputs);
  const bool history = uses_history();
  const bool sample = emulates(Capability::output_derivatives) && !history;  // the sub-step points
  if (sample) inner_->outputs(samples_.col(0));
  if (history) record_history();  // the step's start, under its inputs
  double done = 0.0;
  // each sub-step ends on t₀ + (k+1)h/K as the master would compute it, the last on t₀ + h: summing
  // the sub-steps' lengths instead lets the system's clock drift from the master's by an ulp of t per
  // sub-step (on B3 at δt = 1e-4, 7e-11 of each sub-step's length)
  const double t0 = inner_->time();
  for (int k = 0; k < substeps_; ++k) {
    const double end = k + 1 == substeps_ ? h : h * (k + 1) / substeps_;
    if (interpolate) {  // p(s) = Σ_d a_d h^d τ^d: the held value Σ_d a_d h^d c_k(τ^d)
      for (Eigen::Index row = 0; row < polynomials_.rows(); ++row) {
        // a constant (a held discrete input) is held as it is: the weights sum to 1 only up to rounding
        if (polynomials_.row(row).tail<kMaxInputDegree>().isZero(0.0)) {
          held_(row, 0) = polynomials_(row, 0);
          continue;
        }
        double value = 0.0, power = 1.0;
        for (int d = 0; d <= kMaxInputDegree; ++d, power *= h)
          value += polynomials_(row, d) * power * held_weights_(k, d);
        held_(row, 0) = value;
      }
      inner_->set_inputs(held_);
    } else if (k > 0) {
      shift_polynomials(polynomials_, done, shifted_);
      inner_->set_inputs(shifted_);
    }
    StepResult result = inner_->do_step((t0 + end) - inner_->time());
    if (!result.ok()) {
      if (k + 1 < substeps_) result.step_completed = false;  // the macro-step did not reach its end
      return result;
    }
    done = end;
    if (interpolate && (k + 1 == substeps_ || (sample && feedthrough_))) hold_inputs_at(done);
    if (sample) inner_->outputs(samples_.col(k + 1));
  }
  if (sample) {
    const double delta = h / substeps_;
    double scale = 1.0;
    for (Eigen::Index d = 0; d < derivatives_.cols(); ++d) {
      scale /= delta;
      derivatives_.col(d).noalias() = samples_ * weights_.col(d);
      derivatives_.col(d) *= scale;
    }
  }
  if (history) {
    record_history();
    differentiate_history();
  }
  return StepResult::success();
}

std::string EmulatedSystem::emulated_derivatives() const {
  if (!emulates(Capability::output_derivatives)) return {};
  if (uses_history()) {
    return "from the interface history (the outputs at the last 4 communication points: y' of order 3, y'' 2, "
           "y''' 1 in the step)";
  }
  return fmt::format("from the outputs at the {} sub-step points (y' of order {} in the sub-step)", substeps_ + 1,
                     substeps_);
}

StepResult EmulatedSystem::handle_pending_events() {
  if (emulates(Capability::output_derivatives)) {
    derivatives_.setZero();
    history_.count = 0;  // a jump is not differentiable: the next step starts it from the right limits
  }
  return inner_->handle_pending_events();
}

void EmulatedSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  if (emulates(Capability::output_derivatives))
    dy = derivatives_.col(order - 1);
  else
    inner_->output_derivatives(order, dy);
}

StateId EmulatedSystem::do_save_state(StateId overwrite) {
  StateId id = overwrite;
  if (overwrite < 0)
    id = inner_->save_state();
  else
    inner_->save_state(overwrite);
  Snapshot& snapshot = saved_[id];  // same sizes after the first save: no allocation
  snapshot.derivatives = derivatives_;
  snapshot.history = history_;
  return id;
}

void EmulatedSystem::do_restore_state(StateId id) {
  inner_->restore_state(id);
  const auto it = saved_.find(id);
  if (it == saved_.end()) return;
  derivatives_ = it->second.derivatives;
  history_ = it->second.history;
}

void EmulatedSystem::do_release_state(StateId id) {
  inner_->release_state(id);
  saved_.erase(id);
}

std::unique_ptr<System> emulate_missing(std::unique_ptr<System> system, CapabilitySet wanted,
                                        EmulationOptions options) {
  CapabilitySet missing = wanted.without(system->capabilities()).only(kEmulable);
  if (missing.empty()) return system;
  // The system's own output derivatives are taken with the input it is given — held over each
  // sub-step when its interpolated inputs are emulated, set to p(h) at the step's end — and so miss
  // the inputs' variation where an output depends on an input directly (y' = Cx' + Du' without Du').
  // The derivatives of the sub-step samples carry it: there, emulate both together. Without direct
  // feedthrough y' = C f(x, p(h)) is exact, and the samples' O(h·δ) would only lose accuracy.
  if (missing.has(Capability::interpolate_inputs) && wanted.has(Capability::output_derivatives) &&
      system->has_feedthrough()) {
    missing.add(Capability::output_derivatives);
  }
  return std::make_unique<EmulatedSystem>(std::move(system), missing, options);
}

}  // namespace cosima
