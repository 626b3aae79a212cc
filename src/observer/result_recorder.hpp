#pragma once
// Records chosen variables ("system.port" outputs or "system.state" states) at the communication
// points, thinned to the first communication point at or after each output time start + k·interval
// (interval 0: every communication point). A row on an output time is written at start + k·interval
// as computed from k, whatever rounding the communication point's time carries; a row at an event
// holds the values after it (the right limits), and rows interpolated before it the values before it. Rows go to a CSV
// stream as the run goes (`time`, then one column per variable; String outputs as quoted text, "" escaping "), and/or
// to a MATLAB v4 file as they come, and/or stay in memory for programs that read them back (tests, benches,
// the Python module).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "observer/csv_stream.hpp"
#include "observer/mat_results.hpp"
#include "observer/observer.hpp"

namespace cosima::observer {

struct RecorderOptions {
  double interval = 0.0;                     ///< between output times; 0: every communication point
  std::optional<std::filesystem::path> csv;  ///< stream the rows to this file (created at once)
  /// Stream the rows to this MATLAB v4 file (observer/mat_results.hpp; created at once; String
  /// columns refused by name before it is).
  std::optional<std::filesystem::path> mat;
  bool keep_in_memory = true;  ///< keep the rows for times() / column() / value()
  bool watched = false;        ///< someone is watching (a terminal): rows to disk within 0.1 s
  /// The communication points need not fall on the output times (a method that chooses its steps):
  /// a row at start + k·interval between two of them is interpolated from them — by the cubic Hermite
  /// interpolant of the values and the system's own derivatives at both points for a state (ẋ, from
  /// the system that owns it) and for a continuous output whose system provides ẏ (not emulated),
  /// linearly for the other continuous outputs and the variables; other columns hold the earlier
  /// value. Needs interval > 0.
  bool interpolate = false;
};

class ResultRecorder final : public Observer {
 public:
  /// variables: labels "system.name" — an output, a state, or any other variable the system offers
  /// (System::variable_names: an FMU's parameters, locals, inputs, derivatives) — or glob patterns
  /// over those labels with * and ? ("system2.*", "*.s?"); empty: every output of every system. The
  /// systems are told which of their other variables to read (System::watch_variables).
  ResultRecorder(model::ModularModel& model, std::vector<std::string> variables, RecorderOptions options = {});

  void on_start(const model::ModularModel& model, double t) override;
  void on_step(const model::ModularModel& model, double t, const methods::StepReport& report) override;
  void on_discontinuity(const model::ModularModel& model, double t) override;
  void on_end(const model::ModularModel& model, double t) override;

  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }
  /// Each column's description and unit (System::variable_description; empty where none is declared).
  [[nodiscard]] const std::vector<std::string>& descriptions() const { return descriptions_; }
  /// Rows recorded (also when they are not kept in memory).
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  [[nodiscard]] const std::vector<double>& times() const { return times_; }
  /// Every kept value, row-major (a String column's slots hold 0).
  [[nodiscard]] const std::vector<double>& values() const { return values_; }
  /// Values of one variable over time; throws Error for an unknown label.
  [[nodiscard]] std::vector<double> column(const std::string& label) const;
  [[nodiscard]] double value(std::size_t row, std::size_t column) const {
    return values_[row * labels_.size() + column];
  }
  /// Whether a column holds text (a String output).
  [[nodiscard]] bool is_text(std::size_t column) const { return sources_[column].kind == Source::Kind::text; }
  /// Whether a column is a 64-bit integer (known from the first row on): its numbers are the nearest
  /// doubles, wide() and the CSV its exact values.
  [[nodiscard]] bool is_wide(std::size_t column) const { return sources_[column].wide; }
  /// The exact value of a 64-bit integer column at a row (nullopt where the system gave none).
  [[nodiscard]] std::optional<WideInteger> wide(std::size_t row, std::size_t column) const;
  /// The text of a String column at a row.
  [[nodiscard]] const std::string& text(std::size_t row, std::size_t column) const;
  /// Writes the rows kept in memory as CSV.
  void write_csv(const std::filesystem::path& path) const;
  /// Pushes the streamed rows to disk (the streams also do so by themselves).
  void flush();

 private:
  void record(const model::ModularModel& model, double t);
  /// row_values_ and row_texts_ from the systems' current values.
  void gather(const model::ModularModel& model);
  /// Writes row_values_ and row_texts_ as the row of time t.
  void emit(double t);
  /// on_step with interpolate: the output times in (previous point, t] as rows, then t's values
  /// become the previous point's.
  void interpolate_rows(const model::ModularModel& model, double t, bool event);
  /// The output time start + k·interval that t stands for (within 1e-9·interval), else t itself.
  [[nodiscard]] double row_time(double t) const;
  /// Which output and state columns are interpolated by Hermite (RecorderOptions::interpolate), and their buffers.
  void mark_slope_columns(const model::ModularModel& model);
  /// One label's column (an output, a state or another variable), or Error naming what is known.
  void add_column(model::ModularModel& model, const std::string& label);
  /// At the first row: which output and variable columns are 64-bit integers (their systems give
  /// exact values for them), each with a text column for its exact values.
  void mark_wide_columns(const model::ModularModel& model);
  void format_row(std::string& out, double t, const double* values, const std::string* texts) const;

  struct Source {
    enum class Kind : std::uint8_t { output, state, text, variable };
    int system;
    Kind kind;
    int index;
    int text_column = -1;     ///< among the text columns (a String's, or a 64-bit integer's exact value)
    bool continuous = false;  ///< interpolated between communication points (else held)
    bool slope = false;  ///< continuous, with the system's own derivative (ẏ, or ẋ of a state): Hermite, not linear
    bool wide = false;   ///< a 64-bit integer, its exact value in its text column
    std::string name;    ///< the variable's name in its system
  };
  /// The interpolated value of column c at w ∈ (0, 1) of the last stretch (of length `span`).
  [[nodiscard]] double between(std::size_t c, double w, double span) const;
  std::vector<std::string> labels_;
  std::vector<std::string> descriptions_;  ///< beside labels_
  std::vector<Source> sources_;
  RecorderOptions options_;
  double start_ = 0.0;
  std::int64_t next_output_ = 0;  ///< k of the next output time start + k·interval
  double last_time_ = -1e300;
  std::optional<double> deferred_;  ///< the row at an event's time, written with the right limits
  std::int64_t rows_ = 0;
  std::unique_ptr<CsvStream> stream_;
  std::unique_ptr<MatTrajectory> mat_;
  std::vector<char> rounded_warned_;  ///< per column: the MAT file's rounding of a 64-bit integer was said
  /// A MAT file rounds 64-bit integers to doubles: warned once per column, at the first row it rounds.
  void warn_rounded_wide_values(double t);
  std::vector<double> times_;
  std::vector<double> values_;      // row-major (text columns hold 0)
  std::vector<std::string> texts_;  // row-major over the text columns
  int text_columns_ = 0;
  bool wide_marked_ = false;  ///< mark_wide_columns done
  // one row's scratch space: each system's outputs and states read once per row
  std::vector<Eigen::VectorXd> system_outputs_, system_states_, system_variables_;
  std::vector<std::vector<std::string>> watched_;  ///< per system: its other variables recorded
  std::vector<char> needs_outputs_, needs_states_, needs_slopes_, needs_state_slopes_;
  std::vector<Eigen::VectorXd> system_slopes_;        ///< each system's output derivatives, for slope columns
  std::vector<Eigen::VectorXd> system_state_slopes_;  ///< each system's ẋ, for its state columns
  std::vector<double> row_values_;
  std::vector<std::string> row_texts_;
  // interpolate: the previous communication point's row, and the row being interpolated
  double previous_time_ = 0.0;
  std::vector<double> previous_values_, between_values_;
  std::vector<double> row_slopes_, previous_slopes_;  ///< of the slope columns (0 elsewhere)
  std::vector<std::string> previous_texts_;
};

}  // namespace cosima::observer
