#pragma once
// Two runs of a scenario that must agree bit for bit (executors, native vs FMU paths).
#include <string>

#include <gtest/gtest.h>

#include "scenario/run_scenario.hpp"

namespace cosima::testing {

/// Same time grid, every recorded value bitwise equal, same iteration and integration counts.
inline void expect_identical(const scenario::ScenarioRun& a, const scenario::ScenarioRun& b, const std::string& what) {
  ASSERT_EQ(a.results->times().size(), b.results->times().size()) << what;
  for (const auto& label : a.results->labels()) {
    const auto& x = a.results->column(label);
    const auto& y = b.results->column(label);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], y[i]) << what << ", " << label << " sample " << i;
  }
  EXPECT_EQ(a.stats.iterations, b.stats.iterations) << what;
  EXPECT_EQ(a.stats.integrations, b.stats.integrations) << what;
}

}  // namespace cosima::testing
