#pragma once
// Doubles that must be counts (steps, iterations, memory, ...): a cast of a double outside int's
// range is undefined behaviour, so every such conversion goes through here.
#include <cmath>
#include <optional>

namespace cosima {

/// The value as an int when it is a finite whole number in [min, max]; nullopt otherwise.
inline std::optional<int> whole_number(double value, int min, int max) {
  if (!std::isfinite(value) || value != std::round(value) || value < min || value > max) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace cosima
