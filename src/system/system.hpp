#pragma once
// The System contract: what cosima may ask of one black-box dynamical system (DESIGN §2).
//
// Call order (mirrors the FMI 2.0 Co-Simulation state machine):
//   1. set_parameter(...)*                      before initialize
//   2. enter_initialization(t_start)            once (FMI Initialization Mode); then, any number of
//        set_inputs(polynomials), outputs(...)  the exchange in Initialization Mode: outputs are the
//                                               initial values given the inputs set (FMI 2.0 §3.2.3,
//                                               §4.2.4; FMI 3.0 §3.2, §4.2)
//      exit_initialization()                    once; outputs are then defined at t_start
//      (initialize(t_start) does both, with no exchange between)
//   3. per macro-step [t, t+h):
//        set_inputs(polynomials)                inputs over the step, in s = t' − time()
//        do_step(h)                             time() advances to t+h
//        outputs(...), output_derivatives(...)  at time(), with the inputs evaluated at time()
//      or, the explicit schemes' common case, all three at once with inputs held constant:
//        step_constant(u, h, y)                 ≡ set_inputs(ZOH u); do_step(h); outputs(y)
//   4. at a step boundary, with Capability::rollback:
//        save_state() / restore_state(id) / release_state(id)
//   5. discontinuities: next_event_time() announces the system's next time event; a step that ends
//      on it leaves the event pending (outputs() are the left limits there), and
//      handle_pending_events() then moves the system to the right limits (FMI 3.0 §4.1.3's
//      event mode at a communication point; FMI 2.0 CS handles events inside doStep). The master
//      also calls it, with nothing pending, where it detected a jump in the system's outputs that
//      no event announced (methods/jump_detector.hpp).
//
// Ports carry a PortKind (system/port.hpp). Numeric kinds travel as doubles through set_inputs and
// outputs (a String port's slot there is unused); String ports through string_output /
// set_string_input at communication points, and the exact values of 64-bit integer ports there too,
// beside their doubles (wide_value / set_wide_input).
//
// A call that needs a capability the system does not declare, or that the scenario withholds,
// throws CapabilityError naming the system and the capability.
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/polynomial.hpp"
#include "core/position_index.hpp"
#include "core/small_matrix.hpp"
#include "core/tick_clock.hpp"
#include "core/vector_view.hpp"
#include "system/capability.hpp"
#include "system/port.hpp"

namespace cosima {

/// Outcome of one integration over a macro-step. Failures carry their reason, never a crash.
struct StepResult {
  enum class Status : std::uint8_t {
    ok,
    failed,      ///< the system could not complete the step (solver failure, NaN, fmi2Error)
    terminated,  ///< the system asks to end the run at its current time (fmi2Terminated)
  };
  Status status = Status::ok;
  std::string reason;
  /// With Status::terminated: the step reached its end before the system asked to stop, so the
  /// communication point it ends on is complete (FMI 2.0 §4.2.3: lastSuccessfulTime = t + h).
  bool step_completed = false;

  [[nodiscard]] bool ok() const { return status == Status::ok; }
  /// The step reached its end: it succeeded, or the system asks to stop right there. Its outputs are
  /// then those at the step's end, read as after any successful step (every executor alike).
  [[nodiscard]] bool reached_end() const {
    return status == Status::ok || (status == Status::terminated && step_completed);
  }
  static StepResult success() { return {}; }
  /// *this = success(), keeping the reason's buffer.
  void reset() {
    status = Status::ok;
    reason.clear();
    step_completed = false;
  }
  static StepResult failure(std::string why) { return {Status::failed, std::move(why)}; }
};

/// Local linearization  x' ≈ A x + B u + …,  y ≈ C x + D u + …  at the current time.
struct Linearization {
  Eigen::MatrixXd A, B, C, D;
};

using StateId = int;

class System {
 public:
  explicit System(std::string name) : name_(std::move(name)) {}
  virtual ~System() = default;
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }

  // --- structure -------------------------------------------------------------------------------
  [[nodiscard]] virtual const std::vector<std::string>& input_names() const = 0;
  [[nodiscard]] virtual const std::vector<std::string>& output_names() const = 0;
  /// States, when Capability::state_access is provided (empty otherwise).
  [[nodiscard]] virtual const std::vector<std::string>& state_names() const;
  /// Direct feedthrough: does output `output` depend algebraically on input `input`?
  [[nodiscard]] virtual bool output_depends_on_input(int output, int input) const = 0;
  /// Whether some output depends on some input directly.
  [[nodiscard]] bool has_feedthrough() const;
  [[nodiscard]] int input_count() const { return static_cast<int>(input_names().size()); }
  [[nodiscard]] int output_count() const { return static_cast<int>(output_names().size()); }
  [[nodiscard]] int state_count() const { return static_cast<int>(state_names().size()); }
  /// Index of a port by name, or -1.
  [[nodiscard]] int input_index(std::string_view port) const;
  [[nodiscard]] int output_index(std::string_view port) const;
  [[nodiscard]] int state_index(std::string_view state) const;
  /// Kind, variability, range and start of a port (default: a continuous Real).
  [[nodiscard]] virtual const PortInfo& input_info(int input) const;
  [[nodiscard]] virtual const PortInfo& output_info(int output) const;

  // --- capabilities ----------------------------------------------------------------------------
  /// What the system provides, less what the scenario withholds. A capability is only required
  /// where it is used: a system without inputs interpolates them trivially, one without outputs
  /// has every output derivative.
  /// (Computed once, at the first call: what a system provides is fixed once it is built.)
  [[nodiscard]] CapabilitySet capabilities() const {
    return capabilities_known_ ? capabilities_ : known_capabilities();
  }
  /// The part of capabilities() that cosima stands in for (system/emulation/), not the system.
  [[nodiscard]] virtual CapabilitySet emulated_capabilities() const { return {}; }
  /// Sub-steps per macro-step an emulation spends (1 when nothing is emulated).
  [[nodiscard]] virtual int emulation_substeps() const { return 1; }
  /// Where emulated output derivatives come from, with their order (empty when none are emulated).
  [[nodiscard]] virtual std::string emulated_derivatives() const { return {}; }
  [[nodiscard]] bool has(Capability c) const { return capabilities().has(c); }
  /// Throws CapabilityError "system 'S' lacks capability 'C' (FMI flag), needed by WHO".
  void require(Capability c, std::string_view needed_by) const {
    if (!has(c)) refuse(c, needed_by);
  }
  /// Emulates a less capable system (e.g. an industrial FMU without rollback).
  void withhold(Capability c) {
    withheld_.add(c);
    capabilities_known_ = false;
  }
  /// Highest output derivative order available (0 without Capability::output_derivatives).
  [[nodiscard]] int max_output_derivative_order() const;

  // --- parameters ------------------------------------------------------------------------------
  /// Numeric parameters (Real, Integer, Boolean as 0/1, Enumeration): range-checked by the system.
  virtual void set_parameter(const std::string& name, double value) = 0;
  /// String parameters. The default refuses: the system has none.
  virtual void set_string_parameter(const std::string& name, const std::string& value);

  // --- String ports: exchanged at communication points, never through the numeric vectors -----
  /// The current value of a String output (PortKind::string).
  [[nodiscard]] virtual std::string string_output(int output) const;
  virtual void set_string_input(int input, const std::string& value);

  // --- 64-bit integers, exactly (PortInfo::wide, core/wide_integer.hpp) ---------------------------
  /// The value of a 64-bit integer port or variable by name (an FMU's Int64/UInt64 of any causality),
  /// read now; nullopt for anything else. Default: none.
  [[nodiscard]] virtual std::optional<WideInteger> wide_value(const std::string& /*name*/) const {
    return std::nullopt;
  }
  /// Sets a 64-bit integer input exactly, and keeps the value: while the master gives the input this
  /// value's nearest double, the system takes the value itself. Default: nothing (no such input).
  virtual void set_wide_input(int /*input*/, WideInteger /*value*/) {}
  /// A parameter given as a 64-bit integer. The default sets its double where that is the value
  /// itself and refuses it by name where it is not.
  virtual void set_wide_parameter(const std::string& name, WideInteger value);

  // --- other variables, for recording ----------------------------------------------------------
  /// Variables beyond the ports and states that a recorder may read by name (an FMU: every numeric
  /// scalar of its description, parameters, locals, inputs and derivatives among them). Default: none.
  [[nodiscard]] virtual std::vector<std::string> variable_names() const { return {}; }
  /// A port's, state's or variable's description and unit as a results file shows them ("Position
  /// of the ball [m]"); empty when the system declares neither.
  [[nodiscard]] virtual std::string variable_description(std::string_view /*name*/) const { return {}; }
  /// Chooses, before the run, the variables read_variables() reads (each from variable_names()).
  /// The default refuses any: the system has none.
  virtual void watch_variables(const std::vector<std::string>& names);
  /// The watched variables' current values, in the order given to watch_variables().
  virtual void read_variables(Eigen::Ref<Eigen::VectorXd> /*out*/) const {}

  // --- simulation ------------------------------------------------------------------------------
  /// Initialization Mode at t_start: parameters and start values are applied; set_inputs and
  /// outputs() then exchange initial values (only the inputs' values at t_start count).
  virtual void enter_initialization(double t_start) = 0;
  /// Leaves Initialization Mode with the inputs last set; outputs() are then those at t_start.
  virtual void exit_initialization() {}
  /// enter_initialization(t_start), then exit_initialization(): no initial exchange.
  void initialize(double t_start) {
    enter_initialization(t_start);
    exit_initialization();
  }
  [[nodiscard]] virtual double time() const = 0;
  /// Inputs over the coming step. A system without Capability::interpolate_inputs accepts only
  /// constant polynomials (ZOH).
  void set_inputs(const InputPolynomials& polynomials);
  /// Integrates from time() to time() + h.
  StepResult do_step(double h);
  virtual void outputs(Eigen::Ref<Eigen::VectorXd> y) const = 0;
  /// set_inputs with u held constant over the step, do_step(h), and — when the step succeeded — its
  /// outputs, checked finite (a non-finite output fails the step, naming it). The same numbers as the
  /// three calls, without the polynomials: the explicit schemes' hot loop (exec/order.hpp, PlainBatch).
  /// u and y have input_count() and output_count() entries (not checked here: the caller sized them).
  StepResult step_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y);
  /// set_inputs with u held constant and then its outputs, checked finite, without a step: a
  /// communication point settled along direct feedthrough (exec/order.hpp: a PlainBatch entry of h = 0).
  StepResult settle_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y);
  /// step_constant without setting the inputs: the system holds those it was last given (by
  /// settle_constant, with the same values).
  StepResult step_held(double h, Eigen::Ref<Eigen::VectorXd> y);
  /// The failure that names the first non-finite entry of `values`, the outputs (order 0) or their
  /// derivatives of `order` at time() — a non-finite output is the producing system's fault.
  [[nodiscard]] StepResult non_finite_output(ConstVectorView values, int order) const;
  /// d^order y / dt^order at time() (order ≥ 1).
  void output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const;

  // --- discontinuities ---------------------------------------------------------------------------
  /// The next time ≥ time() at which the system's outputs may jump (a time event), or +∞.
  [[nodiscard]] virtual double next_event_time() const { return std::numeric_limits<double>::infinity(); }
  /// Whether a time event at time() awaits handle_pending_events().
  [[nodiscard]] virtual bool event_pending() const { return false; }
  /// Whether next_event_time() and event_pending() can ever say more than "none" (false: the system
  /// handles its events inside do_step, like FMI Co-Simulation); the driver then never asks.
  [[nodiscard]] virtual bool announces_events() const { return true; }
  /// A discontinuity at time(): handles the events pending there (outputs and derivatives become the
  /// right limits); with none pending (a jump the master detected) only what a decorator derived
  /// from earlier outputs restarts.
  virtual StepResult handle_pending_events() { return StepResult::success(); }

  // --- rollback --------------------------------------------------------------------------------
  StateId save_state();
  void save_state(StateId id);  ///< overwrite an existing snapshot (no allocation)
  void restore_state(StateId id);
  void release_state(StateId id);

  // --- state access and linearization ----------------------------------------------------------
  void states(Eigen::Ref<Eigen::VectorXd> x) const {
    require(Capability::state_access, "state access");
    compute_states(x);
  }
  void state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
    require(Capability::state_access, "state access");
    compute_state_derivatives(dx);
  }
  /// A, B, C, D at the current time, state and inputs.
  const Linearization& linearize() {
    require(Capability::linearization, "linearization");
    return compute_linearization();
  }

  // --- counters --------------------------------------------------------------------------------
  [[nodiscard]] std::int64_t integrations() const { return integrations_; }
  /// Time spent in do_step (step_constant: with its inputs and outputs), estimated from every
  /// kTimingPeriod-th integration (exact up to sampling).
  [[nodiscard]] double integration_seconds() const;
  static constexpr std::int64_t kTimingPeriod = 8;
  void reset_counters() {
    integrations_ = 0;
    integration_ticks_ = 0;
    integration_seconds_ = 0.0;
  }

 protected:
  [[nodiscard]] virtual CapabilitySet provided_capabilities() const = 0;
  [[nodiscard]] virtual int provided_output_derivative_order() const { return 0; }
  virtual void apply_inputs(const InputPolynomials& polynomials) = 0;
  /// Inputs held constant over the step; the default hands apply_inputs their constant polynomials.
  virtual void apply_constant_inputs(ConstVectorView u);
  /// step_constant's work, counted and timed by it: apply_constant_inputs, integrate and, when the
  /// step succeeded, outputs. A system may fuse them (fmi/v2/cs/fmi2_cs_system.hpp: three FMI calls in one scope).
  virtual StepResult integrate_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y);
  /// step_held's work: integrate and, when the step succeeded, outputs. A system may fuse them.
  virtual StepResult integrate_held(double h, Eigen::Ref<Eigen::VectorXd> y);
  /// settle_constant's work: apply_constant_inputs, then outputs. A system may fuse them.
  virtual void exchange_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y);
  virtual StepResult integrate(double h) = 0;
  virtual void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const;
  virtual StateId do_save_state(StateId overwrite);
  virtual void do_restore_state(StateId id);
  virtual void do_release_state(StateId id);
  virtual void compute_states(Eigen::Ref<Eigen::VectorXd> x) const;
  virtual void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const;
  virtual const Linearization& compute_linearization();
  /// For proxies of systems that run elsewhere (MPI): the counters reported by the real system.
  void set_counters(std::int64_t integrations, double seconds) {
    integrations_ = integrations;
    integration_ticks_ = 0;
    integration_seconds_ = seconds;
  }

 private:
  /// Counts an integration and times every kTimingPeriod-th (two clock reads per integration would
  /// cost a cheap FMU's step ~20 %); `work` carries it out.
  template <typename Work>
  StepResult counted(Work&& work);
  /// capabilities(), computed and kept.
  CapabilitySet known_capabilities() const;
  /// require()'s refusal: throws CapabilityError.
  [[noreturn]] void refuse(Capability c, std::string_view needed_by) const;
  /// Port and state names to indices (names are fixed once the system is built).
  struct NameIndex {
    mutable PositionIndex index;
    int find(const std::vector<std::string>& names, std::string_view name) const;
  };
  std::string name_;
  NameIndex inputs_by_name_, outputs_by_name_, states_by_name_;
  CapabilitySet withheld_;
  mutable CapabilitySet capabilities_;
  mutable bool capabilities_known_ = false;
  InputPolynomials constant_inputs_;  ///< apply_constant_inputs' polynomials (allocated once)
  std::int64_t integrations_ = 0;
  std::uint64_t integration_ticks_ = 0;  ///< do_step's own time (core/tick_clock.hpp)
  double integration_seconds_ = 0.0;     ///< as reported by a remote system (set_counters)
};

// --- the hot loop's calls, inline: a step of a cheap system costs a few tens of nanoseconds ------

template <typename Work>
StepResult System::counted(Work&& work) {
  const bool timed = integrations_++ % kTimingPeriod == 0;
  const std::uint64_t start = timed ? tick_clock::now() : 0;
  StepResult result = work();  // the one named result: built in the caller's slot, not moved
  if (timed) integration_ticks_ += static_cast<std::uint64_t>(kTimingPeriod) * (tick_clock::now() - start);
  return result;
}

inline StepResult System::step_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y) {
  StepResult result = counted([&] { return integrate_constant(u, h, y); });
  if (result.reached_end() && !all_finite(y)) result = non_finite_output(y, 0);
  return result;  // one named result: returned in place, not moved
}

inline StepResult System::step_held(double h, Eigen::Ref<Eigen::VectorXd> y) {
  StepResult result = counted([&] { return integrate_held(h, y); });
  if (result.reached_end() && !all_finite(y)) result = non_finite_output(y, 0);
  return result;
}

inline StepResult System::settle_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y) {
  exchange_constant(u, y);
  return all_finite(y) ? StepResult::success() : non_finite_output(y, 0);
}

}  // namespace cosima
