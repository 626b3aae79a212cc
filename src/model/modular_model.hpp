#pragma once
// A modular model: named systems and the connections Φ between their ports (DESIGN §3 notation).
// Every input is driven at most once — by one output (fan-out allowed: one output may drive many
// inputs) or by a constant; an input driven by nothing is held at its declared start value. Global
// indexing stacks the systems' inputs and outputs in system order; dispatch computes ũ = Φᵀ ỹ
// (+ constants).
//
// Connections join ports of the same type (system/port.hpp): Real, Integer, Boolean, String, or
// Enumerations of the same declared type. A connection may ask for a numeric conversion explicitly
// (connect(..., convert = true)); it is then applied by dispatch. A connection may also carry a linear
// transformation u = scale·y + offset (SSP 1.0's LinearTransformation), applied before a conversion. Inputs that are
// not continuous Reals, or are driven by an output that is not, are "held": methods give them their value at the start
// of each macro-step and never extrapolate them (input_held). String connections and String constants are applied by
// exchange_at_communication_point, beside the exact values of 64-bit integers.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "core/position_index.hpp"
#include "system/system.hpp"

namespace cosima::model {

struct PortRef {
  int system = -1;
  int port = -1;
};

/// u = scale·y + offset on a connection (SSP 1.0 §5.3.3: ssc:LinearTransformation factor, offset);
/// time-derivatives scale by `scale` alone.
struct LinearTransform {
  double scale = 1.0;
  double offset = 0.0;
  [[nodiscard]] bool identity() const { return scale == 1.0 && offset == 0.0; }
  [[nodiscard]] double apply(double y) const { return scale * y + offset; }
};

class ModularModel {
 public:
  /// Adds a system; its name must be unique. It may contain '.' (a flattened nested system, "sub.c"):
  /// a label "sub.c.port" then names the port of the longest system name it starts with.
  int add_system(std::unique_ptr<System> system);
  /// Connects an output to an input, both written "system.port". Their types must be equal unless
  /// `convert` asks for the conversion (system/port.hpp: conversion_between).
  /// Whole arrays (FMI 3.0: ports "y[1]", "y[2]", …) of equal shape connect element by element.
  /// `transform` maps the output's value to the input's (not on String connections).
  void connect(std::string_view output, std::string_view input, bool convert = false, LinearTransform transform = {});
  /// Drives an input ("system.port") by a constant, checked against the input's type and range.
  void set_constant_input(std::string_view input, double value);
  /// Drives a Boolean input by true or false; any other input refuses them by name.
  void set_constant_input(std::string_view input, bool value);
  /// Drives a String input by a constant text.
  void set_constant_input(std::string_view input, const std::string& text);
  /// Drives an input by a 64-bit integer, exactly where the input is one (PortInfo::wide); another
  /// input takes it where a double holds it.
  void set_constant_input(std::string_view input, WideInteger value);
  /// Checks that every input is driven at most once, that connected types agree and that constants
  /// are legal values, and builds the global index tables. An input driven by nothing keeps its
  /// declared start value (inputs_at_start_values); one without a start value, or any with
  /// strict_inputs, is an Error naming every such input.
  void finalize();
  /// Refuse unconnected inputs instead of holding them at their start values.
  void set_strict_inputs(bool strict) {
    strict_inputs_ = strict;
    finalized_ = false;
  }
  /// The unconnected inputs held at their start values ("system.port"), known after finalize.
  [[nodiscard]] const std::vector<std::string>& inputs_at_start_values() const { return at_start_values_; }

  [[nodiscard]] int system_count() const { return static_cast<int>(systems_.size()); }
  [[nodiscard]] System& system(int index) { return *systems_[static_cast<std::size_t>(index)]; }
  [[nodiscard]] const System& system(int index) const { return *systems_[static_cast<std::size_t>(index)]; }
  /// Index of a system by name, or -1.
  [[nodiscard]] int system_index(std::string_view name) const;

  [[nodiscard]] int total_inputs() const { return input_offsets_.back(); }
  [[nodiscard]] int total_outputs() const { return output_offsets_.back(); }
  [[nodiscard]] int input_offset(int system) const { return input_offsets_[static_cast<std::size_t>(system)]; }
  [[nodiscard]] int output_offset(int system) const { return output_offsets_[static_cast<std::size_t>(system)]; }
  /// A system's input and output counts, from the offsets (no call into the system).
  [[nodiscard]] int input_count(int system) const { return input_offset(system + 1) - input_offset(system); }
  [[nodiscard]] int output_count(int system) const { return output_offset(system + 1) - output_offset(system); }
  /// For each global input, the global output that drives it, or -1 for a constant.
  [[nodiscard]] const std::vector<int>& input_sources() const { return input_sources_; }
  /// The value of each constant input (entries of connected inputs are unused).
  [[nodiscard]] const Eigen::VectorXd& constant_inputs() const { return constants_; }
  /// How a connected global input is computed from its source: u = scale·y_source + offset.
  [[nodiscard]] const LinearTransform& input_transform(int global_input) const {
    return transform_of_input_[static_cast<std::size_t>(global_input)];
  }
  /// The readings of a label "system.port" as (system, port), longest system name first (system
  /// names may contain '.'); empty when it starts with no system's name.
  struct LabelSplit {
    int system = -1;
    std::string_view port;
  };
  /// The splits of one label: held inline (a label rarely reads as more than two system names), so
  /// that resolving a connection allocates nothing.
  class LabelSplits {
   public:
    void push_back(const LabelSplit& split);
    [[nodiscard]] const LabelSplit* begin() const { return more_.empty() ? inline_.data() : more_.data(); }
    [[nodiscard]] const LabelSplit* end() const { return begin() + size_; }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] const LabelSplit& front() const { return *begin(); }

   private:
    std::array<LabelSplit, 2> inline_{};
    std::vector<LabelSplit> more_;  ///< all of them, once there are more than fit inline
    std::size_t size_ = 0;
  };
  [[nodiscard]] LabelSplits split_label(std::string_view label) const;
  /// "system.port" of a global input / output.
  [[nodiscard]] std::string input_label(int global_input) const;
  [[nodiscard]] std::string output_label(int global_output) const;
  /// System owning a global input / output.
  [[nodiscard]] int system_of_input(int global_input) const;
  [[nodiscard]] int system_of_output(int global_output) const;

  /// ỹ: the current outputs of every system, stacked.
  void gather_outputs(Eigen::VectorXd& y_all) const;
  /// ũ = Φᵀ ỹ transformed, constants for constant inputs.
  void dispatch(const Eigen::VectorXd& y_all, Eigen::VectorXd& u_all) const;
  /// The slice of ũ = Φᵀ ỹ that drives system s (Gauss–Seidel: O(inputs of s), not O(all inputs)).
  void dispatch_to(int system, const Eigen::VectorXd& y_all, Eigen::VectorXd& u_all) const;
  /// ũ' = Φᵀ ỹ' scaled (the time-derivatives of constant and held inputs are zero).
  void dispatch_derivatives(const Eigen::VectorXd& dy_all, Eigen::VectorXd& du_all) const;
  /// Whether global input g is held over a macro-step (discrete or non-Real, at either end).
  [[nodiscard]] bool input_held(int global_input) const { return held_[static_cast<std::size_t>(global_input)] != 0; }
  /// The held inputs of system s, as local indices (empty for most systems).
  [[nodiscard]] const std::vector<int>& held_inputs(int system) const {
    return held_of_system_[static_cast<std::size_t>(system)];
  }
  /// Copies every String output to the String inputs it drives, and String constants to theirs.
  /// Called by the driver at every communication point (Strings are held over a macro-step).
  /// At a communication point: String inputs from their outputs and constants, and the exact values of
  /// 64-bit integer inputs from their 64-bit outputs and constants (System::set_wide_input), each swept
  /// along direct feedthrough until nothing changes.
  void exchange_at_communication_point() {
    if (!string_links_.empty() || !string_constants_.empty()) exchange_strings();
    if (!wide_links_.empty() || !wide_constants_.empty()) exchange_wide();
  }
  /// The exact values of the 64-bit inputs of one system from their outputs as they are now: a
  /// sequential scheme's stage (Gauss–Seidel), whose doubles come from outputs already stepped.
  void exchange_wide_into(int system) {
    if (!wide_links_.empty()) hand_over_wide_into(system);
  }
  /// Before the first inputs are set: the 64-bit constants' exact values (done once).
  void set_wide_constants();

  /// A cycle of direct-feedthrough dependencies (an algebraic loop) as port labels
  /// ["a.y", "b.u", "b.z", "a.v", "a.y"], or empty when there is none.
  [[nodiscard]] std::vector<std::string> find_algebraic_loop() const;
  /// Whether any output depends algebraically on an input of its system (known after finalize).
  [[nodiscard]] bool has_feedthrough() const { return has_feedthrough_; }

 private:
  // the steps of finalize()
  void exchange_strings();
  void exchange_wide();
  /// The exact value of one 64-bit link's output, handed to its input when it changed; whether it did.
  bool hand_over_wide(std::size_t link_index);
  void hand_over_wide_into(int system);
  void lay_out_ports();                  ///< offsets of every system's ports; direct feedthrough anywhere
  void wire_inputs();                    ///< each input's source (an output or a constant), driven once
  void collect_transforms();             ///< the connections' linear transformations and conversions
  void mark_held_inputs();               ///< inputs held over a macro-step
  void hold_undriven_at_start_values();  ///< or refuses them (strict inputs, no start value)
  PortRef resolve(std::string_view label, bool want_output) const {
    return resolve(label, split_label(label), want_output);
  }
  /// The port `label` names, given its splits (split_label).
  PortRef resolve(std::string_view label, const LabelSplits& splits, bool want_output) const;
  /// The element-wise connections of `output` → `input` when both name whole arrays of one shape;
  /// nullopt when either is not an array; Error when the shapes differ.
  [[nodiscard]] std::optional<std::vector<std::pair<std::string, std::string>>> array_connection(
      std::string_view output, const LabelSplits& out_splits, std::string_view input,
      const LabelSplits& in_splits) const;

  std::vector<std::unique_ptr<System>> systems_;
  std::vector<std::string> system_names_;  ///< each system's name, side by side: a lookup touches no system
  PositionIndex system_by_name_;           ///< over system_names_
  /// Each global input's and output's PortInfo, gathered by lay_out_ports for the steps of finalize()
  std::vector<const PortInfo*> input_infos_, output_infos_;
  struct PendingConnection {
    PortRef from, to;
    bool convert = false;
    LinearTransform transform;
  };
  std::vector<PendingConnection> connections_;
  std::vector<std::pair<PortRef, double>> constants_pending_;
  std::vector<std::pair<PortRef, std::string>> string_constants_;
  std::vector<PendingConnection> string_links_;
  std::vector<std::optional<std::string>> string_values_;  ///< last value handed over by each link
  std::vector<std::pair<PortRef, WideInteger>> wide_constants_;
  std::vector<PendingConnection> wide_links_;            ///< between 64-bit integer ports, without transformation
  std::vector<std::optional<WideInteger>> wide_values_;  ///< last value handed over by each link
  bool wide_constants_set_ = false;
  std::vector<std::pair<int, Conversion>> conversions_;      ///< global input and how its source converts
  std::vector<std::pair<int, LinearTransform>> transforms_;  ///< the connected inputs with one that is not the identity
  std::vector<LinearTransform> transform_of_input_;
  std::vector<char> held_;
  std::vector<std::vector<int>> held_of_system_;
  std::vector<int> input_offsets_{0};
  bool has_feedthrough_ = false;
  bool strict_inputs_ = false;
  std::vector<std::string> at_start_values_;
  std::vector<int> output_offsets_{0};
  std::vector<int> input_owner_, output_owner_;  ///< the system of each global input and output
  std::vector<int> input_sources_;
  Eigen::VectorXd constants_;
  bool finalized_ = false;
};

}  // namespace cosima::model
