#include "core/suggest.hpp"

#include <algorithm>

namespace cosima {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // rows i−2, i−1, i of the dynamic program over prefixes
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);  // neighbours swapped
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string closest_name(std::string_view given, const std::vector<std::string>& known) {
  const std::size_t allowed = given.size() <= 4 ? 1 : given.size() <= 8 ? 2 : 3;
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& name : known) {
    if (name == given) return "";
    const std::size_t distance = edit_distance(given, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& known) {
  const std::string closest = closest_name(given, known);
  return closest.empty() ? std::string() : "; did you mean '" + closest + "'?";
}

}  // namespace cosima
