#include "system/native/native_system.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/slots.hpp"
#include "core/small_matrix.hpp"

namespace cosima {

NativeSystem::NativeSystem(std::string name, std::unique_ptr<OdeModel> model, std::unique_ptr<Integrator> integrator)
    : System(std::move(name)), model_(std::move(model)), integrator_(std::move(integrator)) {
  inputs_.setZero(model_->input_count(), kInputCoefficients);
  // until the master sets them, the inputs are their declared start values (an FMU's own)
  for (int i = 0; i < model_->input_count(); ++i) inputs_(i, 0) = model_->input_info(i).start.value_or(0.0);
  u_.setZero(model_->input_count());
  du_.setZero(model_->input_count());
  dx_.setZero(model_->state_count());
  y_now_.setZero(model_->output_count());
  y_plus_.setZero(model_->output_count());
  y_plus2_.setZero(model_->output_count());
}

void NativeSystem::set_parameter(const std::string& name, double value) {
  ++state_version_;
  model_->set_parameter(name, value);
}

CapabilitySet NativeSystem::provided_capabilities() const {
  CapabilitySet all = CapabilitySet::all();
  if (!model_->can_restore_discrete_state()) all.remove(Capability::rollback);
  return all;
}

void NativeSystem::enter_initialization(double t_start) {
  ++state_version_;
  t_ = t_start;
  input_origin_ = t_start;
  event_pending_ = false;
  model_->enter_initialization(t_start);
  initializing_ = true;
}

void NativeSystem::exit_initialization() {
  ++state_version_;
  x_ = model_->start(t_, current_inputs());
  initializing_ = false;
  if (x_.size() != model_->state_count()) {
    throw Error(fmt::format("system '{}': model '{}' returned {} initial states, declares {}", name(), model_->type(),
                            x_.size(), model_->state_count()));
  }
  integrator_->reset();
}

const Eigen::VectorXd& NativeSystem::evaluate_inputs(double offset) const {
  evaluate_polynomials(inputs_, offset, 0, u_);
  u_offset_bits_ = std::bit_cast<std::uint64_t>(offset);
  u_version_ = inputs_version_;
  return u_;
}

void NativeSystem::set_state(double t, ConstVectorView x) {
  ++state_version_;
  t_ = t;
  x_ = x;
  integrator_->reset();
}

void NativeSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  if (initializing_) return model_->initialization_outputs(t_, current_inputs(), y);
  model_->outputs(t_, x_, current_inputs(), y);
}

void NativeSystem::apply_inputs(const InputPolynomials& polynomials) {
  // inputs that go on as they were are no discontinuity: a multistep integrator (CVODE) keeps its
  // history across the communication point instead of restarting at order 1
  ++state_version_;
  const Continuation going_on = inputs_continue(polynomials);
  inputs_ = polynomials;
  ++inputs_version_;
  input_origin_ = t_;
  if (going_on == Continuation::c1) integrator_->inputs_continued();
  if (going_on == Continuation::none) integrator_->inputs_changed();
}

NativeSystem::Continuation NativeSystem::inputs_continue(const InputPolynomials& next) const {
  if (next.rows() == 0) return Continuation::same;
  if (next.rows() != inputs_.rows() || next.cols() != inputs_.cols()) return Continuation::none;
  if (t_ == input_origin_) return next == inputs_ ? Continuation::same : Continuation::none;
  // held constants (the explicit schemes' ZOH) are the same function of time when their values are
  const auto constant = [](const InputPolynomials& p) { return p.rightCols(p.cols() - 1).isZero(0.0); };
  if (constant(next) && constant(inputs_)) {
    return next.col(0) == inputs_.col(0) ? Continuation::same : Continuation::none;
  }
  // C¹ interfaces (IFOSMONDI, MISSILES): the new polynomials start with the value and slope the last
  // ones end with, so the right-hand side goes on continuously and so does the integrator's history
  // (a restart at every communication point costs a multistep method its order: N restarts × rtol)
  const double d = t_ - input_origin_;
  for (Eigen::Index j = 0; j < next.rows(); ++j) {
    double value = 0.0, slope = 0.0, size = 0.0, slope_size = 0.0, power = 1.0;  // Σ c_k d^k, Σ k c_k d^(k-1)
    for (Eigen::Index k = 0; k < inputs_.cols(); ++k, power *= d) {
      value += inputs_(j, k) * power;
      size += std::abs(inputs_(j, k) * power);
      if (k + 1 < inputs_.cols()) {
        slope += static_cast<double>(k + 1) * inputs_(j, k + 1) * power;
        slope_size += std::abs(static_cast<double>(k + 1) * inputs_(j, k + 1) * power);
      }
    }
    // the polynomial's value and slope at the step's end, as the method evaluated them: a cubic Hermite
    // interpolant's coefficients carry the values' rounding divided by powers of d (3(v2 − v1)/d² …),
    // so its slope is known to about eps·|v|/d
    constexpr double kRounding = 1e-12;
    if (std::abs(next(j, 0) - value) > kRounding * size ||
        std::abs(next(j, 1) - slope) > kRounding * (slope_size + std::abs(value) / d)) {
      return Continuation::none;
    }
  }
  return Continuation::c1;
}

StepResult NativeSystem::integrate(double h) {
  ++state_version_;
  if (step_cost_ > 0.0) {  // busy, not asleep: the cost must occupy a core like real work
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(step_cost_);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  const double t_step = t_, t_end = t_ + h;
  const StepRhs rhs(*model_, inputs_, input_origin_, rhs_inputs_);
  int events_in_step = 0;
  // a time event this close to the step's end is at its end (the master landed the grid on it)
  const double at_end_tolerance = 1e-12 * std::max(1.0, std::abs(t_end));
  try {
    if (event_pending_) {  // left for the master at the last communication point, not handled by it
      event_pending_ = false;
      EventCause cause;
      cause.time_event = true;
      if (StepResult r = handle_event(cause, events_in_step, t_step, t_end); !r.ok()) return r;
    }
    if (model_->discrete_inputs_changed(current_inputs())) {  // set in event mode (FMI 2.0 §3.2.3)
      EventCause cause;
      cause.input_event = true;
      if (StepResult r = handle_event(cause, events_in_step, t_step, t_end); !r.ok()) return r;
    }
    while (t_ < t_end) {
      const double time_event = model_->next_time_event(t_);
      if (time_event <= t_) {  // due already (a restart at the event's time)
        EventCause cause;
        cause.time_event = true;
        if (StepResult r = handle_event(cause, events_in_step, t_step, t_end); !r.ok()) return r;
        continue;
      }
      const bool event_at_end = std::abs(time_event - t_end) <= at_end_tolerance;
      StepResult result = integrator_->advance(rhs, t_, event_at_end ? t_end : std::min(t_end, time_event), x_);
      if (!result.ok()) {
        result.reason = fmt::format("system '{}': {}", name(), result.reason);
        return result;
      }
      const IntegratorStop& stop = integrator_->stop();
      t_ = stop.t;
      if (stop.terminate) {
        StepResult r{StepResult::Status::terminated,
                     fmt::format("system '{}' asked to terminate at t = {} (after an integrator step)", name(), t_)};
        r.step_completed = t_ >= t_end;
        return r;
      }
      EventCause cause;
      cause.time_event = t_ >= time_event || (event_at_end && t_ >= t_end);
      cause.state_event = stop.state_event;
      cause.step_event = stop.step_event;
      if (cause.time_event && event_at_end && t_ >= t_end && !cause.state_event && !cause.step_event) {
        event_pending_ = true;  // the outputs at t_end stay the left limits (System call order, 5.)
        break;
      }
      if (cause.time_event || cause.state_event || cause.step_event) {
        if (StepResult r = handle_event(cause, events_in_step, t_step, t_end); !r.ok()) return r;
      }
    }
  } catch (const Error& e) {
    return StepResult::failure(fmt::format("system '{}' in the step [{}, {}] (last evaluation at t = {}): {}", name(),
                                           t_step, t_end, rhs.last_time(), e.what()));
  }
  return StepResult::success();
}

StepResult NativeSystem::handle_pending_events() {
  ++state_version_;
  EventCause cause;
  if (event_pending_) {
    cause.time_event = true;
  } else if (model_->discrete_inputs_changed(current_inputs())) {  // discrete inputs set at a discontinuity
    cause.input_event = true;
  } else {
    return StepResult::success();
  }
  event_pending_ = false;
  int events = 0;
  try {
    return handle_event(cause, events, t_, t_);
  } catch (const Error& e) {
    return StepResult::failure(fmt::format("system '{}' at the event at t = {}: {}", name(), t_, e.what()));
  }
}

StepResult NativeSystem::handle_event(const EventCause& cause, int& events_in_step, double t_step, double t_end) {
  if (++events_in_step > max_events_per_step_) {
    return StepResult::failure(
        fmt::format("system '{}': more than {} events in the step [{}, {}], the last at t = {} "
                    "(chattering; raise integrator_options.max_events_per_step if intended)",
                    name(), max_events_per_step_, t_step, t_end, t_));
  }
  ++events_;
  const EventOutcome outcome = model_->handle_event(t_, x_, current_inputs(), cause);
  // A restart after a discontinuity: x jumped, or a time, state or input event changed the
  // dynamics. A step event that changed no state continues the integrator's history.
  if (outcome.states_changed || cause.time_event || cause.state_event || cause.input_event) integrator_->reset();
  for (Eigen::Index i = 0; i < x_.size(); ++i) {
    if (!std::isfinite(x_(i))) {
      return StepResult::failure(fmt::format("system '{}': state '{}' is {} after the event at t = {}", name(),
                                             model_->structure().states[static_cast<std::size_t>(i)], x_(i), t_));
    }
  }
  if (outcome.terminate) {
    StepResult r{StepResult::Status::terminated,
                 fmt::format("system '{}' asked to terminate at t = {} (terminateSimulation)", name(), t_)};
    r.step_completed = t_ >= t_end;
    return r;
  }
  return StepResult::success();
}

int NativeSystem::provided_output_derivative_order() const {
  return model_->structure().linear_time_invariant ? kMaxInputDegree : 1;
}

void NativeSystem::update_jacobians() const {
  const Eigen::VectorXd& u = current_inputs();
  if (!model_->jacobians(t_, x_, u, jacobians_)) finite_difference_jacobians(*model_, t_, x_, u, jacobians_);
}

void NativeSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  if (slopes_version_ == state_version_ && slopes_order_ == order) {
    dy = slopes_;
    return;
  }
  output_derivatives_afresh(order, dy);
  slopes_ = dy;
  slopes_order_ = order;
  slopes_version_ = state_version_;
}

void NativeSystem::output_derivatives_afresh(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  update_jacobians();
  const double s = t_ - input_origin_;
  if (order == 1) {
    // y' = g_x f + g_u u' + g_t. x' is f(x), or the slope of a piecewise-linear numerical solution
    // (forward Euler reports its own, seed 004 eq. 46–47).
    const Eigen::VectorXd& u = current_inputs();
    if (!integrator_->last_slope(dx_)) model_->derivatives(t_, x_, u, dx_);
    evaluate_polynomials(inputs_, s, 1, du_);
    multiply(dy, jacobians_.C, dx_);  // (plain sums, no temporaries: core/small_matrix.hpp)
    multiply_add(dy, jacobians_.D, du_, 1.0);
    if (model_->outputs_depend_on_time()) add_output_time_slope(dy);
    return;
  }
  evaluate_polynomials(inputs_, s, order, du_);
  if (integrator_->last_slope(dx_)) {  // piecewise-linear solution: x^(k) = 0 for k ≥ 2
    multiply(dy, jacobians_.D, du_);
    return;
  }
  // LTI: x^(k) = A x^(k−1) + B u^(k−1),  y^(k) = C x^(k) + D u^(k)
  Eigen::VectorXd xk = x_;
  for (int k = 1; k <= order; ++k) {
    evaluate_polynomials(inputs_, s, k - 1, du_);
    Eigen::VectorXd next = jacobians_.A * xk + jacobians_.B * du_;
    if (k == 1) {
      const Eigen::VectorXd zero_x = Eigen::VectorXd::Zero(x_.size());
      const Eigen::VectorXd zero_u = Eigen::VectorXd::Zero(u_.size());
      model_->derivatives(t_, zero_x, zero_u, dx_);  // the constant term e
      next += dx_;
    }
    xk = std::move(next);
  }
  evaluate_polynomials(inputs_, s, order, du_);
  dy = jacobians_.C * xk + jacobians_.D * du_;
}

void NativeSystem::add_output_time_slope(Eigen::Ref<Eigen::VectorXd> dy) const {
  // Outputs are right-continuous in t (a switch at t_s is in effect at t_s, like y(t) itself), so
  // g_t is the second-order forward difference
  //   g_t ≈ (−3 g(t) + 4 g(t + δ) − g(t + 2δ)) / (2δ);
  // a central difference would straddle a switch at t and return a spike. A switch within 2δ
  // ahead (one the model does not announce) would too: there the second difference is not small
  // against the first, and the output is taken to have no explicit slope (a jump has none).
  // δ on the time scale of 1 s, not of |t|: the window in which a switch ahead spoils the
  // difference stays 6e-6 s late in a run (it was 6e-4 s at t = 100); 1e3·ε·|t| keeps t + δ ≠ t
  const Eigen::VectorXd& u = current_inputs();
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  const double dt = std::max(std::cbrt(kEpsilon), 1e3 * kEpsilon * std::abs(t_));
  model_->outputs(t_ + dt, x_, u, y_plus_);
  model_->outputs(t_ + 2.0 * dt, x_, u, y_plus2_);
  model_->outputs(t_, x_, u, y_now_);
  for (Eigen::Index k = 0; k < dy.size(); ++k) {
    const double first = y_plus_(k) - y_now_(k), second = y_plus2_(k) - 2.0 * y_plus_(k) + y_now_(k);
    const double round_off =
        64.0 * kEpsilon * std::max({std::abs(y_now_(k)), std::abs(y_plus_(k)), std::abs(y_plus2_(k))});
    if (std::abs(second) > 0.5 * std::abs(first) + round_off) continue;  // a switch ahead
    dy(k) += (4.0 * y_plus_(k) - y_plus2_(k) - 3.0 * y_now_(k)) / (2.0 * dt);
  }
}

StateId NativeSystem::do_save_state(StateId overwrite) {
  ++state_version_;  // the integrator restarts (below): a piecewise-linear slope is forgotten
  const StateId id = acquire_slot(snapshots_, overwrite);
  if (id < 0) throw Error(fmt::format("system '{}': no saved state {}", name(), overwrite));
  Snapshot& snapshot = snapshots_[static_cast<std::size_t>(id)];
  snapshot.t = t_;
  snapshot.x = x_;
  snapshot.inputs = inputs_;
  snapshot.input_origin = input_origin_;
  snapshot.integrator_memory = integrator_->step_memory();
  if (model_->has_discrete_state()) snapshot.discrete_slot = model_->save_discrete_state(snapshot.discrete_slot);
  snapshot.event_pending = event_pending_;
  snapshot.in_use = true;
  // a restore restarts the integrator (no history survives it): so does the step after a save, so
  // that a repeated step is bitwise the step it repeats
  integrator_->reset();
  return id;
}

void NativeSystem::do_restore_state(StateId id) {
  ++state_version_;
  if (id < 0 || id >= static_cast<StateId>(snapshots_.size()) || !snapshots_[static_cast<std::size_t>(id)].in_use) {
    throw Error(fmt::format("system '{}': no saved state {}", name(), id));
  }
  const Snapshot& snapshot = snapshots_[static_cast<std::size_t>(id)];
  t_ = snapshot.t;
  x_ = snapshot.x;
  inputs_ = snapshot.inputs;
  ++inputs_version_;
  input_origin_ = snapshot.input_origin;
  if (snapshot.discrete_slot >= 0) model_->restore_discrete_state(snapshot.discrete_slot);
  event_pending_ = snapshot.event_pending;
  integrator_->reset();
  integrator_->restore_step_memory(snapshot.integrator_memory);
}

void NativeSystem::do_release_state(StateId id) {
  if (id < 0 || id >= static_cast<StateId>(snapshots_.size())) return;
  Snapshot& snapshot = snapshots_[static_cast<std::size_t>(id)];
  if (snapshot.discrete_slot >= 0) model_->release_discrete_state(snapshot.discrete_slot);
  snapshot.discrete_slot = -1;
  snapshot.in_use = false;
}

void NativeSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  model_->derivatives(t_, x_, current_inputs(), dx);
}

const Linearization& NativeSystem::compute_linearization() {
  update_jacobians();
  return jacobians_;
}

}  // namespace cosima
