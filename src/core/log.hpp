#pragma once
// cosima's log: one line per message on stderr, filtered by level.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosima {

enum class LogLevel { error = 0, warning = 1, info = 2, debug = 3 };

void set_log_level(LogLevel level);
[[nodiscard]] LogLevel log_level();
void log(LogLevel level, std::string_view message);
/// The warnings logged in this process so far, shown or not (the first 100): for the run's stats.
[[nodiscard]] std::vector<std::string> logged_warnings();
/// "error", "warning", "info", "debug" → the level; anything else → nullopt.
std::optional<LogLevel> parse_log_level(std::string_view name);

}  // namespace cosima
