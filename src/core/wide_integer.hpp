#pragma once
// A 64-bit integer held exactly (FMI 3.0 Int64 and UInt64, FMI 3.0 §2.4.7.4). Every numeric value
// crosses the master as a double, which holds an integer exactly only up to 2^53; a WideInteger
// travels beside that double where the double would lose bits: in scenario values, at
// communication points between 64-bit ports (System::wide_value / set_wide_input) and into the
// results.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cosima {

class WideInteger {
 public:
  WideInteger() = default;
  static WideInteger of(std::int64_t value) { return {static_cast<std::uint64_t>(value), false}; }
  static WideInteger of(std::uint64_t value) { return {value, true}; }
  /// The whole number a decimal text ("-5", "18446744073709551615") names, or nullopt when the text
  /// is no integer or lies outside [INT64_MIN, UINT64_MAX].
  static std::optional<WideInteger> parse(std::string_view text) {
    std::uint64_t magnitude = 0;
    const bool negative = !text.empty() && text.front() == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || digits.front() == '-' || digits.front() == '+') return std::nullopt;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    if (!negative) return of(magnitude);
    if (magnitude > kInt64Magnitude) return std::nullopt;
    return WideInteger{0 - magnitude, false};  // two's complement of the magnitude
  }
  /// The integer a double holds, when it is whole and within [INT64_MIN, UINT64_MAX].
  static std::optional<WideInteger> of_double(double value) {
    if (!(value >= -9223372036854775808.0 && value < 18446744073709551616.0) || value != std::trunc(value))
      return std::nullopt;
    if (value < 0.0) return of(static_cast<std::int64_t>(value));
    return of(static_cast<std::uint64_t>(value));
  }

  [[nodiscard]] bool negative() const { return !unsigned_ && static_cast<std::int64_t>(bits_) < 0; }
  /// The value as an Int64 / UInt64, when it fits that type.
  [[nodiscard]] std::optional<std::int64_t> as_int64() const {
    if (unsigned_ && bits_ > kInt64Magnitude - 1) return std::nullopt;
    return static_cast<std::int64_t>(bits_);
  }
  [[nodiscard]] std::optional<std::uint64_t> as_uint64() const {
    if (negative()) return std::nullopt;
    return bits_;
  }
  /// The nearest double (what the numeric vectors carry).
  [[nodiscard]] double to_double() const {
    return unsigned_ ? static_cast<double>(bits_) : static_cast<double>(static_cast<std::int64_t>(bits_));
  }
  /// Whether to_double() is the value itself.
  [[nodiscard]] bool exact_in_double() const {
    const std::uint64_t magnitude = negative() ? 0 - bits_ : bits_;
    if (magnitude == 0) return true;
    std::uint64_t odd = magnitude;
    while ((odd & 1U) == 0) odd >>= 1U;
    return odd < (std::uint64_t{1} << 53U);
  }
  [[nodiscard]] std::string text() const {
    return negative() ? std::to_string(static_cast<std::int64_t>(bits_)) : std::to_string(bits_);
  }
  /// Equal values (an Int64 5 equals a UInt64 5).
  friend bool operator==(const WideInteger& a, const WideInteger& b) {
    return a.bits_ == b.bits_ && a.negative() == b.negative();
  }
  /// The raw bits and whether they read unsigned: what the wire carries.
  [[nodiscard]] std::uint64_t bits() const { return bits_; }
  [[nodiscard]] bool is_unsigned() const { return unsigned_; }
  static WideInteger from_bits(std::uint64_t bits, bool is_unsigned) { return {bits, is_unsigned}; }

 private:
  WideInteger(std::uint64_t bits, bool is_unsigned) : bits_(bits), unsigned_(is_unsigned) {}
  static constexpr std::uint64_t kInt64Magnitude = std::uint64_t{1} << 63U;  ///< |INT64_MIN|
  std::uint64_t bits_ = 0;
  bool unsigned_ = false;
};

/// The value as the double that holds it exactly, for a parameter of a system without 64-bit
/// variables; throws Error "OWNER: parameter 'NAME' is given VALUE, which only …" where no double does.
inline double exact_parameter_double(const WideInteger& value, std::string_view owner, std::string_view name) {
  if (!value.exact_in_double()) {
    throw Error(
        fmt::format("{}: parameter '{}' is given {}, which only a 64-bit integer (Int64, UInt64) of an FMI 3.0 "
                    "FMU holds exactly",
                    owner, name, value.text()));
  }
  return value.to_double();
}

}  // namespace cosima
