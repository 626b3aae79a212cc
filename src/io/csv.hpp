#pragma once
// Result tables: `time` then one column per variable, as written by ResultRecorder.
#include <filesystem>
#include <string>
#include <vector>

namespace cosima {

struct Table {
  std::vector<std::string> columns;          ///< without "time"
  std::vector<double> time;
  std::vector<std::vector<double>> values;   ///< values[column][row]

  /// Column index by name, or -1.
  [[nodiscard]] int column_index(const std::string& name) const;
};

/// Reads a CSV with a header whose first column is "time". Errors name the file and line.
Table read_csv(const std::filesystem::path& path);

}  // namespace cosima
