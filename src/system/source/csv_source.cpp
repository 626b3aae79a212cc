#include "system/source/csv_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/hermite.hpp"
#include "core/slots.hpp"
#include "io/csv.hpp"

namespace cosima {

CsvSource::CsvSource(std::string name, const std::filesystem::path& table,
                     const std::map<std::string, SourceInterpolation>& interpolation)
    : System(std::move(name)) {
  io::Table data = io::read_csv(table);
  if (!data.texts.empty()) {
    throw Error(fmt::format("signal source '{}': column '{}' of '{}' holds text; a source's columns are numbers",
                            this->name(), data.texts.front().first, table.string()));
  }
  if (data.time.empty()) throw Error(fmt::format("signal source '{}': '{}' has no rows", this->name(), table.string()));
  if (data.columns.empty()) {
    throw Error(fmt::format("signal source '{}': '{}' has no column besides time", this->name(), table.string()));
  }
  for (std::size_t r = 0; r < data.time.size(); ++r) {
    if (!std::isfinite(data.time[r]) || (r > 0 && data.time[r] < data.time[r - 1])) {
      throw Error(fmt::format("signal source '{}': '{}' row {}: time {} {}", this->name(), table.string(), r + 1,
                              data.time[r], std::isfinite(data.time[r]) ? "goes back" : "is not finite"));
    }
    for (std::size_t c = 0; c < data.columns.size(); ++c) {
      if (!std::isfinite(data.values[c][r])) {
        throw Error(fmt::format("signal source '{}': '{}' row {}: '{}' is {}", this->name(), table.string(), r + 1,
                                data.columns[c], data.values[c][r]));
      }
    }
  }
  SourceInterpolation fallback = SourceInterpolation::linear;
  for (const auto& [column, mode] : interpolation) {
    if (column == "default") {
      fallback = mode;
    } else if (data.column_index(column) < 0) {
      std::string known;
      for (const auto& c : data.columns) known += (known.empty() ? "" : ", ") + c;
      throw Error(fmt::format("signal source '{}': interpolation names column '{}', which '{}' lacks (columns: {})",
                              this->name(), column, table.string(), known));
    }
  }
  columns_ = std::move(data.columns);
  times_ = std::move(data.time);
  values_ = std::move(data.values);
  for (const auto& column : columns_) {
    const auto it = interpolation.find(column);
    modes_.push_back(it != interpolation.end() ? it->second : fallback);
    if (modes_.back() == SourceInterpolation::linear) refuse_overflowing_slopes(table, modes_.size() - 1);
    PortInfo info;
    info.continuous = modes_.back() == SourceInterpolation::linear;
    info.signal = info.continuous;
    info_.push_back(info);
  }
  // no states and no inputs: A, B empty, C and D one empty row per output (shapes the estimators use)
  linearization_.A.resize(0, 0);
  linearization_.B.resize(0, 0);
  linearization_.C.resize(static_cast<Eigen::Index>(columns_.size()), 0);
  linearization_.D.resize(static_cast<Eigen::Index>(columns_.size()), 0);
  // the jumps: a repeated time, or a row where a held column changes
  for (std::size_t r = 1; r < times_.size(); ++r) {
    bool jumps = times_[r] == times_[r - 1];
    for (std::size_t c = 0; c < columns_.size() && !jumps; ++c) {
      jumps = modes_[c] == SourceInterpolation::hold && values_[c][r] != values_[c][r - 1];
    }
    if (jumps && (events_.empty() || events_.back() != times_[r])) events_.push_back(times_[r]);
  }
}

void CsvSource::set_parameter(const std::string& parameter, double /*value*/) {
  throw Error(fmt::format("signal source '{}' has no parameter '{}' (it has none)", name(), parameter));
}

CapabilitySet CsvSource::provided_capabilities() const {
  CapabilitySet set;
  for (Capability c : kAllCapabilities) set.add(c);
  return set;
}

void CsvSource::enter_initialization(double t_start) {
  t_ = t_start;
  reading_ = {t_start, false};
  pending_ = false;
}

std::ptrdiff_t CsvSource::segment(const Reading& reading) const {
  // the last row at (from the right) or before (from the left) the reading's time
  const auto end = reading.left ? std::lower_bound(times_.begin(), times_.end(), reading.at)
                                : std::upper_bound(times_.begin(), times_.end(), reading.at);
  return (end - times_.begin()) - 1;
}

void CsvSource::refuse_overflowing_slopes(const std::filesystem::path& table, std::size_t c) const {
  const std::vector<double>& v = values_[c];
  for (std::size_t r = 1; r < times_.size(); ++r) {
    if (times_[r] == times_[r - 1] || std::isfinite((v[r] - v[r - 1]) / (times_[r] - times_[r - 1]))) continue;
    throw Error(
        fmt::format("signal source '{}': '{}' rows {}-{}: '{}' goes from {} to {} in {} s, a slope beyond a "
                    "double's range; interpolate it with \"hold\", or scale the column",
                    name(), table.string(), r, r + 1, columns_[c], v[r - 1], v[r], times_[r] - times_[r - 1]));
  }
}

void CsvSource::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  const std::ptrdiff_t k = segment(reading_);
  const auto last = static_cast<std::ptrdiff_t>(times_.size()) - 1;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::vector<double>& v = values_[c];
    if (k < 0) {
      y(static_cast<Eigen::Index>(c)) = v.front();
    } else if (k >= last || modes_[c] == SourceInterpolation::hold) {
      y(static_cast<Eigen::Index>(c)) = v[static_cast<std::size_t>(k)];
    } else {
      const auto i = static_cast<std::size_t>(k);
      const double span = times_[i + 1] - times_[i];  // > 0: the reading lies inside this segment
      const double w = (reading_.at - times_[i]) / span;
      y(static_cast<Eigen::Index>(c)) = linear_between(v[i], v[i + 1], w);
    }
  }
}

void CsvSource::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  dy.setZero();
  if (order != 1) return;
  const std::ptrdiff_t k = segment(reading_);
  if (k < 0 || k + 1 >= static_cast<std::ptrdiff_t>(times_.size())) return;
  const auto i = static_cast<std::size_t>(k);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (modes_[c] == SourceInterpolation::linear) {
      dy(static_cast<Eigen::Index>(c)) = (values_[c][i + 1] - values_[c][i]) / (times_[i + 1] - times_[i]);
    }
  }
}

double CsvSource::next_event_time() const {
  if (pending_) return reading_.at;
  const auto next = std::upper_bound(events_.begin(), events_.end(), reading_.at);
  return next == events_.end() ? std::numeric_limits<double>::infinity() : *next;
}

StepResult CsvSource::integrate(double h) {
  pending_ = false;  // an event left at the last communication point is passed: the right limit
  const double t_end = t_ + h;
  // an event this close to the step's end is at its end (the master landed the grid on it)
  const double tolerance = 1e-12 * std::max(1.0, std::abs(t_end));
  const auto next = std::upper_bound(events_.begin(), events_.end(), reading_.at);
  t_ = t_end;
  if (next != events_.end() && std::abs(*next - t_end) <= tolerance) {
    reading_ = {*next, true};
    pending_ = true;
  } else {
    reading_ = {std::max(t_end, reading_.at), false};
  }
  return StepResult::success();
}

StepResult CsvSource::handle_pending_events() {
  if (pending_) reading_.left = false;
  pending_ = false;
  return StepResult::success();
}

StateId CsvSource::do_save_state(StateId overwrite) {
  const StateId id = acquire_slot(snapshots_, overwrite);
  if (id < 0) throw Error(fmt::format("system '{}': no saved state {}", name(), overwrite));
  snapshots_[static_cast<std::size_t>(id)] = {t_, reading_, pending_, true};
  return id;
}

void CsvSource::do_restore_state(StateId id) {
  if (id < 0 || id >= static_cast<StateId>(snapshots_.size()) || !snapshots_[static_cast<std::size_t>(id)].in_use) {
    throw Error(fmt::format("system '{}': no saved state {}", name(), id));
  }
  const Snapshot& snapshot = snapshots_[static_cast<std::size_t>(id)];
  t_ = snapshot.t;
  reading_ = snapshot.reading;
  pending_ = snapshot.pending;
}

void CsvSource::do_release_state(StateId id) {
  if (id >= 0 && id < static_cast<StateId>(snapshots_.size())) snapshots_[static_cast<std::size_t>(id)].in_use = false;
}

}  // namespace cosima
