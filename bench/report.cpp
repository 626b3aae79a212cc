#include "bench/report.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "plot/gnuplot.hpp"

namespace cosima::bench {

std::string sci(double value) { return std::isnan(value) ? "fails" : fmt::format("{:.2e}", value); }

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string text = "|";
  for (const auto& h : header) text += " " + h + " |";
  text += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) text += "---|";
  text += "\n";
  for (const auto& row : rows) {
    text += "|";
    for (const auto& cell : row) text += " " + cell + " |";
    text += "\n";
  }
  return text;
}

bool write_plot(const std::filesystem::path& png, const Plot& plot) {
  std::string script = fmt::format(
      "set terminal {}\nset output '{}'\nset title '{}'\nset xlabel '{}'\n"
      "set ylabel '{}'\nset grid\nset key outside right\n{}{}{}plot ",
      cosima::plot::terminal_for(png, 900, 600), png.string(), plot.title, plot.xlabel, plot.ylabel,
      plot.log_x ? "set logscale x\n" : "", plot.log_y ? "set logscale y\nset format y '%.0e'\n" : "",
      plot.y_max > 0.0 ? fmt::format("set yrange [*:{}]\n", plot.y_max) : "");
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    script += fmt::format("{}'-' using 1:2 with linespoints title '{}'", i == 0 ? "" : ", ", plot.series[i].name);
  }
  script += "\n";
  for (const auto& series : plot.series) {
    for (std::size_t k = 0; k < series.x.size(); ++k) {
      if (!std::isnan(series.y[k]) && (!plot.log_y || series.y[k] > 0))
        script += fmt::format("{:.17g} {:.17g}\n", series.x[k], series.y[k]);
    }
    script += "e\n";
  }
  try {
    cosima::plot::run_gnuplot(script, png.string());
  } catch (const Error& e) {
    std::cerr << "cosima bench: no plot: " << e.what() << '\n';
    return false;
  }
  return true;
}

void Report::add(const std::string& section) {
  text += section;
  std::cout << section;
}

void Report::write(const BenchOptions& options, const std::string& file) const {
  if (options.docs.empty()) return;
  std::string kept;  // a hand-written part of the report survives its regeneration
  if (std::ifstream old(options.docs / file); old) {
    const std::string previous((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>());
    if (const auto at = previous.find(kKeptMarker); at != std::string::npos) kept = previous.substr(at);
  }
  std::ofstream out(options.docs / file);
  out << text;
  if (!kept.empty()) out << '\n' << kept;
  if (!out) throw Error(fmt::format("cannot write '{}'", (options.docs / file).string()));
}

}  // namespace cosima::bench
