#pragma once
// What a process must undo however it ends: the temporary directories it made (unpacked FMUs and
// SSP packages) and the child processes it started (--executor processes). The normal paths undo
// them in destructors; the fatal paths — a fatal signal, an exit() inside an FMU, a forced exit by a
// second SIGINT — call emergency_cleanup(), which is async-signal-safe: no allocation, only
// kill/waitpid/openat/getdents64/unlinkat/close.
//
//   register_temporary_directory(path)   after mkdtemp; unregister before removing it normally
//   register_child(pid)                  after fork;    unregister once it is reaped
//
// A registration belongs to the process that made it: a forked child that dies never removes its
// parent's directories nor kills its siblings.
#include <sys/types.h>

namespace cosima {

/// At most kMaxRegistered of each are remembered (the rest are still removed by their destructors).
inline constexpr int kMaxRegistered = 256;

void register_temporary_directory(const char* path) noexcept;
void unregister_temporary_directory(const char* path) noexcept;
void register_child(pid_t pid) noexcept;
void unregister_child(pid_t pid) noexcept;

/// Kills (SIGKILL) and reaps this process's registered children, then removes its registered
/// temporary directories. Async-signal-safe; idempotent.
void emergency_cleanup() noexcept;

}  // namespace cosima
