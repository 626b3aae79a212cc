#pragma once
// The names of array elements as ports and scalar variables carry them: "base[i]", "base[i,j]" (an
// FMI 3.0 array variable is one port per element; FMI 2.0 exporters flatten arrays into scalars
// named so).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosima {

/// The index part "[…]" of `name` when it names an element of the array `base`; nullopt otherwise.
inline std::optional<std::string_view> element_suffix(std::string_view name, std::string_view base) {
  if (name.size() <= base.size() + 2 || !name.starts_with(base) || name[base.size()] != '[' || name.back() != ']') {
    return std::nullopt;
  }
  return name.substr(base.size());
}

/// The indices of a suffix "[i,j,…]": each the digits after optional blanks ("[1, 2]"), 0 where there
/// are none.
inline std::vector<std::size_t> element_indices(std::string_view suffix) {
  std::vector<std::size_t> indices;
  std::string_view rest = suffix.substr(1, suffix.size() - 2);
  while (true) {
    const std::size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    std::size_t index = 0;
    for (std::size_t k = 0; k < part.size() && part[k] >= '0' && part[k] <= '9'; ++k) {
      index = 10 * index + static_cast<std::size_t>(part[k] - '0');
    }
    indices.push_back(index);
    if (comma == std::string_view::npos) return indices;
    rest.remove_prefix(comma + 1);
  }
}

/// How many of `names` are elements of the array `base`.
inline std::size_t element_count(const std::vector<std::string>& names, std::string_view base) {
  std::size_t count = 0;
  for (const std::string& name : names) count += element_suffix(name, base).has_value() ? 1 : 0;
  return count;
}

}  // namespace cosima
