#pragma once
// The C++ model API for native systems:
//   x' = f(t, x, u),   y = g(t, x, u)
// with named states, inputs, outputs and parameters, declared input→output dependencies (direct
// feedthrough) and optional analytic Jacobians. The NativeSystem that embeds a model owns the state
// x and the integrator.
//
// A model may be hybrid (FMI 2.0 ME §3.1 semantics): event indicators z(t, x, u), whose change
// between z > 0 and z ≤ 0 is a state event; time events; step events requested after an accepted
// integrator step; and an event handler that re-initialises x. A native model is pure — its event
// handler is a function of (t, x, u, cause) — while an imported Model Exchange FMU (fmi/common/me_model.hpp) also
// carries discrete state, which it saves and restores for rollback.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "core/vector_view.hpp"
#include "system/system.hpp"

namespace cosima {

using VectorRef = Eigen::Ref<Eigen::VectorXd>;
/// Read-only x and u: a view of contiguous storage (core/vector_view.hpp), not an Eigen::Ref; pass a
/// VectorXd, a segment or a Map, and name a VectorXd of an expression.
using ConstVectorRef = ConstVectorView;

/// Why an event is handled (several causes may coincide).
struct EventCause {
  bool time_event = false;   ///< t is the time event the model announced
  bool state_event = false;  ///< an event indicator changed domain
  bool step_event = false;   ///< the model asked after an integrator step
  bool input_event = false;  ///< a discrete input changed (set in event mode)
};

/// What an event handling did.
struct EventOutcome {
  bool states_changed = false;  ///< x was re-initialised: the integrator restarts
  bool terminate = false;       ///< the model asks to end the simulation (terminateSimulation)
};

/// What the model answers to an accepted integrator step (fmi2CompletedIntegratorStep).
struct IntegratorStepReport {
  bool enter_event_mode = false;
  bool terminate = false;
};

struct ParameterSpec {
  std::string name;
  double value;
  std::string description;
};

class OdeModel {
 public:
  struct Structure {
    std::vector<std::string> states;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<ParameterSpec> parameters;
    /// (output, input) pairs where y_output depends algebraically on u_input.
    std::vector<std::pair<int, int>> feedthrough;
    /// f and g are affine with constant matrices: x' = A x + B u + e, y = C x + D u + c.
    bool linear_time_invariant = false;
    /// f alone is affine with constant A, B, e (g may depend on t or be non-linear).
    bool linear_dynamics = false;
    /// g reads t (∂g/∂t may be non-zero). A model whose outputs(t, x, u) ignores t declares false:
    /// its output slope y' = g_x f + g_u u' then needs no finite difference in t. Implied false
    /// by linear_time_invariant.
    bool outputs_depend_on_time = true;
    /// Port kinds when not all continuous Reals (empty: all continuous Real).
    std::vector<PortInfo> input_info, output_info;
  };

  /// A structure shared by every instance of a model type (a scenario may have 10⁵ of them).
  struct SharedStructure {
    explicit SharedStructure(std::shared_ptr<const Structure> shared) : structure(std::move(shared)) {}
    std::shared_ptr<const Structure> structure;
  };

  OdeModel(std::string type, Structure structure);
  OdeModel(std::string type, SharedStructure shared);
  virtual ~OdeModel() = default;
  OdeModel(const OdeModel&) = default;
  OdeModel& operator=(const OdeModel&) = delete;

  [[nodiscard]] const std::string& type() const { return type_; }
  [[nodiscard]] const Structure& structure() const { return *structure_; }
  [[nodiscard]] int state_count() const { return static_cast<int>(structure_->states.size()); }
  [[nodiscard]] int input_count() const { return static_cast<int>(structure_->inputs.size()); }
  [[nodiscard]] int output_count() const { return static_cast<int>(structure_->outputs.size()); }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const;
  [[nodiscard]] bool outputs_depend_on_time() const {
    return structure_->outputs_depend_on_time && !structure_->linear_time_invariant;
  }
  [[nodiscard]] bool has_linear_dynamics() const {
    return structure_->linear_dynamics || structure_->linear_time_invariant;
  }

  [[nodiscard]] const PortInfo& input_info(int input) const;
  [[nodiscard]] const PortInfo& output_info(int output) const;

  /// Sets a parameter by name; throws Error naming the model and listing the valid names.
  virtual void set_parameter(const std::string& name, double value);
  /// String parameters and ports; the defaults refuse (a native model has none).
  virtual void set_string_parameter(const std::string& name, const std::string& value);
  [[nodiscard]] virtual std::string string_output(int output) const;
  virtual void set_string_input(int input, const std::string& value);
  /// 64-bit integers exactly, as System::wide_value, set_wide_input and set_wide_parameter (default:
  /// none, nothing, and the double where it is the value).
  [[nodiscard]] virtual std::optional<WideInteger> wide_value(const std::string& /*name*/) const {
    return std::nullopt;
  }
  virtual void set_wide_input(int /*input*/, WideInteger /*value*/) {}
  virtual void set_wide_parameter(const std::string& name, WideInteger value);
  [[nodiscard]] double parameter(const std::string& name) const;
  /// Variables beyond ports and states for a recorder (System::variable_names); default: none.
  [[nodiscard]] virtual std::vector<std::string> variable_names() const { return {}; }
  /// As System::variable_description; default: none.
  [[nodiscard]] virtual std::string variable_description(std::string_view /*name*/) const { return {}; }
  /// The default refuses any name: the model has no such variables.
  virtual void watch_variables(const std::vector<std::string>& names);
  /// The watched variables at (t, x, u).
  virtual void read_variables(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/,
                              Eigen::Ref<Eigen::VectorXd> /*out*/) const {}

  [[nodiscard]] virtual Eigen::VectorXd initial_state() const = 0;
  virtual void derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const = 0;
  virtual void outputs(double t, ConstVectorRef x, ConstVectorRef u, VectorRef y) const = 0;
  /// Analytic A = ∂f/∂x, B = ∂f/∂u, C = ∂g/∂x, D = ∂g/∂u. Returns false when the model has none
  /// (the system then uses finite differences).
  virtual bool jacobians(double t, ConstVectorRef x, ConstVectorRef u, Linearization& out) const;
  [[nodiscard]] virtual std::unique_ptr<OdeModel> clone() const = 0;
  /// The closed-form flow x(t0) → x(t0 + h) for inputs u(t0 + s) = Σ_k inputs(·, k) s^k, when the
  /// model has one (used by integrator 'exact'). Returns false when it has none (the default).
  virtual bool exact_flow(double t0, double h, const InputPolynomials& inputs, VectorRef x) const;

  // --- start ---------------------------------------------------------------------------------------
  // enter_initialization(t_start), then initialization_outputs(...)* (the initial exchange), then
  // start(t_start) with the inputs last given.
  /// Into initialization at t_start (an FMU: Initialization Mode). Default: nothing to do.
  virtual void enter_initialization(double /*t_start*/) {}
  /// The outputs during initialization under inputs u. Default: outputs(t_start, initial_state(), u).
  virtual void initialization_outputs(double t_start, ConstVectorRef u, VectorRef y) const;
  /// Ends initialization under inputs u and returns x(t_start). Default: initial_state().
  virtual Eigen::VectorXd start(double t_start, ConstVectorRef u);

  // --- hybrid models (the defaults: a pure ODE without events) ------------------------------------
  [[nodiscard]] virtual int event_indicator_count() const { return 0; }
  virtual void event_indicators(double t, ConstVectorRef x, ConstVectorRef u, VectorRef z) const;
  /// The next time event strictly after the events handled at or before t, or +∞.
  [[nodiscard]] virtual double next_time_event(double t) const;
  /// Whether step_completed must be called after every accepted integrator step.
  [[nodiscard]] virtual bool wants_step_reports() const { return false; }
  /// An accepted integrator step ended at (t, x, u).
  virtual IntegratorStepReport step_completed(double t, ConstVectorRef x, ConstVectorRef u) const;
  /// Whether a change of the discrete inputs in u must be handled as an event (set in event mode).
  [[nodiscard]] virtual bool discrete_inputs_changed(ConstVectorRef u) const;
  /// Handles an event at t: x is x(t⁻) on entry and x(t⁺) on return. Throws Error on failure.
  virtual EventOutcome handle_event(double t, VectorRef x, ConstVectorRef u, const EventCause& cause);
  /// Whether the model keeps state besides x (then saved and restored with it for rollback).
  [[nodiscard]] virtual bool has_discrete_state() const { return false; }
  /// Whether restoring a saved point is possible: true for pure models. A hybrid model that cannot
  /// save its discrete state may refuse (restore_discrete_state throws then).
  [[nodiscard]] virtual bool can_restore_discrete_state() const { return true; }
  virtual int save_discrete_state(int overwrite);
  virtual void restore_discrete_state(int slot);
  virtual void release_discrete_state(int slot);

 protected:
  /// Parameter value by declaration index (hot-path access for model code).
  [[nodiscard]] double p(int index) const { return values_[static_cast<std::size_t>(index)]; }

 private:
  std::string type_;
  std::shared_ptr<const Structure> structure_;  ///< immutable: shared by instances and clones
  std::vector<double> values_;
};

/// Finite-difference Jacobians of a model at (t, x, u) (central differences). Columns of discrete
/// inputs (Integer, Boolean, ...) are zero: they cannot be perturbed.
void finite_difference_jacobians(const OdeModel& model, double t, ConstVectorRef x, ConstVectorRef u,
                                 Linearization& out);

}  // namespace cosima
