#include "observer/result_recorder.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

ResultRecorder::ResultRecorder(const ModularModel& model, std::vector<std::string> variables, double interval)
    : interval_(interval) {
  if (variables.empty()) {
    for (int o = 0; o < model.total_outputs(); ++o) variables.push_back(model.output_label(o));
  }
  for (const auto& label : variables) {
    const auto dot = label.find('.');
    const int s = dot == std::string::npos ? -1 : model.system_index(label.substr(0, dot));
    if (s < 0) throw Error(fmt::format("output variable '{}': no such system (write 'system.variable')", label));
    const std::string name = label.substr(dot + 1);
    const System& system = model.system(s);
    if (const int o = system.output_index(name); o >= 0) {
      if (system.output_info(o).kind == PortKind::string) sources_.push_back({s, Source::Kind::text, o, text_columns_++});
      else sources_.push_back({s, Source::Kind::output, o});
    } else if (const int x = system.state_index(name); x >= 0) {
      system.require(Capability::state_access, fmt::format("recording state '{}'", label));
      sources_.push_back({s, Source::Kind::state, x});
    } else {
      throw Error(fmt::format("output variable '{}': system '{}' has no output or state '{}'", label,
                              system.name(), name));
    }
    labels_.push_back(label);
  }
}

void ResultRecorder::record(const ModularModel& model, double t) {
  if (t == last_time_) return;
  times_.push_back(t);
  last_time_ = t;
  for (const Source& source : sources_) {
    const System& system = model.system(source.system);
    if (source.kind == Source::Kind::text) {
      texts_.push_back(system.string_output(source.index));
      values_.push_back(0.0);
      continue;
    }
    const bool state = source.kind == Source::Kind::state;
    buffer_.resize(state ? system.state_count() : system.output_count());
    if (state) system.states(buffer_);
    else system.outputs(buffer_);
    values_.push_back(buffer_(source.index));
  }
}

void ResultRecorder::on_start(const ModularModel& model, double t) {
  next_time_ = t + interval_;
  record(model, t);
}

void ResultRecorder::on_step(const ModularModel& model, double t, const StepReport& /*report*/) {
  if (interval_ > 0.0) {
    if (t < next_time_ - 1e-9 * interval_) return;
    next_time_ += interval_ * std::max(1.0, std::floor((t - next_time_) / interval_ + 1e-9) + 1.0);
  }
  record(model, t);
}

void ResultRecorder::on_end(const ModularModel& model, double t) { record(model, t); }

const std::string& ResultRecorder::text(std::size_t row, std::size_t column) const {
  return texts_[row * static_cast<std::size_t>(text_columns_) + static_cast<std::size_t>(sources_[column].text_column)];
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
  for (std::size_t r = 0; r < times_.size(); ++r) {
    out << fmt::format("{:.17g}", times_[r]);
    for (std::size_t c = 0; c < labels_.size(); ++c) {
      if (!is_text(c)) {
        out << fmt::format(",{:.17g}", value(r, c));
        continue;
      }
      std::string quoted = "\"";
      for (char ch : text(r, c)) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      out << ',' << quoted << '"';
    }
    out << '\n';
  }
  if (!out) throw Error(fmt::format("error while writing '{}'", path.string()));
}

}  // namespace cosima
