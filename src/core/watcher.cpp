#include "core/watcher.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "core/cleanup.hpp"
#include "core/crash.hpp"
#include "core/error.hpp"

namespace cosima {

namespace {

/// The texts behind one FMU instance's pointers (watch_names).
struct WatchedNames {
  std::atomic<bool> taken{false};         ///< claimed by watch_names, which then fills it
  std::atomic<const char*> key{nullptr};  ///< the system name's address in the watched process; set last
  std::array<char, 96> system{};
  std::array<char, 320> file{};
};

/// Memory shared by the watched process (writes) and its watcher (reads, after the writer died).
struct WatchedProcess {
  static constexpr std::size_t kNames = 256;  ///< instances past these are named "a system"
  std::atomic<int> settled{0};
  int handlers = 0;  ///< crash_handlers_installed() at the fork
  ForeignCall call;
  std::array<WatchedNames, kNames> names;
};

WatchedProcess* g_page = nullptr;  ///< in the watched process, until leave_watcher
int g_pipe = -1;                   ///< the write end, which the watched process alone holds
int g_directory_records = -1;      ///< the memfd of the directories to remove (watcher.hpp)
bool g_forgone = false;
pid_t g_watcher = 0;  ///< the watcher's pid, in the process that forked it
pid_t g_owner = 0;    ///< that process

/// At a normal exit: the watcher told to stay silent, its pipe closed, and the watcher reaped — no
/// process is left behind the run.
extern "C" void end_watcher_at_exit() {
  if (g_page == nullptr || getpid() != g_owner) return;
  settle_watcher();
  close(g_pipe);
  g_pipe = -1;
  int status = 0;
  while (waitpid(g_watcher, &status, 0) < 0 && errno == EINTR) {
  }
}

template <std::size_t N>
void copy_text(std::array<char, N>& to, const char* from) noexcept {
  std::size_t i = 0;
  for (; from != nullptr && i + 1 < N && from[i] != '\0'; ++i) to[i] = from[i];
  to[i] = '\0';
}

// --- the watcher's side: only async-signal-safe calls (it is a fork of a process that may run threads)

struct Line {
  std::array<char, 1400> text{};
  std::size_t at = 0;
  void add(const char* s) noexcept {
    while (s != nullptr && *s != '\0' && at + 2 < text.size()) {
      const auto c = static_cast<unsigned char>(*s++);
      text[at++] = c < 0x20 || c == 0x7F ? '?' : static_cast<char>(c);
    }
  }
  void add_number(long long n) noexcept {
    char digits[24];
    int k = 0;
    const bool negative = n < 0;
    unsigned long long u = negative ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
    do {
      digits[k++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u > 0 && k < 22);
    if (negative) digits[k++] = '-';
    char number[24];
    int j = 0;
    while (k > 0) number[j++] = digits[--k];
    number[j] = '\0';
    add(number);
  }
};

/// The function name at `address` in the watcher's own memory (a literal of the binary, mapped at the
/// same address in both processes), copied through process_vm_readv so that a pointer the FMU wrote
/// over faults nowhere; "" when unreadable.
void read_own_text(const char* address, char* out, std::size_t size) noexcept {
  out[0] = '\0';
  if (address == nullptr) return;
  for (std::size_t i = 0; i + 1 < size; ++i) {
    char c = 0;
    iovec local{&c, 1};
    iovec remote{const_cast<char*>(address + i), 1};  // NOLINT: the call reads, the type is the kernel's
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) {
      out[0] = '\0';
      return;
    }
    out[i] = c;
    if (c == '\0') return;
  }
  out[size - 1] = '\0';
}

/// The wait status of the process whose /proc/PID/stat is open at `stat` (field 52, exit_code, set when
/// its exit began); -1 when no longer readable (its parent reaped it).
int exit_status(int stat) noexcept {
  char buffer[4096];
  const ssize_t n = pread(stat, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return -1;
  buffer[n] = '\0';
  const char* p = std::strrchr(buffer, ')');
  if (p == nullptr) return -1;
  int field = 2;  // ")" ends field 2 (comm)
  for (++p; *p != '\0'; ++p) {
    if (*p != ' ') continue;
    if (++field == 52) {
      long long value = 0;
      for (++p; *p >= '0' && *p <= '9'; ++p) value = value * 10 + (*p - '0');
      return static_cast<int>(value);
    }
  }
  return -1;
}

/// "died of SIGSEGV", "was killed by SIGKILL", "exited with status 3" or "ended"; whether the signal is
/// one the crash handlers catch.
bool describe_end(Line& line, int status) noexcept {
  if (status >= 0 && WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const bool fatal =
        signal == SIGSEGV || signal == SIGBUS || signal == SIGFPE || signal == SIGILL || signal == SIGABRT;
    line.add(fatal ? "died of SIG" : "was killed by SIG");
    const char* name = sigabbrev_np(signal);
    line.add(name != nullptr ? name : "?");
    return fatal;
  }
  if (status >= 0 && WIFEXITED(status)) {
    line.add("exited with status ");
    line.add_number(WEXITSTATUS(status));
    return false;
  }
  line.add("ended");
  return false;
}

/// Waits for end of file on `pipe`, then does the watcher's duties (watcher.hpp) and exits.
[[noreturn]] void watch(const WatchedProcess& page, int pipe, int stat, pid_t watched, int directories) noexcept {
  char byte = 0;
  while (read(pipe, &byte, 1) != 0) {
    if (errno != EINTR) break;
  }
  const int status = exit_status(stat);
  const ForeignCall call = page.call;
  if (page.settled.load() == 0 && call.function != nullptr) {
    Line line;
    line.add("cosima: fatal: process ");
    line.add_number(watched);
    line.add(" ");
    const bool fatal = describe_end(line, status);
    char function[64];
    read_own_text(call.function, function, sizeof function);
    const WatchedNames* names = nullptr;
    for (const WatchedNames& n : page.names) {
      if (call.system != nullptr && n.key.load() == call.system) names = &n;
    }
    char where[1024];
    const ForeignCall copy{names != nullptr ? names->system.data() : "(not recorded)",
                           names != nullptr ? names->file.data() : "?", function[0] != '\0' ? function : "a call",
                           call.time};
    (void)describe_foreign_call(copy, where, sizeof where);  // "in F of system 'S' (FMU 'P') at t = T"
    line.add(" ");
    line.add(where);
    if (fatal && page.handlers != 0) line.add(", past cosima's crash handler, which the FMU had replaced");
    line.add("; seen by cosima's watcher: the unpacked FMUs were removed, rows not yet written are lost");
    line.text[line.at++] = '\n';
    (void)!write(STDERR_FILENO, line.text.data(), line.at);
  }
  char path[PATH_MAX];
  for (off_t at = 0; pread(directories, path, sizeof path, at) == static_cast<ssize_t>(sizeof path);
       at += static_cast<off_t>(sizeof path)) {
    path[sizeof path - 1] = '\0';
    if (path[0] == '/') remove_tree(path);
  }
  _exit(0);
}

/// Everything but stderr and `keep` closed (its descriptors are 3, 4, … on return, in order); stdin
/// and stdout on /dev/null.
template <std::size_t N>
void keep_only(std::array<int, N>& keep) noexcept {
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
  }
  // first copied above 3 + N (clear of the places they go to), then to 3, 4, …; the copies go below
  constexpr int kFirst = 3;
  for (std::size_t i = 0; i < N; ++i) keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, kFirst + static_cast<int>(N));
  for (std::size_t i = 0; i < N; ++i) {
    const int place = kFirst + static_cast<int>(i);
    keep[i] = keep[i] >= 0 && dup3(keep[i], place, O_CLOEXEC) >= 0 ? place : -1;
  }
  close_range(3 + static_cast<unsigned>(N), ~0U, 0);
}

}  // namespace

void start_watcher() {
  if (g_page != nullptr || g_forgone) return;
  void* memory = mmap(nullptr, sizeof(WatchedProcess), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    throw Error(fmt::format("cannot map the page of cosima's watcher: {}", std::strerror(errno)));
  auto* page = new (memory) WatchedProcess();
  page->handlers = crash_handlers_installed() ? 1 : 0;
  const pid_t watched = getpid();
  const std::string stat_path = fmt::format("/proc/{}/stat", watched);
  std::array<int, 3> keep{-1, -1, -1};  // the pipe's read end, the stat file, the directories
  int ends[2] = {-1, -1};
  keep[1] = open(stat_path.c_str(), O_RDONLY | O_CLOEXEC);
  keep[2] = memfd_create("cosima-temporary-directories", MFD_CLOEXEC);
  const auto failed = [&](const char* what) {
    const int error = errno;
    for (const int fd : {ends[0], ends[1], keep[1], keep[2]}) {
      if (fd >= 0) close(fd);
    }
    munmap(memory, sizeof(WatchedProcess));
    throw Error(
        fmt::format("cannot start cosima's watcher, which removes the unpacked FMUs however the process "
                    "ends: {}: {}",
                    what, std::strerror(error)));
  };
  if (keep[1] < 0) failed(stat_path.c_str());
  if (keep[2] < 0) failed("memfd_create");
  if (pipe2(ends, O_CLOEXEC) != 0) failed("pipe2");
  keep[0] = ends[0];
  std::fflush(nullptr);  // nothing buffered twice
  const pid_t pid = fork();
  if (pid < 0) failed("fork");
  if (pid == 0) {
    prctl(PR_SET_NAME, "cosima-watcher");
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2}) std::signal(signal, SIG_IGN);
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, SIG_DFL);
    keep_only(keep);
    watch(*page, keep[0], keep[1], watched, keep[2]);
  }
  close(ends[0]);
  close(keep[1]);
  g_watcher = pid;
  g_owner = watched;
  std::atexit(end_watcher_at_exit);
  g_pipe = ends[1];
  g_directory_records = keep[2];
  g_page = page;
  detail::g_watched_call = &page->call;
}

void watch_directory(std::size_t slot, const char* path) noexcept {
  if (g_directory_records < 0) return;
  char record[PATH_MAX] = {};
  for (std::size_t i = 0; i + 1 < sizeof record && path[i] != '\0'; ++i) record[i] = path[i];
  (void)!pwrite(g_directory_records, record, sizeof record, static_cast<off_t>(slot * sizeof record));
}

void unwatch_directory(std::size_t slot) noexcept {
  if (g_directory_records < 0) return;
  const char none = '\0';
  (void)!pwrite(g_directory_records, &none, 1, static_cast<off_t>(slot * PATH_MAX));
}

void watch_names(const char* system, const char* file) noexcept {
  if (g_page == nullptr || system == nullptr) return;
  for (WatchedNames& names : g_page->names) {
    bool free = false;
    if (!names.taken.compare_exchange_strong(free, true)) continue;
    copy_text(names.system, system);
    copy_text(names.file, file);
    names.key.store(system);
    return;
  }
}

void forget_names(const char* system) noexcept {
  if (g_page == nullptr || system == nullptr) return;
  for (WatchedNames& names : g_page->names) {
    const char* expected = system;
    if (names.key.compare_exchange_strong(expected, nullptr)) {
      names.taken.store(false);
      return;
    }
  }
}

void settle_watcher() noexcept {
  if (g_page != nullptr) g_page->settled.store(1);
}

void leave_watcher() noexcept {
  g_forgone = true;  // nor one of its own
  if (g_page == nullptr) return;
  detail::g_watched_call = nullptr;
  munmap(g_page, sizeof(WatchedProcess));
  g_page = nullptr;
  close(g_pipe);
  g_pipe = -1;
  close(g_directory_records);
  g_directory_records = -1;
}

void forgo_watcher() noexcept { g_forgone = true; }

}  // namespace cosima
