#include "exec/process_executor.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "core/cleanup.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "core/watcher.hpp"

namespace cosima::exec {

namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool send_frame(int fd, const std::vector<char>& bytes) {
  const auto length = static_cast<std::uint64_t>(bytes.size());
  return write_all(fd, reinterpret_cast<const char*>(&length), sizeof length) &&
         write_all(fd, bytes.data(), bytes.size());
}

enum class Received : std::uint8_t { frame, closed, timeout, malformed, interrupted };

/// The longest frame a socket may announce: a process's descriptions or a batch's replies are far
/// shorter; a longer length is a stray write, not a frame (and not an allocation of that size).
constexpr std::uint64_t kMaxSocketFrame = std::uint64_t{1} << 30;

/// Reads exactly `size` bytes before the deadline (none: wait for ever).
Received read_all(int fd, char* data, std::size_t size, std::optional<Clock::time_point> deadline) {
  while (size > 0) {
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return Received::timeout;
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Received::timeout;
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Received::closed;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return Received::frame;
}

Received read_frame(int fd, std::vector<char>& bytes, std::optional<Clock::time_point> deadline) {
  std::uint64_t length = 0;
  if (const Received r = read_all(fd, reinterpret_cast<char*>(&length), sizeof length, deadline);
      r != Received::frame) {
    return r;
  }
  if (length > kMaxSocketFrame) return Received::malformed;
  bytes.resize(static_cast<std::size_t>(length));
  return read_all(fd, bytes.data(), bytes.size(), deadline);
}

/// Whether the child `pid` is still running: asked of the process itself (waitid without reaping it),
/// not of its socket, where bytes it wrote before dying would make it look alive.
bool child_alive(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

/// A frame into the mailbox, or by the socket when too long for it; false when the socket failed.
bool post(ShmMailbox& mailbox, bool request, int socket, const std::vector<char>& frame) {
  const bool in_memory = request ? mailbox.post_request(frame) : mailbox.post_reply(frame);
  return in_memory || send_frame(socket, frame);
}

/// The child's next request: from the mailbox (or the socket, when the mailbox says so); false when
/// the parent is gone (this process re-parented) or sent what is no frame.
bool next_request(ShmMailbox& mailbox, ShmMailbox::Cursor& cursor, int socket, pid_t parent, std::vector<char>& in) {
  const auto waited =
      mailbox.wait_request(cursor, in, std::chrono::milliseconds(100), [&] { return getppid() == parent; });
  if (waited == ShmMailbox::Waited::gave_up || waited == ShmMailbox::Waited::malformed) return false;
  return waited == ShmMailbox::Waited::frame || read_frame(socket, in, std::nullopt) == Received::frame;
}

/// The child: builds its systems, describes them, then carries out orders until shut down.
[[noreturn]] void child_main(const SystemCatalog& catalog, const std::vector<int>& systems, int socket,
                             ShmMailbox& mailbox, int yields, const std::string& tmp, ForeignCallMirror* call,
                             int* system_in_flight, pid_t parent) {
  forget_emergency_flushes();  // the parent's result streams are the parent's
  leave_watcher();             // the parent's watcher watches the parent; this process's death the parent names
  own_fatal_signals();
  forward_warnings();  // the replies carry them to the parent, whose stats list them
  mirror_foreign_calls(call);
  std::signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the whole group: the parent decides when to stop
  setenv("TMPDIR", tmp.c_str(), 1);
  int code = 0;
  try {
    SystemServer server(catalog, systems);
    if (!post(mailbox, false, socket, server.descriptions())) std::_Exit(1);
    std::vector<char> in, out;
    ShmMailbox::Cursor cursor{.yields = yields};
    while (next_request(mailbox, cursor, socket, parent, in) && !in.empty()) {
      server.serve(in.data(), in.size(), out, [&](int s) { *system_in_flight = s; });
      *system_in_flight = -1;
      if (!post(mailbox, false, socket, out)) {
        code = 1;
        break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosima: process %d: %s\n", static_cast<int>(getpid()), e.what());
    code = 1;
  }
  std::_Exit(code);  // the parent's atexit handlers and static objects are not the child's
}

std::string signal_text(int signal) {
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? fmt::format("SIG{}", name) : fmt::format("signal {}", signal);
}

}  // namespace

ProcessExecutor::ProcessExecutor(const SystemCatalog& catalog, ProcessOptions options)
    : catalog_(catalog), options_(options) {
  const int systems = catalog.size();
  if (options.processes < 0)
    throw Error(fmt::format("--executor processes:{}: give a positive count", options.processes));
  if (!(options.timeout >= 0.0)) throw Error(fmt::format("--fmu-timeout {} must not be negative", options.timeout));
  const int count = options.processes == 0 ? systems : std::min(options.processes, systems);
  children_.resize(static_cast<std::size_t>(count));
  child_of_system_.resize(static_cast<std::size_t>(systems));
  for (int s = 0; s < systems; ++s) {
    const int k = static_cast<int>((static_cast<long long>(s) * count) / systems);
    child_of_system_[static_cast<std::size_t>(s)] = k;
    children_[static_cast<std::size_t>(k)].systems.push_back(s);
  }
  names_ = catalog.names;
  descriptions_.assign(static_cast<std::size_t>(systems), {});
  frames_.assign(children_.size(), {});
  running_ = true;
  const int yields = ShmMailbox::yields_for(count);
  const pid_t parent = getpid();
  std::fflush(nullptr);  // nothing buffered twice
  for (std::size_t k = 0; k < children_.size(); ++k) {
    Child& child = children_[k];
    try {
      child.temporary = make_temporary_directory("cosima-process");  // the parent's to remove, however it ends
    } catch (const Error& e) {
      fail(static_cast<int>(k), e.what());
    }
    void* page = mmap(nullptr, sizeof(SharedPage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) fail(static_cast<int>(k), "cannot map its shared page");
    child.shared = new (page) SharedPage();
    child.mailbox = ShmMailbox::create();
    int sockets[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
      fail(static_cast<int>(k), fmt::format("socketpair failed: {}", std::strerror(errno)));
    }
    const pid_t pid = fork();
    if (pid < 0) fail(static_cast<int>(k), fmt::format("fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
      for (std::size_t j = 0; j < k; ++j) {  // the other processes' traffic is none of this one's
        ::close(children_[j].socket);
        ShmMailbox::destroy(children_[j].mailbox);
        munmap(children_[j].shared, sizeof(SharedPage));
      }
      ::close(sockets[0]);
      child_main(catalog, child.systems, sockets[1], *child.mailbox, yields, child.temporary, &child.shared->call,
                 &child.shared->system, parent);
    }
    child.reply.yields = yields;
    ::close(sockets[1]);
    child.pid = pid;
    child.socket = sockets[0];
    if (!register_child(pid)) {  // killed and reaped on the fatal paths too (core/cleanup.hpp)
      kill(pid, SIGKILL);
      fail(static_cast<int>(k), "cannot register its process for the fatal paths (out of memory)");
    }
  }
  // each process describes what it built
  std::string failures;
  for (std::size_t k = 0; k < children_.size(); ++k) {
    receive(static_cast<int>(k));
    std::string failed;
    try {
      failed = decode_descriptions(buffer_.data(), buffer_.size(), descriptions_);
    } catch (const Error& e) {
      fail(static_cast<int>(k),
           fmt::format("its process {} sent malformed descriptions: {}", children_[k].pid, e.what()));
    }
    if (!failed.empty()) failures += (failures.empty() ? "" : "; ") + failed;
  }
  if (!failures.empty()) {
    (void)shut_down(false);
    throw Error(failures);
  }
}

ProcessExecutor::~ProcessExecutor() { (void)shut_down(false); }

std::string ProcessExecutor::finish() { return shut_down(true); }

std::string ProcessExecutor::shut_down(bool report) {
  const std::vector<char> stop;  // a frame of length 0
  for (Child& child : children_) {
    if (child.pid > 0 && running_) (void)post(*child.mailbox, true, child.socket, stop);
  }
  std::string failures;
  for (std::size_t k = 0; k < children_.size(); ++k) {
    Child& child = children_[k];
    if (child.pid > 0) {
      // a bounded wait, then the hard way: shutting down must not hang on a stuck FMU
      const auto deadline = Clock::now() + std::chrono::seconds(5);
      int status = 0;
      bool killed = false;
      while (waitpid(child.pid, &status, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
          kill(child.pid, SIGKILL);
          waitpid(child.pid, &status, 0);
          killed = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      unregister_child(child.pid);
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean && report) {
        const std::string how = killed                ? "did not end within 5 s of the run's end and was killed"
                                : WIFSIGNALED(status) ? fmt::format("died of {}", signal_text(WTERMSIG(status)))
                                                      : fmt::format("exited with status {}", WEXITSTATUS(status));
        failures += fmt::format("{}{}: its process {} {} while shutting down{}", failures.empty() ? "" : "; ",
                                who(static_cast<int>(k)), child.pid, how, during(static_cast<int>(k)));
      }
      child.pid = -1;
    }
    if (child.socket >= 0) ::close(child.socket);
    child.socket = -1;
    if (child.shared != nullptr) munmap(child.shared, sizeof(SharedPage));
    child.shared = nullptr;
    ShmMailbox::destroy(child.mailbox);
    child.mailbox = nullptr;
    if (!child.temporary.empty()) {
      unregister_temporary_directory(child.temporary.c_str());
      std::error_code ignored;
      std::filesystem::remove_all(child.temporary, ignored);
      child.temporary.clear();
    }
  }
  running_ = false;
  return failures;
}

std::string ProcessExecutor::who(int k) const {
  const Child& child = children_[static_cast<std::size_t>(k)];
  int s = child.shared != nullptr ? child.shared->system : -1;  // the child's word: one of its own systems, or none
  if (std::find(child.systems.begin(), child.systems.end(), s) == child.systems.end()) s = -1;
  if (s < 0 && child.systems.size() == 1) s = child.systems.front();
  if (s < 0) {
    return fmt::format("process {} (systems of index {}…)", child.pid,
                       child.systems.empty() ? -1 : child.systems.front());
  }
  const std::filesystem::path& fmu = catalog_.fmus[static_cast<std::size_t>(s)];
  return fmt::format("system '{}'{}", catalog_.names[static_cast<std::size_t>(s)],
                     fmu.empty() ? "" : fmt::format(" (FMU '{}')", fmu.string()));
}

std::string ProcessExecutor::during(int k) const {
  const Child& child = children_[static_cast<std::size_t>(k)];
  if (child.shared == nullptr) return {};
  const std::string function = child.shared->call.function_name();
  return function.empty() ? std::string() : fmt::format(" in {} at t = {}", function, child.shared->call.time);
}

void ProcessExecutor::fail(int k, const std::string& what) {
  const std::string message = fmt::format("{}: {}{}", who(k), what, during(k));
  (void)shut_down(false);  // the failure is this message
  throw Error(message);
}

void ProcessExecutor::send(int k, const std::vector<char>& frame) {
  Child& child = children_[static_cast<std::size_t>(k)];
  if (!post(*child.mailbox, true, child.socket, frame)) receive(k);  // it is gone: say why
}

void ProcessExecutor::receive(int k) {
  Child& child = children_[static_cast<std::size_t>(k)];
  std::optional<Clock::time_point> deadline;
  if (options_.timeout > 0.0)
    deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout));
  bool late = false, interrupted = false;
  const auto alive = [&] {
    late = deadline && Clock::now() > *deadline;
    interrupted = !late && interrupt_polled();
    return !late && !interrupted && child_alive(child.pid);
  };
  Received r = Received::frame;
  std::string malformed = "a frame length beyond 1 GiB on its socket";
  switch (child.mailbox->wait_reply(child.reply, buffer_, std::chrono::milliseconds(20), alive)) {
    case ShmMailbox::Waited::frame: return;
    case ShmMailbox::Waited::on_socket: r = read_frame(child.socket, buffer_, deadline); break;
    case ShmMailbox::Waited::gave_up:
      r = late ? Received::timeout : interrupted ? Received::interrupted : Received::closed;
      break;
    case ShmMailbox::Waited::malformed:
      r = Received::malformed;
      malformed = fmt::format("frame {} where {} was due, of {} bytes in a slot of {}", child.reply.fault.sequence,
                              child.reply.fault.expected, child.reply.fault.size, ShmMailbox::kCapacity);
      break;
  }
  if (r == Received::frame) return;
  // the process is ended here (killed when it still runs) and reaped; the message says why
  const pid_t pid = child.pid;
  if (r != Received::closed || child_alive(pid)) kill(pid, SIGKILL);  // (a socket its FMU closed: still running)
  int status = 0;
  waitpid(pid, &status, 0);
  unregister_child(pid);
  child.pid = -1;
  switch (r) {
    case Received::malformed:
      fail(k, fmt::format("its process {} sent a malformed reply ({}): something in it wrote over its mailbox; the "
                          "process was killed",
                          pid, malformed));
    case Received::interrupted: fail(k, "interrupted while waiting for its answer; its process was killed");
    case Received::timeout:
      fail(k, fmt::format("no answer within {} s (--fmu-timeout); its process was killed", options_.timeout));
    default: break;
  }
  if (WIFSIGNALED(status)) fail(k, fmt::format("its process {} died of {}", pid, signal_text(WTERMSIG(status))));
  fail(k, fmt::format("its process {} exited with status {}", pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

std::string ProcessExecutor::name() const { return fmt::format("processes ({})", children_.size()); }

std::string ProcessExecutor::place(int system) const {
  return fmt::format("process {}", children_[static_cast<std::size_t>(child_of(system))].pid);
}

void ProcessExecutor::execute(Batch& batch) {
  for (auto& frame : frames_) frame.clear();
  if (!encode_orders(
          batch, [&](int s) { return child_of(s); }, frames_))
    return;
  if (!running_) throw Error("process executor: the processes have been shut down");
  for (std::size_t k = 0; k < children_.size(); ++k) {
    if (!frames_[k].empty()) send(static_cast<int>(k), frames_[k]);
  }
  std::pair<int, std::string> failure{-1, ""};
  for (std::size_t k = 0; k < children_.size(); ++k) {
    if (frames_[k].empty()) continue;
    receive(static_cast<int>(k));
    std::pair<int, std::string> failed;
    try {
      failed = decode_replies(buffer_.data(), buffer_.size(), batch, proxies_);
    } catch (const Error& e) {
      fail(static_cast<int>(k), fmt::format("its process {} sent a malformed reply: {}", children_[k].pid, e.what()));
    }
    if (failed.first >= 0 && (failure.first < 0 || failed.first < failure.first)) failure = std::move(failed);
  }
  if (failure.first >= 0) throw Error(fmt::format("{}: {}", place(failure.first), failure.second));
}

}  // namespace cosima::exec
