#pragma once
// "Did you mean": the known name closest to a mistyped one, by edit distance (Levenshtein, with a
// swap of two neighbours counting as one edit: "mehtod" → "method").
#include <string>
#include <string_view>
#include <vector>

namespace cosima {

/// Optimal-string-alignment distance between a and b.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest of `known` to `given` when it is close enough to be a typo — at most 1 edit for
/// names of up to 4 characters, 2 up to 8, 3 beyond — or "" when none is (or `given` is known).
std::string closest_name(std::string_view given, const std::vector<std::string>& known);

/// "; did you mean 'X'?" for closest_name, or "".
std::string did_you_mean(std::string_view given, const std::vector<std::string>& known);

}  // namespace cosima
