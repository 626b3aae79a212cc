#pragma once
// The version-neutral slave of the export kit: one instance of the exported model behind either C API
// (fmi2_slave.cpp: FMI 2.0, fmi3_slave.cpp: FMI 3.0). The API layers only translate arguments and
// statuses; everything else is here:
//   Co-Simulation: a NativeSystem with the FMU's integrator steps the model (DoStep); events at a
//   communication point are handled inside the step (FMI 3.0: hasEventMode="false").
//   Model Exchange: the importer integrates; the slave evaluates f, g and the event indicators at
//   the (t, x, u) it was given, and applies the model's event handler in New Discrete States /
//   Update Discrete States.
//
// State machines, a call outside its states is refused with Error:
//   CS (FMI 2.0 §4.2.4, FMI 3.0 §4.2): instantiated --EnterInitializationMode--> initialization
//     --ExitInitializationMode--> stepping --Terminate--> terminated;
//     Error from a step --> failed;  Reset --> instantiated
//   ME (FMI 2.0 §3.2.3, FMI 3.0 §3.2): instantiated → initialization --ExitInitializationMode-->
//     event_mode --EnterContinuousTimeMode--> continuous_time --EnterEventMode--> event_mode …
//     --Terminate--> terminated
//
// Values are addressed by value reference: FMI 2.0 has separate Real and Integer spaces of scalars;
// in FMI 3.0 a reference may name an array, whose elements travel row-major (§2.2.6.2). Every call
// takes the API function's name for its log lines.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "export/variable_table.hpp"
#include "system/native/native_system.hpp"

namespace cosima::fmu_export {

enum class FmiVersion : std::uint8_t { fmi2, fmi3 };

/// The values fmi2Status and fmi3Status share (OK … Fatal).
enum class Status : int { ok = 0, warning = 1, discard = 2, error = 3, fatal = 4 };

/// Where the slave's log lines go (the API layer calls the importer's logger).
using LogSink = std::function<void(Status, const std::string&)>;

/// What one discrete-state update did (fmi2EventInfo, fmi3UpdateDiscreteStates' outputs).
struct DiscreteUpdate {
  bool values_changed = false;
  bool terminate = false;
  bool next_time_defined = false;
  double next_time = 0.0;
};

/// What a step did beyond its status (FMI 3.0 fmi3DoStep's outputs).
struct StepReport {
  bool terminate = false;  ///< FMI 3.0: the model asked to end the simulation
};

class Slave {
 public:
  Slave(FmiVersion version, std::string instance, bool model_exchange, LogSink log);

  /// Logs an error and returns Status::error.
  Status error(const std::string& message);
  /// Refuses a call outside its phases; logs why.
  bool allowed(unsigned phases, const char* call);
  /// Error for a typed call on a type the FMU has no variables of: OK when no reference is given.
  Status no_variables(const char* call, const char* type, const unsigned int vr[], std::size_t n);

  // --- lifecycle -----------------------------------------------------------------------------------
  Status setup_experiment(const char* call, bool tolerance_defined, double tolerance, double start);
  Status enter_initialization(const char* call);
  Status exit_initialization(const char* call);
  Status terminate(const char* call);
  Status reset();

  // --- values: n references, n_values values (FMI 2.0: n_values = n) ---------------------------------
  Status get_real(const char* call, const unsigned int vr[], std::size_t n, double value[], std::size_t n_values);
  Status set_real(const char* call, const unsigned int vr[], std::size_t n, const double value[], std::size_t n_values);
  Status get_integer(const char* call, const unsigned int vr[], std::size_t n, int value[], std::size_t n_values);
  Status set_integer(const char* call, const unsigned int vr[], std::size_t n, const int value[], std::size_t n_values);

  // --- Co-Simulation -----------------------------------------------------------------------------------
  Status do_step(const char* call, double t, double h, StepReport& report);
  /// FMI 2.0: polynomial inputs (a_k = u^(k)/k!).
  Status set_input_derivatives(const char* call, const unsigned int vr[], std::size_t n, const int order[],
                               const double value[]);
  /// orders: one per reference, for all its elements.
  Status get_output_derivatives(const char* call, const unsigned int vr[], std::size_t n, const int order[],
                                double value[], std::size_t n_values);
  [[nodiscard]] double time() const { return system_ ? system_->time() : start_; }

  // --- FMU state -------------------------------------------------------------------------------------
  Status get_state(const char* call, void** state);
  Status set_state(const char* call, void* state);
  Status free_state(void** state);

  // --- directional derivatives (seed / sensitivity: the knowns' / unknowns' elements) ---------------
  Status directional_derivative(const char* call, const unsigned int unknowns[], std::size_t n_unknown,
                                const unsigned int knowns[], std::size_t n_known, const double seed[],
                                std::size_t n_seed, double sensitivity[], std::size_t n_sensitivity);

  // --- Model Exchange (FMI 2.0 §3.2, FMI 3.0 §3.2) -------------------------------------------------
  [[nodiscard]] bool model_exchange() const { return model_exchange_; }
  [[nodiscard]] int state_count() const { return model_->state_count(); }
  [[nodiscard]] int event_indicator_count() const { return model_->event_indicator_count(); }
  Status set_time(const char* call, double t);
  Status set_continuous_states(const char* call, const double x[], std::size_t nx);
  Status get_continuous_states(const char* call, double x[], std::size_t nx);
  Status get_nominals(const char* call, double x[], std::size_t nx);
  Status get_derivatives(const char* call, double dx[], std::size_t nx);
  Status get_event_indicators(const char* call, double z[], std::size_t nz);
  Status enter_event_mode(const char* call);
  /// The model's event handler, once per entry into Event Mode: a native model needs no iteration.
  Status update_discrete_states(const char* call, DiscreteUpdate& update);
  Status enter_continuous_time_mode(const char* call);
  Status completed_integrator_step(const char* call, bool& enter_event_mode, bool& terminate_simulation);

 private:
  using Elements = std::vector<const ExportedVariable*>;
  [[nodiscard]] const Elements* real_elements(unsigned int vr) const;
  [[nodiscard]] const Elements* integer_elements(unsigned int vr) const;
  /// Whether `count` more values fit into n_values after `at` (logs when not).
  bool fits(const char* call, std::size_t at, std::size_t count, std::size_t n_values);
  Status all_used(const char* call, std::size_t at, std::size_t n_values);
  Status get_real_element(const char* call, const ExportedVariable& v, double& value);
  Status set_real_element(const char* call, const ExportedVariable& v, double value, bool& inputs_changed);

  void build_system();
  /// CS: the system that steps; ME: the state the importer integrates.
  void start();
  bool sized(std::size_t n, Eigen::Index expected, const char* call);
  /// u as a contiguous vector (inputs_ is row-major): copied into a member, no allocation per call.
  const Eigen::VectorXd& me_inputs();
  /// An output, state, derivative or event indicator at the (t, x, u) the importer set (Model Exchange).
  double me_value(const ExportedVariable& v);
  const Linearization& me_linearization();
  [[nodiscard]] const char* state_flag() const;

  template <class Action>
  Status guarded(Action action) {
    try {
      return action();
    } catch (const std::exception& e) {
      return error(e.what());
    }
  }

  FmiVersion version_;
  std::string instance_;
  LogSink log_;
  bool model_exchange_;
  std::unique_ptr<OdeModel> model_;
  std::vector<ExportedVariable> elements_;
  /// by value reference: the elements it names (empty: no such variable)
  std::vector<Elements> real_by_vr_, integer_by_vr_;
  const char* real_type_;
  const char* integer_type_;
  SolverDefaults solver_;
  double start_ = 0.0;
  unsigned phase_;
  InputPolynomials inputs_;
  std::unique_ptr<NativeSystem> system_;
  Eigen::VectorXd buffer_;
  // Model Exchange: what the importer set, and the event bookkeeping
  double t_ = 0.0;
  Eigen::VectorXd x_, me_u_;
  double announced_time_event_ = std::numeric_limits<double>::infinity();
  bool event_handled_ = false;
  Linearization me_jacobians_;
  Elements unknowns_, knowns_;  ///< directional derivatives' elements, kept for their capacity
};

}  // namespace cosima::fmu_export
