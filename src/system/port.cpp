#include "system/port.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace cosima {

namespace {
std::string range_text(double min, double max) { return fmt::format("[{:.17g}, {:.17g}]", min, max); }
}  // namespace

double PortInfo::enumeration_value(const std::string& name, const std::string& what) const {
  if (kind != PortKind::enumeration)
    throw Error(fmt::format("{} ({}): \"{}\" is a String", what, describe(*this), name));
  const auto item = std::find(item_names.begin(), item_names.end(), name);
  if (item != item_names.end()) return allowed[static_cast<std::size_t>(item - item_names.begin())];
  std::string items;
  for (std::size_t i = 0; i < item_names.size(); ++i) {
    items += fmt::format("{}{} = {}", items.empty() ? "" : ", ", item_names[i], allowed[i]);
  }
  throw Error(fmt::format("{} (Enumeration {}): \"{}\" is no item of it (items: {}){}", what, declared_type, name,
                          items.empty() ? "none declared" : items, did_you_mean(name, item_names)));
}

const PortInfo& real_port() {
  static const PortInfo info;
  return info;
}

std::string_view to_string(PortKind kind) {
  switch (kind) {
    case PortKind::real: return "Real";
    case PortKind::integer: return "Integer";
    case PortKind::boolean: return "Boolean";
    case PortKind::enumeration: return "Enumeration";
    case PortKind::string: return "String";
  }
  return "?";
}

std::string describe(const PortInfo& info) {
  const bool ranged = info.kind != PortKind::real && info.kind != PortKind::string && info.kind != PortKind::boolean &&
                      (std::isfinite(info.min) || std::isfinite(info.max));
  return fmt::format("{}{}{}{}{}", to_string(info.kind), info.declared_type.empty() ? "" : " ", info.declared_type,
                     ranged ? " " : "", ranged ? range_text(info.min, info.max) : std::string());
}

std::string illegal_value(const PortInfo& info, double value) {
  if (info.kind == PortKind::string) return "is a String";
  if (!std::isfinite(value)) return fmt::format("{} is not finite", value);
  if (info.kind == PortKind::boolean) {
    return value == 0.0 || value == 1.0 ? "" : fmt::format("{:.17g} is not a Boolean (give true/false or 1/0)", value);
  }
  double min = info.min, max = info.max;
  if (info.is_discrete_number()) {
    min = std::max(min, info.integer_min);
    max = std::min(max, info.integer_max);
    if (value != std::round(value)) {
      return fmt::format("{:.17g} is not an integer (allowed: integers in {})", value, range_text(min, max));
    }
  }
  if (value < min || value > max)
    return fmt::format("{:.17g} is outside the allowed range {}", value, range_text(min, max));
  if (!info.allowed.empty() && std::find(info.allowed.begin(), info.allowed.end(), value) == info.allowed.end()) {
    std::string items;
    for (double v : info.allowed) items += fmt::format("{}{:.17g}", items.empty() ? "" : ", ", v);
    return fmt::format("{:.17g} is not a legal value (allowed: {})", value, items);
  }
  return "";
}

void check_value(const PortInfo& info, double value, std::string_view what) {
  const std::string why = illegal_value(info, value);
  if (!why.empty()) throw Error(fmt::format("{} ({}): {}", what, describe(info), why));
}

std::optional<Conversion> conversion_between(const PortInfo& from, const PortInfo& to) {
  if (from.kind == PortKind::string || to.kind == PortKind::string) return std::nullopt;
  if (to.kind == PortKind::boolean) return from.kind == PortKind::boolean ? Conversion::none : Conversion::to_boolean;
  if (to.kind == PortKind::real) return Conversion::none;
  return from.kind == PortKind::real ? Conversion::round : Conversion::none;  // to Integer / Enumeration
}

double convert(Conversion conversion, double value) {
  switch (conversion) {
    case Conversion::none: return value;
    case Conversion::round: return std::isfinite(value) ? std::nearbyint(value) : value;
    case Conversion::to_boolean: return std::isnan(value) ? value : (value != 0.0 ? 1.0 : 0.0);
  }
  return value;
}

}  // namespace cosima
