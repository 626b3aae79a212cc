#include "observer/mat_results.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::observer {

namespace {

// MAT v4 type codes: 1000·M + 100·O + 10·P + T, M = 0 (IEEE little-endian), O = 0
constexpr std::int32_t kDouble = 0;  // P = 0, T = 0
constexpr std::int32_t kInt32 = 20;  // P = 2, T = 0
constexpr std::int32_t kText = 51;   // P = 5 (uint8), T = 1

constexpr std::size_t kFlushDoubles = std::size_t{1} << 13;  ///< 64 KiB of columns before a write

static_assert(std::endian::native == std::endian::little, "MAT v4 is written with M = 0 (little-endian)");

/// The strings as the columns of a char matrix (L × n, column-major: one string after the other),
/// each padded with blanks to the longest.
std::vector<char> char_columns(std::span<const std::string> texts, std::size_t& length) {
  length = 1;
  for (const std::string& text : texts) length = std::max(length, text.size());
  std::vector<char> data(length * texts.size(), ' ');
  for (std::size_t j = 0; j < texts.size(); ++j) std::copy(texts[j].begin(), texts[j].end(), &data[j * length]);
  return data;
}

/// The strings as the rows of a char matrix (n × L, column-major), padded with blanks.
std::vector<char> char_rows(std::span<const std::string> texts, std::size_t& length) {
  const std::vector<char> columns = char_columns(texts, length);
  std::vector<char> data(columns.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t c = 0; c < length; ++c) data[c * texts.size() + i] = columns[i * length + c];
  }
  return data;
}

/// One matrix: header, name, then `bytes` of elements (column-major).
std::string matrix(std::int32_t type, std::size_t rows, std::size_t columns, const char* name, const void* data,
                   std::size_t bytes) {
  const std::size_t name_length = std::strlen(name) + 1;
  const std::array<std::int32_t, 5> header = {type, static_cast<std::int32_t>(rows), static_cast<std::int32_t>(columns),
                                              0, static_cast<std::int32_t>(name_length)};
  std::string out(reinterpret_cast<const char*>(header.data()), sizeof header);
  out.append(name, name_length);
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

/// A MAT file's path: a file, not standard output.
const std::filesystem::path& mat_path(const std::filesystem::path& path) {
  if (path == "-") throw Error("MAT results need a file: --out - writes CSV only");
  return path;
}

}  // namespace

MatTrajectory::MatTrajectory(const std::filesystem::path& path, std::span<const std::string> names,
                             std::span<const std::string> descriptions)
    : file_(mat_path(path)), variables_(names.size() + 1) {
  std::size_t length = 0;
  std::string head;
  const std::array<std::string, 4> aclass_rows = {"Atrajectory", "1.1", "", "binTrans"};
  const std::vector<char> aclass = char_rows(aclass_rows, length);
  head += matrix(kText, 4, length, "Aclass", aclass.data(), aclass.size());
  std::vector<std::string> all_names = {"time"}, all_descriptions = {"Time in [s]"};
  all_names.insert(all_names.end(), names.begin(), names.end());
  all_descriptions.insert(all_descriptions.end(), descriptions.begin(), descriptions.end());
  all_descriptions.resize(variables_);
  const std::vector<char> name = char_columns(all_names, length);
  head += matrix(kText, length, variables_, "name", name.data(), name.size());
  const std::vector<char> description = char_columns(all_descriptions, length);
  head += matrix(kText, length, variables_, "description", description.data(), description.size());
  std::vector<std::int32_t> info(4 * variables_);
  for (std::size_t j = 0; j < variables_; ++j) {
    const std::array<std::int32_t, 4> column = {j == 0 ? 0 : 2, static_cast<std::int32_t>(j + 1), 0, -1};
    std::copy(column.begin(), column.end(), &info[4 * j]);
  }
  head += matrix(kInt32, 4, variables_, "dataInfo", info.data(), info.size() * sizeof(std::int32_t));
  const std::array<double, 2> span = {0.0, 0.0};
  head += matrix(kDouble, 1, 2, "data_1", span.data(), sizeof span);
  start_time_at_ = static_cast<long>(head.size() - sizeof span);
  columns_at_ = static_cast<long>(head.size() + 2 * sizeof(std::int32_t));
  head += matrix(kDouble, variables_, 0, "data_2", nullptr, 0);
  file_.write(head);
  end_ = static_cast<long>(head.size());
  pending_.reserve(kFlushDoubles + variables_);
  last_flush_ = std::chrono::steady_clock::now();
  register_emergency_flush(this);
}

MatTrajectory::~MatTrajectory() {
  unregister_emergency_flush(this);
  try {
    flush();  // a run that ended in an error: the rows so far, as a CSV stream keeps them
    if (points_on_disk_ > 0) file_.publish();
  } catch (const Error&) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; finish() reports
  }
}

bool MatTrajectory::write_at(long offset, const void* data, std::size_t bytes, std::size_t& written) noexcept {
  const char* at = static_cast<const char*>(data);
  written = 0;
  while (written < bytes) {
    const ssize_t n = ::pwrite(file_.fd(), at + written, bytes - written, offset + static_cast<long>(written));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

bool MatTrajectory::write_pending() noexcept {
  if (pending_.empty()) return true;
  std::size_t written = 0;
  const bool whole = write_at(end_, pending_.data(), pending_.size() * sizeof(double), written);
  // only whole columns count: a column cut by the disk is beyond the count, never read
  const std::size_t column_bytes = variables_ * sizeof(double);
  const std::size_t columns = written / column_bytes;
  if (columns > 0) {
    end_ += static_cast<long>(columns * column_bytes);
    points_on_disk_ += static_cast<std::int64_t>(columns);
    last_time_on_disk_ = pending_[(columns - 1) * variables_];
  }
  const int reason = errno;
  pending_.clear();
  const std::array<double, 2> span = {first_time_, last_time_on_disk_};
  const auto count = static_cast<std::int32_t>(points_on_disk_);
  std::size_t ignored = 0;
  const bool counted = write_at(start_time_at_, span.data(), sizeof span, ignored) &&
                       write_at(columns_at_, &count, sizeof count, ignored);
  if (!whole) errno = reason;
  return whole && counted;
}

void MatTrajectory::append(double t, std::span<const double> values) {
  if (points_ == 0) first_time_ = t;
  pending_.push_back(t);
  pending_.insert(pending_.end(), values.begin(), values.end());
  ++points_;
  if (pending_.size() >= kFlushDoubles || std::chrono::steady_clock::now() - last_flush_ >= period_) flush();
}

void MatTrajectory::flush() {
  if (!write_pending()) {
    const int reason = errno;
    if (points_on_disk_ > 0) file_.publish_now();  // the whole columns that did reach the disk are kept
    throw Error(fmt::format("error while writing '{}': {}", file_.name(), std::strerror(reason)));
  }
  last_flush_ = std::chrono::steady_clock::now();
}

void MatTrajectory::finish() {
  flush();
  file_.publish();
}

void MatTrajectory::emergency_flush() noexcept {
  (void)write_pending();
  if (points_on_disk_ > 0) {
    file_.publish_now();
  } else {
    file_.discard_now();
  }
}

void write_mat_results(const std::filesystem::path& path, const MatResults& results) {
  MatTrajectory file(path, results.names, results.descriptions);
  const std::size_t n = results.names.size();
  for (std::size_t k = 0; k < results.times.size(); ++k)
    file.append(results.times[k], results.values.subspan(k * n, n));
  file.finish();
}

}  // namespace cosima::observer
