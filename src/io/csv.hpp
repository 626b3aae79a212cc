#pragma once
// Result tables: `time` then one column per variable, as written by ResultRecorder.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cosima::io {

struct Table {
  std::vector<std::string> columns;  ///< without "time"
  std::vector<double> time;
  std::vector<std::vector<double>> values;  ///< values[column][row]
  /// Columns of quoted text (String outputs), kept apart: name and cells.
  std::vector<std::pair<std::string, std::vector<std::string>>> texts;

  /// Column index by name, or -1.
  [[nodiscard]] int column_index(const std::string& name) const;
};

/// Reads a CSV with a header whose first column is "time". Cells are numbers, or quoted text (RFC
/// 4180: "" inside quotes is one "), which makes the column a text column. Errors name the file
/// and line. `empty_is_nan`: an empty cell outside "time" reads as NaN (a step log leaves the
/// figures a method does not compute empty); otherwise it is an error.
Table read_csv(const std::filesystem::path& path, bool empty_is_nan = false);

/// A header or text cell as written: quoted (RFC 4180) when it holds a comma, a quote or a line
/// break — an FMI 3.0 matrix element "s.M[1,2]" does.
std::string csv_cell(std::string_view text);

}  // namespace cosima::io
