#pragma once
// A Model Exchange FMU of any FMI version (through fmi/common/fmu_instance.hpp) as a hybrid OdeModel:
// cosima's integrators (cvode, dopri5, euler) integrate it inside a NativeSystem, which therefore
// provides every capability of the System contract — polynomial inputs (the continuous float inputs
// are set at every right-hand-side evaluation), output derivatives and linearization (Get
// Directional Derivative when provided, finite differences through Set Continuous States
// otherwise), state access, variable steps — and rollback under this rule:
//   * with Get/Set FMU State (canGetAndSetFMUstate / canGetAndSetFMUState), always;
//   * without, only when the FMU declares no discrete state (no event indicators, no discrete
//     variable other than inputs) and its version lets the time be set back (not FMI 1.0,
//     FmuInstance::sets_time_back): the continuous states and the time are then the whole state. An
//     event handled after the saved point (a time or step event of such an FMU) makes the restore an
//     error instead of a silent wrong result.
//
// Call sequence (FMI 2.0 §3.2.3, fig. 3.3; FMI 3.0 §3.2, the same with fmi3 names):
//   Instantiate → parameters → [fmi2SetupExperiment →] EnterInitializationMode →
//   ExitInitializationMode → event iteration → EnterContinuousTimeMode → GetContinuousStates
//   → { SetTime, SetContinuousStates, continuous float inputs; GetDerivatives (fmi3: …StateDerivatives) /
//       GetEventIndicators / outputs; CompletedIntegratorStep after each accepted step;
//       at an event: EnterEventMode, discrete inputs, fmi2NewDiscreteStates / fmi3UpdateDiscreteStates
//       until no update is needed, EnterContinuousTimeMode, GetContinuousStates when
//       valuesOfContinuousStatesChanged }
//   → Terminate → FreeInstance.
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fmi/common/fmu_instance.hpp"
#include "system/native/integrator.hpp"
#include "system/native/native_system.hpp"
#include "system/native/ode_model.hpp"

namespace cosima::fmi {

class MeModel final : public OdeModel {
 public:
  /// Takes an instance of the FMU's Model Exchange interface (fmi/fmu_factory.hpp makes one).
  MeModel(std::unique_ptr<FmuInstance> instance, const IntegratorOptions& options);
  [[nodiscard]] const FmuInstance& instance() const { return *fmu_; }

  void set_parameter(const std::string& name, double value) override { fmu_->set_parameter(name, value, t_set_); }
  void set_string_parameter(const std::string& name, const std::string& value) override {
    fmu_->set_string_parameter(name, value, t_set_);
  }
  [[nodiscard]] std::string string_output(int output) const override;
  [[nodiscard]] std::vector<std::string> variable_names() const override { return fmu_->variable_names(); }
  [[nodiscard]] std::string variable_description(std::string_view name) const override {
    return fmu_->variable_description(name);
  }
  void watch_variables(const std::vector<std::string>& names) override { watched_ = fmu_->variable_batches(names); }
  void read_variables(double t, ConstVectorRef x, ConstVectorRef u, Eigen::Ref<Eigen::VectorXd> out) const override;
  void set_string_input(int input, const std::string& value) override;
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override {
    return fmu_->wide_value(name, t_set_);
  }
  void set_wide_input(int input, WideInteger value) override { fmu_->set_wide_input(input, value, t_set_); }
  void set_wide_parameter(const std::string& name, WideInteger value) override {
    fmu_->set_wide_parameter(name, value, t_set_);
  }

  [[nodiscard]] Eigen::VectorXd initial_state() const override;
  void enter_initialization(double t_start) override;
  void initialization_outputs(double t_start, ConstVectorRef u, VectorRef y) const override;
  Eigen::VectorXd start(double t_start, ConstVectorRef u) override;
  void derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override;
  void outputs(double t, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override;
  bool jacobians(double t, ConstVectorRef x, ConstVectorRef u, Linearization& out) const override;
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override;

  [[nodiscard]] int event_indicator_count() const override { return description().event_indicator_count; }
  void event_indicators(double t, ConstVectorRef x, ConstVectorRef u, VectorRef z) const override;
  [[nodiscard]] double next_time_event(double t) const override;
  [[nodiscard]] bool wants_step_reports() const override;
  IntegratorStepReport step_completed(double t, ConstVectorRef x, ConstVectorRef u) const override;
  [[nodiscard]] bool discrete_inputs_changed(ConstVectorRef u) const override;
  EventOutcome handle_event(double t, VectorRef x, ConstVectorRef u, const EventCause& cause) override;
  [[nodiscard]] bool has_discrete_state() const override { return true; }
  [[nodiscard]] bool can_restore_discrete_state() const override;
  int save_discrete_state(int overwrite) override;
  void restore_discrete_state(int slot) override;
  void release_discrete_state(int slot) override;

 private:
  [[nodiscard]] const ModelDescription& description() const { return fmu_->description(); }
  /// Brings the instance to (t, x, u) in Continuous-Time Mode, calling only what changed.
  void prepare(double t, ConstVectorRef x, ConstVectorRef u) const;
  /// fmi2NewDiscreteStates / fmi3UpdateDiscreteStates until no further update is needed (FMI 2.0
  /// §3.2.3, FMI 3.0 §3.2.2); throws Error beyond max_event_iterations.
  FmuInstance::DiscreteUpdate event_iteration(double t);
  /// What the instance was given in Initialization Mode, as the inputs last set.
  void remember_inputs(ConstVectorRef u);
  /// Enter Continuous-Time Mode, then x from Get Continuous States when they changed.
  void leave_event_mode(const FmuInstance::DiscreteUpdate& update, VectorRef x, bool states_changed);

  std::unique_ptr<FmuInstance> fmu_;
  std::vector<FmuInstance::TypedPorts> watched_;  ///< the variables a recorder reads
  int max_event_iterations_;
  double tolerance_;
  // what the instance was last given (Continuous-Time Mode), so that each call sets only what changed
  mutable double t_set_ = 0.0;
  mutable Eigen::VectorXd x_set_, u_set_;
  mutable bool time_set_ = false, states_set_ = false, inputs_set_ = false;
  Eigen::VectorXd discrete_set_;      ///< discrete inputs as last set in Event / Initialization Mode
  std::vector<int> discrete_inputs_;  ///< their ports
  bool strings_pending_ = false;      ///< String inputs wait for the next event (they are discrete)
  std::vector<std::string> pending_strings_;
  double next_event_time_ = std::numeric_limits<double>::infinity();
  bool terminated_ = false;
  std::int64_t events_ = 0;
  struct Saved {
    int fmu_slot = -1;
    double next_event_time = 0.0;
    Eigen::VectorXd discrete_set;
    std::int64_t events = 0;
    double t = 0.0;
    bool in_use = false;
  };
  std::vector<Saved> saved_;
  mutable Eigen::VectorXd scratch_;
};

}  // namespace cosima::fmi
