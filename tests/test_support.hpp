#pragma once
// Helpers shared by the test suites.
#include <functional>
#include <string>

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

}  // namespace cosima::testing
