#pragma once
// A System backed by an FMI 2.0 Co-Simulation FMU (the instance plumbing: fmi/v2/fmi2_instance.hpp),
// driven through the standard's state machine (FMI 2.0 §4.2.4):
//   fmi2Instantiate (constructor) → fmi2SetXXX parameters → fmi2SetupExperiment →
//   fmi2EnterInitializationMode → fmi2ExitInitializationMode (initialize) → fmi2SetXXX inputs /
//   fmi2DoStep / fmi2GetXXX outputs … → fmi2Terminate → fmi2FreeInstance (destructor).
// After a call returns fmi2Error only fmi2FreeInstance follows; after fmi2Fatal, nothing (§2.1.3).
// Ports are the inputs and outputs of every type; Integer, Enumeration and Boolean values travel
// as exact doubles and are checked against their declared type and range when set; Strings
// through string_output / set_string_input. Capabilities come from the CoSimulation flags and the
// functions the binary exports: polynomial inputs (fmi2SetRealInputDerivatives), output derivatives,
// rollback (fmi2Get/Set/FreeFMUstate), states (ModelStructure/Derivatives), linearization
// (fmi2GetDirectionalDerivative).
#include <memory>
#include <string>
#include <vector>

#include "fmi/common/input_derivatives.hpp"
#include "fmi/v2/fmi2_instance.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

class Fmi2CsSystem final : public System {
 public:
  Fmi2CsSystem(std::string name, const std::filesystem::path& fmu);

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
  }  ///< events are handled inside fmi2DoStep (FMI 2.0 §4.2.3)
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;

  [[nodiscard]] const ModelDescription& description() const { return fmu_.description(); }
  [[nodiscard]] const std::filesystem::path& file() const { return fmu_.file(); }

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override {
    return description().co_simulation->max_output_derivative_order;
  }
  void apply_inputs(const InputPolynomials& polynomials) override;
  void apply_constant_inputs(ConstVectorView u) override;
  StepResult integrate(double h) override;
  /// fmi2SetReal, fmi2DoStep, fmi2GetReal straight on the stacked vectors when every port is a Real
  /// in one batch (FmuInstance::inputs_as_one_real_batch), in one foreign-call scope.
  StepResult integrate_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y) override;
  void exchange_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y) override;
  StepResult integrate_held(double h, Eigen::Ref<Eigen::VectorXd> y) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override;
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  const Linearization& compute_linearization() override;

 private:
  /// fmi2DoStep and its outcome, inside a foreign-call scope the caller opened.
  StepResult call_do_step(double h);
  /// integrate_constant's and integrate_held's fused paths: one named result each, which the
  /// compiler builds in the caller's slot (beside an early return of another object it would move).
  StepResult fused_step_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y);
  StepResult fused_step_held(double h, Eigen::Ref<Eigen::VectorXd> y);

  Fmi2Instance fmu_;
  std::vector<FmuInstance::TypedPorts> watched_;  ///< the variables a recorder reads
  const Fmi2Functions& f_;
  CapabilitySet capabilities_;
  bool initialized_ = false;
  bool stop_requested_ = false;  ///< the FMU reported fmi2Terminated: no further fmi2DoStep
  double t_ = 0.0;
  std::vector<double> saved_times_;  ///< by FMU-state slot
  // buffers sized once, reused on every step
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi2Integer> order_buffer_;
  InputDerivatives input_derivatives_;
  const unsigned int* real_input_vrs_ = nullptr;   ///< every input a Real, in port order (or none)
  const unsigned int* real_output_vrs_ = nullptr;  ///< every output a Real, in port order (or none)
  bool one_call_ports_ = false;                    ///< both of the above: integrate_constant's fused path
  Linearization linearization_;
};

}  // namespace cosima::fmi
