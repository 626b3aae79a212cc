#include "io/csv.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

int Table::column_index(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream stream(line);
  std::string cell;
  while (std::getline(stream, cell, ',')) {
    if (!cell.empty() && cell.back() == '\r') cell.pop_back();
    cells.push_back(cell);
  }
  return cells;
}
}  // namespace

Table read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open '{}'", path.string()));
  std::string line;
  if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", path.string()));
  const auto header = split(line);
  if (header.empty() || header[0] != "time") {
    throw Error(fmt::format("'{}': the first column must be 'time'", path.string()));
  }
  Table table;
  table.columns.assign(header.begin() + 1, header.end());
  table.values.resize(table.columns.size());
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const auto cells = split(line);
    if (cells.size() != header.size()) {
      throw Error(fmt::format("'{}' line {}: {} cells, header has {}", path.string(), number, cells.size(), header.size()));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      double value = 0.0;
      const auto* begin = cells[c].data();
      const auto [end, ec] = std::from_chars(begin, begin + cells[c].size(), value);
      if (ec != std::errc() || end != begin + cells[c].size()) {
        throw Error(fmt::format("'{}' line {}: '{}' is not a number", path.string(), number, cells[c]));
      }
      if (c == 0) table.time.push_back(value);
      else table.values[c - 1].push_back(value);
    }
  }
  return table;
}

}  // namespace cosima
