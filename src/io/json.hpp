#pragma once
// JSON read from untrusted text (scenario files, SSP annotations): nlohmann's parser with the checks
// it leaves out — a nesting limit (serializing a value nested 10⁵ deep for a message overflows the
// stack), duplicate keys refused by name (nlohmann keeps the last: "stop": 2, "stop": 1e9), and a
// number beyond double's range reported as such, not as an internal error.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/indexed_map.hpp"

namespace cosima::io {

/// cosima's JSON documents: nlohmann's, with the keys of an object kept in the order written and
/// found in constant time (io/indexed_map.hpp).
using Json = nlohmann::basic_json<IndexedMap>;

inline constexpr int kMaxJsonDepth = 256;

/// Parses `text`; throws Error "WHAT is not valid JSON: …" / "WHAT: …" naming the fault and where.
Json parse_json(std::string_view text, const std::string& what);
/// `text` parsed when it is JSON (with parse_json's checks, which throw), nullopt when it is not; a
/// number beyond a double's range ("1e400") throws, naming it, rather than read as a text.
std::optional<Json> parse_json_if_json(std::string_view text, const std::string& what);

/// A JSON value as text for a message; bytes that are not UTF-8 are replaced, never thrown on.
inline std::string json_text(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace cosima::io
