#include "core/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace cosima {

namespace {
std::atomic<int> g_stop{0};

extern "C" void on_stop_signal(int signal) {
  g_stop.store(signal);
  std::signal(signal, SIG_DFL);  // a second one is not ignored
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  for (int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
}

int stop_requested() { return g_stop.load(std::memory_order_relaxed); }

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace cosima
