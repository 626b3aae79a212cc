#include "io/json.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::io {

namespace {

constexpr double kInt64Min = -9223372036854775808.0;

/// Whether a JSON number's text denotes exactly -2^63 = -9223372036854775808 (in any spelling:
/// "-9223372036854775808", "-9.223372036854775808e18", "-92233720368547758080e-1"). The values
/// within 1024 of it round to the same double: a 64-bit integer variable would take -2^63 for them.
bool denotes_int64_min(std::string_view text) {
  if (text.empty() || text.front() != '-') return false;
  std::string digits;  // the significant digits, without the point
  int exponent = 0;    // of the first digit kept: value = 0.DIGITS × 10^exponent
  std::size_t at = 1;
  bool point = false;
  for (; at < text.size() && text[at] != 'e' && text[at] != 'E'; ++at) {
    const char c = text[at];
    if (c == '.') {
      point = true;
    } else if (c != '0' || !digits.empty()) {
      digits.push_back(c);
      if (!point) ++exponent;
    } else if (point) {
      --exponent;  // a leading zero after the point
    }
  }
  if (at < text.size()) exponent += std::stoi(std::string(text.substr(at + 1)));
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits == "9223372036854775808" && exponent == 19;
}

/// Whether `text` is a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?, blanks
/// around it allowed.
bool is_json_number(std::string_view text) {
  const auto digits = [&text](std::size_t& at) {
    const std::size_t from = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    return at > from;
  };
  std::size_t at = text.find_first_not_of(" \t");
  const std::size_t end = text.find_last_not_of(" \t") + 1;
  if (at == std::string_view::npos) return false;
  text = text.substr(0, end);
  if (text[at] == '-') ++at;
  if (at < text.size() && text[at] == '0') {
    ++at;
  } else if (!digits(at)) {
    return false;
  }
  if (at < text.size() && text[at] == '.' && !digits(++at)) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (!digits(at)) return false;
  }
  return at == text.size();
}

/// A DOM builder for nlohmann's SAX parser, with the checks: nesting depth, and duplicate keys found
/// by the object's own index as the key is inserted (nlohmann's builder overwrites them; its callback
/// parser scans the parent object at every object's end: O(n²) for an object of n objects, as a
/// scenario's systems are).
class CheckedDom {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  CheckedDom(Json& result, const std::string& what) : root_(result), what_(what) {}

  bool null() { return value(nullptr) != nullptr; }
  bool boolean(bool v) { return value(v) != nullptr; }
  bool number_integer(number_integer_t v) { return value(v) != nullptr; }
  bool number_unsigned(number_unsigned_t v) { return value(v) != nullptr; }
  bool number_float(number_float_t v, const string_t& text) {
    if (v == kInt64Min && !denotes_int64_min(text)) {  // -9223372036854775809 would read as -2^63
      throw Error(
          fmt::format("{}: the number {} is below -9223372036854775808 (-2^63) but reads as it in a double; "
                      "cosima takes no value other than the one written",
                      what_, text));
    }
    return value(v) != nullptr;
  }
  bool string(string_t& v) { return value(std::move(v)) != nullptr; }
  bool binary(binary_t& v) { return value(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t /*elements*/) { return open(Json::value_t::object); }
  bool key(string_t& key) {
    auto& object = open_.back()->get_ref<Json::object_t&>();
    const auto [at, inserted] = object.emplace(std::move(key), Json());
    if (!inserted) {
      throw Error(fmt::format("{}: the key '{}' appears twice in one object (which one counts would be a guess)", what_,
                              at->first));
    }
    element_ = &at->second;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*elements*/) { return open(Json::value_t::array); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
    throw error;
  }

 private:
  /// Places `v` where the document expects the next value: the root, an array's end or the value of
  /// the key just read.
  template <class V>
  Json* value(V&& v) {
    if (open_.empty()) {
      root_ = Json(std::forward<V>(v));
      return &root_;
    }
    if (open_.back()->is_array()) {
      auto& array = open_.back()->get_ref<Json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *element_ = Json(std::forward<V>(v));
    return element_;
  }
  bool open(Json::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      throw Error(fmt::format("{}: nested deeper than {} levels", what_, kMaxJsonDepth));
    }
    Json* opened = value(type);
    // most arrays of a scenario are short (a connection's two ports): one allocation, not three
    if (opened->is_array()) opened->get_ref<Json::array_t&>().reserve(4);
    open_.push_back(opened);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
  Json& root_;
  const std::string& what_;
  std::vector<Json*> open_;  ///< the objects and arrays being read, innermost last
  Json* element_ = nullptr;  ///< the value slot of the key just read
};

}  // namespace

Json parse_json(std::string_view text, const std::string& what) {
  Json result;
  CheckedDom checked(result, what);
  try {
    Json::sax_parse(text, &checked);
    return result;
  } catch (const Json::parse_error& e) {
    // nlohmann's text carries the line and column: "[json.exception.parse_error.101] parse error at line 3, …"
    std::string why = e.what();
    if (const auto at = why.find("parse error"); at != std::string::npos) why = why.substr(at);
    throw Error(fmt::format("{} is not valid JSON: {}", what, why));
  } catch (const Json::out_of_range& e) {  // 406: a number beyond double's range ("1e400")
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    throw Error(fmt::format("{} is not valid JSON here: {} (beyond the range of a double)", what, why));
  }
}

std::optional<Json> parse_json_if_json(std::string_view text, const std::string& what) {
  if (Json::accept(text)) return parse_json(text, what);
  // a number JSON writes but a double cannot hold ("1e400") is that number, out of range: not a text
  if (is_json_number(text)) return parse_json(text, what);  // throws, naming it
  return std::nullopt;
}

}  // namespace cosima::io
