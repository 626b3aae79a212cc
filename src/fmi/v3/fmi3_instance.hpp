#pragma once
// One instance of an FMI 3.0 FMU (Co-Simulation or Model Exchange) behind the version-neutral
// FmuInstance (fmi/common/fmu_instance.hpp): the loaded library's fmi3 functions, the fmi3Instance, the
// typed calls of every FMI 3.0 type. Arrays are one port per element; Enumerations travel through
// fmi3Get/SetInt64 (FMI 3.0 §2.4.7.4), Binary values as hexadecimal text like a String. Clocks and
// Scheduled Execution are refused, naming the clock variables.
#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "fmi/common/fmu_instance.hpp"
#include "fmi/common/shared_library.hpp"
#include "fmi/v3/fmi3_api.hpp"

namespace cosima::fmi {

using fmi::CallStatus;
using fmi::FmiInterface;

/// The fmi3 functions cosima calls; the optional ones are null when the binary lacks them.
struct Fmi3Functions {
  fmi3InstantiateCoSimulationTYPE instantiate_co_simulation = nullptr;
  fmi3InstantiateModelExchangeTYPE instantiate_model_exchange = nullptr;
  fmi3FreeInstanceTYPE free_instance = nullptr;
  fmi3EnterInitializationModeTYPE enter_initialization_mode = nullptr;
  fmi3ExitInitializationModeTYPE exit_initialization_mode = nullptr;
  fmi3EnterEventModeTYPE enter_event_mode = nullptr;
  fmi3TerminateTYPE terminate = nullptr;
  fmi3GetTYPE<fmi3Float32> get_float32 = nullptr;
  fmi3GetTYPE<fmi3Float64> get_float64 = nullptr;
  fmi3GetTYPE<fmi3Int8> get_int8 = nullptr;
  fmi3GetTYPE<fmi3UInt8> get_uint8 = nullptr;
  fmi3GetTYPE<fmi3Int16> get_int16 = nullptr;
  fmi3GetTYPE<fmi3UInt16> get_uint16 = nullptr;
  fmi3GetTYPE<fmi3Int32> get_int32 = nullptr;
  fmi3GetTYPE<fmi3UInt32> get_uint32 = nullptr;
  fmi3GetTYPE<fmi3Int64> get_int64 = nullptr;
  fmi3GetTYPE<fmi3UInt64> get_uint64 = nullptr;
  fmi3GetTYPE<fmi3Boolean> get_boolean = nullptr;
  fmi3GetTYPE<fmi3String> get_string = nullptr;
  fmi3GetBinaryTYPE get_binary = nullptr;
  fmi3SetTYPE<fmi3Float32> set_float32 = nullptr;
  fmi3SetTYPE<fmi3Float64> set_float64 = nullptr;
  fmi3SetTYPE<fmi3Int8> set_int8 = nullptr;
  fmi3SetTYPE<fmi3UInt8> set_uint8 = nullptr;
  fmi3SetTYPE<fmi3Int16> set_int16 = nullptr;
  fmi3SetTYPE<fmi3UInt16> set_uint16 = nullptr;
  fmi3SetTYPE<fmi3Int32> set_int32 = nullptr;
  fmi3SetTYPE<fmi3UInt32> set_uint32 = nullptr;
  fmi3SetTYPE<fmi3Int64> set_int64 = nullptr;
  fmi3SetTYPE<fmi3UInt64> set_uint64 = nullptr;
  fmi3SetTYPE<fmi3Boolean> set_boolean = nullptr;
  fmi3SetTYPE<fmi3String> set_string = nullptr;
  fmi3SetBinaryTYPE set_binary = nullptr;
  fmi3UpdateDiscreteStatesTYPE update_discrete_states = nullptr;
  // optional
  fmi3GetFMUStateTYPE get_fmu_state = nullptr;
  fmi3SetFMUStateTYPE set_fmu_state = nullptr;
  fmi3FreeFMUStateTYPE free_fmu_state = nullptr;
  fmi3GetDirectionalDerivativeTYPE get_directional_derivative = nullptr;
  // Model Exchange
  fmi3EnterContinuousTimeModeTYPE enter_continuous_time_mode = nullptr;
  fmi3CompletedIntegratorStepTYPE completed_integrator_step = nullptr;
  fmi3SetTimeTYPE set_time = nullptr;
  fmi3SetContinuousStatesTYPE set_continuous_states = nullptr;
  fmi3GetContinuousStateDerivativesTYPE get_continuous_state_derivatives = nullptr;
  fmi3GetEventIndicatorsTYPE get_event_indicators = nullptr;
  fmi3GetContinuousStatesTYPE get_continuous_states = nullptr;
  // Co-Simulation
  fmi3EnterStepModeTYPE enter_step_mode = nullptr;
  fmi3GetOutputDerivativesTYPE get_output_derivatives = nullptr;
  fmi3DoStepTYPE do_step = nullptr;
};

/// "fmi3OK", "fmi3Error", ...
CallStatus call_status(fmi3Status status);

class Fmi3Instance final : public fmi::FmuInstance {
 public:
  /// What fmi3DoStep returned (FMI 3.0 §4.2.1).
  struct DoStep {
    CallStatus status = CallStatus::ok;
    bool event_handling_needed = false;
    bool terminate = false;
    bool early_return = false;
    double last_successful_time = 0.0;
  };

  /// Unpacks, loads and instantiates (fmi3InstantiateCoSimulation / ModelExchange) the FMU. A
  /// Co-Simulation FMU with hasEventMode is instantiated with eventModeUsed and earlyReturnAllowed:
  /// it stops at its events, and cosima handles them in Event Mode.
  Fmi3Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface);
  /// fmi3Terminate when initialized and healthy, then fmi3FreeInstance unless after fmi3Fatal.
  ~Fmi3Instance() override;
  Fmi3Instance(const Fmi3Instance&) = delete;
  Fmi3Instance& operator=(const Fmi3Instance&) = delete;

  [[nodiscard]] const Fmi3Functions& f() const { return f_; }
  [[nodiscard]] fmi3Instance handle() const { return instance_; }
  void check(fmi3Status status, const char* call) const {
    if (status == fmi3OK || status == fmi3Warning) return;  // the per-step path: no call
    FmuInstance::check(call_status(status), call);
  }
  using FmuInstance::check;
  /// Whether the Co-Simulation instance was given eventModeUsed = true.
  [[nodiscard]] bool event_mode_used() const { return event_mode_used_; }

  void get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const override;
  /// fmi3EnterInitializationMode, fmi3ExitInitializationMode.
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

  // Co-Simulation (FMI 3.0 §4.2)
  DoStep do_step(double t, double h, bool no_set_state_prior);
  void enter_step_mode();
  /// d^order y/dt^order of the Float64 outputs (fmi3GetOutputDerivatives), into dy by port.
  void get_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const;

 protected:
  void leave_initialization() override;
  [[nodiscard]] fmi::VariableType access_type(fmi::VariableType type) const override;
  void get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const override;
  void set_typed(const TypedPorts& batch, fmi::PortValues u) override;
  void set_scalar(const fmi::ScalarVariable& variable, double value) override;
  /// Float64 arrays: the whole array is set again from the values given so far (start values first).
  void set_element(const fmi::ScalarVariable& variable, std::size_t element, double value) override;
  std::string get_text(const Port& port) const override;
  [[nodiscard]] WideInteger get_wide(const fmi::ScalarVariable& variable) const override;
  void set_wide(const fmi::ScalarVariable& variable, WideInteger value) override;
  void set_text(const fmi::ScalarVariable& variable, const Port* port, const std::string& value) override;
  void directional_derivative(const std::vector<unsigned int>& unknowns, const std::vector<unsigned int>& knowns,
                              const std::vector<double>& seed, std::vector<double>& sensitivity) const override;

 private:
  // the steps of the constructor, in order
  void refuse_clocks() const;       ///< Clocks and Scheduled Execution are not imported: an Error naming them
  void resolve_functions(bool cs);  ///< the binary's functions, required as FMI 3.0 §2.3 and the interface say
  void check_typed_calls() const;   ///< every typed get/set a port uses is in the binary
  void instantiate(bool cs);        ///< FMI 3.0 §2.3.1, again with less when a declared mode is refused
  /// fmi3InstantiateCoSimulation with eventModeUsed and earlyReturnAllowed as given.
  fmi3Instance instantiate_co_simulation(bool event_mode, bool early_return_allowed, bool logging_on);
  template <class T>
  T* scratch(std::size_t n) const;

  fmi::SharedLibrary library_;
  Fmi3Functions f_;
  fmi3Instance instance_ = nullptr;
  bool event_mode_used_ = false;
  std::string resource_path_;
  struct Saved {
    fmi3FMUState state = nullptr;
    bool in_use = false;
  };
  std::vector<Saved> saved_;
  mutable std::vector<std::byte> scratch_;  ///< typed values of one call, sized once
  mutable std::vector<fmi3Int32> orders_;
  std::map<unsigned int, std::vector<double>> array_parameters_;  ///< by value reference: what was set
};

}  // namespace cosima::fmi
