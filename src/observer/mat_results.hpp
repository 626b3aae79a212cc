#pragma once
// Results as a MATLAB v4 file in the trajectory layout Modelica tools write (Dymola, OpenModelica,
// OMSimulator), which OMPlot, FMPy, DyMat and scipy.io.loadmat read. Written through libmatio:
//
//   Aclass       char 4×11   "Atrajectory", "1.1", "", "binTrans" (matrices stored transposed)
//   name         char L×n    column j: the name of variable j ("time" first), padded with blanks
//   description  char L×n    column j: its description
//   dataInfo     int32 4×n   column j: [matrix, column, 0 (linear), -1 (undefined outside)];
//                            time: [0, 1, 0, -1]; a recorded variable: [2, j + 1, 0, -1]
//   data_1       double 1×2  the time at start and at stop (the constants' matrix, time alone)
//   data_2       double n×N  column k: time and every variable at output point k
//
// The rows are kept in memory during the run and written when it ends (also when it fails or is
// interrupted: the rows computed so far), replacing the file at the path only then (OutputFile).
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosima::observer {

/// Views of the recorded rows (nothing copied).
struct MatResults {
  std::span<const std::string> names;         ///< the recorded variables, without "time"
  std::span<const std::string> descriptions;  ///< one per name, or fewer (the rest empty)
  std::span<const double> times;
  std::span<const double> values;  ///< row-major: values[k · names.size() + j] at times[k]
};

/// Writes the results; throws Error naming the file when libmatio or the disk refuses.
void write_mat_results(const std::filesystem::path& path, const MatResults& results);

}  // namespace cosima::observer
