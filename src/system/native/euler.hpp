#pragma once
#include "system/native/integrator.hpp"

namespace cosima {

/// Fixed-step forward Euler. Either `steps_per_call` equal steps per call, or one step spanning
/// `calls_per_step` consecutive calls: its slope f(x, u) is taken at the start of the first call
/// and held over the others, so the solution is one straight line across them. Defect-controlled
/// Jacobi calls every system twice per communication step (to the midpoint, then to T_k), so
/// calls_per_step = 2 is the slave of seed 004 eq. 45: x(t) = x(T_{k−1}) + (t − T_{k−1})
/// f(x(T_{k−1}), u(T_{k−1})), one slope per communication step, reported as x' at T_k (eq. 46).
/// Inputs set inside a step (defect-jacobi re-expands them at the midpoint) do not change its
/// slope; a reset (a restored state, an event) ends the step.
class ForwardEuler final : public Integrator {
 public:
  explicit ForwardEuler(const IntegratorOptions& options);
  [[nodiscard]] std::string_view kind() const override { return "euler"; }
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;
  void reset() override {
    have_slope_ = false;
    calls_in_step_ = 0;
  }
  void inputs_changed() override {
    if (calls_in_step_ == 0) reset();
  }
  bool last_slope(Eigen::VectorXd& slope) const override;

 protected:
  void interpolate(double t, Eigen::VectorXd& x) const override;

 private:
  int steps_;
  int calls_per_step_;
  int calls_in_step_ = 0;       ///< calls made of the current step (0: the next call starts one)
  Eigen::VectorXd dx_;          ///< slope of the last step
  Eigen::VectorXd step_start_;  ///< x at the start of the last step (with events only)
  double step_t_ = 0.0;
  bool have_slope_ = false;
};

}  // namespace cosima
