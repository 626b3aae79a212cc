#include "io/json.hpp"

#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {

/// nlohmann's DOM builder behind the checks: nesting depth and duplicate keys, per event. (Its
/// callback parser would do, but it scans the parent object at every object's end to drop discarded
/// values: O(n²) for an object of n objects, as a scenario's systems are.)
class CheckedDom {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  CheckedDom(Json& result, const std::string& what) : dom_(result, true), what_(what) {}

  bool null() { return dom_.null(); }
  bool boolean(bool value) { return dom_.boolean(value); }
  bool number_integer(number_integer_t value) { return dom_.number_integer(value); }
  bool number_unsigned(number_unsigned_t value) { return dom_.number_unsigned(value); }
  bool number_float(number_float_t value, const string_t& text) { return dom_.number_float(value, text); }
  bool string(string_t& value) { return dom_.string(value); }
  bool binary(binary_t& value) { return dom_.binary(value); }
  bool start_object(std::size_t elements) {
    deeper();
    keys_.emplace_back();
    return dom_.start_object(elements);
  }
  bool key(string_t& key) {
    if (!keys_.back().insert(key).second) {
      throw Error(fmt::format("{}: the key '{}' appears twice in one object (which one counts would be a guess)", what_,
                              key));
    }
    return dom_.key(key);
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t elements) {
    deeper();
    return dom_.start_array(elements);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return dom_.parse_error(position, token, error);
  }

 private:
  void deeper() {
    if (++depth_ > kMaxJsonDepth) throw Error(fmt::format("{}: nested deeper than {} levels", what_, kMaxJsonDepth));
  }
  Dom dom_;
  const std::string& what_;
  int depth_ = 0;
  std::vector<std::unordered_set<std::string>> keys_;  ///< per object being read, innermost last
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
  if (!Json::accept(text)) return std::nullopt;
  return parse_json(text, what);
}

}  // namespace cosima
