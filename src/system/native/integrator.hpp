#pragma once
// Embedded integrators of native systems. An integrator advances x' = f(t, x, u(t)) over one call
// [t0, t1] with the step's input polynomials fixed; it returns a failure reason instead of throwing.
//
//   dopri5  adaptive Dormand–Prince 5(4), dense output, rtol/atol (Hairer–Nørsett–Wanner II.4/II.6)
//   cvode   SUNDIALS CVODE, BDF with Newton + dense LU, rtol/atol (stiff systems)
//   euler   fixed-step forward Euler, `steps_per_call` steps per call (seed 004 uses one)
//   exact   exact for linear dynamics x' = A x + B u + e, through φ-functions (core/phi_functions)
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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
      : model_(model), inputs_(inputs), origin_(origin), u_(inputs.rows()) {}

  void operator()(double t, ConstVectorRef x, VectorRef dx) const {
    evaluate_polynomials(inputs_, t - origin_, 0, u_);
    model_.derivatives(t, x, u_, dx);
  }
  [[nodiscard]] const OdeModel& model() const { return model_; }
  [[nodiscard]] const InputPolynomials& inputs() const { return inputs_; }
  [[nodiscard]] double origin() const { return origin_; }

 private:
  const OdeModel& model_;
  const InputPolynomials& inputs_;
  double origin_;
  mutable Eigen::VectorXd u_;
};

struct IntegratorOptions {
  double rtol = 1e-8;
  double atol = 1e-10;
  double max_step = 0.0;    ///< 0: no limit
  int steps_per_call = 1;   ///< euler only
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  [[nodiscard]] virtual std::string_view kind() const = 0;
  /// Forget history (FSAL stage, BDF history): the inputs changed or the state was restored.
  virtual void reset() {}
  /// Advances x from t0 to t1.
  virtual StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) = 0;
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
  std::int64_t rhs_evaluations_ = 0;
};

/// kind: "dopri5" | "cvode" | "euler" | "exact". Throws Error naming an unknown kind.
std::unique_ptr<Integrator> make_integrator(std::string_view kind, const IntegratorOptions& options);
/// The kinds make_integrator knows.
std::string_view integrator_kinds();

}  // namespace cosima
