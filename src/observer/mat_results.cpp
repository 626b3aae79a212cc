#include "observer/mat_results.hpp"

#include <matio.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/output_file.hpp"

namespace cosima::observer {

namespace {

struct MatCloser {
  void operator()(mat_t* mat) const { Mat_Close(mat); }
};
using MatFile = std::unique_ptr<mat_t, MatCloser>;

/// The strings as the columns of a char matrix (L × n, column-major: one string after the other),
/// each padded with blanks to the longest.
std::vector<char> char_columns(const std::vector<std::string>& texts, std::size_t& length) {
  length = 1;
  for (const std::string& text : texts) length = std::max(length, text.size());
  std::vector<char> data(length * texts.size(), ' ');
  for (std::size_t j = 0; j < texts.size(); ++j) std::copy(texts[j].begin(), texts[j].end(), &data[j * length]);
  return data;
}

/// The strings as the rows of a char matrix (n × L, column-major), padded with blanks.
std::vector<char> char_rows(const std::vector<std::string>& texts, std::size_t& length) {
  const std::vector<char> columns = char_columns(texts, length);
  std::vector<char> data(columns.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t c = 0; c < length; ++c) data[c * texts.size() + i] = columns[i * length + c];
  }
  return data;
}

void write_variable(mat_t* mat, const char* name, matio_classes kind, matio_types type, std::size_t rows,
                    std::size_t columns, void* data, const std::string& file) {
  std::size_t dims[2] = {rows, columns};
  matvar_t* variable = Mat_VarCreate(name, kind, type, 2, dims, data, MAT_F_DONT_COPY_DATA);
  if (variable == nullptr) throw Error(fmt::format("cannot write '{}': libmatio refused '{}'", file, name));
  const int status = Mat_VarWrite(mat, variable, MAT_COMPRESSION_NONE);
  Mat_VarFree(variable);
  if (status != 0) throw Error(fmt::format("error while writing '{}': {}", file, std::strerror(errno)));
}

}  // namespace

void write_mat_results(const std::filesystem::path& path, const MatResults& results) {
  if (path == "-") throw Error("MAT results need a file: --out - writes CSV only");
  OutputFile file(path);
  MatFile mat(Mat_CreateVer(file.path().c_str(), nullptr, MAT_FT_MAT4));
  if (!mat) throw Error(fmt::format("cannot write '{}': {}", file.name(), std::strerror(errno)));
  const std::size_t n = results.names.size() + 1, points = results.times.size();
  std::size_t length = 0;
  std::vector<char> aclass = char_rows({"Atrajectory", "1.1", "", "binTrans"}, length);
  write_variable(mat.get(), "Aclass", MAT_C_CHAR, MAT_T_UINT8, 4, length, aclass.data(), file.name());
  std::vector<std::string> names = {"time"}, descriptions = {"Time in [s]"};
  names.insert(names.end(), results.names.begin(), results.names.end());
  descriptions.insert(descriptions.end(), results.descriptions.begin(), results.descriptions.end());
  descriptions.resize(n);
  std::vector<char> name = char_columns(names, length);
  write_variable(mat.get(), "name", MAT_C_CHAR, MAT_T_UINT8, length, n, name.data(), file.name());
  std::vector<char> description = char_columns(descriptions, length);
  write_variable(mat.get(), "description", MAT_C_CHAR, MAT_T_UINT8, length, n, description.data(), file.name());
  std::vector<std::int32_t> info(4 * n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::int32_t column[4] = {j == 0 ? 0 : 2, static_cast<std::int32_t>(j + 1), 0, -1};
    std::copy(column, column + 4, &info[4 * j]);
  }
  write_variable(mat.get(), "dataInfo", MAT_C_INT32, MAT_T_INT32, 4, n, info.data(), file.name());
  double span[2] = {points > 0 ? results.times.front() : 0.0, points > 0 ? results.times.back() : 0.0};
  write_variable(mat.get(), "data_1", MAT_C_DOUBLE, MAT_T_DOUBLE, 1, 2, span, file.name());
  std::vector<double> data(n * points);
  for (std::size_t k = 0; k < points; ++k) {
    data[k * n] = results.times[k];
    std::copy_n(&results.values[k * (n - 1)], n - 1, &data[k * n + 1]);
  }
  write_variable(mat.get(), "data_2", MAT_C_DOUBLE, MAT_T_DOUBLE, n, points, data.data(), file.name());
  mat.reset();
  file.publish();
}

}  // namespace cosima::observer
