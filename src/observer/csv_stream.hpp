#pragma once
// A CSV file written as the run goes: rows are formatted into a buffer that reaches the disk when
// it is large, at least every second (or the period set), and at the end — and, on a fatal signal, from the crash
// handler (core/crash.hpp). The file is created beside its path when the stream is (a bad path fails
// before the run), under a name that says it is incomplete (core/output_file.hpp), and put at its
// path by finish() — or, with the rows so far, by a run that ends in an error (the destructor) or on
// a fatal path; a run killed outright leaves only the incomplete file. A disk that refuses part of
// a buffer leaves the rows before it whole: the file is cut back to its last complete row.
#include <chrono>
#include <filesystem>
#include <string>

#include "core/crash.hpp"
#include "core/output_file.hpp"

namespace cosima::observer {

class CsvStream final : public EmergencyFlushable {
 public:
  /// Creates the file (under a temporary name); throws Error naming it when it cannot.
  explicit CsvStream(const std::filesystem::path& path);
  ~CsvStream();
  CsvStream(const CsvStream&) = delete;
  CsvStream& operator=(const CsvStream&) = delete;

  /// The header line(s), with their newline: written with the first row, not a row themselves.
  void header(std::string_view text) { buffer_.append(text); }
  /// Appends text (a whole row, with its newline) and flushes when due.
  void append(std::string_view text);
  /// The buffer to format a row into directly; call row_done() after.
  std::string& buffer() { return buffer_; }
  void row_done();
  /// Writes everything buffered; throws Error when the disk refuses.
  void flush();
  /// flush(), then the file put at its path.
  void finish();
  [[nodiscard]] const std::string& name() const { return file_.name(); }
  /// At most this long between a row and the disk (default 1 s; shorter when a terminal watches the
  /// file — not every row: a write per row costs more than the row's step).
  void set_flush_period(std::chrono::steady_clock::duration period) { period_ = period; }

  void emergency_flush() noexcept override;

 private:
  OutputFile file_;
  std::string buffer_;
  /// Writes the buffer; on a refusal, cuts the file back to its last complete row and returns false
  /// (errno set). Async-signal-safe.
  bool write_buffer() noexcept;
  bool rows_ = false;        ///< a row was appended: the file is worth publishing
  long complete_bytes_ = 0;  ///< the file's length up to its last complete line
  std::chrono::steady_clock::duration period_ = std::chrono::seconds(1);
  std::chrono::steady_clock::time_point last_flush_;
};

/// Appends v as "%.17g" (round-trip exact), the number format of cosima's CSV files: a compiled fmt
/// format into a stack buffer, no format string parsed and no buffer grown per number (at every
/// communication point of a cheap system the formatting is a good part of the run).
void append_number(std::string& out, double v);

}  // namespace cosima::observer
