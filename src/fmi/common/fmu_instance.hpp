#pragma once
// One instance of an FMU, of either FMI version and either interface: what the Co-Simulation
// systems (fmi/v2/cs/fmi2_cs_system.hpp, fmi/v3/cs/fmi3_cs_system.hpp) and the Model
// Exchange model (fmi/common/me_model.hpp, both versions) are built on. The version-neutral part lives
// here — the unpacked archive, typed ports (an FMI 3.0 array is one port per element), parameters,
// health and log, crash-report scopes — and each version implements the calls
// (fmi/v2/fmi2_instance.hpp, fmi/v3/fmi3_instance.hpp); fmi/fmu_factory.hpp picks the version.
//
// Health (FMI 2.0 §2.1.3, FMI 3.0 §2.2.3): after a call returns Error only FreeInstance follows;
// after Fatal, nothing. Every call goes through enter(call), which refuses a call the instance may
// no longer take and records the call in flight for crash reports (core/crash.hpp).
#include <Eigen/Dense>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/crash.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "system/system.hpp"

/// A function that stays a frame of its own on the stack (not inlined, no tail call into its callee):
/// tests/lsan.supp names such frames to tell the FMU's own memory from cosima's.
#if defined(__clang__)
#define COSIMA_NO_TAIL_CALL __attribute__((noinline, disable_tail_calls))
#else
#define COSIMA_NO_TAIL_CALL __attribute__((noinline, optimize("no-optimize-sibling-calls")))
#endif

namespace cosima::fmi {

/// The FMU's memory (the allocateMemory callback of FMI 1.0 and 2.0): the FMU's to free — and, after
/// Fatal, nobody's (the standard forbids even freeing the instance). tests/lsan.supp names it.
extern "C" void* fmu_allocate_memory(std::size_t n, std::size_t size);

/// Values indexed by port, whatever their storage (a vector, a column of input polynomials).
using PortValues = Eigen::Ref<const Eigen::VectorXd, 0, Eigen::InnerStride<>>;

/// fmi2Status and fmi3Status share these values (FMI 2.0 §2.1.3, FMI 3.0 §2.2.3); FMI 2.0's
/// fmi2Pending is never expected by cosima and counts as an error.
enum class CallStatus : std::uint8_t { ok, warning, discard, error, fatal };

class FmuInstance {
 public:
  /// One port: its value reference, FMI type, which element of an array variable, what it carries.
  struct Port {
    unsigned int vr = 0;
    VariableType type = VariableType::real;
    PortInfo info;
    std::size_t element = 0;
    int variable = -1;  ///< its index in the description's variables
  };
  /// The ports read or written by one typed get/set call: the variables' value references, and one
  /// port per value in the call's order (FMI 3.0 §2.2.6.2: arrays row-major, variables in turn).
  struct TypedPorts {
    VariableType access = VariableType::real;  ///< the type of the call (FMI 3.0 Enumerations: Int64)
    std::vector<unsigned int> vrs;
    std::vector<int> ports;
    /// FMI 1.0: −1 for each value of a negatedAlias variable, +1 for the others; empty when none is negated.
    std::vector<double> signs;
  };
  /// Which inputs a call sets. In Model Exchange's Continuous-Time Mode only continuous float inputs
  /// may be set; the others in Event Mode (FMI 2.0 §3.2.3, FMI 3.0 §3.2.1).
  enum class Inputs : std::uint8_t { all, continuous, discrete };
  /// What fmi2NewDiscreteStates / fmi3UpdateDiscreteStates returned.
  struct DiscreteUpdate {
    bool needs_update = false;
    bool terminate = false;
    bool values_changed = false;
    bool next_time_defined = false;
    double next_time = 0.0;
  };
  /// What fmi2/fmi3CompletedIntegratorStep returned.
  struct StepCompletion {
    bool enter_event_mode = false;
    bool terminate = false;
  };

  virtual ~FmuInstance();
  FmuInstance(const FmuInstance&) = delete;
  FmuInstance& operator=(const FmuInstance&) = delete;

  [[nodiscard]] const ModelDescription& description() const { return archive_->description(); }
  [[nodiscard]] const InterfaceCapabilities& capabilities() const {
    return description().interface_capabilities(interface_);
  }
  [[nodiscard]] const std::filesystem::path& file() const { return archive_->file(); }
  [[nodiscard]] const std::string& system() const { return system_; }
  [[nodiscard]] FmiInterface interface() const { return interface_; }

  // --- calls and their outcome ---------------------------------------------------------------------
  /// ensure_usable, then marks the thread as inside `call` of this FMU at time t.
  [[nodiscard]] ForeignCallScope enter(const char* call, double t) const {
    if (health_ != Health::ok || archive_->fatal()) ensure_usable(call);
    last_time_ = t;
    return {system_.c_str(), file_text_.c_str(), call, t};
  }
  /// The time of the last call (Terminate and FreeInstance are reported at it).
  [[nodiscard]] double last_time() const { return last_time_; }
  /// Throws Error when the instance may not be called any more (after Error / Fatal).
  void ensure_usable(const char* call) const;
  /// Throws Error when status is not OK/Warning; records Error and Fatal.
  void check(CallStatus status, const char* call) const;
  /// Records Error / Fatal of `call` without throwing (a step's failure is returned, not thrown).
  void record(CallStatus status, const char* call) const;
  [[nodiscard]] bool healthy() const { return health() == Health::ok; }
  /// Terminate is due at destruction (set once initialization succeeded).
  void set_initialized() { initialized_ = true; }
  void set_in_initialization(bool in, double t_start) {
    in_initialization_ = in;
    start_time_ = t_start;
  }
  [[nodiscard]] double start_time() const { return start_time_; }
  [[nodiscard]] std::string where() const;  ///< "FMU 'f.fmu' (system 's')"
  /// "; FMU log:\n  …" with the last lines the FMU logged, or "".
  [[nodiscard]] std::string recent_log() const;
  /// The log callbacks' sink (public for the C callbacks).
  void on_log(CallStatus status, const char* category, const std::string& message);
  /// "fmi2OK", "fmi3Discard", …
  [[nodiscard]] std::string status_text(CallStatus status) const;
  /// The version's names of the calls and rules that version-neutral code reports.
  struct ApiNames {
    const char* prefix;                  ///< "fmi2", "fmi3": of the function names
    const char* unusable_after_error;    ///< the section saying Error/Fatal end an instance's use
    const char* set_values;              ///< "fmi2SetXXX"
    const char* set_string;              ///< "fmi2SetString"
    const char* get_string;              ///< "fmi2GetString"
    const char* update_discrete_states;  ///< "fmi2NewDiscreteStates"
  };
  [[nodiscard]] const ApiNames& api() const { return api_; }
  /// "fmi2" or "fmi3": the prefix of the version's function names, for messages.
  [[nodiscard]] const char* prefix() const { return api_.prefix; }

  // --- structure ---------------------------------------------------------------------------------
  [[nodiscard]] const std::vector<std::string>& input_names() const { return input_names_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const { return output_names_; }
  [[nodiscard]] const std::vector<std::string>& state_names() const { return state_names_; }
  [[nodiscard]] const std::vector<Port>& inputs() const { return inputs_; }
  [[nodiscard]] const std::vector<Port>& outputs() const { return outputs_; }
  /// Float64 outputs (FMI 2.0: Real), continuous float inputs.
  [[nodiscard]] const TypedPorts& real_outputs() const { return real_out_; }
  [[nodiscard]] const TypedPorts& continuous_real_inputs() const { return real_in_; }
  [[nodiscard]] bool has_discrete_inputs() const { return !discrete_in_.empty(); }
  /// When every input (output) is a scalar Real / Float64 port and one batch lists them in port order:
  /// that batch, so one fmi2SetReal (fmi2GetReal) moves the stacked vector as it is; else nullptr.
  [[nodiscard]] const TypedPorts* inputs_as_one_real_batch() const {
    return inputs_one_real_ ? &all_in_.front() : nullptr;
  }
  [[nodiscard]] const TypedPorts* outputs_as_one_real_batch() const {
    return outputs_one_real_ ? &out_.front() : nullptr;
  }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const;
  /// The state variables and their derivatives, in the order of the state vector (one value
  /// reference per variable; an FMI 3.0 array state contributes its elements).
  [[nodiscard]] const std::vector<unsigned int>& state_vrs() const { return state_vrs_; }
  [[nodiscard]] const std::vector<unsigned int>& derivative_vrs() const { return derivative_vrs_; }
  /// The start values of the states, in their order.
  [[nodiscard]] Eigen::VectorXd state_starts() const;
  /// The states' declared nominals, |nominal| (1 where none is declared or it is 0).
  [[nodiscard]] Eigen::VectorXd state_nominals() const;

  // --- any variable, for recording ---------------------------------------------------------------
  /// Every numeric scalar variable of the description (any causality: parameters, locals, inputs,
  /// derivatives, …), by name; Strings, Binaries, Clocks and arrays are not among them.
  [[nodiscard]] std::vector<std::string> variable_names() const;
  /// The description and unit of the variable `name` (an array element: its array's), as
  /// System::variable_description.
  [[nodiscard]] std::string variable_description(std::string_view name) const;
  /// The calls that read `names` (each from variable_names()) into consecutive slots 0, 1, …
  [[nodiscard]] std::vector<TypedPorts> variable_batches(const std::vector<std::string>& names) const;
  /// Reads those batches' variables into their slots of `out`.
  void read_batches(const std::vector<TypedPorts>& batches, Eigen::Ref<Eigen::VectorXd> out) const {
    for (const TypedPorts& batch : batches) get_typed(batch, out);
  }

  // --- values --------------------------------------------------------------------------------------
  /// A parameter (or a variable with initial exact/approx) before initialization, range-checked;
  /// "A[2,1]" sets one element of an array parameter.
  void set_parameter(const std::string& name, double value, double t);
  void set_string_parameter(const std::string& name, const std::string& value, double t);
  [[nodiscard]] std::string string_output(int output, double t) const;
  void set_string_input(int input, const std::string& value, double t);
  /// Numeric outputs into y by port (a String/Binary output's slot is 0).
  void get_outputs(Eigen::Ref<Eigen::VectorXd> y) const;
  /// Numeric inputs from u by port; integer and Boolean values are checked and rounded.
  void set_inputs(PortValues u, Inputs which);
  /// Float64 variables by value reference (states, derivatives), all their elements in turn.
  virtual void get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const = 0;

  // --- 64-bit integers, exactly (core/wide_integer.hpp) --------------------------------------------
  /// The value of the scalar 64-bit integer variable `name` (FMI 3.0 Int64/UInt64 of any causality),
  /// read now; nullopt when `name` is no such variable.
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name, double t) const;
  /// A parameter given as a 64-bit integer: set exactly when it is a 64-bit variable (range-checked
  /// by its type), else as set_parameter when a double holds the value, else refused by name.
  void set_wide_parameter(const std::string& name, WideInteger value, double t);
  /// Keeps the exact value of a 64-bit integer input (range-checked by its type) and, where the FMU
  /// takes inputs now (Initialization Mode, Co-Simulation), sets it: a later set_inputs that gives
  /// the input this value's nearest double sets the value itself.
  void set_wide_input(int input, WideInteger value, double t);

  // --- lifecycle -----------------------------------------------------------------------------------
  // The values given before initialization (set_parameter, set_string_parameter, set_wide_parameter)
  // are checked when given and kept; the FMU receives them inside enter_initialization, where each
  // version's call order puts them — the order of FMPy, libcosim and OMSimulator:
  //   FMI 1.0 ME   fmiInstantiateModel → fmiSetXXX → fmiSetTime → fmiInitialize
  //   FMI 1.0 CS   fmiInstantiateSlave → fmiSetXXX → fmiInitializeSlave
  //   FMI 2.0      fmi2Instantiate → fmi2SetupExperiment → fmi2SetXXX → fmi2EnterInitializationMode
  //   FMI 3.0      fmi3Instantiate… → fmi3SetXXX → fmi3EnterInitializationMode
  // (some exporters, 20-sim among them, restore their parameters' defaults in fmi2SetupExperiment).
  // exit_initialization reads every scalar value given back: one the FMU changed is a warning
  // naming the variable, the value given and the value read.
  /// Into Initialization Mode at t_start, with the tolerance when given, the values given so far
  /// applied in the version's call order: inputs may then be set and outputs read as initial values.
  virtual void enter_initialization(double t_start, std::optional<double> tolerance) = 0;
  /// Out of Initialization Mode (leave_initialization), then the values given read back. Model
  /// Exchange then is in Event Mode; Co-Simulation in Step Mode (FMI 3.0 with event mode: the
  /// initial event iteration is done here, then Step Mode).
  void exit_initialization() {
    leave_initialization();
    check_given_values();
  }
  /// Both, with nothing exchanged between.
  void initialize(double t_start, std::optional<double> tolerance) {
    enter_initialization(t_start, tolerance);
    exit_initialization();
  }
  /// Between enter_initialization and exit_initialization.
  [[nodiscard]] bool in_initialization_mode() const { return in_initialization_; }

  // --- FMU state (Get/Set/FreeFMUState) ------------------------------------------------------------
  /// Declared (canGetAndSetFMUstate / canGetAndSetFMUState) and exported.
  [[nodiscard]] virtual bool can_save_state() const = 0;
  /// Saves into a new slot (overwrite < 0) or overwrites one; returns the slot.
  virtual int save_state(int overwrite, double t) = 0;
  virtual void restore_state(int slot, double t) = 0;
  virtual void release_state(int slot) = 0;

  /// Whether a Model Exchange instance without a saved FMU state may be rolled back by its continuous
  /// states alone: SetTime to before its last completed integrator step. FMI 1.0 has no FMU state and
  /// does not allow it: false there.
  [[nodiscard]] virtual bool sets_time_back() const { return true; }

  // --- directional derivatives ---------------------------------------------------------------------
  /// Declared (providesDirectionalDerivative(s)) and exported, and the FMU has states.
  [[nodiscard]] virtual bool provides_linearization() const = 0;
  /// A = ∂ẋ/∂x, B = ∂ẋ/∂u, C = ∂y/∂x, D = ∂y/∂u at the instance's current values, column by column
  /// (FMI 2.0 §2.1.9, FMI 3.0 §2.2.11); non-Float64 ports have zero columns and rows.
  void linearize(Linearization& out) const;

  // --- Model Exchange (FMI 2.0 §3.2, FMI 3.0 §3.2) -------------------------------------------------
  virtual void set_time(double t) = 0;
  virtual void set_continuous_states(const Eigen::VectorXd& x) = 0;
  virtual void get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const = 0;
  virtual void get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const = 0;
  virtual void get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const = 0;
  virtual void enter_event_mode() = 0;
  virtual DiscreteUpdate update_discrete_states() = 0;
  virtual void enter_continuous_time_mode() = 0;
  virtual StepCompletion completed_integrator_step(bool no_set_state_prior) = 0;

 protected:
  /// Unpacks the archive and lays out the ports; the derived class loads the binary and instantiates.
  FmuInstance(std::string system, const std::filesystem::path& fmu, FmiInterface interface, const ApiNames& api);

  enum class Health : std::uint8_t { ok, error, fatal };
  /// The variable a parameter value may be given to, or Error naming why not; an array only when
  /// one `element` of it is set.
  [[nodiscard]] const ScalarVariable& settable(const std::string& name, bool element = false) const;
  [[nodiscard]] bool terminate_due() const { return initialized_ && health() == Health::ok; }
  /// Whether the instance was initialized (Terminate may be due, as the version's rules say).
  [[nodiscard]] bool was_initialized() const { return initialized_; }
  /// This instance's health, Fatal too when another instance of the same FMU returned Fatal.
  [[nodiscard]] Health health() const { return health_ == Health::ok && archive_->fatal() ? Health::fatal : health_; }
  [[nodiscard]] const char* file_text() const { return file_text_.c_str(); }
  [[nodiscard]] const FmuArchive& archive() const { return *archive_; }
  /// The shared library to load for `interface`: the archive's, or — when the FMU may be instantiated
  /// only once per process and another instance holds the archive — a copy of it of this instance's
  /// own (dlopen loads a file once per process; a copy has its own global state).
  [[nodiscard]] std::filesystem::path library_path(FmiInterface interface);
  /// The type of the get/set call that reads a variable of this type.
  [[nodiscard]] virtual VariableType access_type(VariableType type) const = 0;
  /// Batches of the ports by access type, for the version's typed calls.
  [[nodiscard]] const std::vector<TypedPorts>& output_batches() const { return out_; }
  [[nodiscard]] const std::vector<TypedPorts>& input_batches(Inputs which) const {
    return which == Inputs::continuous ? continuous_in_ : which == Inputs::discrete ? discrete_in_ : all_in_;
  }
  /// An integer or Boolean input's value as the integer it stands for: values travel as doubles, and
  /// a solver's rounding noise is tolerated; an illegal value throws Error naming the input.
  [[nodiscard]] double integral_input(double value, int input) const;
  /// The value set_inputs gives a 64-bit integer input for its double `value`: the value kept by
  /// set_wide_input (or the declared start) when `value` is its nearest double, else the integer
  /// `value` is, range-checked. The latter, beyond 2^53 on an input given exact values before, is
  /// warned about once per input: a value within a macro-step that a double rounds.
  [[nodiscard]] WideInteger wide_input(double value, int input) const;
  /// Throws Error "WHERE: ROLE 'name' (Type): VALUE is outside …" unless the 64-bit variable takes
  /// the value (its type's range, exactly; its declared range `info`, in doubles).
  void check_wide(const ScalarVariable& variable, const PortInfo& info, const WideInteger& value,
                  std::string_view role) const;
  /// After set_inputs has set `which` inputs from u: a version's hook (FMI 1.0 initializes again when
  /// the inputs changed in Initialization Mode).
  virtual void inputs_set(PortValues /*u*/, Inputs /*which*/) {}
  /// The version's exit from Initialization Mode (exit_initialization).
  virtual void leave_initialization() = 0;
  /// Hands the FMU the values given before initialization, in the order given; a version's
  /// enter_initialization calls it at its place in the call order (FMI 1.0 again at each
  /// re-initialization). Each is checked when given: what fails here is the FMU's call, named.
  void apply_given_values(double t);
  /// Lays out ports, batches, feedthrough and states; called by the derived constructor (it needs access_type).
  void lay_out();
  /// The typed calls a binary may lack (null when it does), for require_calls.
  struct OptionalCalls {
    const void* get_integer;
    const void* set_integer;
    const void* get_boolean;
    const void* set_boolean;
    const void* get_string;
    const void* set_string;
  };
  /// Throws Error naming the FMU and the first call its ports need that the binary lacks (after lay_out).
  void require_calls(const OptionalCalls& calls) const;
  /// FMI 1.0 Model Exchange: the states the FMU names at run time (fmiGetStateValueReferences).
  void set_states(std::vector<std::string> names, std::vector<unsigned int> vrs) {
    state_names_ = std::move(names);
    state_vrs_ = std::move(vrs);
  }

  // the version's calls behind the shared operations
  /// Makes room for batches of up to `count` values in the scratch space of the typed calls.
  virtual void reserve_scratch(std::size_t /*count*/) const {}
  virtual void get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const = 0;
  virtual void set_typed(const TypedPorts& batch, PortValues u) = 0;
  virtual void set_scalar(const ScalarVariable& variable, double value) = 0;
  /// One element of an array parameter (FMI 3.0), the others keeping their values.
  virtual void set_element(const ScalarVariable& variable, std::size_t element, double value) = 0;
  virtual std::string get_text(const Port& port) const = 0;
  /// One scalar 64-bit integer variable (FMI 3.0 only: the other versions have none).
  [[nodiscard]] virtual WideInteger get_wide(const ScalarVariable& variable) const;
  virtual void set_wide(const ScalarVariable& variable, WideInteger value);
  virtual void set_text(const ScalarVariable& variable, const Port* port, const std::string& value) = 0;
  virtual void directional_derivative(const std::vector<unsigned int>& unknowns,
                                      const std::vector<unsigned int>& knowns, const std::vector<double>& seed,
                                      std::vector<double>& sensitivity) const = 0;

 private:
  std::string system_;
  const ApiNames& api_;  ///< static, the version's
  FmiInterface interface_;
  std::shared_ptr<const FmuArchive> archive_;      ///< shared by the instances of one FMU file (shared_archive)
  std::optional<TemporaryDirectory> own_library_;  ///< the copy library_path made, if any
  std::string file_text_;                          ///< the FMU's path, for crash reports
  std::vector<std::string> input_names_, output_names_, state_names_;
  std::vector<Port> inputs_, outputs_;
  std::vector<std::optional<WideInteger>> wide_inputs_;  ///< by input: the exact value kept (wide_input)
  /// By input: 0 never given an exact value, 1 given one (set_wide_input), 2 wide_input warned.
  mutable std::vector<char> wide_given_;
  TypedPorts real_in_, real_out_;
  std::vector<TypedPorts> out_, all_in_, continuous_in_, discrete_in_;
  bool inputs_one_real_ = false, outputs_one_real_ = false;  ///< see inputs_as_one_real_batch
  std::vector<unsigned int> state_vrs_, derivative_vrs_;
  std::vector<std::vector<bool>> feedthrough_;  ///< [output][input]
  struct LinearizationWork {  ///< linearize(): the directional derivatives' references, seed and column
    std::vector<unsigned int> unknowns, knowns;
    std::vector<double> seed, column;
  };
  mutable LinearizationWork linearization_work_;
  /// A value given before initialization: to apply (apply_given_values) and to read back.
  struct GivenValue {
    const ScalarVariable* variable = nullptr;
    std::size_t element = 0;  ///< of an array variable (FMI 3.0); the variable is scalar otherwise
    bool is_element = false;
    double number = 0.0;
    std::optional<std::string> text;  ///< a String (or Binary) value
    std::optional<WideInteger> wide;  ///< a 64-bit integer value, exactly
  };
  std::vector<GivenValue> given_;
  /// Keeps `value` for apply_given_values, or — once the FMU takes values (in or after
  /// Initialization Mode) — hands it over now.
  void give(GivenValue value, double t);
  void apply(const GivenValue& value);
  /// After initialization: each scalar value given (not an input: the master sets those) read back;
  /// one that differs is a warning naming it.
  void check_given_values() const;
  /// The value of `given`'s variable now, as text, when it is not the value given; nullopt when it is.
  [[nodiscard]] std::optional<std::string> changed_value(const GivenValue& given) const;
  bool initialized_ = false;
  bool in_initialization_ = false;
  mutable double last_time_ = 0.0;
  double start_time_ = 0.0;
  mutable Health health_ = Health::ok;
  mutable std::string health_call_;  ///< the call that failed
  std::deque<std::string> log_;
};

}  // namespace cosima::fmi
