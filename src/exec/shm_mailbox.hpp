#pragma once
// A request/reply mailbox between the process executor and one of its forked processes, in a
// MAP_SHARED mapping made before the fork: the frames of orders and replies (exec/protocol.hpp)
// travel through memory instead of a socket, and each side wakes the other with a futex.
//
// One direction ("slot") holds one frame at a time:
//   post(frame)   copies it in (a frame longer than kCapacity says "on the socket" and the caller
//                 sends it there), then publishes it: sequence += 1 (release), and FUTEX_WAKE only
//                 when the other side sleeps (its `sleeping` flag);
//   wait(...)     polls the sequence kYields times, yielding the core between polls, then sleeps in
//                 FUTEX_WAIT for `slice` at a time; between slices it asks `alive()` (the caller: is
//                 the peer still there, is a deadline past) and gives up with its answer.
// The socket stays: it carries the first descriptions and the frames too long for a slot, and its
// closing still tells each side that the other is gone.
// Call order: create() before fork; parent: post_request, wait_reply, read the reply; child:
// wait_request, read the request, post_reply; destroy() after the child is reaped.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cosima::exec {

class ShmMailbox {
 public:
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;  ///< bytes per frame in memory
  /// Polls, with sched_yield() between them, before sleeping. Yielding rather than spinning: with
  /// more processes than cores (two FMU processes and the master on 2 cores) a spinning waiter holds
  /// the core its peer needs.
  static constexpr int kYields = 1000;

  /// A mapping shared with the processes forked after it; throws Error when it cannot be made.
  static ShmMailbox* create();
  /// Unmaps it (in the process that calls it).
  static void destroy(ShmMailbox* mailbox);

  /// Why wait() stopped.
  enum class Waited : std::uint8_t { frame, on_socket, gave_up };
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

  // parent side
  /// false: the frame is too long for memory; send it on the socket (the slot says so).
  bool post_request(const std::vector<char>& frame) { return post(request_, frame); }
  Waited wait_reply(std::vector<char>& frame, std::chrono::milliseconds slice, const Alive& alive) {
    return wait(reply_, frame, slice, alive);
  }
  // child side
  Waited wait_request(std::vector<char>& frame, std::chrono::milliseconds slice, const Alive& alive) {
    return wait(request_, frame, slice, alive);
  }
  bool post_reply(const std::vector<char>& frame) { return post(reply_, frame); }

 private:
  struct Slot {
    std::atomic<std::uint32_t> sequence{0};  ///< the futex word: +1 per frame posted
    std::atomic<std::uint32_t> sleeping{0};  ///< the reader sleeps in FUTEX_WAIT
    std::uint32_t read = 0;                  ///< the reader's last sequence (the reader's own)
    std::uint64_t size = 0;                  ///< kOnSocket: the frame went by the socket
    char data[kCapacity];
  };
  static constexpr std::uint64_t kOnSocket = ~std::uint64_t{0};

  static bool post(Slot& slot, const std::vector<char>& frame);
  static Waited wait(Slot& slot, std::vector<char>& frame, std::chrono::milliseconds slice, const Alive& alive);

  Slot request_, reply_;
};

}  // namespace cosima::exec
