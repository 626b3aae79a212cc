#include "methods/step_size_controller.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::methods {

PiController::PiController(Options options) : options_(options) {
  if (!(options_.tol > 0.0)) throw Error(fmt::format("the defect tolerance must be positive, not {}", options_.tol));
  if (!(options_.theta_max > 1.0)) throw Error(fmt::format("θ_max must exceed 1, not {}", options_.theta_max));
  if (options_.h_max > 0.0 && options_.h_min > options_.h_max) {
    throw Error(fmt::format("h_min {} exceeds h_max {}", options_.h_min, options_.h_max));
  }
}

void PiController::reset(double h_first) { integral_ = std::log(h_first); }

double PiController::next(double h, double error) {
  // a zero defect (exact reconstruction) would give e = +∞: the θ_max limit takes over
  const double e = std::log(options_.tol) - std::log(std::max(error, std::numeric_limits<double>::min()));
  integral_ += options_.ki * e;
  const double log_unlimited = integral_ + options_.kp * e;
  double log_h = std::min(log_unlimited, std::log(options_.theta_max * h));
  if (options_.h_max > 0.0) log_h = std::min(log_h, std::log(options_.h_max));
  if (options_.h_min > 0.0) log_h = std::max(log_h, std::log(options_.h_min));
  integral_ += log_h - log_unlimited;  // anti-windup
  return std::exp(log_h);
}

}  // namespace cosima::methods
