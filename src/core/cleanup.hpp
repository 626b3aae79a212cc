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

#include <filesystem>
#include <string>

namespace cosima {

/// The registrations have no fixed cap: slots come in blocks, a new block allocated (outside any signal
/// handler) when every slot is taken; the fatal paths only walk them. A registration returns false
/// only when it cannot be remembered — no memory for a block, or a path longer than PATH_MAX — and
/// the caller refuses to go on (what it made would outlive a fatal exit).
[[nodiscard]] bool register_temporary_directory(const char* path) noexcept;
void unregister_temporary_directory(const char* path) noexcept;
[[nodiscard]] bool register_child(pid_t pid) noexcept;
void unregister_child(pid_t pid) noexcept;

/// Where temporary files go: $TMPDIR when set, else /tmp. Throws Error naming TMPDIR when it is not a
/// folder (std::filesystem would throw its own exception, which no message of cosima's names).
std::filesystem::path temporary_root();
/// A new folder temporary_root()/PREFIX-XXXXXX (mkdtemp), registered; throws Error naming the folder
/// when it cannot be made or registered.
std::filesystem::path make_temporary_directory(const std::string& prefix);

/// Removes `path` and what it holds, links not followed (24 levels deep at most). Async-signal-safe.
void remove_tree(const char* path) noexcept;

/// Kills (SIGKILL) and reaps this process's registered children, then removes its registered
/// temporary directories. Async-signal-safe; idempotent.
void emergency_cleanup() noexcept;

}  // namespace cosima
