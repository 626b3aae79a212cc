#pragma once
// Markdown tables and gnuplot plots for the benchmark reports under docs/.
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace cosima::bench {

struct Series {
  std::string name;
  std::vector<double> x, y;  ///< points; a NaN y is a failed run and is left out of the plot
};

struct Plot {
  std::string title, xlabel, ylabel;
  bool log_x = true, log_y = true;
  std::vector<Series> series;
  double y_max = 0.0;  ///< clip the y axis above (0: automatic); diverged runs would hide the rest
};

/// A line in a report: it and what follows are hand-written, kept when the report is regenerated.
inline constexpr const char* kKeptMarker = "<!-- hand-written below: kept by cosima bench -->";

/// A benchmark's markdown report: sections are printed as they are added, and the whole is
/// written to DIR/FILE when the benchmark runs with --docs DIR (keeping a part after kKeptMarker).
struct Report {
  std::string text;
  void add(const std::string& section);
  void write(const BenchOptions& options, const std::string& file) const;
};

/// Writes `plot` as PNG with gnuplot. Returns false (and says why on stderr) when gnuplot is missing.
bool write_plot(const std::filesystem::path& png, const Plot& plot);

/// A markdown table from a header and rows of cells.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// "1.23e-04", or "fails" for NaN.
std::string sci(double value);

}  // namespace cosima::bench
