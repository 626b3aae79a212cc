#pragma once
// A request/reply mailbox between the process executor and one of its forked processes, in a
// MAP_SHARED mapping made before the fork: the frames of orders and replies (exec/protocol.hpp)
// travel through memory instead of a socket, and each side wakes the other with a futex.
//
// One direction ("slot") holds one frame at a time:
//   post(frame)   copies it in (a frame longer than kCapacity says "on the socket" and the caller
//                 sends it there), then publishes it: sequence += 1 (release), and FUTEX_WAKE only
//                 when the other side sleeps (its `sleeping` flag);
//   wait(...)     polls the sequence `yields` times (the reader's cursor), yielding the core between polls, then sleeps
//   in
//                 FUTEX_WAIT for `slice` at a time; between slices it asks `alive()` (the caller: is
//                 the peer still there, is a deadline past) and gives up with its answer.
// The other side is trusted for nothing: the reader keeps its own count of the frames it read (not in
// the shared page), and a frame whose sequence is not the next one or whose size exceeds kCapacity
// is `malformed` — a stray write of the FMU in the other process, reported, never copied.
// The socket stays: it carries the first descriptions and the frames too long for a slot, and its
// closing still tells each side that the other is gone.
// Call order: create() before fork; parent: post_request, wait_reply, read the reply; child:
// wait_request, read the request, post_reply; destroy() after the child is reaped (and, in each
// child, on every mailbox that is not its own).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cosima::exec {

class ShmMailbox {
 public:
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;  ///< bytes per frame in memory
  /// Polls, with sched_yield() between them, before sleeping, when every process has a core to
  /// itself. Yielding rather than spinning: a spinning waiter holds the core its peer needs. With more
  /// processes than cores (yields_for), a waiter sleeps at once: hundreds of yielding waiters keep
  /// every core's run queue full.
  static constexpr int kYields = 1000;
  /// kYields when `processes` (the master's children) and the master each have a core; else 0.
  static int yields_for(int processes);

  /// A mapping shared with the processes forked after it; throws Error when it cannot be made.
  static ShmMailbox* create();
  /// Unmaps it (in the process that calls it).
  static void destroy(ShmMailbox* mailbox);

  /// Why wait() stopped.
  enum class Waited : std::uint8_t { frame, on_socket, gave_up, malformed };
  /// What a malformed frame was, for the message that names the process.
  struct Fault {
    std::uint32_t sequence = 0;  ///< found in the slot
    std::uint32_t expected = 0;  ///< the reader's next
    std::uint64_t size = 0;      ///< found in the slot
  };
  /// The peer's liveness between sleeps (true: go on waiting): a callable referred to, not copied,
  /// so that a wait allocates nothing whatever the callable captures. It must outlive the wait.
  class Alive {
   public:
    template <class F>
    Alive(const F& f)  // implicit: a lambda is passed where an Alive is asked
        : callable_(&f), call_([](const void* callable) { return (*static_cast<const F*>(callable))(); }) {}
    bool operator()() const { return call_(callable_); }

   private:
    const void* callable_;
    bool (*call_)(const void*);
  };

  /// The reader's own count of the frames it has read from one slot: kept in the reader's memory.
  struct Cursor {
    std::uint32_t read = 0;
    int yields = kYields;  ///< polls before sleeping (yields_for)
    Fault fault;           ///< set when a wait returns malformed
  };

  // parent side
  /// false: the frame is too long for memory; send it on the socket (the slot says so).
  bool post_request(const std::vector<char>& frame) { return post(request_, frame); }
  Waited wait_reply(Cursor& cursor, std::vector<char>& frame, std::chrono::milliseconds slice, const Alive& alive) {
    return wait(reply_, cursor, frame, slice, alive);
  }
  // child side
  Waited wait_request(Cursor& cursor, std::vector<char>& frame, std::chrono::milliseconds slice, const Alive& alive) {
    return wait(request_, cursor, frame, slice, alive);
  }
  bool post_reply(const std::vector<char>& frame) { return post(reply_, frame); }

 private:
  struct Slot {
    std::atomic<std::uint32_t> sequence{0};  ///< the futex word: +1 per frame posted
    std::atomic<std::uint32_t> sleeping{0};  ///< the reader sleeps in FUTEX_WAIT
    std::atomic<std::uint64_t> size{0};      ///< kOnSocket: the frame went by the socket
    char data[kCapacity];
  };
  /// Just past the capacity, not all ones: memory a stray write filled with 0xFF reads as malformed.
  static constexpr std::uint64_t kOnSocket = kCapacity + 1;

  static bool post(Slot& slot, const std::vector<char>& frame);
  Waited wait(Slot& slot, Cursor& cursor, std::vector<char>& frame, std::chrono::milliseconds slice,
              const Alive& alive);

  Slot request_, reply_;
};

}  // namespace cosima::exec
