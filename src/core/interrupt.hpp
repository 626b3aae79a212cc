#pragma once
// SIGINT / SIGTERM as a request to stop at the next communication point: the driver ends the run
// there like an early termination (results and stats written, temporary directories removed) and
// the command exits with 128 + the signal number. A second signal ends the process at once.
namespace cosima {

/// Installs the handlers (idempotent).
void install_interrupt_handlers();
/// The signal that asked to stop (SIGINT, SIGTERM), or 0.
int stop_requested();
/// "SIGINT", "SIGTERM".
const char* stop_signal_name(int signal);

}  // namespace cosima
