#include "methods/monolithic.hpp"
#include "methods/method_registry.hpp"

#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "system/native/native_system.hpp"

namespace cosima::methods {

namespace {
/// More events than this in one macro-step is chattering (as NativeSystem's max_events_per_step).
constexpr int kMaxEventsPerStep = 1000;
}  // namespace

/// The coupled model as one ODE without inputs; its outputs are all systems' outputs stacked.
class CoupledOde final : public OdeModel {
 public:
  explicit CoupledOde(model::ModularModel& model) : OdeModel("coupled", structure_of(model)), model_(model) {
    for (int s = 0; s < model.system_count(); ++s) {
      auto& native = dynamic_cast<NativeSystem&>(model.system(s));
      OdeModel& ode = native.model();
      models_.push_back(&ode);
      indicator_offsets_.push_back(indicator_offsets_.back() + ode.event_indicator_count());
      step_reports_ = step_reports_ || ode.wants_step_reports();
      state_offsets_.push_back(state_offsets_.back() + native.model().state_count());
      feedthrough_ = feedthrough_ || native.has_feedthrough();
    }
    u_.setZero(model.total_inputs());
    y_.setZero(model.total_outputs());
  }

  /// The systems' states once initialized: an FMU's come from Get Continuous States after its
  /// initialization (its start values may be calculated there), not from its declared starts.
  [[nodiscard]] Eigen::VectorXd initial_state() const override {
    Eigen::VectorXd x(state_offsets_.back());
    for (std::size_t s = 0; s < models_.size(); ++s) {
      const auto& native = dynamic_cast<const NativeSystem&>(model_.system(static_cast<int>(s)));
      x.segment(state_offsets_[s], models_[s]->state_count()) = native.current_state();
    }
    return x;
  }

  void derivatives(double t, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef dx) const override {
    if (!solve_coupling(t, x)) {
      dx.setConstant(std::numeric_limits<double>::quiet_NaN());  // CVODE retries, then fails with a reason
      return;
    }
    for (std::size_t s = 0; s < models_.size(); ++s) {
      const int si = static_cast<int>(s);
      models_[s]->derivatives(t, x.segment(state_offsets_[s], models_[s]->state_count()),
                              u_.segment(model_.input_offset(si), models_[s]->input_count()),
                              dx.segment(state_offsets_[s], models_[s]->state_count()));
    }
  }

  void outputs(double t, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef y) const override {
    if (!solve_coupling(t, x)) {
      throw Error(fmt::format("monolithic: the algebraic coupling equations have no solution at t = {}", t));
    }
    y = y_;
  }

  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<CoupledOde>(*this); }
  [[nodiscard]] double next_time_event(double t) const override {
    double earliest = std::numeric_limits<double>::infinity();
    for (const OdeModel* ode : models_) earliest = std::min(earliest, ode->next_time_event(t));
    return earliest;
  }
  // --- events: every system's, on its own states and inputs ---------------------------------------
  [[nodiscard]] int event_indicator_count() const override { return indicator_offsets_.back(); }
  void event_indicators(double t, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef z) const override {
    if (!solve_coupling(t, x)) z.setConstant(std::numeric_limits<double>::quiet_NaN());
    for (std::size_t s = 0; s < models_.size(); ++s) {
      const int count = indicator_offsets_[s + 1] - indicator_offsets_[s];
      if (count == 0) continue;
      models_[s]->event_indicators(t, state_of(s, x), inputs_of(s), z.segment(indicator_offsets_[s], count));
    }
  }
  [[nodiscard]] bool wants_step_reports() const override { return step_reports_; }
  IntegratorStepReport step_completed(double t, ConstVectorRef x, ConstVectorRef /*u*/) const override {
    IntegratorStepReport report;
    if (!solve_coupling(t, x)) return report;
    for (std::size_t s = 0; s < models_.size(); ++s) {
      if (!models_[s]->wants_step_reports()) continue;
      const IntegratorStepReport one = models_[s]->step_completed(t, state_of(s, x), inputs_of(s));
      report.enter_event_mode = report.enter_event_mode || one.enter_event_mode;
      report.terminate = report.terminate || one.terminate;
    }
    return report;
  }
  /// An event at t (x is x(t⁻) on entry, x(t⁺) on return): the systems whose time event is due, and
  /// at a state or step event every hybrid system (which one crossed is the model's to tell: an FMU
  /// without an event finds nothing to update); then, until nothing changes, the systems whose
  /// discrete inputs moved with the others' outputs (FMI 2.0 §3.2.3: inputs set in Event Mode).
  EventOutcome handle_event(double t, VectorRef x, ConstVectorRef /*u*/, const EventCause& cause) override {
    EventOutcome outcome;
    const double due = t + 1e-12 * std::max(1.0, std::abs(t));
    std::vector<char> take(models_.size(), 0);
    for (std::size_t s = 0; s < models_.size(); ++s) {
      const bool hybrid = indicator_offsets_[s + 1] > indicator_offsets_[s] || models_[s]->wants_step_reports();
      take[s] = (cause.time_event && models_[s]->next_time_event(t) <= due) ||
                ((cause.state_event || cause.step_event) && hybrid);
    }
    constexpr int kMaxPropagations = 100;
    for (int round = 0; round < kMaxPropagations; ++round) {
      if (!solve_coupling(t, x)) throw Error(fmt::format("monolithic: no coupling solution at the event at t = {}", t));
      bool any = false;
      for (std::size_t s = 0; s < models_.size(); ++s) {
        EventCause own = cause;
        own.input_event = models_[s]->discrete_inputs_changed(inputs_of(s));
        if (take[s] == 0 && !own.input_event) continue;
        if (take[s] == 0) own = EventCause{.input_event = true};
        const EventOutcome one =
            models_[s]->handle_event(t, x.segment(state_offsets_[s], models_[s]->state_count()), inputs_of(s), own);
        outcome.states_changed = outcome.states_changed || one.states_changed;
        outcome.terminate = outcome.terminate || one.terminate;
        take[s] = 0;
        any = true;
      }
      if (!any) return outcome;
    }
    throw Error(fmt::format("monolithic: the event at t = {} does not settle: discrete inputs keep changing", t));
  }
  [[nodiscard]] const Eigen::VectorXd& coupled_inputs() const { return u_; }
  [[nodiscard]] int state_offset(int s) const { return state_offsets_[static_cast<std::size_t>(s)]; }

 private:
  static Structure structure_of(const model::ModularModel& model) {
    Structure structure;
    for (int s = 0; s < model.system_count(); ++s) {
      for (const auto& name : model.system(s).state_names())
        structure.states.push_back(model.system(s).name() + "." + name);
    }
    for (int o = 0; o < model.total_outputs(); ++o) structure.outputs.push_back(model.output_label(o));
    return structure;
  }

  [[nodiscard]] Eigen::Ref<const Eigen::VectorXd> state_of(std::size_t s, ConstVectorRef x) const {
    return x.segment(state_offsets_[s], models_[s]->state_count());
  }
  [[nodiscard]] Eigen::Ref<const Eigen::VectorXd> inputs_of(std::size_t s) const {
    return u_.segment(model_.input_offset(static_cast<int>(s)), models_[s]->input_count());
  }

  void evaluate_outputs(double t, ConstVectorRef x) const {
    for (std::size_t s = 0; s < models_.size(); ++s) {
      const int si = static_cast<int>(s);
      models_[s]->outputs(t, x.segment(state_offsets_[s], models_[s]->state_count()),
                          u_.segment(model_.input_offset(si), models_[s]->input_count()),
                          y_.segment(model_.output_offset(si), models_[s]->output_count()));
    }
  }

  /// Solves r(u) = u − Φᵀ g(t, x, u) − c = 0 (Newton, Jacobian I − Φᵀ ∂g/∂u), warm-started.
  bool solve_coupling(double t, ConstVectorRef x) const {
    constexpr int kMaxNewton = 50;
    for (int iteration = 0; iteration < kMaxNewton; ++iteration) {
      evaluate_outputs(t, x);
      model_.dispatch(y_, dispatched_);
      residual_ = u_ - dispatched_;
      if (!feedthrough_) {
        u_ = dispatched_;  // outputs do not depend on inputs: one evaluation is exact
        evaluate_outputs(t, x);
        return u_.allFinite();
      }
      if (residual_.lpNorm<Eigen::Infinity>() <= 1e-14 * std::max(1.0, u_.lpNorm<Eigen::Infinity>())) return true;
      jacobian_.setIdentity(model_.total_inputs(), model_.total_inputs());
      for (std::size_t s = 0; s < models_.size(); ++s) {
        const int si = static_cast<int>(s);
        const auto xs = x.segment(state_offsets_[s], models_[s]->state_count());
        const auto us = u_.segment(model_.input_offset(si), models_[s]->input_count());
        if (!models_[s]->jacobians(t, xs, us, lin_)) finite_difference_jacobians(*models_[s], t, xs, us, lin_);
        // ∂ũ_i/∂u_j = Σ_o Φ(o, i) scale_i D(o, j)
        for (int i = 0; i < model_.total_inputs(); ++i) {
          const int source = model_.input_sources()[static_cast<std::size_t>(i)];
          if (source < 0 || model_.system_of_output(source) != si) continue;
          jacobian_.row(i).segment(model_.input_offset(si), models_[s]->input_count()) -=
              model_.input_transform(i).scale * lin_.D.row(source - model_.output_offset(si));
        }
      }
      u_ -= jacobian_.partialPivLu().solve(residual_);
      if (!u_.allFinite()) return false;
    }
    return false;
  }

  const model::ModularModel& model_;
  std::vector<OdeModel*> models_;  ///< the systems' own models: their discrete state is the run's
  std::vector<int> state_offsets_{0};
  std::vector<int> indicator_offsets_{0};  ///< each system's event indicators in the stacked z
  bool step_reports_ = false;              ///< some system wants fmi2CompletedIntegratorStep
  bool feedthrough_ = false;
  mutable Eigen::VectorXd u_, y_, dispatched_, residual_;
  mutable Eigen::MatrixXd jacobian_;
  mutable Linearization lin_;
};

Monolithic::Monolithic(Options options) : options_(options) {}
Monolithic::~Monolithic() = default;

void Monolithic::check(const model::ModularModel& model) const {
  for (int s = 0; s < model.system_count(); ++s) {
    if (dynamic_cast<const NativeSystem*>(&model.system(s)) == nullptr) {
      throw Error(
          fmt::format("method 'monolithic' needs the equations of every system in this process; "
                      "system '{}' is a black box (an FMU, or a system on another MPI rank)",
                      model.system(s).name()));
    }
  }
}

void Monolithic::initialize(model::ModularModel& model, double t_start) {
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  coupling_error_.disable();  // the coupled equations are solved as one: no connection defect
  ode_ = std::make_unique<CoupledOde>(model);
  IntegratorOptions integrator_options;
  integrator_options.rtol = options_.rtol;
  integrator_options.atol = options_.atol;
  integrator_ = make_integrator("cvode", integrator_options);
  x_ = ode_->initial_state();
  no_inputs_.setZero(0, kInputCoefficients);
  push_to_systems(model, t_start);
}

StepReport Monolithic::step(model::ModularModel& model, double t, double h_max) {
  const StepRhs rhs(*ode_, no_inputs_, t);
  // integrate to each time event the systems announce, or to the state and step events the
  // integrator stops at, handle it there (x(t⁻) → x(t⁺), the systems' discrete states), restart;
  // a time event at the step's end is handled at the end, so that the recorded outputs are right
  // limits like every method's (System call order, 5.)
  const double end = t + h_max, tolerance = 1e-12 * std::max(1.0, std::abs(end));
  double now = t;
  StepReport report;
  report.h = h_max;
  for (int events = 0; now < end; ++events) {
    if (events > kMaxEventsPerStep) {
      throw Error(fmt::format("monolithic reference: more than {} events in the step from t = {} (chattering)",
                              kMaxEventsPerStep, t));
    }
    const double event = ode_->next_time_event(now);
    const double target = std::abs(event - end) <= tolerance ? end : std::min(end, event);
    const StepResult result = integrator_->advance(rhs, now, target, x_);
    if (!result.ok()) throw Error(fmt::format("monolithic reference failed from t = {}: {}", now, result.reason));
    const IntegratorStop& stop = integrator_->stop();
    now = stop.t;
    EventCause cause;
    cause.time_event = event <= now + tolerance;
    cause.state_event = stop.state_event;
    cause.step_event = stop.step_event;
    if (stop.terminate || (cause.time_event || cause.state_event || cause.step_event)) {
      const bool terminate = stop.terminate || ode_->handle_event(now, x_, Eigen::VectorXd(), cause).terminate;
      integrator_->reset();
      if (terminate) {
        report.h = now - t;
        report.terminated = true;
        report.reason = fmt::format("a system asked to terminate at t = {} (monolithic reference)", now);
        push_to_systems(model, now);
        return report;
      }
    }
  }
  push_to_systems(model, end);
  return report;
}

void Monolithic::push_to_systems(model::ModularModel& model, double t) {
  ode_->outputs(t, x_, Eigen::VectorXd(), buffers_.y);  // solves the coupling at (t, x)
  buffers_.u = ode_->coupled_inputs();
  for (int s = 0; s < model.system_count(); ++s) {
    auto& native = dynamic_cast<NativeSystem&>(model.system(s));
    native.set_state(t, x_.segment(ode_->state_offset(s), native.state_count()));
    native.set_inputs(buffers_.zoh(model, s));
  }
}

void register_monolithic() {
  register_method(
      {.name = "monolithic",
       .summary = "the coupled system as one ODE, integrated by CVODE (the reference)",
       .options = {{"rtol", "1e-12", "CVODE's relative tolerance"}, {"atol", "1e-12", "its absolute tolerance"}},
       .make = [](const OptionReader& options, double /*dt*/) -> std::unique_ptr<CouplingMethod> {
         Monolithic::Options o;
         o.rtol = options.positive("rtol", o.rtol);
         o.atol = options.non_negative("atol", o.atol);
         return std::make_unique<Monolithic>(o);
       }});
}

}  // namespace cosima::methods
