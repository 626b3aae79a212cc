#pragma once
// A System built from an OdeModel and an embedded Integrator. It provides every capability:
// polynomial inputs, output derivatives (chain rule y' = g_x f + g_u u' + g_t; higher orders by
// the recursion x^(k) = A x^(k−1) + B u^(k−1) for linear time-invariant models), rollback by state
// snapshot, states, state derivatives and linearization (analytic or finite differences).
#include <memory>
#include <vector>

#include "system/native/integrator.hpp"
#include "system/native/ode_model.hpp"
#include "system/system.hpp"

namespace cosima {

class NativeSystem final : public System {
 public:
  NativeSystem(std::string name, std::unique_ptr<OdeModel> model, std::unique_ptr<Integrator> integrator);
  /// An artificial cost: every step also spins the CPU this long (scaling and executor runs).
  void set_step_cost(double seconds) { step_cost_ = seconds; }

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return model_->structure().inputs; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return model_->structure().outputs; }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return model_->structure().states; }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return model_->output_depends_on_input(output, input);
  }
  void set_parameter(const std::string& name, double value) override;
  void initialize(double t_start) override;
  [[nodiscard]] double time() const override { return t_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;

  [[nodiscard]] const OdeModel& model() const { return *model_; }
  [[nodiscard]] const Integrator& integrator() const { return *integrator_; }
  /// Current input values u(time()).
  [[nodiscard]] const Eigen::VectorXd& current_inputs() const;
  /// Overwrites the state (used by the monolithic reference, which integrates all systems as one).
  void set_state(double t, const Eigen::VectorXd& x);

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return CapabilitySet::all(); }
  [[nodiscard]] int provided_output_derivative_order() const override;
  void apply_inputs(const InputPolynomials& polynomials) override;
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override { x = x_; }
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  const Linearization& compute_linearization() override;

 private:
  struct Snapshot {
    double t = 0.0;
    Eigen::VectorXd x;
    InputPolynomials inputs;
    double input_origin = 0.0;
    double integrator_memory = 0.0;
    bool in_use = false;
  };
  void update_jacobians() const;

  std::unique_ptr<OdeModel> model_;
  std::unique_ptr<Integrator> integrator_;
  double t_ = 0.0;
  Eigen::VectorXd x_;
  InputPolynomials inputs_;
  double input_origin_ = 0.0;
  std::vector<Snapshot> snapshots_;
  mutable Eigen::VectorXd u_, du_, dx_, y_now_, y_plus_, y_plus2_;
  double step_cost_ = 0.0;
  mutable Linearization jacobians_;
};

}  // namespace cosima
