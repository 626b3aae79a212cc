#include "methods/monolithic.hpp"

#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "system/native/native_system.hpp"

namespace cosima {

/// The coupled model as one ODE without inputs; its outputs are all systems' outputs stacked.
class CoupledOde final : public OdeModel {
 public:
  explicit CoupledOde(ModularModel& model) : OdeModel("coupled", structure_of(model)), model_(model) {
    for (int s = 0; s < model.system_count(); ++s) {
      auto& native = dynamic_cast<NativeSystem&>(model.system(s));
      OdeModel& ode = native.model();
      if (ode.event_indicator_count() > 0 || ode.wants_step_reports()) {
        throw Error(fmt::format("monolithic: system '{}' is a hybrid model with state or step events; the monolithic "
                                "reference handles time events only",
                                native.name()));
      }
      models_.push_back(&ode);
      state_offsets_.push_back(state_offsets_.back() + native.model().state_count());
      for (int o = 0; o < native.output_count() && !feedthrough_; ++o) {
        for (int i = 0; i < native.input_count(); ++i) feedthrough_ = feedthrough_ || native.output_depends_on_input(o, i);
      }
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
  /// The time events due at t, each system's on its own states and inputs (x is x(t⁻) on entry).
  EventOutcome handle_event(double t, VectorRef x, ConstVectorRef /*u*/, const EventCause& cause) override {
    EventOutcome outcome;
    if (!solve_coupling(t, x)) throw Error(fmt::format("monolithic: no coupling solution at the event at t = {}", t));
    const double due = t + 1e-12 * std::max(1.0, std::abs(t));
    for (std::size_t s = 0; s < models_.size(); ++s) {
      if (models_[s]->next_time_event(t) > due) continue;
      const int si = static_cast<int>(s);
      const EventOutcome one = models_[s]->handle_event(t, x.segment(state_offsets_[s], models_[s]->state_count()),
                                                        u_.segment(model_.input_offset(si), models_[s]->input_count()), cause);
      outcome.states_changed = outcome.states_changed || one.states_changed;
      outcome.terminate = outcome.terminate || one.terminate;
    }
    return outcome;
  }
  [[nodiscard]] const Eigen::VectorXd& coupled_inputs() const { return u_; }
  [[nodiscard]] int state_offset(int s) const { return state_offsets_[static_cast<std::size_t>(s)]; }

 private:
  static Structure structure_of(const ModularModel& model) {
    Structure structure;
    for (int s = 0; s < model.system_count(); ++s) {
      for (const auto& name : model.system(s).state_names()) structure.states.push_back(model.system(s).name() + "." + name);
    }
    for (int o = 0; o < model.total_outputs(); ++o) structure.outputs.push_back(model.output_label(o));
    return structure;
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

  const ModularModel& model_;
  std::vector<OdeModel*> models_;  ///< the systems' own models: their discrete state is the run's
  std::vector<int> state_offsets_{0};
  bool feedthrough_ = false;
  mutable Eigen::VectorXd u_, y_, dispatched_, residual_;
  mutable Eigen::MatrixXd jacobian_;
  mutable Linearization lin_;
};

Monolithic::Monolithic(Options options) : options_(options) {}
Monolithic::~Monolithic() = default;

void Monolithic::check(const ModularModel& model) const {
  for (int s = 0; s < model.system_count(); ++s) {
    if (dynamic_cast<const NativeSystem*>(&model.system(s)) == nullptr) {
      throw Error(fmt::format("method 'monolithic' needs the equations of every system in this process; "
                              "system '{}' is a black box (an FMU, or a system on another MPI rank)",
                              model.system(s).name()));
    }
  }
}

void Monolithic::initialize(ModularModel& model, double t_start) {
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  ode_ = std::make_unique<CoupledOde>(model);
  IntegratorOptions integrator_options;
  integrator_options.rtol = options_.rtol;
  integrator_options.atol = options_.atol;
  integrator_ = make_integrator("cvode", integrator_options);
  x_ = ode_->initial_state();
  no_inputs_.setZero(0, kInputCoefficients);
  push_to_systems(model, t_start);
}

StepReport Monolithic::step(ModularModel& model, double t, double h_max) {
  const StepRhs rhs(*ode_, no_inputs_, t);
  // integrate to each time event the systems announce, handle it there (x(t⁻) → x(t⁺), the
  // systems' discrete states), restart; one at the step's end is handled at the end, so that the
  // recorded outputs are right limits like every method's (System call order, 5.)
  const double end = t + h_max, tolerance = 1e-12 * std::max(1.0, std::abs(end));
  double now = t;
  while (now < end) {
    const double event = ode_->next_time_event(now);
    const double target = std::abs(event - end) <= tolerance ? end : std::min(end, event);
    const StepResult result = integrator_->advance(rhs, now, target, x_);
    if (!result.ok()) throw Error(fmt::format("monolithic reference failed from t = {}: {}", now, result.reason));
    now = target;
    if (event <= now + tolerance) {
      EventCause cause;
      cause.time_event = true;
      ode_->handle_event(now, x_, Eigen::VectorXd(), cause);
      integrator_->reset();
    }
  }
  push_to_systems(model, end);
  StepReport report;
  report.h = h_max;
  return report;
}

void Monolithic::push_to_systems(ModularModel& model, double t) {
  ode_->outputs(t, x_, Eigen::VectorXd(), buffers_.y);  // solves the coupling at (t, x)
  buffers_.u = ode_->coupled_inputs();
  for (int s = 0; s < model.system_count(); ++s) {
    auto& native = dynamic_cast<NativeSystem&>(model.system(s));
    native.set_state(t, x_.segment(ode_->state_offset(s), native.state_count()));
    native.set_inputs(buffers_.zoh(model, s));
  }
}

}  // namespace cosima
