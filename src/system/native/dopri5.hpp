#pragma once
#include "system/native/integrator.hpp"

namespace cosima {

/// Dormand–Prince 5(4) with FSAL, PI-free standard step control and 4th-order dense output.
class Dopri5 final : public Integrator {
 public:
  explicit Dopri5(const IntegratorOptions& options) : options_(options) {}
  [[nodiscard]] std::string_view kind() const override { return "dopri5"; }
  void reset() override { have_fsal_ = false; }
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;

  [[nodiscard]] double step_memory() const override { return h_guess_; }
  void restore_step_memory(double memory) override { h_guess_ = memory; }

  /// Dense output inside the last accepted internal step [t_old, t_new]; false outside it.
  bool dense_output(double t, Eigen::VectorXd& x) const;
  [[nodiscard]] std::int64_t accepted_steps() const { return accepted_; }
  [[nodiscard]] std::int64_t rejected_steps() const { return rejected_; }

 protected:
  void interpolate(double t, Eigen::VectorXd& x) const override { dense_output(t, x); }

 private:
  void resize(Eigen::Index n);
  double initial_step(const StepRhs& rhs, double t0, const Eigen::VectorXd& x, double span);

  IntegratorOptions options_;
  Eigen::VectorXd k1_, k2_, k3_, k4_, k5_, k6_, k7_, y_stage_, y_new_, error_;
  Eigen::VectorXd r1_, r2_, r3_, r4_, r5_;  // dense-output coefficients of the last step
  Eigen::ArrayXd scale_;                    // atol + rtol·max(|x|, |x_new|) of the error norm
  Eigen::ArrayXd atol_;                     // per state: options' state_atol, else atol
  double dense_t_old_ = 0.0, dense_h_ = 0.0;
  bool have_fsal_ = false;
  double h_guess_ = 0.0;
  std::int64_t accepted_ = 0, rejected_ = 0;
};

}  // namespace cosima
