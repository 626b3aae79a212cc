#include "core/log.hpp"

#include <algorithm>
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
bool g_forwarding = false;             ///< forward_warnings() was called
std::vector<std::string> g_forwarded;  ///< not taken yet
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

void forward_warnings() {
  const std::lock_guard lock(g_mutex);
  g_forwarding = true;
}

std::vector<std::string> take_forwarded_warnings() {
  const std::lock_guard lock(g_mutex);
  std::vector<std::string> taken;
  taken.swap(g_forwarded);
  return taken;
}

void log(LogLevel level, std::string_view message) {
  if (level == LogLevel::warning) {
    const std::lock_guard lock(g_mutex);
    if (std::find(g_warnings.begin(), g_warnings.end(), message) != g_warnings.end()) return;  // said already
    if (g_warnings.size() < kKeptWarnings) g_warnings.emplace_back(message);
    if (g_forwarding) {
      g_forwarded.emplace_back(message);
      return;
    }
  }
  if (level > g_level.load()) return;
  static constexpr std::string_view kNames[] = {"error", "warning", "info", "debug"};
  const std::lock_guard lock(g_mutex);
  std::cerr << "cosima: " << kNames[static_cast<int>(level)] << ": " << message << '\n';
}

}  // namespace cosima
