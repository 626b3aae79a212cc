#include "observer/csv_stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {
constexpr std::size_t kFlushBytes = 1 << 16;
}  // namespace

void append_number(std::string& out, double v) {
  std::array<char, 32> text{};  // the longest %.17g: "-1.2345678901234567e-308", 24 characters
  const char* end = fmt::format_to(text.data(), FMT_COMPILE("{:.17g}"), v);
  out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

CsvStream::CsvStream(const std::filesystem::path& path) : path_(path) {
  if (path == "-") {  // standard output (a copy of the descriptor: closing the stream leaves it open)
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) throw Error(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
    path_ = "standard output";
  } else {
    if (std::filesystem::is_directory(path)) throw Error(fmt::format("cannot write '{}': it is a directory", path.string()));
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  buffer_.reserve(2 * kFlushBytes);
  last_flush_ = std::chrono::steady_clock::now();
  register_emergency_flush(this);
}

CsvStream::~CsvStream() {
  unregister_emergency_flush(this);
  try {
    flush();
  } catch (const Error&) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; flush() was called before
  }
  ::close(fd_);
}

void CsvStream::append(std::string_view text) {
  buffer_.append(text);
  row_done();
}

void CsvStream::row_done() {
  if (buffer_.size() >= kFlushBytes || std::chrono::steady_clock::now() - last_flush_ >= period_) {
    flush();
  }
}

void CsvStream::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      buffer_.erase(0, done);
      throw Error(fmt::format("error while writing '{}': {}", path_.string(), std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  last_flush_ = std::chrono::steady_clock::now();
}

void CsvStream::emergency_flush() noexcept {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace cosima
