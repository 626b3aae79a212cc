#include "observer/result_recorder.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hermite.hpp"
#include "core/log.hpp"
#include "core/suggest.hpp"
#include "io/csv.hpp"

namespace cosima::observer {

namespace {

/// A glob: "*" or "?" (not "[": array elements are named "A[1,2]")
bool is_pattern(const std::string& label) { return label.find_first_of("*?") != std::string::npos; }

/// Every label a system offers: outputs, states, other variables.
std::vector<std::string> offered_labels(const System& system) {
  std::vector<std::string> labels;
  for (const auto& names : {system.output_names(), system.state_names(), system.variable_names()}) {
    for (const std::string& name : names) labels.push_back(system.name() + "." + name);
  }
  return labels;
}

/// The labels with each glob pattern replaced by the labels it matches (fnmatch), each label once.
std::vector<std::string> expand_patterns(const model::ModularModel& model, const std::vector<std::string>& variables) {
  std::vector<std::string> labels;
  std::set<std::string> seen;
  for (const std::string& entry : variables) {
    if (!is_pattern(entry)) {
      if (seen.insert(entry).second) labels.push_back(entry);
      continue;
    }
    bool matched = false;
    for (int s = 0; s < model.system_count(); ++s) {
      for (const std::string& label : offered_labels(model.system(s))) {
        if (::fnmatch(entry.c_str(), label.c_str(), 0) != 0) continue;
        matched = true;
        if (seen.insert(label).second) labels.push_back(label);
      }
    }
    if (!matched) throw Error(fmt::format("output variable pattern '{}' matches no variable of any system", entry));
  }
  return labels;
}

}  // namespace

ResultRecorder::ResultRecorder(model::ModularModel& model, std::vector<std::string> variables, RecorderOptions options)
    : options_(std::move(options)) {
  if (!(options_.interval >= 0.0) || !std::isfinite(options_.interval)) {
    throw Error(fmt::format("output.interval = {} must be a finite number ≥ 0", options_.interval));
  }
  if (variables.empty()) {
    for (int o = 0; o < model.total_outputs(); ++o) variables.push_back(model.output_label(o));
  }
  const auto systems = static_cast<std::size_t>(model.system_count());
  needs_outputs_.assign(systems, 0);
  needs_states_.assign(systems, 0);
  watched_.assign(systems, {});
  for (const auto& label : expand_patterns(model, variables)) add_column(model, label);
  system_variables_.resize(systems);
  for (std::size_t s = 0; s < systems; ++s) {
    if (watched_[s].empty()) continue;
    model.system(static_cast<int>(s)).watch_variables(watched_[s]);
    system_variables_[s].resize(static_cast<Eigen::Index>(watched_[s].size()));
  }
  mark_slope_columns(model);
  system_outputs_.resize(systems);
  system_states_.resize(systems);
  for (std::size_t s = 0; s < systems; ++s) {
    if (needs_outputs_[s] != 0) system_outputs_[s].resize(model.system(static_cast<int>(s)).output_count());
    if (needs_states_[s] != 0) system_states_[s].resize(model.system(static_cast<int>(s)).state_count());
  }
  row_values_.resize(labels_.size());
  row_texts_.resize(static_cast<std::size_t>(text_columns_));
  if (options_.csv) {
    stream_ = std::make_unique<CsvStream>(*options_.csv);
    if (options_.watched) stream_->set_flush_period(std::chrono::milliseconds(100));
    std::string header = "time";
    for (const auto& label : labels_) {
      header += ',';
      header += io::csv_cell(label);
    }
    stream_->header(header + "\n");
  }
  if (options_.mat) {
    for (std::size_t c = 0; c < labels_.size(); ++c) {
      if (is_text(c)) {
        throw Error(fmt::format("'{}': MAT results hold numbers, and '{}' is a String output; record it to a CSV file",
                                options_.mat->string(), labels_[c]));
      }
    }
    mat_ = std::make_unique<MatTrajectory>(*options_.mat, labels_, descriptions_);
    if (options_.watched) mat_->set_flush_period(std::chrono::milliseconds(100));
    rounded_warned_.assign(labels_.size(), 0);
  }
}

void ResultRecorder::mark_slope_columns(const model::ModularModel& model) {
  const auto systems = static_cast<std::size_t>(model.system_count());
  needs_slopes_.assign(systems, 0);
  needs_state_slopes_.assign(systems, 0);
  system_slopes_.resize(systems);
  system_state_slopes_.resize(systems);
  for (Source& source : sources_) {
    const System& system = model.system(source.system);
    const auto s = static_cast<std::size_t>(source.system);
    if (!options_.interpolate || !source.continuous) continue;
    if (source.kind == Source::Kind::state) {  // ẋ from the system that owns the state
      source.slope = true;
      needs_state_slopes_[s] = 1;
      system_state_slopes_[s].resize(system.state_count());
      continue;
    }
    // emulated derivatives are 0 before the first step and of low order: linear rows instead
    source.slope = source.kind == Source::Kind::output && system.has(Capability::output_derivatives) &&
                   !system.emulated_capabilities().has(Capability::output_derivatives) &&
                   system.max_output_derivative_order() >= 1;
    if (!source.slope) continue;
    needs_slopes_[s] = 1;
    system_slopes_[s].resize(system.output_count());
  }
  row_slopes_.assign(sources_.size(), 0.0);
  previous_slopes_.assign(sources_.size(), 0.0);
}

namespace {

bool is_variable(const System& system, const std::string& name) {
  const std::vector<std::string> others = system.variable_names();
  return std::find(others.begin(), others.end(), name) != others.end();
}

}  // namespace

void ResultRecorder::add_column(model::ModularModel& model, const std::string& label) {
  const auto splits = model.split_label(label);
  if (splits.empty()) throw Error(fmt::format("output variable '{}': no such system (write 'system.variable')", label));
  // nested systems have dotted names: the longest system name under which the variable exists
  const auto found = std::find_if(splits.begin(), splits.end(), [&](const model::ModularModel::LabelSplit& split) {
    const System& system = model.system(split.system);
    if (system.output_index(split.port) >= 0 || system.state_index(split.port) >= 0) return true;
    return is_variable(system, std::string(split.port));  // listed only for the rare other variable
  });
  const int s = (found != splits.end() ? *found : splits.front()).system;
  const std::string name((found != splits.end() ? *found : splits.front()).port);
  const System& system = model.system(s);
  if (const int o = system.output_index(name); o >= 0) {
    if (system.output_info(o).kind == PortKind::string) {
      sources_.push_back({.system = s, .kind = Source::Kind::text, .index = o, .text_column = text_columns_++});
    } else {
      sources_.push_back({.system = s,
                          .kind = Source::Kind::output,
                          .index = o,
                          .continuous = system.output_info(o).continuous,
                          .wide = system.output_info(o).wide,
                          .name = name});
      needs_outputs_[static_cast<std::size_t>(s)] = 1;
    }
  } else if (const int x = system.state_index(name);
             x >= 0 && (system.has(Capability::state_access) || !is_variable(system, name))) {
    // a state the system offers no state access to (a run-ahead system, a Co-Simulation FMU under a
    // method that withholds it) is read as the variable it is, as any other method reads it
    system.require(Capability::state_access, fmt::format("recording state '{}'", label));
    sources_.push_back({.system = s, .kind = Source::Kind::state, .index = x, .continuous = true});
    needs_states_[static_cast<std::size_t>(s)] = 1;
  } else if (found != splits.end()) {  // another variable of the system
    std::vector<std::string>& watched = watched_[static_cast<std::size_t>(s)];
    // a state read as a variable is continuous: linear between communication points, not held
    sources_.push_back({.system = s,
                        .kind = Source::Kind::variable,
                        .index = static_cast<int>(watched.size()),
                        .continuous = system.state_index(name) >= 0,
                        .name = name});
    watched.push_back(name);
  } else {
    std::vector<std::string> known = system.output_names();
    known.insert(known.end(), system.state_names().begin(), system.state_names().end());
    const std::vector<std::string> others = system.variable_names();
    known.insert(known.end(), others.begin(), others.end());
    throw Error(fmt::format("output variable '{}': system '{}' has no output, state or variable '{}'{}", label,
                            system.name(), name, did_you_mean(name, known)));
  }
  labels_.push_back(label);
  descriptions_.push_back(system.variable_description(name));
}

void ResultRecorder::format_row(std::string& out, double t, const double* values, const std::string* texts) const {
  append_number(out, t);
  for (std::size_t c = 0; c < labels_.size(); ++c) {
    if (!is_text(c)) {
      out += ',';
      const Source& source = sources_[c];
      if (source.wide && !texts[source.text_column].empty()) {
        out += texts[source.text_column];  // the exact integer, unquoted
      } else {
        append_number(out, values[c]);
      }
      continue;
    }
    out += ",\"";
    for (char ch : texts[sources_[c].text_column]) {
      if (ch == '"') out += '"';
      out += ch;
    }
    out += '"';
  }
  out += '\n';
}

void ResultRecorder::record(const model::ModularModel& model, double t) {
  if (row_time(t) == last_time_) return;
  gather(model);
  emit(row_time(t));
}

double ResultRecorder::row_time(double t) const {
  if (!(options_.interval > 0.0)) return t;
  const double k = std::nearbyint((t - start_) / options_.interval);
  const double on_grid = start_ + k * options_.interval;
  return std::abs(t - on_grid) <= 1e-9 * options_.interval ? on_grid : t;
}

void ResultRecorder::mark_wide_columns(const model::ModularModel& model) {
  wide_marked_ = true;
  for (Source& source : sources_) {
    if (source.kind != Source::Kind::output && source.kind != Source::Kind::variable) continue;
    // an output is known by its port; another variable by whether its system reads it exactly
    source.wide = source.kind == Source::Kind::output ? source.wide
                                                      : model.system(source.system).wide_value(source.name).has_value();
    if (source.wide) source.text_column = text_columns_++;
  }
  row_texts_.resize(static_cast<std::size_t>(text_columns_));
}

void ResultRecorder::gather(const model::ModularModel& model) {
  if (!wide_marked_) mark_wide_columns(model);
  for (std::size_t s = 0; s < system_outputs_.size(); ++s) {
    if (needs_outputs_[s] != 0) model.system(static_cast<int>(s)).outputs(system_outputs_[s]);
    if (needs_states_[s] != 0) model.system(static_cast<int>(s)).states(system_states_[s]);
    if (!watched_[s].empty()) model.system(static_cast<int>(s)).read_variables(system_variables_[s]);
    if (needs_slopes_[s] != 0) model.system(static_cast<int>(s)).output_derivatives(1, system_slopes_[s]);
    if (needs_state_slopes_[s] != 0) model.system(static_cast<int>(s)).state_derivatives(system_state_slopes_[s]);
  }
  for (std::size_t c = 0; c < sources_.size(); ++c) {
    const Source& source = sources_[c];
    const auto s = static_cast<std::size_t>(source.system);
    switch (source.kind) {
      case Source::Kind::output:
        row_values_[c] = system_outputs_[s](source.index);
        if (source.slope) row_slopes_[c] = system_slopes_[s](source.index);
        break;
      case Source::Kind::state:
        row_values_[c] = system_states_[s](source.index);
        if (source.slope) row_slopes_[c] = system_state_slopes_[s](source.index);
        break;
      case Source::Kind::variable: row_values_[c] = system_variables_[s](source.index); break;
      case Source::Kind::text:
        row_values_[c] = 0.0;
        row_texts_[static_cast<std::size_t>(source.text_column)] =
            model.system(source.system).string_output(source.index);
        break;
    }
    if (source.wide) {
      const std::optional<WideInteger> exact = model.system(source.system).wide_value(source.name);
      row_texts_[static_cast<std::size_t>(source.text_column)] = exact ? exact->text() : std::string();
    }
  }
}

void ResultRecorder::emit(double t) {
  last_time_ = t;
  ++rows_;
  if (stream_) {
    format_row(stream_->buffer(), t, row_values_.data(), row_texts_.data());
    stream_->row_done();
  }
  if (mat_) {
    mat_->append(t, row_values_);
    warn_rounded_wide_values(t);
  }
  if (options_.keep_in_memory) {
    times_.push_back(t);
    values_.insert(values_.end(), row_values_.begin(), row_values_.end());
    texts_.insert(texts_.end(), row_texts_.begin(), row_texts_.end());
  }
}

void ResultRecorder::interpolate_rows(const model::ModularModel& model, double t, bool event) {
  gather(model);  // at an event: the left limits, which the rows before it lie on
  const double tolerance = 1e-9 * options_.interval;
  for (;; ++next_output_) {
    const double due = start_ + static_cast<double>(next_output_) * options_.interval;
    if (due > t + tolerance) break;
    if (due >= t - tolerance) {  // on the output time: the row of t, after its event if there is one
      if (event)
        deferred_ = due;
      else
        emit(due);
      continue;
    }
    // between the previous point and t
    const double w = (due - previous_time_) / (t - previous_time_);
    for (std::size_t c = 0; c < sources_.size(); ++c) between_values_[c] = between(c, w, t - previous_time_);
    between_values_.swap(row_values_);
    row_texts_.swap(previous_texts_);
    emit(due);
    between_values_.swap(row_values_);
    row_texts_.swap(previous_texts_);
  }
  previous_time_ = t;
  previous_values_ = row_values_;
  previous_slopes_ = row_slopes_;
  previous_texts_ = row_texts_;
}

double ResultRecorder::between(std::size_t c, double w, double span) const {
  const double y0 = previous_values_[c], y1 = row_values_[c];
  if (!sources_[c].continuous) return y0;  // held
  if (!sources_[c].slope) return linear_between(y0, y1, w);
  return hermite_weights(span, w * span, 0).dot(Eigen::Vector4d(y0, previous_slopes_[c], y1, row_slopes_[c]));
}

void ResultRecorder::on_start(const model::ModularModel& model, double t) {
  start_ = t;
  next_output_ = 1;
  record(model, t);
  previous_time_ = t;
  previous_values_ = row_values_;
  previous_slopes_ = row_slopes_;
  previous_texts_ = row_texts_;
  between_values_.resize(row_values_.size());
}

void ResultRecorder::on_step(const model::ModularModel& model, double t, const methods::StepReport& report) {
  const bool event = report.ends_on_event;
  if (options_.interpolate && options_.interval > 0.0) {
    interpolate_rows(model, t, event);
    return;
  }
  if (options_.interval > 0.0) {
    // output times start + k·interval, each computed afresh (no accumulated drift)
    const double due = start_ + static_cast<double>(next_output_) * options_.interval;
    if (t < due - 1e-9 * options_.interval) return;
    next_output_ = static_cast<std::int64_t>(std::floor((t - start_) / options_.interval + 1e-9)) + 1;
  }
  if (event) {
    deferred_ = row_time(t);
    return;
  }
  record(model, t);
}

void ResultRecorder::on_discontinuity(const model::ModularModel& model, double t) {
  gather(model);  // the right limits: the row at t if one is due, and where the next stretch starts
  if (deferred_) emit(*std::exchange(deferred_, std::nullopt));
  previous_time_ = t;
  previous_values_ = row_values_;
  previous_slopes_ = row_slopes_;
  previous_texts_ = row_texts_;
}

void ResultRecorder::on_end(const model::ModularModel& model, double t) {
  if (deferred_) {  // the run ended at an event it did not handle (a system asked to stop)
    gather(model);
    emit(*std::exchange(deferred_, std::nullopt));
  }
  record(model, t);
  if (stream_) stream_->finish();
  if (mat_) mat_->finish();
}

void ResultRecorder::flush() {
  if (stream_) stream_->flush();
  if (mat_) mat_->flush();
}

void ResultRecorder::warn_rounded_wide_values(double t) {
  for (std::size_t c = 0; c < sources_.size(); ++c) {
    if (!sources_[c].wide || rounded_warned_[c] != 0) continue;
    const std::optional<WideInteger> exact =
        WideInteger::parse(row_texts_[static_cast<std::size_t>(sources_[c].text_column)]);
    if (!exact || exact->exact_in_double()) continue;
    rounded_warned_[c] = 1;
    log(LogLevel::warning,
        fmt::format("'{}': '{}' is {} at t = {}, which a MAT file holds as the double {:.17g} (MAT results hold "
                    "doubles; a CSV file keeps 64-bit integers exact)",
                    options_.mat->string(), labels_[c], exact->text(), t, exact->to_double()));
  }
}

const std::string& ResultRecorder::text(std::size_t row, std::size_t column) const {
  return texts_[row * static_cast<std::size_t>(text_columns_) + static_cast<std::size_t>(sources_[column].text_column)];
}

std::optional<WideInteger> ResultRecorder::wide(std::size_t row, std::size_t column) const {
  if (!is_wide(column)) return std::nullopt;
  return WideInteger::parse(
      texts_[row * static_cast<std::size_t>(text_columns_) + static_cast<std::size_t>(sources_[column].text_column)]);
}

std::vector<double> ResultRecorder::column(const std::string& label) const {
  for (std::size_t c = 0; c < labels_.size(); ++c) {
    if (labels_[c] != label) continue;
    if (is_text(c)) throw Error(fmt::format("recorded variable '{}' is a String", label));
    std::vector<double> out(times_.size());
    for (std::size_t r = 0; r < times_.size(); ++r) out[r] = value(r, c);
    return out;
  }
  throw Error(fmt::format("no recorded variable '{}'", label));
}

void ResultRecorder::write_csv(const std::filesystem::path& path) const {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
  out << "time";
  for (const auto& label : labels_) out << ',' << label;
  out << '\n';
  std::string row;
  for (std::size_t r = 0; r < times_.size(); ++r) {
    row.clear();
    format_row(row, times_[r], &values_[r * labels_.size()],
               text_columns_ > 0 ? &texts_[r * static_cast<std::size_t>(text_columns_)] : nullptr);
    out << row;
  }
  if (!out) throw Error(fmt::format("error while writing '{}'", path.string()));
}

}  // namespace cosima::observer
