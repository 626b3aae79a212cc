#pragma once
// Helpers shared by the test suites.
#include <cmath>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace cosima::testing {

/// The message of the cosima::Error an action throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// A method's total of a run (RunStatistics::method_totals) by name; a test failure when it has none.
template <typename Statistics>
double method_total(const Statistics& stats, const std::string& name) {
  for (const auto& [key, value] : stats.method_totals) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no method total " << name;
  return std::nan("");
}

}  // namespace cosima::testing
