#include "methods/error_control.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::methods {

void ErrorControl::configure(const ErrorControlOptions& options, double order, double h_first) {
  options_ = options;
  order_ = order;
  at_floor_ = false;
  over_tolerance_ = 0;
  next_ = h_first;
  if (!enabled()) return;
  if (std::isnan(options_.atol)) throw Error("method.tolerance_atol is NaN");
  if (options_.h_min <= 0.0) options_.h_min = h_first * 1e-6;
  // Gustafsson's PI gains for an error of order k, aiming at e = safety (eq. 39 with tol = safety)
  controller_ = PiController({.tol = options_.safety,
                              .kp = 0.4 / order,
                              .ki = 0.3 / order,
                              .theta_max = options_.theta_max,
                              .h_min = options_.h_min,
                              .h_max = options_.h_max});
  controller_.reset(h_first);
}

bool ErrorControl::rejects(double h, double error, bool can_redo) {
  if (!(error > 1.0) || !can_redo || h <= options_.h_min * (1.0 + 1e-12)) return false;
  const double shrink = std::clamp(options_.safety * std::pow(error, -1.0 / order_), options_.theta_min, 0.9);
  next_ = std::max(h * shrink, options_.h_min);
  controller_.reset(next_);
  return true;
}

void ErrorControl::accept(double h, double error) {
  at_floor_ = false;
  if (std::isnan(error)) {  // nothing estimated on this step (no connection with a scale yet)
    next_ = h;
    return;
  }
  if (error > 1.0) {
    ++over_tolerance_;
    at_floor_ = h <= options_.h_min * (1.0 + 1e-12);
  }
  next_ = controller_.next(h, error);
}

}  // namespace cosima::methods
