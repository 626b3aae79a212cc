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
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/output_file.hpp"

namespace cosima::observer {

/// Views of the recorded rows (nothing copied).
struct MatResults {
  std::span<const std::string> names;         ///< the recorded variables, without "time"
  std::span<const std::string> descriptions;  ///< one per name, or fewer (the rest empty)
  std::span<const double> times;
  std::span<const double> values;  ///< row-major: values[k · names.size() + j] at times[k]
};

/// A trajectory file written row by row. Call order:
///   MatTrajectory file(path, names, descriptions);  the header matrices, data_2 with no column yet
///   file.append(t, values)*                        one output point: a column of data_2
///   file.finish()                                  data_1's stop time and data_2's column count set,
///                                                  the file put at its path (core/output_file.hpp)
/// Without finish() the path keeps what it held before. Throws Error naming the file.
class MatTrajectory {
 public:
  MatTrajectory(const std::filesystem::path& path, std::span<const std::string> names,
                std::span<const std::string> descriptions);
  /// values: one per name.
  void append(double t, std::span<const double> values);
  void finish();
  [[nodiscard]] std::int64_t points() const { return points_; }

 private:
  void write_at(long offset, const void* data, std::size_t bytes);
  OutputFile file_;
  std::size_t variables_;  ///< with time
  std::int64_t points_ = 0;
  double first_time_ = 0.0;
  long start_time_at_ = 0;  ///< data_1's elements
  long columns_at_ = 0;     ///< data_2's column count
  long end_ = 0;            ///< where the next column goes
  std::vector<double> column_;
};

/// Writes the results whole; throws Error naming the file when the disk refuses.
void write_mat_results(const std::filesystem::path& path, const MatResults& results);

}  // namespace cosima::observer
