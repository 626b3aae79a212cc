#pragma once
// A run's output file, which says it is incomplete until the run puts it in place.
//
//   OutputFile file("r.csv");   creates "r.csv.incomplete-XXXXXX" beside r.csv, and moves an earlier
//                               r.csv aside to "r.csv.previous-XXXXXX"
//   write_all(file.fd(), ...);  writes go to the incomplete file
//   file.publish();             renames it to r.csv, atomically, and removes the earlier file; later
//                               writes land in r.csv
//   ~OutputFile()               an unpublished file is removed and the earlier r.csv put back
//
// So a run that fails before it has anything to write leaves the earlier file as it was; a reader
// never finds a half-written file under the name it asked for; and a run killed outright (SIGKILL,
// where nothing can be undone) leaves only files named for what they are — r.csv.incomplete-XXXXXX
// and r.csv.previous-XXXXXX — never an earlier run's r.csv looking like its own. Standard output
// ("-") and an existing path that is not a regular file (/dev/null, a FIFO, /dev/full) are written
// directly, published from the start; a symbolic link is followed, so that its target is replaced
// and the link stays. publish_now() and discard_now() are async-signal-safe (rename(2), unlink(2))
// for the fatal paths (core/crash.hpp).
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
  /// Removes the unpublished temporary file and puts the earlier file back (nothing once published).
  /// Async-signal-safe.
  void discard_now() noexcept;

 private:
  /// Moves the file at the destination to a unique name made from `pattern` (…XXXXXX).
  void set_aside(const std::filesystem::path& pattern);
  std::string name_;
  std::string destination_;  ///< what the temporary file is renamed to
  std::string temporary_;    ///< unused when writing the destination directly (published from the start)
  std::string previous_;     ///< where the earlier file at the destination waits; empty: there was none
  int fd_ = -1;
  bool published_ = false;
  bool discarded_ = false;
};

}  // namespace cosima
