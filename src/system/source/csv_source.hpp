#pragma once
// A signal source: a CSV table as a system without inputs whose outputs are the table's columns
// (MasterSim's time-series slaves, OMSimulator's CSV sources), so that measured signals can drive a
// co-simulation.
//
// The first column is "time", non-decreasing; every other column is an output, read per column as
//   linear  — linear interpolation between rows (a continuous Real port), or
//   hold    — the value of the last row at or before t (a discrete Real port: methods hold it over a
//             macro-step and never extrapolate it).
// Before the first row the outputs are the first row's, after the last row the last row's. Two
// rows with the same time make a jump. Every time at which an output jumps (a hold column changes,
// or a time is repeated) is announced as a time event (System call order 5): the grid lands on it,
// the outputs there are the left limits until handle_pending_events() moves them to the right ones.
//
// Capabilities: everything, trivially — there are no inputs and no states; output derivatives are
// the segment's slope (order 1; 0 above); rollback keeps the time.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "system/system.hpp"

namespace cosima {

enum class SourceInterpolation : std::uint8_t { linear, hold };

class CsvSource final : public System {
 public:
  /// `interpolation`: per column name, plus "default" for the others (linear when absent). Throws
  /// Error naming the file, the column or the row: an unknown column, a decreasing time, a value
  /// that is not finite, a text column.
  CsvSource(std::string name, const std::filesystem::path& table,
            const std::map<std::string, SourceInterpolation>& interpolation);

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return no_inputs_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return columns_; }
  [[nodiscard]] bool output_depends_on_input(int /*output*/, int /*input*/) const override { return false; }
  [[nodiscard]] const PortInfo& output_info(int output) const override {
    return info_[static_cast<std::size_t>(output)];
  }
  void set_parameter(const std::string& name, double value) override;
  void enter_initialization(double t_start) override;
  [[nodiscard]] double time() const override { return t_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;
  [[nodiscard]] double next_event_time() const override;
  [[nodiscard]] bool event_pending() const override { return pending_; }
  StepResult handle_pending_events() override;

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override;
  [[nodiscard]] int provided_output_derivative_order() const override { return 3; }
  void apply_inputs(const InputPolynomials& /*polynomials*/) override {}
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;
  void compute_states(Eigen::Ref<Eigen::VectorXd> /*x*/) const override {}
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> /*dx*/) const override {}
  const Linearization& compute_linearization() override { return linearization_; }

 private:
  /// Throws Error naming the rows where a linear column's slope overflows a double (±1e308 a second
  /// apart): its derivative would be ±inf.
  void refuse_overflowing_slopes(const std::filesystem::path& table, std::size_t c) const;
  /// Where the outputs are read: at `at_`, from the right (the value at at_) or, with an event
  /// pending there, from the left (the limit before the jump).
  struct Reading {
    double at = 0.0;
    bool left = false;
  };
  /// The row k whose segment [time_k, time_k+1] holds the reading (−1: before the first row).
  [[nodiscard]] std::ptrdiff_t segment(const Reading& reading) const;

  std::vector<std::string> no_inputs_, columns_;
  std::vector<PortInfo> info_;
  std::vector<SourceInterpolation> modes_;
  std::vector<double> times_;
  std::vector<std::vector<double>> values_;  ///< values_[column][row]
  std::vector<double> events_;               ///< the times at which an output jumps, increasing
  double t_ = 0.0;
  Reading reading_;
  bool pending_ = false;
  struct Snapshot {
    double t = 0.0;
    Reading reading;
    bool pending = false;
    bool in_use = false;
  };
  std::vector<Snapshot> snapshots_;
  Linearization linearization_;  ///< no states, no inputs: C and D have a row per output, no column
};

}  // namespace cosima
