#pragma once
// A modular model: named systems and the connections Φ between their ports (DESIGN §3 notation).
// Every input is driven exactly once — by one output (fan-out allowed: one output may drive many
// inputs) or by a constant. Global indexing stacks the systems' inputs and outputs in system
// order; dispatch computes ũ = Φᵀ ỹ (+ constants).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "system/system.hpp"

namespace cosima {

struct PortRef {
  int system = -1;
  int port = -1;
};

class ModularModel {
 public:
  /// Adds a system; its name must be unique and contain no '.'. Returns its index.
  int add_system(std::unique_ptr<System> system);
  /// Connects an output to an input, both written "system.port".
  void connect(std::string_view output, std::string_view input);
  /// Drives an input ("system.port") by a constant.
  void set_constant_input(std::string_view input, double value);
  /// Checks that every input is driven exactly once and builds the global index tables.
  /// Throws Error naming every undriven input.
  void finalize();

  [[nodiscard]] int system_count() const { return static_cast<int>(systems_.size()); }
  [[nodiscard]] System& system(int index) { return *systems_[static_cast<std::size_t>(index)]; }
  [[nodiscard]] const System& system(int index) const { return *systems_[static_cast<std::size_t>(index)]; }
  /// Index of a system by name, or -1.
  [[nodiscard]] int system_index(std::string_view name) const;

  [[nodiscard]] int total_inputs() const { return input_offsets_.back(); }
  [[nodiscard]] int total_outputs() const { return output_offsets_.back(); }
  [[nodiscard]] int input_offset(int system) const { return input_offsets_[static_cast<std::size_t>(system)]; }
  [[nodiscard]] int output_offset(int system) const { return output_offsets_[static_cast<std::size_t>(system)]; }
  /// For each global input, the global output that drives it, or -1 for a constant.
  [[nodiscard]] const std::vector<int>& input_sources() const { return input_sources_; }
  [[nodiscard]] const Eigen::VectorXd& constant_inputs() const { return constants_; }
  /// "system.port" of a global input / output.
  [[nodiscard]] std::string input_label(int global_input) const;
  [[nodiscard]] std::string output_label(int global_output) const;
  /// System owning a global input / output.
  [[nodiscard]] int system_of_input(int global_input) const;
  [[nodiscard]] int system_of_output(int global_output) const;

  /// ỹ: the current outputs of every system, stacked.
  void gather_outputs(Eigen::VectorXd& y_all) const;
  /// ũ = Φᵀ ỹ, constants for constant inputs.
  void dispatch(const Eigen::VectorXd& y_all, Eigen::VectorXd& u_all) const;
  /// ũ' = Φᵀ ỹ' (the time-derivatives of constant inputs are zero).
  void dispatch_derivatives(const Eigen::VectorXd& dy_all, Eigen::VectorXd& du_all) const;

  /// A cycle of direct-feedthrough dependencies (an algebraic loop) as port labels
  /// ["a.y", "b.u", "b.z", "a.v", "a.y"], or empty when there is none.
  [[nodiscard]] std::vector<std::string> find_algebraic_loop() const;
  /// Whether any output depends algebraically on an input of its system (known after finalize).
  [[nodiscard]] bool has_feedthrough() const { return has_feedthrough_; }

 private:
  PortRef resolve(std::string_view label, bool want_output) const;

  std::vector<std::unique_ptr<System>> systems_;
  struct PendingConnection {
    PortRef from, to;
  };
  std::vector<PendingConnection> connections_;
  std::vector<std::pair<PortRef, double>> constants_pending_;
  std::vector<int> input_offsets_{0};
  bool has_feedthrough_ = false;
  std::vector<int> output_offsets_{0};
  std::vector<int> input_sources_;
  Eigen::VectorXd constants_;
  bool finalized_ = false;
};

}  // namespace cosima
