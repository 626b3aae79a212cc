#pragma once
// A System backed by an FMI 1.0 Co-Simulation FMU (the instance: fmi/v1/fmi1_instance.hpp), driven
// through the calling sequence of "FMI for Co-Simulation 1.0" §3:
//   fmiInstantiateSlave (constructor) → fmiSetXXX parameters → fmiInitializeSlave (enter_initialization)
//   → fmiSetXXX inputs / fmiDoStep / fmiGetXXX outputs … → fmiTerminateSlave → fmiFreeSlaveInstance.
// Capabilities from the Capabilities element and the functions the binary exports: polynomial inputs
// (canInterpolateInputs, fmiSetRealInputDerivatives), output derivatives (maxOutputDerivativeOrder,
// fmiGetRealOutputDerivatives), variable steps. FMI 1.0 has no FMU state, so no rollback: the methods
// that need it emulate it (system/emulation).
#include <string>
#include <vector>

#include "fmi/common/input_derivatives.hpp"
#include "fmi/v1/fmi1_instance.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

class Fmi1CsSystem final : public System {
 public:
  Fmi1CsSystem(std::string name, const std::filesystem::path& fmu);

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return fmu_.input_names(); }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return fmu_.output_names(); }
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
  void exit_initialization() override { fmu_.exit_initialization(); }
  [[nodiscard]] double time() const override { return t_; }
  [[nodiscard]] bool announces_events() const override { return false; }  ///< handled inside fmiDoStep
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;

  [[nodiscard]] const ModelDescription& description() const { return fmu_.description(); }
  [[nodiscard]] const std::filesystem::path& file() const { return fmu_.file(); }

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override {
    return description().co_simulation->max_output_derivative_order;
  }
  void apply_inputs(const InputPolynomials& polynomials) override;
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;

 private:
  Fmi1Instance fmu_;
  std::vector<FmuInstance::TypedPorts> watched_;  ///< the variables a recorder reads
  const Fmi1Functions& f_;
  CapabilitySet capabilities_;
  bool initialized_ = false;
  double t_ = 0.0;
  bool stopped_ = false;  ///< the FMU discarded a step (fmiDiscard): no further fmiDoStep
  // buffers sized once, reused on every step
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi1Integer> order_buffer_;
  InputDerivatives input_derivatives_;
};

}  // namespace cosima::fmi
