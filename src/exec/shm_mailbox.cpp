#include "exec/shm_mailbox.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::exec {

namespace {

// FUTEX_WAIT / FUTEX_WAKE without FUTEX_PRIVATE_FLAG: the word is shared between processes
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::milliseconds slice) {
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(slice.count() / 1000);
  timeout.tv_nsec = static_cast<long>((slice.count() % 1000) * 1000000);
  (void)syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &timeout, nullptr, 0);
}

void futex_wake(std::atomic<std::uint32_t>& word) {
  (void)syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

}  // namespace

static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "a futex word shared between processes");

int ShmMailbox::yields_for(int processes) {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 || static_cast<unsigned>(processes) + 1 > cores ? 0 : kYields;
}

ShmMailbox* ShmMailbox::create() {
  void* page = mmap(nullptr, sizeof(ShmMailbox), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw Error(fmt::format("cannot map a shared mailbox: {}", std::strerror(errno)));
  return new (page) ShmMailbox();
}

void ShmMailbox::destroy(ShmMailbox* mailbox) {
  if (mailbox == nullptr) return;
  mailbox->~ShmMailbox();
  munmap(mailbox, sizeof(ShmMailbox));
}

bool ShmMailbox::post(Slot& slot, const std::vector<char>& frame) {
  const bool fits = frame.size() <= kCapacity;
  if (fits) {
    if (!frame.empty()) std::memcpy(slot.data, frame.data(), frame.size());
    slot.size.store(frame.size(), std::memory_order_relaxed);
  } else {
    slot.size.store(kOnSocket, std::memory_order_relaxed);
  }
  // seq_cst on both sides (sequence then sleeping here, sleeping then sequence in wait): either the
  // reader sees the new sequence before sleeping, or this side sees it asleep and wakes it
  slot.sequence.fetch_add(1, std::memory_order_seq_cst);
  if (slot.sleeping.load(std::memory_order_seq_cst) != 0) futex_wake(slot.sequence);
  return fits;
}

ShmMailbox::Waited ShmMailbox::wait(Slot& slot, Cursor& cursor, std::vector<char>& frame,
                                    std::chrono::milliseconds slice, const Alive& alive) {
  const std::uint32_t read = cursor.read;
  bool posted = false;
  for (int round = 0; round < cursor.yields && !posted; ++round) {
    posted = slot.sequence.load(std::memory_order_acquire) != read;
    if (!posted) sched_yield();
  }
  if (!posted) {
    slot.sleeping.store(1, std::memory_order_seq_cst);
    while (slot.sequence.load(std::memory_order_seq_cst) == read) {
      futex_wait(slot.sequence, read, slice);
      if (slot.sequence.load(std::memory_order_seq_cst) != read) break;
      if (!alive()) {
        slot.sleeping.store(0, std::memory_order_relaxed);
        return Waited::gave_up;
      }
    }
    slot.sleeping.store(0, std::memory_order_relaxed);
  }
  // one frame per request: the next sequence, and a size the slot can hold, or the frame is refused
  const std::uint32_t sequence = slot.sequence.load(std::memory_order_acquire);
  const std::uint64_t size = slot.size.load(std::memory_order_relaxed);
  if (sequence != read + 1 || (size > kCapacity && size != kOnSocket)) {
    cursor.fault = {.sequence = sequence, .expected = read + 1, .size = size};
    return Waited::malformed;
  }
  cursor.read = sequence;
  if (size == kOnSocket) return Waited::on_socket;
  frame.assign(slot.data, slot.data + size);
  return Waited::frame;
}

}  // namespace cosima::exec
