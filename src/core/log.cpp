#include "core/log.hpp"

#include <atomic>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

namespace cosima {

namespace {
std::atomic<LogLevel> g_level{LogLevel::warning};
std::mutex g_mutex;
std::vector<std::string> g_warnings;  ///< what logged_warnings() returns (at most kKeptWarnings)
constexpr std::size_t kKeptWarnings = 100;
}  // namespace

void set_log_level(LogLevel level) { g_level = level; }
LogLevel log_level() { return g_level; }

std::vector<std::string> logged_warnings() {
  const std::lock_guard lock(g_mutex);
  return g_warnings;
}

std::optional<LogLevel> parse_log_level(std::string_view name) {
  if (name == "error") return LogLevel::error;
  if (name == "warning") return LogLevel::warning;
  if (name == "info") return LogLevel::info;
  if (name == "debug") return LogLevel::debug;
  return std::nullopt;
}

void log(LogLevel level, std::string_view message) {
  if (level == LogLevel::warning) {
    const std::lock_guard lock(g_mutex);
    if (g_warnings.size() < kKeptWarnings) g_warnings.emplace_back(message);
  }
  if (level > g_level.load()) return;
  static constexpr std::string_view kNames[] = {"error", "warning", "info", "debug"};
  const std::lock_guard lock(g_mutex);
  std::cerr << "cosima: " << kNames[static_cast<int>(level)] << ": " << message << '\n';
}

}  // namespace cosima
