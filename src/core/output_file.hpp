#pragma once
// An output file that replaces what is at its path only once it has something to put there.
//
//   OutputFile file("r.csv");   creates a temporary file beside r.csv (".r.csv.cosima-XXXXXX")
//   write_all(file.fd(), ...);  writes go to the temporary file
//   file.publish();             renames it over r.csv, atomically; later writes land in r.csv
//   ~OutputFile()               an unpublished temporary file is removed: r.csv is as it was
//
// So a run that fails before its first result never destroys the previous results, and a reader
// never finds a half-replaced file. Standard output ("-") and an existing path that is not a
// regular file (/dev/null, a FIFO, /dev/full) are written directly, published from the start; a
// symbolic link is followed, so that its target is replaced and the link stays. publish_now() and
// discard_now() are async-signal-safe (rename(2), unlink(2)) for the fatal paths (core/crash.hpp).
#include <filesystem>
#include <string>
#include <string_view>

namespace cosima {

class OutputFile {
 public:
  /// Throws Error naming the path when neither the temporary file nor the path can be created.
  explicit OutputFile(const std::filesystem::path& destination);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// The destination as messages name it ("standard output" for "-").
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] bool published() const noexcept { return published_; }
  /// The path being written, for a library that opens files by name itself: the temporary file
  /// until published, then the destination ("/dev/stdout" for "-").
  [[nodiscard]] const std::string& path() const noexcept { return published_ ? destination_ : temporary_; }

  /// Writes all of text at the current offset; throws Error naming the file (with strerror).
  void write(std::string_view text);
  /// Puts the file at its destination (nothing to do once published); throws Error naming it.
  void publish();
  /// publish() for a signal handler: no allocation, no exception; false when the rename failed.
  bool publish_now() noexcept;
  /// Removes the unpublished temporary file (nothing once published). Async-signal-safe.
  void discard_now() noexcept;

 private:
  std::string name_;
  std::string destination_;  ///< what the temporary file is renamed to
  std::string temporary_;    ///< unused when writing the destination directly (published from the start)
  int fd_ = -1;
  bool published_ = false;
  bool discarded_ = false;
};

}  // namespace cosima
