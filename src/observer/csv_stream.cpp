#include "observer/csv_stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::observer {

namespace {
constexpr std::size_t kFlushBytes = 1 << 16;
}  // namespace

void append_number(std::string& out, double v) {
  std::array<char, 32> text{};  // the longest %.17g: "-1.2345678901234567e-308", 24 characters
  const char* end = fmt::format_to(text.data(), FMT_COMPILE("{:.17g}"), v);
  out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

CsvStream::CsvStream(const std::filesystem::path& path) : file_(path) {
  buffer_.reserve(2 * kFlushBytes);
  last_flush_ = std::chrono::steady_clock::now();
  register_emergency_flush(this);
}

CsvStream::~CsvStream() {
  unregister_emergency_flush(this);
  try {
    flush();  // a run that ended in an error: the rows so far stay, at the path
    if (rows_) file_.publish();
  } catch (const Error&) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; finish() reports
  }
}

void CsvStream::append(std::string_view text) {
  buffer_.append(text);
  row_done();
}

void CsvStream::row_done() {
  rows_ = true;
  if (buffer_.size() >= kFlushBytes || std::chrono::steady_clock::now() - last_flush_ >= period_) {
    flush();
  }
}

bool CsvStream::write_buffer() noexcept {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(file_.fd(), buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      const int reason = errno;
      // the part of a row that reached the disk goes: the file ends at its last complete line
      std::size_t whole = done;
      while (whole > 0 && buffer_[whole - 1] != '\n') --whole;
      complete_bytes_ += static_cast<long>(whole);
      (void)::ftruncate(file_.fd(), complete_bytes_);
      (void)::lseek(file_.fd(), complete_bytes_, SEEK_SET);
      buffer_.clear();
      errno = reason;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  complete_bytes_ += static_cast<long>(done);
  buffer_.clear();
  return true;
}

void CsvStream::flush() {
  if (!write_buffer()) {
    const int reason = errno;
    if (rows_) file_.publish_now();  // the rows that did reach the disk are kept
    throw Error(fmt::format("error while writing '{}': {}", file_.name(), std::strerror(reason)));
  }
  last_flush_ = std::chrono::steady_clock::now();
}

void CsvStream::finish() {
  flush();
  if (rows_) file_.publish();
}

void CsvStream::emergency_flush() noexcept {
  (void)write_buffer();
  if (rows_) {
    file_.publish_now();
  } else {
    file_.discard_now();
  }
}

}  // namespace cosima::observer
