#include "io/csv.hpp"

#include <charconv>
#include <fstream>
#include <limits>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::io {

int Table::column_index(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

struct Cell {
  std::string text;
  bool quoted = false;
};

/// One line split at commas outside quotes.
std::vector<Cell> split(const std::string& line, const std::filesystem::path& path, int number) {
  std::vector<Cell> cells(1);
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c != '"')
        cells.back().text += c;
      else if (i + 1 < line.size() && line[i + 1] == '"')
        cells.back().text += line[++i];
      else
        in_quotes = false;
    } else if (c == '"' && cells.back().text.empty()) {
      in_quotes = cells.back().quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back().text += c;
    }
  }
  if (in_quotes) throw Error(fmt::format("'{}' line {}: a quoted cell is not closed", path.string(), number));
  return cells;
}

}  // namespace

Table read_csv(const std::filesystem::path& path, bool empty_is_nan) {
  // a table is a regular file: a directory or a device (/dev/zero: endless bytes, no line) is refused
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (std::filesystem::is_directory(status))
    throw Error(fmt::format("'{}' is a directory, not a CSV file", path.string()));
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw Error(fmt::format("'{}' is not a regular file (a device or a pipe): give a CSV file", path.string()));
  }
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open '{}'", path.string()));
  std::string line;
  if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", path.string()));
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 byte order mark, as spreadsheets write
  const auto header = split(line, path, 1);
  if (header.empty() || header[0].text != "time") {
    throw Error(fmt::format("'{}': the first column must be 'time'", path.string()));
  }
  std::unordered_map<std::string_view, std::size_t> column_of;
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (const auto [at, fresh] = column_of.emplace(header[c].text, c); !fresh) {
      throw Error(fmt::format("'{}': two columns are named '{}' (columns {} and {})", path.string(), header[c].text,
                              at->second + 1, c + 1));
    }
  }
  std::vector<std::vector<double>> numbers(header.size());
  std::vector<std::vector<std::string>> texts(header.size());
  std::vector<char> is_text(header.size(), 0);
  std::size_t rows = 0;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line == "\r") continue;
    const auto cells = split(line, path, number);
    if (cells.size() != header.size()) {
      throw Error(
          fmt::format("'{}' line {}: {} cells, header has {}", path.string(), number, cells.size(), header.size()));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (cells[c].quoted && c > 0) {
        if (rows > 0 && is_text[c] == 0) {
          throw Error(
              fmt::format("'{}' line {}: column '{}' mixes numbers and text", path.string(), number, header[c].text));
        }
        is_text[c] = 1;
        texts[c].push_back(cells[c].text);
        continue;
      }
      if (is_text[c] != 0) {
        throw Error(
            fmt::format("'{}' line {}: column '{}' mixes numbers and text", path.string(), number, header[c].text));
      }
      if (empty_is_nan && c > 0 && cells[c].text.empty()) {
        numbers[c].push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      double value = 0.0;
      const auto* begin = cells[c].text.data();
      const auto [end, ec] = std::from_chars(begin, begin + cells[c].text.size(), value);
      if (ec != std::errc() || end != begin + cells[c].text.size() || cells[c].text.empty()) {
        throw Error(fmt::format("'{}' line {}: '{}' is not a number", path.string(), number, cells[c].text));
      }
      numbers[c].push_back(value);
    }
    ++rows;
  }
  Table table;
  table.time = std::move(numbers[0]);
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (is_text[c] != 0) {
      table.texts.emplace_back(header[c].text, std::move(texts[c]));
    } else {
      table.columns.push_back(header[c].text);
      table.values.push_back(std::move(numbers[c]));
    }
  }
  return table;
}

std::string csv_cell(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string cell = "\"";
  for (const char c : text) {
    if (c == '"') cell += '"';
    cell += c;
  }
  return cell + "\"";
}

}  // namespace cosima::io
