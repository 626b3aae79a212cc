#pragma once
// What the readers of modelDescription.xml (FMI 2.0: model_description.cpp, FMI 3.0:
// model_description_fmi3.cpp) share: strict number parsing and one failure format naming the FMU.
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "fmi/common/model_description.hpp"

namespace cosima::fmi::description {

std::string_view trim(std::string_view text);
/// A whole xs:double (strtod must consume everything but surrounding blanks).
std::optional<double> to_double(std::string_view text);
/// A whole decimal integer in [min, max].
std::optional<long long> to_integer(std::string_view text, long long min, long long max);
/// A whole non-negative decimal integer (up to 2^64 - 1).
std::optional<unsigned long long> to_unsigned(std::string_view text);
bool is_c_identifier(std::string_view name);
/// The blank-separated words of a text.
std::vector<std::string_view> words(std::string_view text);

/// Reads and checks the parts of one file; every failure names the FMU and the element.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  [[noreturn]] void fail(const std::string& what) const;
  std::optional<double> optional_number(const pugi::xml_node& node, const char* attribute,
                                        std::string_view where) const;
  /// A variable's causality (one of `causalities`, default "local"), variability (one of FMI's five,
  /// default `default_variability`), initial and description, read from `node` and checked.
  void roles(const pugi::xml_node& node, const std::unordered_set<std::string>& causalities,
             const char* default_variability, std::string_view where, ScalarVariable& v) const;
  /// FMI 2.0 ModelStructure <Unknown index=… dependencies=…/> children of `parent`.
  std::vector<Unknown> unknowns(const pugi::xml_node& parent, std::size_t variables, const char* section) const;

 private:
  const std::string& source_;
};

}  // namespace cosima::fmi::description

namespace cosima::fmi {
/// FMI 3.0 §2.4: the root element of a description whose fmiVersion is 3.0.
ModelDescription parse_fmi3_model_description(const pugi::xml_node& root, const std::string& source);
}  // namespace cosima::fmi
