#pragma once
// A second process that sees this one die where no handler of this one can: an FMU that set SIGSEGV
// back to its default action (or put in a handler of its own that exits) and then crashed, a SIGKILL
// from outside, an _exit() from foreign code. The handlers of crash.cpp speak for every death they
// see; the watcher speaks for the others, and removes what they leave behind.
//
//   start_watcher()           before the first temporary directory is made (cleanup.cpp) and before
//                             the first FMU instance: forks the watcher; later calls do nothing
//   watch_directory(i, path)  the temporary directory registered in slot i (cleanup.cpp), which the
//   unwatch_directory(i)      watcher removes unless it was unregistered
//   watch_names(system, file) when an FMU instance is made: the texts behind the pointers that its
//                             ForeignCallScopes carry (the watcher cannot read memory allocated
//                             after it was forked)
//   forget_names(system)      when the instance is freed
//   settle_watcher()          on every path where this process ends knowingly (its exit, a fatal
//                             signal its own handler saw): the watcher then stays silent
//   leave_watcher()           in a child cosima forks (processes executor): the watcher is the parent's
//   forgo_watcher()           in a process another one already watches (an MPI rank, whose mpirun
//                             reports its death): no watcher is forked
//
// The watcher holds the read end of a pipe whose write end only this process holds (close-on-exec);
// end of file means this process is gone. At a normal exit (atexit) the process settles, closes the
// pipe and reaps the watcher: nothing outlives the run. Then, unless it settled: when a foreign call was in
// flight, the watcher writes one line to stderr naming it — system, FMU, function, time — and the
// signal the process died of (read from /proc/PID/stat while the process is a zombie; unnamed when
// its parent reaped it first); in every case it removes the temporary directories still registered
// (the unpacked FMUs). They are listed in a file without a name (memfd) that both processes hold, a
// record of PATH_MAX bytes per slot written with pwrite(2): no cap, and no memory the watcher could
// not see.
// Rows still buffered in the dead process are lost; the output files keep the names that say they
// are incomplete (core/output_file.hpp). With several threads in foreign calls at once
// (--executor threads), the call named is the one entered last.
#include <cstddef>

namespace cosima {

void start_watcher();
void watch_directory(std::size_t slot, const char* path) noexcept;  ///< async-signal-safe
void unwatch_directory(std::size_t slot) noexcept;                  ///< async-signal-safe
void watch_names(const char* system, const char* file) noexcept;
void forget_names(const char* system) noexcept;
void settle_watcher() noexcept;  ///< async-signal-safe
void leave_watcher() noexcept;   ///< async-signal-safe
void forgo_watcher() noexcept;

}  // namespace cosima
