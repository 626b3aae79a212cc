#include "core/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstring>

namespace cosima {

namespace {

/// One registration: claimed by a compare-exchange on `owner` (0: free), then filled.
struct DirectorySlot {
  std::atomic<pid_t> owner{0};
  std::atomic<bool> ready{false};
  std::array<char, PATH_MAX> path{};
};
struct ChildSlot {
  std::atomic<pid_t> owner{0};
  std::atomic<pid_t> pid{0};
};

std::array<DirectorySlot, kMaxRegistered> g_directories;
std::array<ChildSlot, kMaxRegistered> g_children;

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

void remove_tree(const char* path) noexcept {
  const int directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (directory < 0) return;
  remove_contents(directory, 0);
  close(directory);
  rmdir(path);
}

}  // namespace

void register_temporary_directory(const char* path) noexcept {
  const std::size_t length = std::strlen(path);
  if (length + 1 > PATH_MAX) return;
  for (DirectorySlot& slot : g_directories) {
    pid_t free = 0;
    if (!slot.owner.compare_exchange_strong(free, getpid())) continue;
    std::memcpy(slot.path.data(), path, length + 1);
    slot.ready.store(true);
    return;
  }
}

void unregister_temporary_directory(const char* path) noexcept {
  const pid_t self = getpid();
  for (DirectorySlot& slot : g_directories) {
    if (slot.owner.load() != self || !slot.ready.load() || std::strcmp(slot.path.data(), path) != 0) continue;
    slot.ready.store(false);
    slot.owner.store(0);
  }
}

void register_child(pid_t pid) noexcept {
  for (ChildSlot& slot : g_children) {
    pid_t free = 0;
    if (!slot.owner.compare_exchange_strong(free, getpid())) continue;
    slot.pid.store(pid);
    return;
  }
}

void unregister_child(pid_t pid) noexcept {
  const pid_t self = getpid();
  for (ChildSlot& slot : g_children) {
    if (slot.owner.load() != self || slot.pid.load() != pid) continue;
    slot.pid.store(0);
    slot.owner.store(0);
  }
}

void emergency_cleanup() noexcept {
  const pid_t self = getpid();
  for (ChildSlot& slot : g_children) {
    const pid_t pid = slot.pid.load();
    if (slot.owner.load() != self || pid <= 0) continue;
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    slot.pid.store(0);
    slot.owner.store(0);
  }
  for (DirectorySlot& slot : g_directories) {
    if (slot.owner.load() != self || !slot.ready.load()) continue;
    remove_tree(slot.path.data());
    slot.ready.store(false);
    slot.owner.store(0);
  }
}

}  // namespace cosima
