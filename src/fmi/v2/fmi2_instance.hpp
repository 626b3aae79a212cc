#pragma once
// One instance of an FMI 2.0 FMU, of either interface: the loaded library and the fmi2Component
// behind the version-neutral FmuInstance (fmi/common/fmu_instance.hpp). Integer and Enumeration ports
// travel through fmi2Get/SetInteger, Booleans through fmi2Get/SetBoolean, Strings one by one.
#include <vector>

#include "fmi/common/fmu_instance.hpp"
#include "fmi/v2/fmi2_api.hpp"
#include "fmi/v2/fmi2_library.hpp"

namespace cosima::fmi {

/// "fmi2OK", "fmi2Error", ...
const char* status_name(fmi2Status status);
/// The version-neutral status of an fmi2Status (fmi2Pending counts as an error).
CallStatus call_status(fmi2Status status);

class Fmi2Instance final : public FmuInstance {
 public:
  /// Unpacks, loads and instantiates (fmi2Instantiate) the FMU for `interface`. `system` names the
  /// instance in errors.
  Fmi2Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface);
  /// fmi2Terminate when initialized and healthy, then fmi2FreeInstance unless after fmi2Fatal.
  ~Fmi2Instance() override;
  Fmi2Instance(const Fmi2Instance&) = delete;
  Fmi2Instance& operator=(const Fmi2Instance&) = delete;

  [[nodiscard]] const Fmi2Functions& f() const { return f_; }
  [[nodiscard]] fmi2Component component() const { return component_; }
  void check(fmi2Status status, const char* call) const {
    if (status == fmi2OK || status == fmi2Warning) return;  // the per-step path: no call
    FmuInstance::check(call_status(status), call);
  }
  void record(fmi2Status status, const char* call) const { FmuInstance::record(call_status(status), call); }
  using FmuInstance::check;
  using FmuInstance::record;

  void get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const override;
  /// fmi2SetupExperiment, the values given (FmuInstance), fmi2EnterInitializationMode.
  void enter_initialization(double t_start, std::optional<double> tolerance) override;

  [[nodiscard]] bool can_save_state() const override;
  int save_state(int overwrite, double t) override;
  void restore_state(int slot, double t) override;
  void release_state(int slot) override;
  [[nodiscard]] bool provides_linearization() const override;

  void set_time(double t) override;
  void set_continuous_states(const Eigen::VectorXd& x) override;
  void get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  void get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const override;
  void get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const override;
  void enter_event_mode() override;
  DiscreteUpdate update_discrete_states() override;
  void enter_continuous_time_mode() override;
  StepCompletion completed_integrator_step(bool no_set_state_prior) override;

 protected:
  void leave_initialization() override;
  [[nodiscard]] VariableType access_type(VariableType type) const override;
  void reserve_scratch(std::size_t count) const override;
  void get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const override;
  void set_typed(const TypedPorts& batch, PortValues u) override;
  void set_scalar(const ScalarVariable& variable, double value) override;
  void set_element(const ScalarVariable& variable, std::size_t element, double value) override;
  std::string get_text(const Port& port) const override;
  void set_text(const ScalarVariable& variable, const Port* port, const std::string& value) override;
  void directional_derivative(const std::vector<unsigned int>& unknowns, const std::vector<unsigned int>& knowns,
                              const std::vector<double>& seed, std::vector<double>& sensitivity) const override;

 private:
  Fmi2Library library_;
  const Fmi2Functions& f_;
  fmi2CallbackFunctions callbacks_{};
  fmi2Component component_ = nullptr;
  struct Saved {
    fmi2FMUstate state = nullptr;
    bool in_use = false;
  };
  std::vector<Saved> saved_;
  // buffers sized once, reused at every call
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi2Integer> int_buffer_;
  mutable std::vector<fmi2Boolean> bool_buffer_;
};

}  // namespace cosima::fmi
