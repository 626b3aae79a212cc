#pragma once
// A System in front of another, for the emulations of this folder: it forwards what a decorator
// leaves as it is — ports, parameters, other variables, time events, states and linearization — to
// the wrapped system, and a decorator overrides what it changes (EmulatedSystem: stepping,
// derivatives, rollback's extra state; RunAheadSystem: time, outputs, rollback).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "system/system.hpp"

namespace cosima {

class SystemDecorator : public System {
 public:
  explicit SystemDecorator(std::unique_ptr<System> inner) : System(inner->name()), inner_(std::move(inner)) {}

  [[nodiscard]] const System& inner() const { return *inner_; }

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return inner_->input_names(); }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return inner_->output_names(); }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return inner_->state_names(); }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return inner_->output_depends_on_input(output, input);
  }
  [[nodiscard]] const PortInfo& input_info(int input) const override { return inner_->input_info(input); }
  [[nodiscard]] const PortInfo& output_info(int output) const override { return inner_->output_info(output); }
  void set_parameter(const std::string& name, double value) override { inner_->set_parameter(name, value); }
  void set_string_parameter(const std::string& name, const std::string& value) override {
    inner_->set_string_parameter(name, value);
  }
  [[nodiscard]] std::string string_output(int output) const override { return inner_->string_output(output); }
  void set_string_input(int input, const std::string& value) override { inner_->set_string_input(input, value); }
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override {
    return inner_->wide_value(name);
  }
  void set_wide_input(int input, WideInteger value) override { inner_->set_wide_input(input, value); }
  void set_wide_parameter(const std::string& name, WideInteger value) override {
    inner_->set_wide_parameter(name, value);
  }
  [[nodiscard]] std::vector<std::string> variable_names() const override { return inner_->variable_names(); }
  [[nodiscard]] std::string variable_description(std::string_view name) const override {
    return inner_->variable_description(name);
  }
  void watch_variables(const std::vector<std::string>& names) override { inner_->watch_variables(names); }
  void read_variables(Eigen::Ref<Eigen::VectorXd> out) const override { inner_->read_variables(out); }
  [[nodiscard]] double next_event_time() const override { return inner_->next_event_time(); }
  [[nodiscard]] bool event_pending() const override { return inner_->event_pending(); }

 protected:
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override { inner_->states(x); }
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override { inner_->state_derivatives(dx); }
  const Linearization& compute_linearization() override { return inner_->linearize(); }

  std::unique_ptr<System> inner_;  ///< the wrapped system
};

}  // namespace cosima
