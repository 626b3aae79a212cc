#include "io/json.hpp"

#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

Json parse_json(std::string_view text, const std::string& what) {
  // one set of keys per object being read, innermost last
  std::vector<std::unordered_set<std::string>> keys;
  std::string path;  // the keys down to the innermost object, for the duplicate's message
  const Json::parser_callback_t check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxJsonDepth) {
      throw Error(fmt::format("{}: nested deeper than {} levels", what, kMaxJsonDepth));
    }
    switch (event) {
      case Json::parse_event_t::object_start: keys.emplace_back(); break;
      case Json::parse_event_t::object_end: keys.pop_back(); break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!keys.empty() && !keys.back().insert(key).second) {
          throw Error(fmt::format("{}: the key '{}' appears twice in one object (which one counts would be a guess)",
                                  what, key));
        }
        break;
      }
      default: break;
    }
    return true;
  };
  try {
    return Json::parse(text, check);
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

}  // namespace cosima
