#include "core/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/watcher.hpp"

namespace cosima {

namespace {

/// One registration: claimed by a compare-exchange on `owner` (0: free), then filled.
struct DirectorySlot {
  std::atomic<pid_t> owner{0};
  std::size_t index = 0;  ///< its place in the list, which the watcher's copy shares (core/watcher.hpp)
  std::atomic<bool> ready{false};
  std::array<char, PATH_MAX> path{};
};
struct ChildSlot {
  std::atomic<pid_t> owner{0};
  std::atomic<pid_t> pid{0};
};

/// Slots in blocks linked as they are needed; a block, once linked, stays for the process's life (a
/// handler may be walking it).
template <class Slot>
struct Block {
  static constexpr std::size_t kSlots = 64;
  std::array<Slot, kSlots> slots;
  std::atomic<Block*> next{nullptr};
};

Block<DirectorySlot> g_directories;
Block<ChildSlot> g_children;

/// Calls `visit` on every slot of the list until it returns true.
template <class Slot, class Visit>
bool each_slot(Block<Slot>& first, const Visit& visit) noexcept {
  for (Block<Slot>* block = &first; block != nullptr; block = block->next.load()) {
    for (Slot& slot : block->slots) {
      if (visit(slot)) return true;
    }
  }
  return false;
}

/// A free slot claimed for this process (owner set), a new block linked when none is free; nullptr
/// when no block can be allocated.
template <class Slot>
Slot* claim(Block<Slot>& first, std::size_t* index = nullptr) noexcept {
  const pid_t self = getpid();
  for (std::pair<Block<Slot>*, std::size_t> at{&first, 0};; at.second += Block<Slot>::kSlots) {
    Block<Slot>* block = at.first;
    for (std::size_t i = 0; i < Block<Slot>::kSlots; ++i) {
      pid_t free = 0;
      if (!block->slots[i].owner.compare_exchange_strong(free, self)) continue;
      if (index != nullptr) *index = at.second + i;
      return &block->slots[i];
    }
    Block<Slot>* next = block->next.load();
    if (next == nullptr) {
      auto* fresh = new (std::nothrow) Block<Slot>();
      if (fresh == nullptr) return nullptr;
      if (block->next.compare_exchange_strong(next, fresh)) {
        next = fresh;
      } else {
        delete fresh;  // another thread linked one first: `next` is it
      }
    }
    at.first = next;
  }
}

/// The layout getdents64 fills (linux_dirent64).
struct DirectoryEntry {
  ino64_t inode;
  off64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

constexpr int kMaxDepth = 24;  ///< an unpacked FMU's tree is a few levels deep; deeper is left

/// Removes what `directory` (an open descriptor) holds, then nothing else: the caller unlinks it.
void remove_contents(int directory, int depth) noexcept {
  alignas(8) char buffer[2048];
  for (;;) {
    const long read = syscall(SYS_getdents64, directory, buffer, sizeof buffer);
    if (read <= 0) return;
    bool removed_any = false;
    for (long at = 0; at < read;) {
      const auto* entry = reinterpret_cast<const DirectoryEntry*>(buffer + at);  // NOLINT: the kernel's layout
      at += entry->length;
      const char* name = entry->name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      if (entry->type == DT_DIR && depth < kMaxDepth) {
        const int sub = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
          remove_contents(sub, depth + 1);
          close(sub);
        }
        removed_any = unlinkat(directory, name, AT_REMOVEDIR) == 0 || removed_any;
      } else {
        removed_any = unlinkat(directory, name, 0) == 0 || removed_any;
      }
    }
    // entries removed while reading: start over from the beginning for whatever is left
    if (removed_any)
      lseek(directory, 0, SEEK_SET);
    else
      return;
  }
}

}  // namespace

void remove_tree(const char* path) noexcept {
  const int directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (directory < 0) return;
  remove_contents(directory, 0);
  close(directory);
  rmdir(path);
}

bool register_temporary_directory(const char* path) noexcept {
  const std::size_t length = std::strlen(path);
  if (length + 1 > PATH_MAX) return false;
  std::size_t index = 0;
  DirectorySlot* slot = claim(g_directories, &index);
  if (slot == nullptr) return false;
  std::memcpy(slot->path.data(), path, length + 1);
  slot->index = index;
  slot->ready.store(true);
  watch_directory(index, path);
  return true;
}

void unregister_temporary_directory(const char* path) noexcept {
  const pid_t self = getpid();
  each_slot(g_directories, [&](DirectorySlot& slot) {
    if (slot.owner.load() != self || !slot.ready.load() || std::strcmp(slot.path.data(), path) != 0) return false;
    unwatch_directory(slot.index);
    slot.ready.store(false);
    slot.owner.store(0);
    return true;
  });
}

bool register_child(pid_t pid) noexcept {
  ChildSlot* slot = claim(g_children);
  if (slot == nullptr) return false;
  slot->pid.store(pid);
  return true;
}

void unregister_child(pid_t pid) noexcept {
  const pid_t self = getpid();
  each_slot(g_children, [&](ChildSlot& slot) {
    if (slot.owner.load() != self || slot.pid.load() != pid) return false;
    slot.pid.store(0);
    slot.owner.store(0);
    return true;
  });
}

std::filesystem::path temporary_root() {
  const char* tmpdir = std::getenv("TMPDIR");
  const bool given = tmpdir != nullptr && *tmpdir != '\0';
  std::filesystem::path root = given ? tmpdir : "/tmp";
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) {
    throw Error(fmt::format("{}'{}' is not a folder, and cosima unpacks FMUs there; {}", given ? "TMPDIR=" : "",
                            root.string(), given ? "set TMPDIR to a writable folder" : "create it"));
  }
  return root;
}

std::filesystem::path make_temporary_directory(const std::string& prefix) {
  start_watcher();  // removes the directory when this process dies past its own handlers
  std::string pattern = (temporary_root() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error(fmt::format("cannot create a temporary folder {}: {}", pattern, std::strerror(errno)));
  }
  if (!register_temporary_directory(pattern.c_str())) {
    std::error_code ignored;
    std::filesystem::remove(pattern, ignored);
    throw Error(
        fmt::format("cannot register the temporary folder {} for removal on a fatal exit (out of memory)", pattern));
  }
  return pattern;
}

void emergency_cleanup() noexcept {
  const pid_t self = getpid();
  each_slot(g_children, [&](ChildSlot& slot) {
    const pid_t pid = slot.pid.load();
    if (slot.owner.load() == self && pid > 0) kill(pid, SIGKILL);  // all killed first, then all reaped
    return false;
  });
  each_slot(g_children, [&](ChildSlot& slot) {
    const pid_t pid = slot.pid.load();
    if (slot.owner.load() != self || pid <= 0) return false;
    int status = 0;
    waitpid(pid, &status, 0);
    slot.pid.store(0);
    slot.owner.store(0);
    return false;
  });
  each_slot(g_directories, [&](DirectorySlot& slot) {
    if (slot.owner.load() != self || !slot.ready.load()) return false;
    remove_tree(slot.path.data());
    unwatch_directory(slot.index);
    slot.ready.store(false);
    slot.owner.store(0);
    return false;
  });
}

}  // namespace cosima
