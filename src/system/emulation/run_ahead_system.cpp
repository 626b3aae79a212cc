#include "system/emulation/run_ahead_system.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hermite.hpp"

namespace cosima {

RunAheadSystem::RunAheadSystem(std::unique_ptr<System> inner) : SystemDecorator(std::move(inner)) {
  if (inner_->input_count() != 0) {
    throw Error(
        fmt::format("system '{}': rollback can be emulated by running ahead only for a system without inputs", name()));
  }
  derivative_order_ = inner_->has(Capability::output_derivatives) ? inner_->max_output_derivative_order() : 0;
}

CapabilitySet RunAheadSystem::provided_capabilities() const {
  CapabilitySet set = inner_->capabilities().add(Capability::rollback);
  return set.without(CapabilitySet().add(Capability::state_access).add(Capability::linearization));
}

int RunAheadSystem::provided_output_derivative_order() const { return std::min(derivative_order_, 3); }

void RunAheadSystem::watch_variables(const std::vector<std::string>& names) {
  inner_->watch_variables(names);
  watched_ = static_cast<int>(names.size());
}

void RunAheadSystem::enter_initialization(double t_start) {
  inner_->enter_initialization(t_start);
  time_ = t_start;
  count_ = 0;
}

void RunAheadSystem::exit_initialization() {
  inner_->exit_initialization();
  time_ = inner_->time();
  record_point();
}

StepResult RunAheadSystem::handle_pending_events() {
  StepResult result = inner_->handle_pending_events();
  if (result.ok() && at_end()) {  // the right limits replace the newest point
    --count_;
    record_point();
  }
  return result;
}

void RunAheadSystem::record_point() {
  if (count_ == static_cast<int>(points_.size())) {
    Point point;
    point.y.resize(inner_->output_count());
    point.dy.resize(derivative_order_ > 0 ? inner_->output_count() : 0);
    point.variables.resize(watched_);
    points_.push_back(std::move(point));
  }
  Point& point = points_[static_cast<std::size_t>(count_++)];
  point.t = inner_->time();
  inner_->outputs(point.y);
  if (derivative_order_ > 0) inner_->output_derivatives(1, point.dy);
  if (watched_ > 0) inner_->read_variables(point.variables);
}

namespace {

/// What tells two times apart near t: a few ulps, so that rounding is not taken for a step.
double resolution(double t) { return 64.0 * DBL_EPSILON * std::max(1.0, std::abs(t)); }

}  // namespace

bool RunAheadSystem::at_end() const {
  const double t_r = inner_->time();
  return time_ >= t_r - resolution(t_r);
}

StepResult RunAheadSystem::integrate(double h) {
  time_ += h;
  if (at_end()) {  // beyond the wrapped system's points: it steps there
    const double ahead = time_ - inner_->time();
    if (ahead > resolution(time_)) {
      StepResult result = inner_->do_step(ahead);
      time_ = inner_->time();  // where it got to, also when it failed or asked to stop early
      if (!result.ok()) return result;
      record_point();
    }
    time_ = inner_->time();
  }
  prune();
  return StepResult::success();
}

void RunAheadSystem::prune() {
  double oldest = time_;
  for (const auto& [id, t] : saved_) oldest = std::min(oldest, t);
  int drop = 0;  // the points before the stretch holding `oldest` stay out of reach
  while (drop + 1 < count_ && points_[static_cast<std::size_t>(drop) + 1].t <= oldest) ++drop;
  if (drop == 0) return;
  std::rotate(points_.begin(), points_.begin() + drop, points_.begin() + count_);
  count_ -= drop;
}

int RunAheadSystem::stretch() const {
  int i = 0;
  while (i + 2 < count_ && points_[static_cast<std::size_t>(i) + 1].t <= time_) ++i;
  return i;
}

void RunAheadSystem::interpolate(int order, Eigen::Ref<Eigen::VectorXd> out) const {
  const int i = stretch();
  const Point& a = points_[static_cast<std::size_t>(i)];
  const Point& b = points_[static_cast<std::size_t>(i) + 1];
  const double delta = b.t - a.t, s = (time_ - a.t) / delta;
  if (derivative_order_ == 0) {  // linear
    if (order == 0)
      out = a.y + s * (b.y - a.y);
    else if (order == 1)
      out = (b.y - a.y) / delta;
    else
      out.setZero();
    return;
  }
  const Eigen::Vector4d w = hermite_weights(delta, time_ - a.t, order);
  out = w(0) * a.y + w(1) * a.dy + w(2) * b.y + w(3) * b.dy;
}

void RunAheadSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  if (at_end() || count_ < 2)
    inner_->outputs(y);
  else
    interpolate(0, y);
}

void RunAheadSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  if (at_end() || count_ < 2)
    inner_->output_derivatives(order, dy);
  else
    interpolate(order, dy);
}

void RunAheadSystem::read_variables(Eigen::Ref<Eigen::VectorXd> out) const {
  if (at_end() || count_ < 2) {
    inner_->read_variables(out);
    return;
  }
  const int i = stretch();
  const Point& a = points_[static_cast<std::size_t>(i)];
  const Point& b = points_[static_cast<std::size_t>(i) + 1];
  out = a.variables + ((time_ - a.t) / (b.t - a.t)) * (b.variables - a.variables);
}

StateId RunAheadSystem::do_save_state(StateId overwrite) {
  const StateId id = overwrite >= 0 ? overwrite : next_id_++;
  saved_[id] = time_;  // an existing id: no allocation
  return id;
}

void RunAheadSystem::do_restore_state(StateId id) {
  const auto it = saved_.find(id);
  if (it == saved_.end()) throw Error(fmt::format("system '{}': no snapshot {}", name(), id));
  time_ = it->second;
}

void RunAheadSystem::do_release_state(StateId id) {
  saved_.erase(id);
  prune();
}

std::unique_ptr<System> run_ahead_if_wanted(std::unique_ptr<System> system, CapabilitySet wanted) {
  if (system->input_count() != 0 || !wanted.has(Capability::rollback) || system->has(Capability::rollback)) {
    return system;
  }
  return std::make_unique<RunAheadSystem>(std::move(system));
}

}  // namespace cosima
