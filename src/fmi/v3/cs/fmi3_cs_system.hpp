#pragma once
// A System backed by an FMI 3.0 Co-Simulation FMU (the instance: fmi/v3/fmi3_instance.hpp), driven
// through the standard's state machine (FMI 3.0 §4.2):
//   fmi3InstantiateCoSimulation (constructor) → fmi3SetXXX parameters → fmi3EnterInitializationMode
//   → fmi3ExitInitializationMode [→ Event Mode: fmi3UpdateDiscreteStates … → fmi3EnterStepMode]
//   (initialize) → fmi3SetXXX inputs / fmi3DoStep / fmi3GetXXX outputs … → fmi3Terminate →
//   fmi3FreeInstance (destructor).
// Events do not shift: an FMU with hasEventMode runs with eventModeUsed and earlyReturnAllowed,
// stops inside a macro-step where it needs event handling (eventHandlingNeeded, earlyReturn,
// lastSuccessfulTime), and cosima performs the event — fmi3EnterEventMode, fmi3UpdateDiscreteStates
// until no update is needed, fmi3EnterStepMode — and continues the step from there. Without event
// mode, the FMU handles its events inside fmi3DoStep.
// Capabilities: rollback (canGetAndSetFMUState), output derivatives (maxOutputDerivativeOrder,
// fmi3GetOutputDerivatives), linearization (providesDirectionalDerivatives), variable steps
// (canHandleVariableCommunicationStepSize), states (ContinuousStateDerivative). FMI 3.0 has no input
// derivatives: interpolated inputs are emulated when a method needs them (system/emulation/).
#include <string>
#include <vector>

#include "fmi/v3/fmi3_instance.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

class Fmi3CsSystem final : public System {
 public:
  Fmi3CsSystem(std::string name, const std::filesystem::path& fmu);

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return fmu_.input_names(); }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return fmu_.output_names(); }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return fmu_.state_names(); }
  [[nodiscard]] const PortInfo& input_info(int input) const override;
  [[nodiscard]] const PortInfo& output_info(int output) const override;
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return fmu_.output_depends_on_input(output, input);
  }
  void set_parameter(const std::string& name, double value) override { fmu_.set_parameter(name, value, t_); }
  void set_string_parameter(const std::string& name, const std::string& value) override {
    fmu_.set_string_parameter(name, value, t_);
  }
  [[nodiscard]] std::string string_output(int output) const override { return fmu_.string_output(output, t_); }
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override {
    return fmu_.wide_value(name, t_);
  }
  void set_wide_input(int input, WideInteger value) override { fmu_.set_wide_input(input, value, t_); }
  void set_wide_parameter(const std::string& name, WideInteger value) override {
    fmu_.set_wide_parameter(name, value, t_);
  }
  [[nodiscard]] std::vector<std::string> variable_names() const override { return fmu_.variable_names(); }
  [[nodiscard]] std::string variable_description(std::string_view name) const override {
    return fmu_.variable_description(name);
  }
  void watch_variables(const std::vector<std::string>& names) override { watched_ = fmu_.variable_batches(names); }
  void read_variables(Eigen::Ref<Eigen::VectorXd> out) const override;
  void set_string_input(int input, const std::string& value) override { fmu_.set_string_input(input, value, t_); }
  void enter_initialization(double t_start) override;
  void exit_initialization() override;
  [[nodiscard]] double time() const override { return t_; }
  [[nodiscard]] bool announces_events() const override {
    return false;
  }  ///< events are handled by the FMU inside fmi3DoStep and its event mode steps
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;

  [[nodiscard]] const fmi::ModelDescription& description() const { return fmu_.description(); }
  [[nodiscard]] const std::filesystem::path& file() const { return fmu_.file(); }
  /// Events the FMU stopped for and cosima handled in Event Mode.
  [[nodiscard]] std::int64_t events_handled() const { return events_; }

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override {
    return description().co_simulation->max_output_derivative_order;
  }
  void apply_inputs(const InputPolynomials& polynomials) override;
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override;
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  const Linearization& compute_linearization() override;

 private:
  /// fmi3EnterEventMode, fmi3UpdateDiscreteStates until no update is needed, fmi3EnterStepMode.
  /// Returns whether the FMU asked to terminate.
  bool handle_event();

  Fmi3Instance fmu_;
  std::vector<fmi::FmuInstance::TypedPorts> watched_;  ///< the variables a recorder reads
  CapabilitySet capabilities_;
  bool initialized_ = false;
  bool stop_requested_ = false;  ///< the FMU asked to terminate: no further fmi3DoStep
  double t_ = 0.0;
  std::int64_t events_ = 0;
  struct Saved {
    double t = 0.0;
    std::int64_t events = 0;
  };
  std::vector<Saved> saved_;  ///< by FMU-state slot
  Linearization linearization_;
};

}  // namespace cosima::fmi
