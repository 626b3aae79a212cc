#pragma once
// A System built from an OdeModel and an embedded Integrator. It provides every capability:
// polynomial inputs, output derivatives (chain rule y' = g_x f + g_u u' + g_t; higher orders by
// the recursion x^(k) = A x^(k−1) + B u^(k−1) for linear time-invariant models), rollback by state
// snapshot, states, state derivatives and linearization (analytic or finite differences).
//
// Hybrid models (imported Model Exchange FMUs, native models with events) are integrated with their
// events inside the macro-step (FMI 2.0 §3.1, fig. 3.3): the integrator runs to the next time event
// or the step end, stopping earlier at a state or step event; the model handles the event (event
// iteration), x is re-initialised, the integrator restarts; the macro-step ends where the master
// asked. More than max_events_per_step events in one macro-step is chattering: an error.
#include <bit>
#include <cstdint>
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
  /// More events than this inside one macro-step fail the step (chattering).
  void set_max_events_per_step(int events) { max_events_per_step_ = events; }
  /// Events handled since initialize (time, state, step and input events).
  [[nodiscard]] std::int64_t events() const { return events_; }

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return model_->structure().inputs; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return model_->structure().outputs; }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return model_->structure().states; }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return model_->output_depends_on_input(output, input);
  }
  [[nodiscard]] const PortInfo& input_info(int input) const override { return model_->input_info(input); }
  [[nodiscard]] const PortInfo& output_info(int output) const override { return model_->output_info(output); }
  void set_parameter(const std::string& name, double value) override;
  void set_string_parameter(const std::string& name, const std::string& value) override {
    ++state_version_;
    model_->set_string_parameter(name, value);
  }
  [[nodiscard]] std::string string_output(int output) const override { return model_->string_output(output); }
  [[nodiscard]] std::vector<std::string> variable_names() const override { return model_->variable_names(); }
  [[nodiscard]] std::string variable_description(std::string_view name) const override {
    return model_->variable_description(name);
  }
  void watch_variables(const std::vector<std::string>& names) override { model_->watch_variables(names); }
  void read_variables(Eigen::Ref<Eigen::VectorXd> out) const override {
    model_->read_variables(t_, x_, current_inputs(), out);
  }
  void set_string_input(int input, const std::string& value) override {
    ++state_version_;
    model_->set_string_input(input, value);
  }
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override {
    return model_->wide_value(name);
  }
  void set_wide_input(int input, WideInteger value) override {
    ++state_version_;
    model_->set_wide_input(input, value);
  }
  void set_wide_parameter(const std::string& name, WideInteger value) override {
    ++state_version_;
    model_->set_wide_parameter(name, value);
  }
  void enter_initialization(double t_start) override;
  void exit_initialization() override;
  [[nodiscard]] double time() const override { return t_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;
  /// A time event the model announces; one at the end of a step is left pending (outputs are the
  /// left limits there) until handle_pending_events() or the next step.
  [[nodiscard]] double next_event_time() const override { return event_pending_ ? t_ : model_->next_time_event(t_); }
  [[nodiscard]] bool event_pending() const override { return event_pending_; }
  StepResult handle_pending_events() override;

  [[nodiscard]] const OdeModel& model() const { return *model_; }
  /// For the monolithic reference, which integrates the models itself and handles their events.
  [[nodiscard]] OdeModel& model() { return *model_; }
  [[nodiscard]] const Integrator& integrator() const { return *integrator_; }
  /// The state x(time()) (also without Capability::state_access).
  [[nodiscard]] const Eigen::VectorXd& current_state() const { return x_; }
  /// Current input values u(time()).
  [[nodiscard]] const Eigen::VectorXd& current_inputs() const {
    const double offset = t_ - input_origin_;  // read several times per time: the check inline
    if (u_version_ == inputs_version_ && std::bit_cast<std::uint64_t>(offset) == u_offset_bits_) return u_;
    return evaluate_inputs(offset);
  }
  /// Overwrites the state (used by the monolithic reference, which integrates all systems as one).
  void set_state(double t, ConstVectorView x);

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override;
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
    int discrete_slot = -1;  ///< the model's own saved state (hybrid models)
    bool event_pending = false;
    bool in_use = false;
  };
  void update_jacobians() const;
  /// compute_output_derivatives without the cache.
  void output_derivatives_afresh(int order, Eigen::Ref<Eigen::VectorXd> dy) const;
  /// Adds g_t, the outputs' explicit slope in time, to dy (a forward difference; see the .cpp).
  void add_output_time_slope(Eigen::Ref<Eigen::VectorXd> dy) const;
  /// How `next`, from time() on, goes on from the inputs: the same function of time they already were,
  /// the same value and slope at time() (a C¹ interface), or neither (a discontinuity).
  enum class Continuation : std::uint8_t { same, c1, none };
  [[nodiscard]] Continuation inputs_continue(const InputPolynomials& next) const;
  /// u_ at offset from the inputs' origin, its version and offset recorded.
  const Eigen::VectorXd& evaluate_inputs(double offset) const;
  /// Handles an event at t_; a failure or the model's request to terminate as a StepResult.
  StepResult handle_event(const EventCause& cause, int& events_in_step, double t_step, double t_end);

  std::unique_ptr<OdeModel> model_;
  std::unique_ptr<Integrator> integrator_;
  double t_ = 0.0;
  bool event_pending_ = false;  ///< the model's time event at t_ is not handled yet
  bool initializing_ = false;   ///< between enter_initialization and exit_initialization
  Eigen::VectorXd x_;
  InputPolynomials inputs_;
  double input_origin_ = 0.0;
  std::vector<Snapshot> snapshots_;
  mutable Eigen::VectorXd u_, du_, dx_, y_now_, y_plus_, y_plus2_;
  /// u_ is the inputs at the offset t_ − input_origin_ whose bits are u_offset_bits_, of inputs_
  /// version u_version_ (current_inputs() evaluates them again only when either moved);
  /// inputs_version_ counts the changes of inputs_.
  mutable std::uint64_t u_offset_bits_ = 0;
  mutable std::uint64_t u_version_ = 0;
  std::uint64_t inputs_version_ = 1;
  /// Counts the changes of anything the outputs and their derivatives depend on (time, states,
  /// inputs, parameters, discrete state, the integrator's memory): every mutator counts one.
  /// slopes_ holds the output derivatives of order slopes_order_ at version slopes_version_, read
  /// again without computing them (a recorder after the method's last evaluation).
  std::uint64_t state_version_ = 1;
  mutable std::uint64_t slopes_version_ = 0;
  mutable int slopes_order_ = 0;
  mutable Eigen::VectorXd slopes_;
  Eigen::VectorXd rhs_inputs_;  ///< the integrator's input values (StepRhs), allocated once
  double step_cost_ = 0.0;
  int max_events_per_step_ = 1000;
  std::int64_t events_ = 0;
  mutable Linearization jacobians_;
};

}  // namespace cosima
