#include "system/emulation/emulated_system.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {

/// Weights w(j, d−1) with  f^(d)(z) ≈ Σ_j w(j, d−1) f(x_j)  for d = 1..max_order: the derivatives at
/// z of the polynomial interpolating f at the nodes x_0..x_n (Fornberg's recurrence, Math. Comp.
/// 51 (1988), on the Lagrange basis, which stays well conditioned where a Vandermonde solve is not).
Eigen::MatrixXd differentiation_weights(const Eigen::VectorXd& x, double z, int max_order) {
  const Eigen::Index n = x.size() - 1;
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(n + 1, max_order + 1);  // column d: d-th derivative
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
  return c.rightCols(max_order);
}

}  // namespace

EmulatedSystem::EmulatedSystem(std::unique_ptr<System> inner, CapabilitySet emulate, EmulationOptions options)
    : System(inner->name()), inner_(std::move(inner)), emulate_(emulate.only(kEmulable)) {
  if (options.substeps < 1) {
    throw Error(fmt::format("system '{}': emulation_substeps = {} must be at least 1", name(), options.substeps));
  }
  substeps_ = inner_->has(Capability::variable_step) ? options.substeps : 1;
  for (int o = 0; o < inner_->output_count() && !feedthrough_; ++o) {
    for (int i = 0; i < inner_->input_count() && !feedthrough_; ++i) feedthrough_ = inner_->output_depends_on_input(o, i);
  }
  const Eigen::Index inputs = inner_->input_count(), outputs = inner_->output_count();
  polynomials_.setZero(inputs, kInputCoefficients);
  held_.setZero(inputs, kInputCoefficients);
  shifted_.setZero(inputs, kInputCoefficients);
  const int max_order = std::min(substeps_, kMaxInputDegree);
  samples_.setZero(outputs, substeps_ + 1);
  derivatives_.setZero(outputs, max_order);
  weights_ = differentiation_weights(Eigen::VectorXd::LinSpaced(substeps_ + 1, 0.0, substeps_), substeps_, max_order);
}

int EmulatedSystem::provided_output_derivative_order() const {
  return emulates(Capability::output_derivatives) ? static_cast<int>(derivatives_.cols())
                                                   : inner_->max_output_derivative_order();
}

void EmulatedSystem::initialize(double t_start) {
  inner_->initialize(t_start);
  derivatives_.setZero();
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
  if (emulates(Capability::interpolate_inputs)) hold_inputs_at(0.0);
  else inner_->set_inputs(polynomials_);
}

StepResult EmulatedSystem::integrate(double h) {
  const bool interpolate = emulates(Capability::interpolate_inputs);
  const bool differentiate = emulates(Capability::output_derivatives);
  if (differentiate) inner_->outputs(samples_.col(0));
  double done = 0.0;
  for (int k = 0; k < substeps_; ++k) {
    const double end = k + 1 == substeps_ ? h : h * (k + 1) / substeps_;
    if (interpolate) {  // the mean of p over [done, end]:  Σ_k a_k (end^{k+1} − done^{k+1}) / ((k+1)(end − done))
      for (Eigen::Index row = 0; row < polynomials_.rows(); ++row) {
        double mean = 0.0, end_power = end, done_power = done;
        for (int c = 0; c <= kMaxInputDegree; ++c, end_power *= end, done_power *= done) {
          mean += polynomials_(row, c) * (end_power - done_power) / (c + 1);
        }
        held_(row, 0) = mean / (end - done);
      }
      inner_->set_inputs(held_);
    } else if (k > 0) {
      shift_polynomials(polynomials_, done, shifted_);
      inner_->set_inputs(shifted_);
    }
    StepResult result = inner_->do_step(end - done);
    if (!result.ok()) {
      if (k + 1 < substeps_) result.step_completed = false;  // the macro-step did not reach its end
      return result;
    }
    done = end;
    if (interpolate && (k + 1 == substeps_ || (differentiate && feedthrough_))) hold_inputs_at(done);
    if (differentiate) inner_->outputs(samples_.col(k + 1));
  }
  if (differentiate) {
    const double delta = h / substeps_;
    double scale = 1.0;
    for (Eigen::Index d = 0; d < derivatives_.cols(); ++d) {
      scale /= delta;
      derivatives_.col(d).noalias() = samples_ * weights_.col(d);
      derivatives_.col(d) *= scale;
    }
  }
  return StepResult::success();
}

StepResult EmulatedSystem::handle_pending_events() {
  if (emulates(Capability::output_derivatives) && inner_->event_pending()) derivatives_.setZero();
  return inner_->handle_pending_events();
}

void EmulatedSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  if (emulates(Capability::output_derivatives)) dy = derivatives_.col(order - 1);
  else inner_->output_derivatives(order, dy);
}

StateId EmulatedSystem::do_save_state(StateId overwrite) {
  StateId id = overwrite;
  if (overwrite < 0) id = inner_->save_state();
  else inner_->save_state(overwrite);
  saved_derivatives_[id] = derivatives_;  // same size after the first save: no allocation
  return id;
}

void EmulatedSystem::do_restore_state(StateId id) {
  inner_->restore_state(id);
  const auto it = saved_derivatives_.find(id);
  if (it != saved_derivatives_.end()) derivatives_ = it->second;
}

void EmulatedSystem::do_release_state(StateId id) {
  inner_->release_state(id);
  saved_derivatives_.erase(id);
}

std::unique_ptr<System> emulate_missing(std::unique_ptr<System> system, CapabilitySet wanted, EmulationOptions options) {
  CapabilitySet missing = wanted.without(system->capabilities()).only(kEmulable);
  if (missing.empty()) return system;
  // The system's own output derivatives are taken with the input it is given — held over each
  // sub-step when its interpolated inputs are emulated — and so miss the inputs' variation (y' = Cx'
  // + Du' without Du'). The derivatives of the sub-step samples carry it: emulate both together.
  if (missing.has(Capability::interpolate_inputs) && wanted.has(Capability::output_derivatives)) {
    missing.add(Capability::output_derivatives);
  }
  return std::make_unique<EmulatedSystem>(std::move(system), missing, options);
}

}  // namespace cosima
