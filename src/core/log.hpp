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
/// The warnings logged in this process so far, shown or not (the first 100): for the run's stats. A
/// warning is logged once: the same text again is neither shown nor kept.
[[nodiscard]] std::vector<std::string> logged_warnings();
/// For a process that serves systems for a master (a child of the processes executor, an MPI rank
/// ≥ 1, exec/protocol.hpp): from now on warnings are kept for the master, not shown, until taken
/// (the replies carry them; the master logs them as its own, in its stats).
void forward_warnings();
/// The warnings logged since the last call in a forwarding process; empty in any other.
[[nodiscard]] std::vector<std::string> take_forwarded_warnings();
/// "error", "warning", "info", "debug" → the level; anything else → nullopt.
std::optional<LogLevel> parse_log_level(std::string_view name);

}  // namespace cosima
