#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.hpp"

namespace cosima {
namespace {

TEST(Metrics, InterpolatesLinearlyAndClamps) {
  const std::vector<double> t = {0.0, 1.0, 2.0}, v = {0.0, 10.0, 30.0};
  EXPECT_DOUBLE_EQ(interpolate(t, v, 0.5), 5.0);
  EXPECT_DOUBLE_EQ(interpolate(t, v, 1.5), 20.0);
  EXPECT_DOUBLE_EQ(interpolate(t, v, -1.0), 0.0);
  EXPECT_DOUBLE_EQ(interpolate(t, v, 3.0), 30.0);
}

TEST(Metrics, ScaledSignalHasKnownErrors) {
  // y = 1.01·y_ref: nl2 = 0.01, rel_pct = 1 %, max_abs = 0.01·max|y_ref|
  std::vector<double> t, ref, y;
  for (int i = 0; i <= 1000; ++i) {
    t.push_back(i * 0.01);
    ref.push_back(2.0 + std::sin(t.back()));
    y.push_back(1.01 * ref.back());
  }
  const ErrorMetrics m = compare_signals(t, y, t, ref);
  EXPECT_NEAR(m.nl2, 0.01, 1e-12);
  EXPECT_NEAR(m.rel_pct, 1.0, 1e-10);
  double ref_max = 0;
  for (double r : ref) ref_max = std::max(ref_max, std::abs(r));
  EXPECT_NEAR(m.max_abs, 0.01 * ref_max, 1e-12);
}

TEST(Metrics, RelativeErrorSkipsExactZerosOfTheReference) {
  const std::vector<double> t = {0, 1, 2}, ref = {0.0, 1.0, 2.0}, y = {0.5, 1.1, 2.2};
  EXPECT_NEAR(compare_signals(t, y, t, ref).rel_pct, 10.0, 1e-12);
}

TEST(Metrics, ObservedOrderIsTheLogLogSlope) {
  const std::vector<double> h = {1e-3, 5e-4, 2.5e-4};
  std::vector<double> e;
  e.reserve(h.size());
  for (double step : h) e.push_back(3.0 * step * step);
  EXPECT_NEAR(observed_order(h, e), 2.0, 1e-12);
}

}  // namespace
}  // namespace cosima
