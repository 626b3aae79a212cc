#include "system/native/euler.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

ForwardEuler::ForwardEuler(const IntegratorOptions& options)
    : steps_(options.steps_per_call), calls_per_step_(options.calls_per_step) {
  if (steps_ < 1 || calls_per_step_ < 1) {
    throw Error(
        fmt::format("euler: steps_per_call = {} and calls_per_step = {} must be at least 1", steps_, calls_per_step_));
  }
  if (steps_ > 1 && calls_per_step_ > 1) {
    throw Error(
        fmt::format("euler: steps_per_call = {} and calls_per_step = {} exclude each other (several steps per "
                    "call, or one step over several calls)",
                    steps_, calls_per_step_));
  }
}

StepResult ForwardEuler::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  if (x.size() == 0) return advance_without_states(rhs, t0, t1, x);
  stop_ = {t1};
  dx_.resize(x.size());
  const double h = (t1 - t0) / steps_;
  const bool events = rhs.indicator_count() > 0 || rhs.wants_step_reports();
  if (events) begin_events(rhs, t0, x);
  // a step spanning several calls goes on with the slope of its first call (seed 004 eq. 45)
  const bool held = calls_in_step_ > 0 && have_slope_;
  bool stopped = false;
  for (int i = 0; i < steps_; ++i) {
    if (i > 0 || !held) {
      rhs(t0 + i * h, x, dx_);  // x_{k+1} = x_k + h f(t_k, x_k, u(t_k))
      ++rhs_evaluations_;
    }
    if (events) {
      step_start_ = x;
      step_t_ = t0 + i * h;
    }
    x += h * dx_;
    if (events && end_of_step(rhs, t0 + i * h, i + 1 == steps_ ? t1 : t0 + (i + 1) * h, x)) {
      stopped = true;
      break;
    }
  }
  have_slope_ = steps_ > 0 && t1 > t0;
  // an event ends a step spanning several calls: the next call starts a new one
  calls_in_step_ = stopped ? 0 : (calls_in_step_ + 1) % calls_per_step_;
  if (!x.allFinite()) return StepResult::failure(fmt::format("euler: non-finite state at t = {}", t1));
  return StepResult::success();
}

void ForwardEuler::interpolate(double t, Eigen::VectorXd& x) const {
  x = step_start_ + (t - step_t_) * dx_;  // the Euler solution is linear inside its step
}

bool ForwardEuler::last_slope(Eigen::VectorXd& slope) const {
  if (!have_slope_) return false;
  slope = dx_;
  return true;
}

}  // namespace cosima
