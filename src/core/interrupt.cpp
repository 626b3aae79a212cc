#include "core/interrupt.hpp"

#include <unistd.h>
#include <atomic>

#include <csignal>
#include <cstdlib>
#include <cstring>

#include "core/crash.hpp"

namespace cosima {

namespace {
std::atomic<int> g_stop{0};
std::atomic<InterruptPoll> g_poll{nullptr};

/// The second stop signal: the run did not come back to a communication point (an FMU hangs in a
/// call). Save what was computed, say so, clean up, and exit with 128 + the signal.
extern "C" void on_forced_stop(int signal) {
  char line[1024] = "forced exit by a second ";
  std::strncat(line, stop_signal_name(signal), 20);
  // the call that did not return, when this thread is in one (in process: the FMU that hangs)
  if (const ForeignCall call = current_foreign_call(); call.function != nullptr) {
    std::strncat(line, ", the run stuck ", 17);
    const std::size_t at = std::strlen(line);
    (void)describe_foreign_call(call, line + at, sizeof line - at - 64);
  }
  std::strncat(line, "; results computed so far are on disk", 40);
  const char* prefix = "cosima: ";
  (void)!::write(STDERR_FILENO, prefix, std::strlen(prefix));
  (void)!::write(STDERR_FILENO, line, std::strlen(line));
  (void)!::write(STDERR_FILENO, "\n", 1);
  end_abnormally(line);
  std::_Exit(128 + signal);
}

extern "C" void on_stop_signal(int signal) {
  g_stop.store(signal);
  struct sigaction forced {};
  forced.sa_handler = on_forced_stop;
  sigemptyset(&forced.sa_mask);
  for (const int stop : kStopSignals) sigaction(stop, &forced, nullptr);  // async-signal-safe
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  for (const int signal : kStopSignals) sigaction(signal, &action, nullptr);
}

int stop_requested() { return g_stop.load(std::memory_order_relaxed); }

void request_stop(int signal) { g_stop.store(signal); }

void clear_stop_request() { g_stop.store(0); }

void set_interrupt_poll(InterruptPoll poll) { g_poll.store(poll); }

bool interrupt_polled() {
  const InterruptPoll poll = g_poll.load();
  return poll != nullptr && poll();
}

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
  }
}

}  // namespace cosima
