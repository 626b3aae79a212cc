#include "system/native/euler.hpp"

#include <fmt/format.h>

namespace cosima {

StepResult ForwardEuler::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  if (x.size() == 0) return advance_without_states(rhs, t0, t1, x);
  stop_ = {t1};
  dx_.resize(x.size());
  const double h = (t1 - t0) / steps_;
  const bool events = rhs.indicator_count() > 0 || rhs.wants_step_reports();
  if (events) begin_events(rhs, t0, x);
  for (int i = 0; i < steps_; ++i) {
    rhs(t0 + i * h, x, dx_);  // x_{k+1} = x_k + h f(t_k, x_k, u(t_k))
    if (events) {
      step_start_ = x;
      step_t_ = t0 + i * h;
    }
    x += h * dx_;
    ++rhs_evaluations_;
    if (events && end_of_step(rhs, t0 + i * h, i + 1 == steps_ ? t1 : t0 + (i + 1) * h, x)) break;
  }
  have_slope_ = steps_ > 0 && t1 > t0;
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
