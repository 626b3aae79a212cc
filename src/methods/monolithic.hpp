#pragma once
// The monolithic reference: every native system's ODE stacked into one, the couplings solved
// exactly at every right-hand-side evaluation (u = Φᵀ g(t, x, u) + constants, by Newton when
// there is direct feedthrough), integrated by CVODE at tight tolerance without restarts. After
// each macro-step the systems are set to the reference state so observers read them as usual.
// Hybrid systems (Model Exchange FMUs) keep their events: CVODE finds the roots of every system's
// event indicators, and time, state and step events are handled by the systems concerned, discrete
// inputs that change with them too (CoupledOde::handle_event).
#include <memory>

#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "methods/initialization.hpp"
#include "system/native/integrator.hpp"

namespace cosima::methods {

class CoupledOde;

class Monolithic final : public CouplingMethod {
 public:
  struct Options {
    double rtol = 1e-12;
    double atol = 1e-12;
  };
  explicit Monolithic(Options options);
  ~Monolithic() override;
  Monolithic(const Monolithic&) = delete;
  Monolithic& operator=(const Monolithic&) = delete;

  [[nodiscard]] std::string_view name() const override { return "monolithic"; }
  void check(const model::ModularModel& model) const override;
  void initialize(model::ModularModel& model, double t_start) override;
  StepReport step(model::ModularModel& model, double t, double h_max) override;

 private:
  void push_to_systems(model::ModularModel& model, double t);

  Options options_;
  std::unique_ptr<CoupledOde> ode_;
  std::unique_ptr<Integrator> integrator_;
  Eigen::VectorXd x_;
  InputPolynomials no_inputs_;
  CouplingBuffers buffers_;
};

}  // namespace cosima::methods
