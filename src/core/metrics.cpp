#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace cosima {

double interpolate(std::span<const double> times, std::span<const double> values, double t) {
  if (times.empty()) throw Error("interpolate: empty series");
  if (t <= times.front()) return values.front();
  if (t >= times.back()) return values.back();
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  const auto i = static_cast<std::size_t>(it - times.begin());
  const double t0 = times[i - 1], t1 = times[i];
  if (t1 == t0) return values[i];
  const double w = (t - t0) / (t1 - t0);
  return (1.0 - w) * values[i - 1] + w * values[i];
}

ErrorMetrics compare_signals(std::span<const double> times, std::span<const double> values,
                             std::span<const double> ref_times, std::span<const double> ref_values) {
  if (times.size() != values.size() || ref_times.size() != ref_values.size() || times.empty()) {
    throw Error("compare: series of different lengths or empty");
  }
  std::vector<double> ref(times.size());
  double ref_max = 0.0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    ref[i] = interpolate(ref_times, ref_values, times[i]);
    ref_max = std::max(ref_max, std::abs(ref[i]));
  }
  ErrorMetrics m;
  double err2 = 0.0, ref2 = 0.0, rel_sum = 0.0;
  std::size_t rel_count = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double e = values[i] - ref[i];
    m.max_abs = std::max(m.max_abs, std::abs(e));
    if (std::abs(ref[i]) > 1e-12 * ref_max) {
      rel_sum += std::abs(e / ref[i]);
      ++rel_count;
    }
    if (i > 0) {
      const double dt = times[i] - times[i - 1];
      const double e0 = values[i - 1] - ref[i - 1];
      err2 += 0.5 * dt * (e0 * e0 + e * e);
      ref2 += 0.5 * dt * (ref[i - 1] * ref[i - 1] + ref[i] * ref[i]);
    }
  }
  if (times.size() == 1) {
    err2 = (values[0] - ref[0]) * (values[0] - ref[0]);
    ref2 = ref[0] * ref[0];
  }
  m.nl2 = ref2 > 0.0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  m.rel_pct = rel_count > 0 ? 100.0 * rel_sum / static_cast<double>(rel_count) : 0.0;
  return m;
}

double observed_order(std::span<const double> steps, std::span<const double> errors) {
  if (steps.size() != errors.size() || steps.size() < 2) throw Error("observed_order: need two or more points");
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const auto n = static_cast<double>(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double x = std::log(steps[i]), y = std::log(errors[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace cosima
