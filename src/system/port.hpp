#pragma once
// What a port carries (FMI 2.0 §2.2.7 ScalarVariable types): its kind, whether it varies
// continuously, its declared range and start. Every value crosses the master as a double — exact
// for Integer (32 bit), Enumeration and Boolean (0/1) — except Strings, which are exchanged by name
// at communication points (ModularModel::exchange_at_communication_point), and 64-bit integers, whose
// exact values are exchanged there beside their doubles.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/wide_integer.hpp"

namespace cosima {

enum class PortKind : std::uint8_t { real, integer, boolean, enumeration, string };

struct PortInfo {
  PortKind kind = PortKind::real;
  /// A Real of variability "continuous". Only continuous ports are extrapolated or interpolated;
  /// every other port is held over a macro-step (FMI 2.0 §2.2.7: discrete variables change at events only).
  bool continuous = true;
  std::string declared_type;  ///< the Enumeration's type (FMI TypeDefinitions); may be empty elsewhere
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  /// The range of the integer type behind an Integer/Enumeration port: FMI 2.0's 32-bit Integer by
  /// default; FMI 3.0's Int8 … UInt64 set their own.
  double integer_min = -2147483648.0;
  double integer_max = 2147483647.0;
  std::vector<double> allowed;          ///< an Enumeration's item values (empty: any integer in [min, max])
  std::vector<std::string> item_names;  ///< an Enumeration's item names, beside their values in `allowed`
  std::optional<double> start;          ///< declared start of a numeric port
  std::optional<double> nominal;        ///< declared nominal of a Real port (its typical magnitude)
  std::string start_text;               ///< declared start of a String port
  /// A 64-bit integer (FMI 3.0 Int64/UInt64): its exact values travel beside the double
  /// (System::wide_value, System::set_wide_input), its declared start exactly in wide_start.
  bool wide = false;
  std::optional<WideInteger> wide_start;
  /// A known signal (a signal table's linear column, system/source/csv_source.hpp): its value and
  /// slope at t give it exactly up to the table's next row, so a system that interpolates its inputs
  /// is given that line over a step rather than a value held or extrapolated from the past.
  bool signal = false;

  /// The value of an Enumeration item named `name`; throws Error listing the items (with the
  /// closest) when there is none, or when the port is no Enumeration. `what` names the port.
  [[nodiscard]] double enumeration_value(const std::string& name, const std::string& what) const;

  [[nodiscard]] bool is_discrete_number() const {
    return kind == PortKind::integer || kind == PortKind::enumeration || kind == PortKind::boolean;
  }
};

/// The PortInfo of a plain continuous Real port.
const PortInfo& real_port();

/// "Real", "Integer", "Boolean", "Enumeration", "String".
std::string_view to_string(PortKind kind);
/// "Real", "Enumeration Mode", "Integer [-5, 100]" — for messages.
std::string describe(const PortInfo& info);

/// Why `value` is not a legal value of a port or variable of this type, or empty when it is:
/// non-finite, non-integral for Integer/Enumeration, not 0/1 for Boolean, outside [min, max], or
/// outside the range of its integer type (info.integer_min/max).
std::string illegal_value(const PortInfo& info, double value);
/// Throws Error "WHAT: VALUE …" when illegal_value is not empty.
void check_value(const PortInfo& info, double value, std::string_view what);

/// Whether a value of kind `from` may drive a port of kind `to`, and how it is converted, when a
/// connection asks for a conversion explicitly ("convert": true): Real → Integer/Enumeration rounds
/// to the nearest integer, anything → Boolean is (value ≠ 0), Boolean/Integer/Enumeration → Real
/// is exact. String converts to nothing.
enum class Conversion : std::uint8_t { none, round, to_boolean };
std::optional<Conversion> conversion_between(const PortInfo& from, const PortInfo& to);
double convert(Conversion conversion, double value);

}  // namespace cosima
