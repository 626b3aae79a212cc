#pragma once
// The process executor: every system runs in a child process of its own (or systems are dealt to
// N processes), so that an FMU that crashes, aborts, calls exit() or hangs takes down only its
// process (libcosim's proxyfmu, fmigo). Orders and replies, in the wire format of every
// out-of-process executor (exec/protocol.hpp), one frame per batch and process, cross a mailbox in
// shared memory woken by futexes (exec/shm_mailbox.hpp); a socket pair carries the frames too long
// for it and tells each side when the other is gone. A frame of length 0 shuts a process down.
//
// A child that dies (signal, exit) or does not answer within the per-call timeout ends the run with
// an Error naming the system, the FMU file, the FMI call in flight (mirrored into memory shared
// with the child), the signal or exit status, and the simulation time. The child's private TMPDIR,
// where its FMUs unpack, is removed whatever happened. Results are bitwise those of the sequential
// executor: the arithmetic is the same, only the address space differs.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/crash.hpp"
#include "exec/executor.hpp"
#include "exec/protocol.hpp"
#include "exec/shm_mailbox.hpp"
#include "exec/system_catalog.hpp"

namespace cosima::exec {

struct ProcessOptions {
  int processes = 0;     ///< 0: one per system; else the systems are dealt to this many processes
  double timeout = 0.0;  ///< seconds a process may take to answer a batch; 0: no limit
};

class ProcessExecutor final : public RemoteExecutor {
 public:
  /// Forks the processes, which build their systems from the catalog and describe them. Throws
  /// Error when one cannot (every process is then shut down). `catalog` must outlive the executor.
  ProcessExecutor(const SystemCatalog& catalog, ProcessOptions options);
  ~ProcessExecutor() override;
  ProcessExecutor(const ProcessExecutor&) = delete;
  ProcessExecutor& operator=(const ProcessExecutor&) = delete;

  [[nodiscard]] std::string name() const override;
  using Executor::execute;
  void execute(Batch& batch) override;
  [[nodiscard]] std::string place(int system) const override;
  /// Shuts every process down; names those that died on the way (their systems, the signal, the
  /// call in flight).
  [[nodiscard]] std::string finish() override;

 private:
  /// What a child shares with the parent: the system carrying out an order, the FMI call in flight.
  struct SharedPage {
    int system = -1;
    ForeignCallMirror call;
  };
  struct Child {
    pid_t pid = -1;
    int socket = -1;
    std::string temporary;          ///< the child's TMPDIR
    SharedPage* shared = nullptr;   ///< mmap'ed, MAP_SHARED
    ShmMailbox* mailbox = nullptr;  ///< the orders and replies (exec/shm_mailbox.hpp)
    ShmMailbox::Cursor reply;       ///< the replies read, kept here and not in the shared mapping
    std::vector<int> systems;
    std::vector<char> frame;  ///< outgoing orders of the current batch
  };

  [[nodiscard]] int child_of(int system) const { return child_of_system_[static_cast<std::size_t>(system)]; }
  /// Reads one frame from child k into buffer_; on death or timeout, kills everything and throws.
  void receive(int k);
  void send(int k, const std::vector<char>& frame);
  [[noreturn]] void fail(int k, const std::string& what);
  /// Stops and reaps every process; with `report`, returns what those that did not exit cleanly
  /// died of.
  std::string shut_down(bool report);
  /// Who runs in child k, for messages: "system 's' (FMU 'f')".
  [[nodiscard]] std::string who(int k) const;
  /// " in fmi2DoStep at t = 0.5" when child k's mirror shows a foreign call in flight, else "".
  [[nodiscard]] std::string during(int k) const;

  const SystemCatalog& catalog_;
  ProcessOptions options_;
  std::vector<Child> children_;
  std::vector<int> child_of_system_;
  std::vector<std::vector<char>> frames_;  ///< per child, this batch
  std::vector<char> buffer_;
  bool running_ = false;
};

}  // namespace cosima::exec
