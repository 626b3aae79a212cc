#pragma once
// Plots with gnuplot (Debian gnuplot-nox): one runner for every plot cosima draws — the results of
// a run (`cosima plot`, `cosima run --plot`) and the benchmark reports (bench/report.hpp).
#include <filesystem>
#include <string>
#include <vector>

namespace cosima::plot {

/// Runs gnuplot on `script` (data inline, as datablocks). Throws Error with gnuplot's own message
/// when gnuplot is missing or fails; `what` names the plot in it.
void run_gnuplot(const std::string& script, const std::string& what);

/// The gnuplot terminal for a file by its extension: .png (pngcairo) or .svg. Throws Error for
/// anything else, naming the file.
std::string terminal_for(const std::filesystem::path& image, int width, int height);

/// A figure of a run: the chosen signals (all when `variables` is empty), each with the same
/// signal of a reference run dashed beside it, and a second panel with the step sizes and
/// iterations of a step log.
struct ResultPlot {
  std::filesystem::path results;       ///< a result CSV (time, variables...)
  std::vector<std::string> variables;  ///< columns to draw; empty: all
  std::filesystem::path reference;     ///< optional: a reference CSV
  std::filesystem::path steps;         ///< optional: a step log CSV (--steps)
  std::filesystem::path image;         ///< .png or .svg
  std::size_t max_points = 20000;      ///< per signal; longer ones keep each bucket's min and max
};

/// Draws it. Errors name the file or the variable.
void plot_results(const ResultPlot& plot);

}  // namespace cosima::plot
