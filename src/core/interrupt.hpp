#pragma once
// SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT as a request to stop at the next
// communication point: the driver ends the run there like an early termination (results and stats
// written, temporary directories removed) and the command exits with 128 + the signal number. A
// second one — the run did not come back, an FMU hangs in a call — ends the process at once, but
// not silently: the rows computed so far are saved, the stats say it ended early, the child
// processes are killed and the temporary directories removed (core/crash.hpp: end_abnormally).
#include <array>
#include <csignal>

namespace cosima {

inline constexpr std::array<int, 4> kStopSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/// Installs the handlers (idempotent).
void install_interrupt_handlers();
/// The signal that asked to stop (one of kStopSignals), or 0.
int stop_requested();
/// Asks the run to stop at its next communication point as if `signal` had arrived (an embedding
/// interpreter whose own handler caught it: the Python module's Ctrl-C).
void request_stop(int signal);
/// Forgets a stop request once the run it stopped is over (the next run starts afresh).
void clear_stop_request();
/// A check that a wait on another process (the process executor waiting for a child's answer) makes
/// between its sleeps, for an embedding whose interrupts no signal handler of cosima's sees (the
/// Python module: Python's own handler only notes Ctrl-C). true: abandon the wait as interrupted.
using InterruptPoll = bool (*)();
/// Sets the poll (nullptr: none); the embedding sets it for the length of a run.
void set_interrupt_poll(InterruptPoll poll);
/// Whether the poll set, if any, says to abandon the wait.
bool interrupt_polled();
/// "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT" (async-signal-safe: literals).
const char* stop_signal_name(int signal);

}  // namespace cosima
