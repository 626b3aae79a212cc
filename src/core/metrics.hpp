#pragma once
// Error metrics against a reference (DESIGN §4):
//   nl2      normalized L2 error  ‖y − y_ref‖_L2 / ‖y_ref‖_L2 over time (seed 001), trapezoidal rule
//            on the result's time points;
//   rel_pct  mean relative error in %, 100/N Σ |(y_ref − y)/y_ref| over the saved points (seed 002
//            eq. 14, seed 003); points where |y_ref| ≤ 1e-12·max|y_ref| are left out;
//   max_abs  max |y − y_ref|.
// The reference is linearly interpolated at the result's times.
#include <span>
#include <vector>

namespace cosima {

struct ErrorMetrics {
  double nl2 = 0.0;
  double rel_pct = 0.0;
  double max_abs = 0.0;
};

/// Linear interpolation of (times, values) at t, clamped to the ends.
double interpolate(std::span<const double> times, std::span<const double> values, double t);

ErrorMetrics compare_signals(std::span<const double> times, std::span<const double> values,
                             std::span<const double> ref_times, std::span<const double> ref_values);

/// Slope of the least-squares line through (log step, log error): the observed order.
double observed_order(std::span<const double> steps, std::span<const double> errors);

}  // namespace cosima
