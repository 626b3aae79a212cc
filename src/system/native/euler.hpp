#pragma once
#include "system/native/integrator.hpp"

namespace cosima {

/// Fixed-step forward Euler: `steps_per_call` equal steps per call (seed 004 eq. 45 uses one).
class ForwardEuler final : public Integrator {
 public:
  explicit ForwardEuler(const IntegratorOptions& options) : steps_(std::max(1, options.steps_per_call)) {}
  [[nodiscard]] std::string_view kind() const override { return "euler"; }
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;
  void reset() override { have_slope_ = false; }
  bool last_slope(Eigen::VectorXd& slope) const override;

 protected:
  void interpolate(double t, Eigen::VectorXd& x) const override;

 private:
  int steps_;
  Eigen::VectorXd dx_;  ///< slope of the last step
  Eigen::VectorXd step_start_;  ///< x at the start of the last step (with events only)
  double step_t_ = 0.0;
  bool have_slope_ = false;
};

}  // namespace cosima
