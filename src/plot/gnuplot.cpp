#include "plot/gnuplot.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>

#include "core/cleanup.hpp"
#include "core/error.hpp"
#include "io/csv.hpp"

namespace cosima::plot {

namespace {

/// A file removed when it goes out of scope.
struct TemporaryFile {
  std::filesystem::path path;
  TemporaryFile() {
    std::string pattern = (temporary_root() / "cosima-plot-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw Error("cannot create a temporary file for gnuplot");
    close(fd);
    path = pattern;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
};

/// gnuplot text: ' doubled inside a single-quoted string.
std::string gnuplot_string(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

/// Indices of the rows to draw: all of them, or each bucket's first, min, max and last.
std::vector<std::size_t> rows_to_draw(const std::vector<double>& values, std::size_t max_points) {
  std::vector<std::size_t> rows;
  const std::size_t n = values.size();
  if (n <= max_points || max_points < 4) {
    rows.resize(n);
    for (std::size_t k = 0; k < n; ++k) rows[k] = k;
    return rows;
  }
  const std::size_t buckets = max_points / 4;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t first = b * n / buckets, last = (b + 1) * n / buckets;
    const auto [lo, hi] = std::minmax_element(values.begin() + static_cast<std::ptrdiff_t>(first),
                                              values.begin() + static_cast<std::ptrdiff_t>(last));
    std::vector<std::size_t> picked = {first, static_cast<std::size_t>(lo - values.begin()),
                                       static_cast<std::size_t>(hi - values.begin()), last - 1};
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    rows.insert(rows.end(), picked.begin(), picked.end());
  }
  return rows;
}

/// A datablock $name of (time, value) rows; non-finite values break the line.
std::string datablock(const std::string& name, const std::vector<double>& time, const std::vector<double>& values,
                      std::size_t max_points) {
  std::string text = "$" + name + " << EOD\n";
  for (const std::size_t k : rows_to_draw(values, max_points)) {
    text += std::isfinite(values[k]) ? fmt::format("{:.17g} {:.17g}\n", time[k], values[k]) : std::string("\n");
  }
  return text + "EOD\n";
}

const std::vector<double>& column(const io::Table& table, const std::string& name, const std::filesystem::path& file) {
  const int index = table.column_index(name);
  if (index < 0) {
    std::string known;
    for (const auto& c : table.columns) known += (known.empty() ? "" : ", ") + c;
    throw Error(fmt::format("'{}' has no column '{}' (columns: {})", file.string(), name, known));
  }
  return table.values[static_cast<std::size_t>(index)];
}

}  // namespace

void run_gnuplot(const std::string& script, const std::string& what) {
  const TemporaryFile file;
  {
    std::ofstream out(file.path);
    out << script;
    if (!out) throw Error(fmt::format("cannot write the gnuplot script of {}", what));
  }
  const std::string command = fmt::format("gnuplot {} 2>&1", gnuplot_string(file.path.string()));
  std::unique_ptr<FILE, int (*)(FILE*)> gnuplot(popen(command.c_str(), "r"), pclose);
  if (!gnuplot) throw Error(fmt::format("cannot start gnuplot for {}", what));
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, gnuplot.get()) != nullptr) output += buffer;
  const int status = pclose(gnuplot.release());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw Error(
        fmt::format("gnuplot is needed for {} and could not be run (Debian: apt-get install gnuplot-nox)", what));
  }
  if (WEXITSTATUS(status) != 0 || output.find("error") != std::string::npos) {
    throw Error(fmt::format("gnuplot failed on {}: {}", what, output));
  }
}

std::string terminal_for(const std::filesystem::path& image, int width, int height) {
  const std::string extension = image.extension().string();
  if (extension == ".png") return fmt::format("pngcairo size {},{} noenhanced", width, height);
  if (extension == ".svg") return fmt::format("svg size {},{} noenhanced dynamic", width, height);
  throw Error(fmt::format("plot '{}': give a .png or .svg file", image.string()));
}

void plot_results(const ResultPlot& plot) {
  const io::Table results = io::read_csv(plot.results);
  std::vector<std::string> variables = plot.variables;
  if (variables.empty()) variables = results.columns;
  if (variables.empty()) throw Error(fmt::format("'{}' has no numeric column to plot", plot.results.string()));
  std::optional<io::Table> reference, steps;
  if (!plot.reference.empty()) reference = io::read_csv(plot.reference);
  if (!plot.steps.empty()) steps = io::read_csv(plot.steps, true);
  const bool two_panels = steps.has_value();
  std::string script =
      fmt::format("set terminal {}\nset output {}\nset lmargin 12\nset rmargin 28\n",
                  terminal_for(plot.image, 1000, two_panels ? 900 : 600), gnuplot_string(plot.image.string()));
  std::string lines;
  for (std::size_t v = 0; v < variables.size(); ++v) {
    const std::string name = fmt::format("v{}", v);
    script += datablock(name, results.time, column(results, variables[v], plot.results), plot.max_points);
    lines += fmt::format("{}${} using 1:2 with lines lw 2 lc {} title {}", lines.empty() ? "" : ", ", name, v + 1,
                         gnuplot_string(variables[v]));
    if (reference) {
      script +=
          datablock(name + "r", reference->time, column(*reference, variables[v], plot.reference), plot.max_points);
      lines += fmt::format(", ${}r using 1:2 with lines dt 2 lw 1 lc {} title {}", name, v + 1,
                           gnuplot_string(variables[v] + " (reference)"));
    }
  }
  if (two_panels) {
    script += datablock("h", steps->time, column(*steps, "step", plot.steps), plot.max_points);
    script += datablock("it", steps->time, column(*steps, "iterations", plot.steps), plot.max_points);
    script += "set multiplot layout 2,1\n";
  }
  script += fmt::format("set title {}\nset xlabel 'time'\nset grid\nset key outside right\nplot {}\n",
                        gnuplot_string(plot.results.filename().string()), lines);
  if (two_panels) {
    script +=
        "set title 'steps'\nset ylabel 'step size'\nset logscale y\nset y2label 'iterations'\nset y2tics\n"
        "plot $h using 1:2 with steps lw 2 title 'step size', $it using 1:2 axes x1y2 with impulses title "
        "'iterations'\n"
        "unset multiplot\n";
  }
  run_gnuplot(script, fmt::format("plot '{}'", plot.image.string()));
}

}  // namespace cosima::plot
