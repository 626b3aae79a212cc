#pragma once
// Records chosen variables ("system.port" outputs or "system.state" states) at the communication
// points, optionally thinned to at most one row per `interval`, and writes them as CSV:
// `time` then one column per variable. String outputs are recorded as quoted text ("" escapes ").
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "observer/observer.hpp"

namespace cosima {

class ResultRecorder final : public Observer {
 public:
  /// variables: labels "system.name"; empty: every output of every system.
  ResultRecorder(const ModularModel& model, std::vector<std::string> variables, double interval = 0.0);

  void on_start(const ModularModel& model, double t) override;
  void on_step(const ModularModel& model, double t, const StepReport& report) override;
  void on_end(const ModularModel& model, double t) override;

  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }
  [[nodiscard]] const std::vector<double>& times() const { return times_; }
  /// Values of one variable over time; throws Error for an unknown label.
  [[nodiscard]] std::vector<double> column(const std::string& label) const;
  [[nodiscard]] double value(std::size_t row, std::size_t column) const {
    return values_[row * labels_.size() + column];
  }
  /// Whether a column holds text (a String output).
  [[nodiscard]] bool is_text(std::size_t column) const { return sources_[column].kind == Source::Kind::text; }
  /// The text of a String column at a row.
  [[nodiscard]] const std::string& text(std::size_t row, std::size_t column) const;
  void write_csv(const std::filesystem::path& path) const;

 private:
  void record(const ModularModel& model, double t);

  struct Source {
    enum class Kind : std::uint8_t { output, state, text };
    int system;
    Kind kind;
    int index;
    int text_column = -1;  ///< among the text columns
  };
  std::vector<std::string> labels_;
  std::vector<Source> sources_;
  double interval_;
  double next_time_ = 0.0;
  double last_time_ = -1e300;
  std::vector<double> times_;
  std::vector<double> values_;     // row-major (text columns hold 0)
  std::vector<std::string> texts_;  // row-major over the text columns
  int text_columns_ = 0;
  mutable Eigen::VectorXd buffer_;
};

}  // namespace cosima
