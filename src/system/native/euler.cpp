#include "system/native/euler.hpp"

#include <fmt/format.h>

namespace cosima {

StepResult ForwardEuler::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  dx_.resize(x.size());
  const double h = (t1 - t0) / steps_;
  for (int i = 0; i < steps_; ++i) {
    rhs(t0 + i * h, x, dx_);  // x_{k+1} = x_k + h f(t_k, x_k, u(t_k))
    x += h * dx_;
  }
  rhs_evaluations_ += steps_;
  have_slope_ = steps_ > 0 && t1 > t0;
  if (!x.allFinite()) return StepResult::failure(fmt::format("euler: non-finite state at t = {}", t1));
  return StepResult::success();
}

bool ForwardEuler::last_slope(Eigen::VectorXd& slope) const {
  if (!have_slope_) return false;
  slope = dx_;
  return true;
}

}  // namespace cosima
