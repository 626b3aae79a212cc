#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {

/// The permission bits a new file gets from open(2) with mode 0666 under the process's umask.
mode_t default_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& destination) : name_(destination.string()) {
  if (destination == "-") {  // a copy of the descriptor: closing the file leaves standard output open
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) throw Error(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
    name_ = "standard output";
    destination_ = "/dev/stdout";
    published_ = true;
    return;
  }
  std::error_code error;
  const std::filesystem::path target =
      std::filesystem::is_symlink(destination, error) ? std::filesystem::canonical(destination, error) : destination;
  const std::filesystem::file_status status = std::filesystem::status(target, error);
  if (std::filesystem::is_directory(status)) throw Error(fmt::format("cannot write '{}': it is a directory", name_));
  destination_ = target.string();
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);  // a device or a FIFO: written as it is
    if (fd_ < 0) throw Error(fmt::format("cannot write '{}': {}", name_, std::strerror(errno)));
    published_ = true;
    return;
  }
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  std::string pattern = (folder / fmt::format("{}.incomplete-XXXXXX", target.filename().string())).string();
  std::vector<char> text(pattern.begin(), pattern.end());
  text.push_back('\0');
  fd_ = ::mkostemp(text.data(), O_CLOEXEC);
  if (fd_ < 0) throw Error(fmt::format("cannot write '{}': {}", name_, std::strerror(errno)));
  temporary_ = text.data();
  const bool exists = std::filesystem::exists(status);
  (void)::fchmod(fd_, exists ? static_cast<mode_t>(status.permissions()) : default_mode());
  if (exists) set_aside(folder / fmt::format("{}.previous-XXXXXX", target.filename().string()));
}

void OutputFile::set_aside(const std::filesystem::path& pattern) {
  std::string text = pattern.string();
  const int placeholder = ::mkostemp(text.data(), O_CLOEXEC);  // a unique name, which the rename takes over
  if (placeholder >= 0) ::close(placeholder);
  if (placeholder < 0 || std::rename(destination_.c_str(), text.c_str()) != 0) {
    const int reason = errno;
    if (placeholder >= 0) ::unlink(text.c_str());
    discard_now();
    throw Error(fmt::format("cannot replace '{}': {}", name_, std::strerror(reason)));
  }
  previous_ = text;
}

OutputFile::~OutputFile() {
  discard_now();
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("error while writing '{}': {}", name_, std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
}

void OutputFile::publish() {
  if (!publish_now()) throw Error(fmt::format("cannot write '{}': {}", name_, std::strerror(errno)));
}

bool OutputFile::publish_now() noexcept {
  if (published_) return true;
  if (discarded_) return false;
  if (std::rename(temporary_.c_str(), destination_.c_str()) != 0) return false;
  published_ = true;
  if (!previous_.empty()) ::unlink(previous_.c_str());
  return true;
}

void OutputFile::discard_now() noexcept {
  if (published_ || discarded_) return;
  ::unlink(temporary_.c_str());
  if (!previous_.empty()) (void)std::rename(previous_.c_str(), destination_.c_str());
  discarded_ = true;
}

}  // namespace cosima
