#pragma once
// Results as a MATLAB v4 file in the trajectory layout Modelica tools write (Dymola, OpenModelica,
// OMSimulator), which OMPlot, FMPy, DyMat and scipy.io.loadmat read:
//
//   Aclass       char 4×11   "Atrajectory", "1.1", "", "binTrans" (matrices stored transposed)
//   name         char L×n    column j: the name of variable j ("time" first), padded with blanks
//   description  char L×n    column j: its description
//   dataInfo     int32 4×n   column j: [matrix, column, 0 (linear), -1 (undefined outside)];
//                            time: [0, 1, 0, -1]; a recorded variable: [2, j + 1, 0, -1]
//   data_1       double 1×2  the time at start and at stop (the constants' matrix, time alone)
//   data_2       double n×N  column k: time and every variable at output point k
//
// A MAT v4 matrix is a 20-byte header — type (1000·M + 100·O + 10·P + T: M = 0 little-endian,
// P the element type: 0 double, 2 int32, 5 uint8; T = 1 text), rows, columns, imaginary flag, name
// length with its NUL — then the name, then the elements column by column. cosima writes it itself
// rather than through libmatio: libmatio writes a matrix whole, where data_2's columns are the rows
// of the run, written as they come, its column count set when the run ends; and libmatio brings
// HDF5, curl, TLS and Kerberos into every process's global scope, where an FMU bundling one of
// them would bind to the process's copy (fmi/common/shared_library.cpp).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/crash.hpp"
#include "core/output_file.hpp"

namespace cosima::observer {

/// Views of the recorded rows (nothing copied).
struct MatResults {
  std::span<const std::string> names;         ///< the recorded variables, without "time"
  std::span<const std::string> descriptions;  ///< one per name, or fewer (the rest empty)
  std::span<const double> times;
  std::span<const double> values;  ///< row-major: values[k · names.size() + j] at times[k]
};

/// A trajectory file written row by row as the run goes. Call order:
///   MatTrajectory file(path, names, descriptions);  the header matrices, data_2 with no column yet
///   file.append(t, values)*                        one output point: a column of data_2, buffered
///                                                  and written when the buffer is large or a period
///                                                  has passed (flush)
///   file.finish()                                  flushed, the file put at its path
///                                                  (core/output_file.hpp)
/// Every flush writes whole columns and then sets data_1's time span and data_2's column count to
/// what is on disk: the file is a valid trajectory after each, so that the fatal paths (a crash, a
/// forced exit: emergency_flush) and a run that ends in an error (the destructor) put the rows so far
/// at the path, as a CSV stream does. A disk that refuses part of a column leaves the columns before
/// it, counted. Without any column nothing is put at the path. Throws Error naming the file.
class MatTrajectory final : public EmergencyFlushable {
 public:
  MatTrajectory(const std::filesystem::path& path, std::span<const std::string> names,
                std::span<const std::string> descriptions);
  ~MatTrajectory();
  MatTrajectory(const MatTrajectory&) = delete;
  MatTrajectory& operator=(const MatTrajectory&) = delete;

  /// values: one per name.
  void append(double t, std::span<const double> values);
  /// The buffered columns to disk, the counts set; throws Error when the disk refuses.
  void flush();
  void finish();
  [[nodiscard]] std::int64_t points() const { return points_; }
  /// At most this long between a column and the disk (default 1 s).
  void set_flush_period(std::chrono::steady_clock::duration period) { period_ = period; }

  void emergency_flush() noexcept override;

 private:
  /// Writes the pending columns and the counts; false (errno set) when the disk refused, with the
  /// whole columns that reached it counted. Async-signal-safe.
  bool write_pending() noexcept;
  bool write_at(long offset, const void* data, std::size_t bytes, std::size_t& written) noexcept;
  OutputFile file_;
  std::size_t variables_;            ///< with time
  std::int64_t points_ = 0;          ///< appended
  std::int64_t points_on_disk_ = 0;  ///< counted in the file
  double first_time_ = 0.0;
  double last_time_on_disk_ = 0.0;
  long start_time_at_ = 0;       ///< data_1's elements
  long columns_at_ = 0;          ///< data_2's column count
  long end_ = 0;                 ///< where the next column goes
  std::vector<double> pending_;  ///< columns appended, not yet on disk
  std::chrono::steady_clock::duration period_ = std::chrono::seconds(1);
  std::chrono::steady_clock::time_point last_flush_;
};

/// Writes the results whole; throws Error naming the file when the disk refuses.
void write_mat_results(const std::filesystem::path& path, const MatResults& results);

}  // namespace cosima::observer
