#pragma once
// cosima's log: one line per message on stderr, filtered by level.
#include <optional>
#include <string_view>

namespace cosima {

enum class LogLevel { error = 0, warning = 1, info = 2, debug = 3 };

void set_log_level(LogLevel level);
[[nodiscard]] LogLevel log_level();
void log(LogLevel level, std::string_view message);
/// "error", "warning", "info", "debug" → the level; anything else → nullopt.
std::optional<LogLevel> parse_log_level(std::string_view name);

}  // namespace cosima
