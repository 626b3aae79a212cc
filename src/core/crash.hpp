#pragma once
// What cosima knows when code it did not write brings the process down (an FMU that segfaults,
// aborts or calls exit()): the foreign call in flight on each thread — system, file, function and
// simulation time — and the output streams whose pending bytes must reach the disk.
//
//   install_crash_handlers();                       once, at program start
//   { ForeignCallScope in(name, file, "fmi2DoStep", t); f_.do_step(...); }
//
// On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT the handler writes one line naming the call (or
// "outside any FMU call"), saves the registered streams with write(2), writes the stats as
// terminated early, kills the child processes, removes the temporary directories, and re-raises
// the signal so the process dies of it. An exit() from inside a foreign call is reported and turned into exit
// status 70. Everything here is async-signal-safe on the signal path: no allocation, no stdio.
#include <atomic>
#include <cstddef>
#include <string>

namespace cosima {

struct ForeignCall {
  const char* system = nullptr;
  const char* file = nullptr;
  const char* function = nullptr;
  double time = 0.0;
};

/// What a child process shows its parent of its foreign call in flight (mirror_foreign_calls): the
/// function's name as text, not a pointer — the parent reads it from memory the child's FMU can
/// scribble over, and trusts nothing there (function_name).
struct ForeignCallMirror {
  static constexpr std::size_t kLength = 48;
  double time = 0.0;
  char function[kLength] = {};  ///< "" when no call is in flight; truncated to kLength - 1
  /// The name as the parent may print it: cut at the first NUL or at kLength - 1 characters,
  /// characters outside printable ASCII replaced by '?'.
  [[nodiscard]] std::string function_name() const {
    std::string name;
    for (std::size_t i = 0; i + 1 < kLength && function[i] != '\0'; ++i) {
      const char c = function[i];
      name += c >= ' ' && c <= '~' ? c : '?';
    }
    return name;
  }
};

namespace detail {
/// The innermost foreign call in flight on this thread (nullptr: none), which lives in its
/// ForeignCallScope on this thread's stack, and the shared slot that mirrors it in a child process
/// (mirror_foreign_calls); defined in crash.cpp, inline here because a scope opens up to three times
/// per system and macro-step.
extern constinit thread_local const ForeignCall* t_foreign_call;
extern ForeignCallMirror* g_foreign_call_mirror;
/// The call in flight as the watcher of this process reads it (core/watcher.hpp): the pointers only,
/// four stores per scope; nullptr when no watcher watches this process.
extern ForeignCall* g_watched_call;
/// Copies `function` (nullptr: none) into the mirror, bounded.
inline void mirror_function(const char* function) noexcept {
  char* out = g_foreign_call_mirror->function;
  std::size_t i = 0;
  for (; function != nullptr && i + 1 < ForeignCallMirror::kLength && function[i] != '\0'; ++i) out[i] = function[i];
  out[i] = '\0';
}
}  // namespace detail

/// Marks the calling thread as inside a foreign function for its lifetime (nests: the outer call is
/// current again when it ends). The record stays in the scope; the thread's pointer names it, so
/// that opening a scope costs a few stores. The handlers of crash.cpp read it on the same thread
/// (a signal handler runs on the thread that faulted; an exit() from an FMU does not unwind).
class ForeignCallScope {
 public:
  ForeignCallScope(const char* system, const char* file, const char* function, double time) noexcept
      : call_{system, file, function, time}, outer_(detail::t_foreign_call) {
    std::atomic_signal_fence(std::memory_order_release);  // a signal handler sees the record filled in
    detail::t_foreign_call = &call_;
    if (detail::g_watched_call != nullptr) *detail::g_watched_call = call_;
    if (detail::g_foreign_call_mirror != nullptr) {
      detail::g_foreign_call_mirror->time = time;
      detail::mirror_function(function);
    }
  }
  ~ForeignCallScope() {
    std::atomic_signal_fence(std::memory_order_release);
    detail::t_foreign_call = outer_;
    if (detail::g_watched_call != nullptr) *detail::g_watched_call = outer_ != nullptr ? *outer_ : ForeignCall{};
    if (detail::g_foreign_call_mirror != nullptr)
      detail::mirror_function(outer_ != nullptr ? outer_->function : nullptr);
  }
  /// The next call of the same foreign code, in the same scope.
  void now(const char* function) noexcept {
    call_.function = function;
    if (detail::g_watched_call != nullptr) detail::g_watched_call->function = function;
    if (detail::g_foreign_call_mirror != nullptr) detail::mirror_function(function);
  }
  ForeignCallScope(const ForeignCallScope&) = delete;
  ForeignCallScope& operator=(const ForeignCallScope&) = delete;

 private:
  ForeignCall call_;
  const ForeignCall* outer_;
};

/// The foreign call in flight on this thread (function == nullptr: none), copied.
ForeignCall current_foreign_call() noexcept;

/// A stream with bytes not yet on disk, saved by the handler on a fatal signal.
class EmergencyFlushable {
 public:
  virtual void emergency_flush() noexcept = 0;  ///< async-signal-safe (write(2) only)

 protected:
  ~EmergencyFlushable() = default;
};
void register_emergency_flush(EmergencyFlushable* stream) noexcept;
void unregister_emergency_flush(EmergencyFlushable* stream) noexcept;

/// In a child process serving systems (exec/process_executor.hpp): every foreign call's function
/// and time are also written to `shared` (memory the parent reads: function names are literals of
/// the one binary, at the same address in both processes).
void mirror_foreign_calls(ForeignCallMirror* shared) noexcept;
/// In a child process: the parent's streams and stats are the parent's to save, not the child's.
void forget_emergency_flushes() noexcept;

/// Fatal-signal handlers and the exit() guard. Idempotent. The handlers run on an alternate stack
/// (a stack overflow inside an FMU still gets its line).
void install_crash_handlers();
/// Whether install_crash_handlers ran in this process (the command line: yes; the Python module: no).
bool crash_handlers_installed() noexcept;
/// The handlers again, after foreign code that may have replaced them (an FMU installing its own
/// SIGSEGV handler at instantiation or initialization). Nothing before install_crash_handlers (a
/// test binary keeps its own handlers, a sanitizer's among them).
void rearm_crash_handlers() noexcept;
/// In a child process cosima forked: the fatal signals to cosima's handlers when installed, else to
/// their default actions, so that the child dies of the signal it got and its parent names it. A
/// handler the host process installed (PETSc's, in the Python module) would end it with an exit
/// status instead.
void own_fatal_signals() noexcept;

class OutputFile;
/// The run's stats file: on the fatal paths it is rewritten with {"terminated_early": true,
/// "error": …} and put in place, instead of being left empty. nullptr: none.
void register_emergency_stats(OutputFile* file) noexcept;
/// Every fatal path's duties, async-signal-safe: save the registered streams, write the emergency
/// stats with `why`, kill the children and remove the temporary directories (core/cleanup.hpp).
void end_abnormally(const char* why) noexcept;
/// Saves the registered streams' pending bytes (write(2) only).
void emergency_flush_streams() noexcept;

/// Formats "in fmi2DoStep of system 's' (FMU 'f') at t = 0.5" into buffer (no allocation).
std::size_t describe_foreign_call(const ForeignCall& call, char* buffer, std::size_t size) noexcept;

}  // namespace cosima
