#pragma once
// One instance of an FMI 1.0 FMU, of either interface: the loaded library and the fmiComponent behind
// the version-neutral FmuInstance (fmi/common/fmu_instance.hpp). FMI 1.0 has no Initialization Mode and
// no Event Mode; they map onto its calls as follows.
//
//   FmuInstance                FMI 1.0 Model Exchange (ME §2)       FMI 1.0 Co-Simulation (CS §3)
//   constructor                fmiInstantiateModel,                fmiInstantiateSlave
//                              fmiGetStateValueReferences
//   enter_initialization(t0)   fmiSetTime(t0), fmiInitialize        fmiInitializeSlave(t0, no stop time)
//   exit_initialization        (nothing)                            (nothing)
//   enter_event_mode           (nothing)                            -
//   update_discrete_states     fmiEventUpdate (no intermediate      -
//                              results)
//   enter_continuous_time_mode (nothing)                            -
//   completed_integrator_step  fmiCompletedIntegratorStep           -
//   destructor                 fmiTerminate, fmiFreeModelInstance   fmiTerminateSlave, fmiFreeSlaveInstance
//
// FMI 1.0 computes the initial state from the inputs set before fmiInitialize(Slave); outputs may be read
// only after it. So the initial exchange (inputs set and outputs read between enter_ and
// exit_initialization) initializes again whenever it hands the FMU inputs other than those it was
// initialized with: fmiTerminate(Slave), fmiFree…Instance, fmiInstantiate…, the parameters given so
// far once more, the new inputs, fmiInitialize(Slave). When the exchange has settled the FMU was
// initialized with the exchanged inputs, as an FMI 2.0 FMU is in Initialization Mode (an initial
// state s = s_start − u sees the connected u, not its start value). The Model Exchange adapter's event
// iteration after exit_initialization calls fmiEventUpdate. FMI 1.0 has no FMU state and no directional derivatives: no
// rollback, no linearization (cosima emulates them where a method needs them). A negatedAlias variable
// is read and set through its value reference with the sign flipped (FmuInstance::TypedPorts::signs).
#include <optional>
#include <vector>

#include "fmi/common/fmu_instance.hpp"
#include "fmi/v1/fmi1_api.hpp"
#include "fmi/v1/fmi1_library.hpp"

namespace cosima::fmi {

/// "fmiOK", "fmiError", ...
const char* status_name(fmi1Status status);
/// The version-neutral status of an fmiStatus (fmiPending counts as an error: cosima never runs
/// asynchronous steps).
CallStatus call_status(fmi1Status status);

class Fmi1Instance final : public FmuInstance {
 public:
  /// Unpacks, loads and instantiates the FMU for `interface` (the one its description declares).
  /// `system` names the instance in errors.
  Fmi1Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface);
  /// fmiTerminate(Slave) when initialized and healthy, then fmiFree…Instance unless after fmiFatal.
  ~Fmi1Instance() override;
  Fmi1Instance(const Fmi1Instance&) = delete;
  Fmi1Instance& operator=(const Fmi1Instance&) = delete;

  [[nodiscard]] const Fmi1Functions& f() const { return f_; }
  [[nodiscard]] fmi1Component component() const { return component_; }
  void check(fmi1Status status, const char* call) const {
    if (status == fmi1OK || status == fmi1Warning) return;
    FmuInstance::check(call_status(status), call);
  }
  void record(fmi1Status status, const char* call) const { FmuInstance::record(call_status(status), call); }
  using FmuInstance::check;
  using FmuInstance::record;

  void get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const override;
  void enter_initialization(double t_start, std::optional<double> tolerance) override;

  [[nodiscard]] bool can_save_state() const override { return false; }
  int save_state(int overwrite, double t) override;
  void restore_state(int slot, double t) override;
  void release_state(int slot) override;
  [[nodiscard]] bool provides_linearization() const override { return false; }
  [[nodiscard]] bool sets_time_back() const override { return false; }

  void set_time(double t) override;
  void set_continuous_states(const Eigen::VectorXd& x) override;
  void get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  void get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const override;
  void get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const override;
  void enter_event_mode() override {}
  DiscreteUpdate update_discrete_states() override;
  void enter_continuous_time_mode() override {}
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
  /// In Initialization Mode, inputs other than those of the last initialization: initialize again.
  void inputs_set(PortValues u, Inputs which) override;

 private:
  /// fmiInstantiateModel or fmiInstantiateSlave; throws Error when it returns null.
  void instantiate();
  /// ME: fmiSetTime, fmiInitialize; CS: fmiInitializeSlave; at the time and tolerance of enter_initialization.
  void initialize_now();
  /// fmiTerminate(Slave), fmiFree…Instance, instantiate, the parameters and the inputs, initialize_now.
  void initialize_again();
  /// fmiTerminate(Slave) then fmiFree…Instance (only Free after an Error; nothing after a Fatal).
  void release();
  /// Model Exchange: the states by fmiGetStateValueReferences, each named by its variable.
  void name_states();

  Fmi1Library library_;
  const Fmi1Functions& f_;
  fmi1Component component_ = nullptr;
  bool model_exchange_ = false;
  double t_start_ = 0.0;
  std::optional<double> tolerance_;
  /// The inputs by port as last set (start values before), and as they were at the last initialization.
  Eigen::VectorXd inputs_now_, initialized_with_;
  int initializations_ = 0;
  /// What fmiInitialize reported: the first update_discrete_states after it (MeModel's event iteration
  /// on leaving initialization) when it says the iteration converged.
  fmi1EventInfo initial_events_{};
  bool initial_update_due_ = false;
  // buffers sized once, reused at every call
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi1Integer> int_buffer_;
  mutable std::vector<fmi1Boolean> bool_buffer_;
};

}  // namespace cosima::fmi
