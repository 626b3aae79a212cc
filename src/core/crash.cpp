#include "core/crash.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "core/cleanup.hpp"
#include "core/output_file.hpp"
#include "core/watcher.hpp"

namespace cosima {

namespace detail {
constinit thread_local const ForeignCall* t_foreign_call = nullptr;
ForeignCallMirror* g_foreign_call_mirror = nullptr;
ForeignCall* g_watched_call = nullptr;
}  // namespace detail

namespace {

constexpr ForeignCall kNoForeignCall{};

std::array<std::atomic<EmergencyFlushable*>, 16> g_streams{};
std::atomic<bool> g_installed{false};
std::atomic<OutputFile*> g_stats{nullptr};  ///< the run's stats file, rewritten on the fatal paths
/// The signals that end a process on a fault of the code it runs (crash.hpp)
constexpr std::array<int, 5> kFatalSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
/// The handlers' own stack: a stack overflow inside an FMU still gets its line
constexpr std::size_t kAlternateStack = 1 << 16;
alignas(16) char g_alternate_stack[kAlternateStack];

/// Appends text to buffer[at..size), returns the new end (truncates).
std::size_t append(char* buffer, std::size_t size, std::size_t at, const char* text) noexcept {
  while (text != nullptr && *text != '\0' && at + 1 < size) buffer[at++] = *text++;
  buffer[at < size ? at : size - 1] = '\0';
  return at;
}

/// A time as digits, with up to 9 decimals and no trailing zeros (no stdio in a signal handler).
std::size_t append_time(char* buffer, std::size_t size, std::size_t at, double t) noexcept {
  if (!std::isfinite(t)) return append(buffer, size, at, std::isnan(t) ? "nan" : "inf");
  if (t < 0) {
    at = append(buffer, size, at, "-");
    t = -t;
  }
  if (t >= 1e15) return append(buffer, size, at, "(large)");
  auto whole = static_cast<unsigned long long>(t);
  auto fraction = static_cast<unsigned long long>(std::llround((t - static_cast<double>(whole)) * 1e9));
  if (fraction >= 1000000000ULL) {
    ++whole;
    fraction -= 1000000000ULL;
  }
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole > 0 && n < 20);
  char text[40];
  int k = 0;
  while (n > 0) text[k++] = digits[--n];
  if (fraction > 0) {
    text[k++] = '.';
    char decimals[9];
    for (int i = 8; i >= 0; --i) {
      decimals[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    int last = 8;
    while (last > 0 && decimals[last] == '0') --last;
    for (int i = 0; i <= last; ++i) text[k++] = decimals[i];
  }
  text[k] = '\0';
  return append(buffer, size, at, text);
}

/// `text` as the inside of a JSON string: quotes and backslashes escaped, control characters blank.
std::size_t append_json_text(char* buffer, std::size_t size, std::size_t at, const char* text) noexcept {
  for (; text != nullptr && *text != '\0' && at + 3 < size; ++text) {
    const char c = *text;
    if (c == '"' || c == '\\') buffer[at++] = '\\';
    buffer[at++] = static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  buffer[at] = '\0';
  return at;
}

/// The stats of a run that did not end: {"terminated_early": true, "error": why}.
void write_emergency_stats(const char* why) noexcept {
  OutputFile* file = g_stats.load();
  if (file == nullptr) return;
  const int fd = file->fd();
  char text[1400];
  std::size_t at = append(text, sizeof text, 0, "{\n  \"terminated_early\": true,\n  \"error\": \"");
  at = append_json_text(text, sizeof text, at, why);
  at = append(text, sizeof text, at, "\"\n}\n");
  if (ftruncate(fd, 0) != 0) return;
  std::size_t done = 0;
  while (done < at) {
    const ssize_t n = ::pwrite(fd, text + done, at - done, static_cast<off_t>(done));
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
  file->publish_now();
}

}  // namespace

void emergency_flush_streams() noexcept {
  for (auto& slot : g_streams) {
    if (EmergencyFlushable* stream = slot.load()) stream->emergency_flush();
  }
}

void register_emergency_stats(OutputFile* file) noexcept { g_stats.store(file); }

namespace detail {
/// The alternate stack of this thread and the handlers: install_crash_handlers, rearm_crash_handlers.
void arm_crash_handlers() noexcept;
}  // namespace detail

void end_abnormally(const char* why) noexcept {
  settle_watcher();  // this process speaks for itself
  emergency_flush_streams();
  write_emergency_stats(why);
  emergency_cleanup();
}

namespace {

void write_line(const char* text) noexcept {
  const std::size_t length = std::strlen(text);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::write(STDERR_FILENO, text + done, length - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "a fatal signal";
  }
}

extern "C" void on_fatal_signal(int signal) {
  char line[1024];
  std::size_t at = append(line, sizeof line, 0, "cosima: fatal: ");
  at = append(line, sizeof line, at, signal_name(signal));
  at = append(line, sizeof line, at, " ");
  at += describe_foreign_call(current_foreign_call(), line + at, sizeof line - at);
  bool streams = false;
  for (auto& slot : g_streams) streams = streams || slot.load() != nullptr;
  at = append(line, sizeof line, at, streams ? "; results written so far are on disk\n" : "\n");
  write_line(line);
  line[at > 0 ? at - 1 : 0] = '\0';  // the same words, without the newline, as the stats' error
  end_abnormally(line + 15);         // (less "cosima: fatal: ")
  std::signal(signal, SIG_DFL);      // die of the same signal
  std::raise(signal);
}

extern "C" void on_exit_foreign_call() {
  // an exit() from inside an FMU would end the run as if it had succeeded
  if (current_foreign_call().function == nullptr) return;
  char line[1024];
  std::size_t at = append(line, sizeof line, 0, "cosima: error: the FMU called exit() ");
  at += describe_foreign_call(current_foreign_call(), line + at, sizeof line - at);
  at = append(line, sizeof line, at, "\n");
  write_line(line);
  line[at > 0 ? at - 1 : 0] = '\0';
  end_abnormally(line + 15);  // (less "cosima: error: ")
  std::_Exit(70);
}

}  // namespace

void mirror_foreign_calls(ForeignCallMirror* shared) noexcept { detail::g_foreign_call_mirror = shared; }

void forget_emergency_flushes() noexcept {
  for (auto& slot : g_streams) slot.store(nullptr);
  g_stats.store(nullptr);
}

ForeignCall current_foreign_call() noexcept {
  return detail::t_foreign_call != nullptr ? *detail::t_foreign_call : kNoForeignCall;
}

std::size_t describe_foreign_call(const ForeignCall& call, char* buffer, std::size_t size) noexcept {
  if (size == 0) return 0;
  if (call.function == nullptr) return append(buffer, size, 0, "outside any FMU call");
  std::size_t at = append(buffer, size, 0, "in ");
  at = append(buffer, size, at, call.function);
  at = append(buffer, size, at, " of system '");
  at = append(buffer, size, at, call.system);
  at = append(buffer, size, at, "' (FMU '");
  at = append(buffer, size, at, call.file);
  at = append(buffer, size, at, "') at t = ");
  return append_time(buffer, size, at, call.time);
}

void register_emergency_flush(EmergencyFlushable* stream) noexcept {
  for (auto& slot : g_streams) {
    EmergencyFlushable* empty = nullptr;
    if (slot.compare_exchange_strong(empty, stream)) return;
  }
}

void unregister_emergency_flush(EmergencyFlushable* stream) noexcept {
  for (auto& slot : g_streams) {
    EmergencyFlushable* expected = stream;
    slot.compare_exchange_strong(expected, nullptr);
  }
}

void install_crash_handlers() {
  if (g_installed.exchange(true)) return;
  detail::arm_crash_handlers();
  std::atexit(on_exit_foreign_call);
}

bool crash_handlers_installed() noexcept { return g_installed.load(); }

void rearm_crash_handlers() noexcept {
  if (g_installed.load()) detail::arm_crash_handlers();
}

void own_fatal_signals() noexcept {
  if (g_installed.load()) return detail::arm_crash_handlers();
  for (int signal : kFatalSignals) std::signal(signal, SIG_DFL);
}

void detail::arm_crash_handlers() noexcept {
  stack_t stack{};
  stack.ss_sp = g_alternate_stack;
  stack.ss_size = kAlternateStack;
  sigaltstack(&stack, nullptr);  // this thread's; the handlers below are the process's
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
  for (int signal : kFatalSignals) sigaction(signal, &action, nullptr);
}

}  // namespace cosima
