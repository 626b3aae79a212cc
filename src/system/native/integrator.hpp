#pragma once
// Embedded integrators of native systems. An integrator advances x' = f(t, x, u(t)) over one call
// [t0, t1] with the step's input polynomials fixed; it returns a failure reason instead of throwing.
// With a hybrid model (ode_model.hpp) it also stops early: at the first state event — an event
// indicator changing between z > 0 and z ≤ 0, located by CVODE's rootfinding or, for the explicit
// integrators, by bisection on their dense output — and after an accepted step the model answers
// with enter_event_mode (a step event). Where and why it stopped: stop().
//
//   dopri5  adaptive Dormand–Prince 5(4), dense output, rtol/atol (Hairer–Nørsett–Wanner II.4/II.6)
//   cvode   SUNDIALS CVODE, BDF with Newton + dense LU, rtol/atol (stiff systems)
//   arkode  SUNDIALS ARKODE, an L-stable DIRK of order 5 (one-step: a rollback keeps its order;
//           sundials_integrator.hpp), rtol/atol (stiff systems under the methods that roll back)
//   euler   fixed-step forward Euler: `steps_per_call` steps per call, or one step spanning
//           `calls_per_step` calls with its slope held (seed 004 eq. 45 under defect-jacobi, which
//           calls twice per communication step: calls_per_step = 2, one slope per step)
//   exact   exact for linear dynamics x' = A x + B u + e, through φ-functions (core/phi_functions)
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <Eigen/Dense>

#include "core/polynomial.hpp"
#include "system/native/ode_model.hpp"
#include "system/system.hpp"

namespace cosima {

/// The right-hand side over one step: x' = f(t, x, u(t)), u the step's input polynomials in
/// s = t − origin.
class StepRhs {
 public:
  StepRhs(const OdeModel& model, const InputPolynomials& inputs, double origin)
      : model_(model), inputs_(inputs), origin_(origin), own_(inputs.rows()), u_(own_) {}
  /// With the caller's buffer for the inputs' values (a system's step allocates nothing).
  StepRhs(const OdeModel& model, const InputPolynomials& inputs, double origin, Eigen::VectorXd& scratch)
      : model_(model), inputs_(inputs), origin_(origin), u_(scratch) {
    u_.resize(inputs.rows());
  }
  StepRhs(const StepRhs&) = delete;
  StepRhs& operator=(const StepRhs&) = delete;

  void operator()(double t, ConstVectorRef x, VectorRef dx) const {
    last_t_ = t;
    model_.derivatives(t, x, inputs_at(t), dx);
  }
  [[nodiscard]] int indicator_count() const { return model_.event_indicator_count(); }
  void indicators(double t, ConstVectorRef x, VectorRef z) const {
    last_t_ = t;
    model_.event_indicators(t, x, inputs_at(t), z);
  }
  [[nodiscard]] bool wants_step_reports() const { return model_.wants_step_reports(); }
  [[nodiscard]] IntegratorStepReport step_completed(double t, ConstVectorRef x) const {
    last_t_ = t;
    return model_.step_completed(t, x, inputs_at(t));
  }
  /// "derivative of state 'v' is nan" for the first non-finite component of dx, or "".
  [[nodiscard]] std::string non_finite(ConstVectorRef dx) const;
  [[nodiscard]] const OdeModel& model() const { return model_; }
  [[nodiscard]] const InputPolynomials& inputs() const { return inputs_; }
  [[nodiscard]] double origin() const { return origin_; }
  /// The time of the last evaluation (for failure reports).
  [[nodiscard]] double last_time() const { return last_t_; }

 private:
  [[nodiscard]] const Eigen::VectorXd& inputs_at(double t) const {
    evaluate_polynomials(inputs_, t - origin_, 0, u_);
    return u_;
  }
  const OdeModel& model_;
  const InputPolynomials& inputs_;
  double origin_;
  Eigen::VectorXd own_;
  Eigen::VectorXd& u_;  ///< own_ or the caller's scratch
  mutable double last_t_ = 0.0;
};

/// Where and why the last advance stopped.
struct IntegratorStop {
  double t = 0.0;            ///< t1, or the time of the event
  bool state_event = false;  ///< an event indicator changed domain in (t0, t]
  bool step_event = false;   ///< step_completed asked for event mode at t
  bool terminate = false;    ///< step_completed asked to end the simulation at t
};

struct IntegratorOptions {
  double rtol = 1e-8;
  /// Absolute tolerance; unless given (atol_given), 1e-2·rtol — and for a Model Exchange FMU rtol is
  /// its DefaultExperiment tolerance unless given (rtol_given).
  double atol = 1e-10;
  bool rtol_given = false, atol_given = false;
  /// Per state, when not empty (cvode, dopri5): an FMU's 1e-2·rtol·|nominal| unless atol is given.
  Eigen::VectorXd state_atol;
  double max_step = 0.0;           ///< 0: no limit
  int steps_per_call = 1;          ///< euler only
  int calls_per_step = 1;          ///< euler only: one step spans this many calls (1 or steps_per_call = 1)
  int max_events_per_step = 1000;  ///< more events in one macro-step is chattering: an error
  int max_event_iterations = 100;  ///< fmi2NewDiscreteStates calls per event before giving up
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  [[nodiscard]] virtual std::string_view kind() const = 0;
  /// Forget history (FSAL stage, BDF history): the inputs changed or the state was restored.
  virtual void reset() {}
  /// The inputs were set anew (maybe only re-expanded at the current time): by default reset().
  virtual void inputs_changed() { reset(); }
  /// The inputs were set anew, going on from the last ones with the same value and slope at the
  /// current time (a C¹ interface: IFOSMONDI, MISSILES): by default as inputs_changed(); the SUNDIALS
  /// integrators keep their history (a BDF restart at each communication point would cost its order).
  virtual void inputs_continued() { inputs_changed(); }
  /// Advances x from t0 towards t1; stops earlier at a state or step event (see stop()).
  virtual StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) = 0;
  /// Where and why the last successful advance stopped.
  [[nodiscard]] const IntegratorStop& stop() const { return stop_; }
  [[nodiscard]] std::int64_t rhs_evaluations() const { return rhs_evaluations_; }
  /// What an adaptive integrator carries from one call to the next besides x (its next step-size
  /// guess). Rollback snapshots save and restore it, so that a repeated step is bitwise identical.
  [[nodiscard]] virtual double step_memory() const { return 0.0; }
  virtual void restore_step_memory(double /*memory*/) {}
  /// The slope of the integrator's own numerical solution at the end of its last step, when that
  /// solution is piecewise linear (forward Euler: f at the start of its last step, seed 004
  /// eq. 46); its higher derivatives are then zero. False when the solution follows f(x).
  [[nodiscard]] virtual bool last_slope(Eigen::VectorXd& /*slope*/) const { return false; }

 protected:
  /// The solution inside the last accepted internal step (explicit integrators' event location).
  virtual void interpolate(double /*t*/, Eigen::VectorXd& /*x*/) const {}
  /// Event indicators at the start of an advance (explicit integrators).
  void begin_events(const StepRhs& rhs, double t0, const Eigen::VectorXd& x0);
  /// A model without continuous states has nothing to integrate, but its event indicators may
  /// still change with time (and u): the advance is one "step" [t0, t1] checked like any other.
  StepResult advance_without_states(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x);
  /// After an accepted internal step [t_a, t_b] ending in x: locates the first domain change of an
  /// event indicator in (t_a, t_b] by bisection on interpolate() — to |Δt| ≤ 1e-14·max(1, |t|) —
  /// then reports the step to the model. True when the advance must stop (stop_ says where; x is
  /// moved to the event).
  bool end_of_step(const StepRhs& rhs, double t_a, double t_b, Eigen::VectorXd& x);

  std::int64_t rhs_evaluations_ = 0;
  IntegratorStop stop_;

 private:
  [[nodiscard]] bool domain_changed(const Eigen::VectorXd& z) const;
  Eigen::VectorXd z_start_, z_probe_, x_probe_;
};

/// kind: "dopri5" | "cvode" | "arkode" | "euler" | "exact". Throws Error naming an unknown kind.
std::unique_ptr<Integrator> make_integrator(std::string_view kind, const IntegratorOptions& options);
/// The kinds make_integrator knows.
std::string_view integrator_kinds();

}  // namespace cosima
