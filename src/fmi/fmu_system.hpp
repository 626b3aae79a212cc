#pragma once
// A System backed by an FMI 2.0 Co-Simulation FMU, driven through the standard's state machine
// (FMI 2.0 §4.2.4):
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
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/crash.hpp"
#include "fmi/fmi2_api.hpp"
#include "fmi/fmu_archive.hpp"
#include "fmi/fmu_library.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

class FmuSystem final : public System {
 public:
  FmuSystem(std::string name, const std::filesystem::path& fmu);
  ~FmuSystem() override;
  FmuSystem(const FmuSystem&) = delete;
  FmuSystem& operator=(const FmuSystem&) = delete;

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return input_names_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return output_names_; }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return state_names_; }
  [[nodiscard]] const PortInfo& input_info(int input) const override;
  [[nodiscard]] const PortInfo& output_info(int output) const override;
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override;
  void set_parameter(const std::string& name, double value) override;
  void set_string_parameter(const std::string& name, const std::string& value) override;
  [[nodiscard]] std::string string_output(int output) const override;
  void set_string_input(int input, const std::string& value) override;
  void initialize(double t_start) override;
  [[nodiscard]] double time() const override { return t_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;

  [[nodiscard]] const ModelDescription& description() const { return archive_.description(); }
  [[nodiscard]] const std::filesystem::path& file() const { return archive_.file(); }

  /// The logger callback's sink (public for the C callback).
  void on_log(fmi2Status status, const char* category, const std::string& message);

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override {
    return description().co_simulation.max_output_derivative_order;
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
  /// One port: its value reference, FMI type and what it carries.
  struct Port {
    fmi2ValueReference vr;
    VariableType type;
    PortInfo info;
  };
  /// The ports of one FMI type, for one fmi2Get/SetXXX call: value references and port indices.
  struct TypedPorts {
    std::vector<fmi2ValueReference> vrs;
    std::vector<int> ports;
  };
  /// Where the instance stands after its last failing call (FMI 2.0 §2.1.3).
  enum class Health : std::uint8_t { ok, error, fatal };

  /// Throws Error when status is not fmi2OK/fmi2Warning; records fmi2Error and fmi2Fatal.
  void check(fmi2Status status, const char* call) const;
  /// Throws Error when the instance may not be called any more (after fmi2Error / fmi2Fatal).
  void ensure_usable(const char* call) const;
  /// ensure_usable, then marks the thread as inside `call` of this FMU (core/crash.hpp).
  [[nodiscard]] ForeignCallScope enter(const char* call) const;
  [[nodiscard]] std::string where() const;  ///< "FMU 'f.fmu' (system 's')"
  [[nodiscard]] std::string recent_log() const;
  [[nodiscard]] const ScalarVariable& settable(const std::string& name) const;
  void set_numeric_inputs(const TypedPorts& ports, VariableType type, const InputPolynomials& polynomials);

  FmuArchive archive_;
  FmuLibrary library_;
  const Fmi2Functions& f_;
  std::string file_text_;  ///< the FMU's path, for crash reports
  fmi2CallbackFunctions callbacks_{};
  fmi2Component component_ = nullptr;
  CapabilitySet capabilities_;
  std::vector<std::string> input_names_, output_names_, state_names_;
  std::vector<Port> inputs_, outputs_;
  TypedPorts real_in_, integer_in_, boolean_in_, real_out_, integer_out_, boolean_out_;
  std::vector<fmi2ValueReference> state_vrs_, derivative_vrs_;
  std::vector<std::vector<bool>> feedthrough_;  ///< [output][input]
  bool initialized_ = false;
  bool stop_requested_ = false;  ///< the FMU reported fmi2Terminated: no further fmi2DoStep
  mutable Health health_ = Health::ok;
  mutable std::string health_call_;  ///< the call that failed
  double t_ = 0.0;
  struct Saved {
    fmi2FMUstate state = nullptr;
    double t = 0.0;
    bool in_use = false;
  };
  std::vector<Saved> saved_;
  std::deque<std::string> log_;
  // buffers sized once, reused on every step
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi2Integer> int_buffer_;
  mutable std::vector<fmi2Boolean> bool_buffer_;
  std::vector<fmi2ValueReference> derivative_input_vrs_;
  std::vector<fmi2Integer> derivative_orders_;
  std::vector<double> derivative_values_;
  bool derivatives_were_set_ = false;
  Linearization linearization_;
};

/// Human-readable summary (for `cosima info`): variables with types, capabilities, default
/// experiment. Reads modelDescription.xml only (nothing is unpacked).
std::string describe_fmu(const std::filesystem::path& fmu);

}  // namespace cosima::fmi
