#pragma once
// One instance of an FMI 2.0 FMU, of either interface: the unpacked archive, the loaded library, the
// instance handle and its health, and what both interfaces do alike — typed ports, parameters,
// Strings, outputs and inputs, FMU state, directional derivatives. The Co-Simulation system
// (fmi/fmu_system.hpp) and the Model Exchange model (fmi/me/me_model.hpp) are built on it.
//
// Health (FMI 2.0 §2.1.3): after a call returns fmi2Error only fmi2FreeInstance follows; after
// fmi2Fatal, nothing. Every call goes through enter(call), which refuses a call the instance may no
// longer take and records the call in flight for crash reports (core/crash.hpp).
#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/crash.hpp"
#include "fmi/fmi2_api.hpp"
#include "fmi/fmu_archive.hpp"
#include "fmi/fmu_library.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

/// Values indexed by port, whatever their storage (a vector, a column of input polynomials).
using PortValues = Eigen::Ref<const Eigen::VectorXd, 0, Eigen::InnerStride<>>;

/// "fmi2OK", "fmi2Error", ...
const char* status_name(fmi2Status status);

class Fmi2Instance {
 public:
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
  /// Which inputs a call sets. In Model Exchange's Continuous-Time Mode only continuous Real inputs
  /// may be set; the others in Event Mode (FMI 2.0 §3.2.3).
  enum class Inputs : std::uint8_t { all, continuous, discrete };

  /// Unpacks, loads and instantiates (fmi2Instantiate) the FMU for `interface`. `system` names the
  /// instance in errors.
  Fmi2Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface);
  /// fmi2Terminate when initialized and healthy, then fmi2FreeInstance unless after fmi2Fatal.
  ~Fmi2Instance();
  Fmi2Instance(const Fmi2Instance&) = delete;
  Fmi2Instance& operator=(const Fmi2Instance&) = delete;

  [[nodiscard]] const ModelDescription& description() const { return archive_.description(); }
  [[nodiscard]] const InterfaceCapabilities& capabilities() const { return description().interface_capabilities(interface_); }
  [[nodiscard]] const std::filesystem::path& file() const { return archive_.file(); }
  [[nodiscard]] const Fmi2Functions& f() const { return f_; }
  [[nodiscard]] fmi2Component component() const { return component_; }
  [[nodiscard]] const std::string& system() const { return system_; }

  // --- calls and their outcome ---------------------------------------------------------------------
  /// ensure_usable, then marks the thread as inside `call` of this FMU at time t.
  [[nodiscard]] ForeignCallScope enter(const char* call, double t) const;
  /// Throws Error when the instance may not be called any more (after fmi2Error / fmi2Fatal).
  void ensure_usable(const char* call) const;
  /// Throws Error when status is not fmi2OK/fmi2Warning; records fmi2Error and fmi2Fatal.
  void check(fmi2Status status, const char* call) const;
  /// Records fmi2Error / fmi2Fatal of `call` without throwing (a step's failure is returned, not thrown).
  void record(fmi2Status status, const char* call) const;
  [[nodiscard]] bool healthy() const { return health_ == Health::ok; }
  /// fmi2Terminate is due at destruction (set once initialization succeeded).
  void set_initialized() { initialized_ = true; }
  [[nodiscard]] std::string where() const;  ///< "FMU 'f.fmu' (system 's')"
  /// "; FMU log:\n  …" with the last lines the FMU logged, or "".
  [[nodiscard]] std::string recent_log() const;
  /// The logger callback's sink (public for the C callback).
  void on_log(fmi2Status status, const char* category, const std::string& message);

  // --- structure ---------------------------------------------------------------------------------
  [[nodiscard]] const std::vector<std::string>& input_names() const { return input_names_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const { return output_names_; }
  [[nodiscard]] const std::vector<std::string>& state_names() const { return state_names_; }
  [[nodiscard]] const std::vector<Port>& inputs() const { return inputs_; }
  [[nodiscard]] const std::vector<Port>& outputs() const { return outputs_; }
  [[nodiscard]] const TypedPorts& real_outputs() const { return real_out_; }
  [[nodiscard]] const TypedPorts& continuous_real_inputs() const { return real_in_; }
  [[nodiscard]] bool has_discrete_inputs() const;
  [[nodiscard]] bool output_depends_on_input(int output, int input) const;
  [[nodiscard]] const std::vector<fmi2ValueReference>& state_vrs() const { return state_vrs_; }
  [[nodiscard]] const std::vector<fmi2ValueReference>& derivative_vrs() const { return derivative_vrs_; }

  // --- values --------------------------------------------------------------------------------------
  /// A parameter (or a variable with initial exact/approx) before initialization, range-checked.
  void set_parameter(const std::string& name, double value, double t);
  void set_string_parameter(const std::string& name, const std::string& value, double t);
  [[nodiscard]] std::string string_output(int output, double t) const;
  void set_string_input(int input, const std::string& value, double t);
  /// Numeric outputs into y by port (a String output's slot is 0).
  void get_outputs(Eigen::Ref<Eigen::VectorXd> y) const;
  /// Numeric inputs from u by port; Integer/Boolean/Enumeration values are checked and rounded.
  void set_inputs(PortValues u, Inputs which);
  /// Real variables by value reference (states, derivatives).
  void get_reals(const std::vector<fmi2ValueReference>& vrs, Eigen::Ref<Eigen::VectorXd> values) const;

  // --- FMU state (fmi2Get/Set/FreeFMUstate) --------------------------------------------------------
  /// Declared (canGetAndSetFMUstate) and exported.
  [[nodiscard]] bool can_save_state() const;
  /// Saves into a new slot (overwrite < 0) or overwrites one; returns the slot.
  int save_state(int overwrite, double t);
  void restore_state(int slot, double t);
  void release_state(int slot);

  // --- directional derivatives (fmi2GetDirectionalDerivative) ------------------------------------
  /// Declared (providesDirectionalDerivative) and exported, and the FMU has states.
  [[nodiscard]] bool provides_linearization() const;
  /// A = ∂ẋ/∂x, B = ∂ẋ/∂u, C = ∂y/∂x, D = ∂y/∂u at the instance's current values, column by
  /// column (FMI 2.0 §2.1.9); Integer/Boolean ports have zero columns and rows.
  void linearize(Linearization& out) const;

 private:
  enum class Health : std::uint8_t { ok, error, fatal };
  [[nodiscard]] const ScalarVariable& settable(const std::string& name) const;
  void set_typed_inputs(const TypedPorts& ports, VariableType type, PortValues u);

  std::string system_;
  FmiInterface interface_;
  FmuArchive archive_;
  FmuLibrary library_;
  const Fmi2Functions& f_;
  std::string file_text_;  ///< the FMU's path, for crash reports
  fmi2CallbackFunctions callbacks_{};
  fmi2Component component_ = nullptr;
  std::vector<std::string> input_names_, output_names_, state_names_;
  std::vector<Port> inputs_, outputs_;
  TypedPorts real_in_, real_discrete_in_, integer_in_, boolean_in_, real_out_, integer_out_, boolean_out_;
  std::vector<fmi2ValueReference> state_vrs_, derivative_vrs_;
  std::vector<std::vector<bool>> feedthrough_;  ///< [output][input]
  bool initialized_ = false;
  mutable Health health_ = Health::ok;
  mutable std::string health_call_;  ///< the call that failed
  struct Saved {
    fmi2FMUstate state = nullptr;
    bool in_use = false;
  };
  std::vector<Saved> saved_;
  std::deque<std::string> log_;
  // buffers sized once, reused at every call
  mutable std::vector<double> real_buffer_;
  mutable std::vector<fmi2Integer> int_buffer_;
  mutable std::vector<fmi2Boolean> bool_buffer_;
};

}  // namespace cosima::fmi
