#include "export/slave_core.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "export/exported_model.hpp"

namespace cosima::fmu_export {

namespace {

enum Phase : unsigned {
  instantiated = 1,
  initialization = 2,
  stepping = 4,  ///< CS: slaveInitialized / Step Mode
  terminated = 8,
  failed = 16,
  event_mode = 32,       ///< ME
  continuous_time = 64,  ///< ME
};
constexpr unsigned kRunning = stepping | event_mode | continuous_time;
constexpr unsigned kAnyPhase = instantiated | initialization | kRunning | terminated | failed;

/// Value reference → its elements, for every variable of one kind.
void address(std::vector<std::vector<const ExportedVariable*>>& by_vr, unsigned int vr,
             std::vector<const ExportedVariable*> elements) {
  if (by_vr.size() <= vr) by_vr.resize(vr + 1);
  by_vr[vr] = std::move(elements);
}

struct SavedState {
  StateId id = -1;  ///< CS: the system's snapshot
  InputPolynomials inputs;
  double t = 0.0;  ///< ME: time, states and mode
  Eigen::VectorXd x;
  unsigned phase = stepping;
};

}  // namespace

Slave::Slave(FmiVersion version, std::string instance, bool model_exchange, LogSink log)
    : version_(version),
      instance_(std::move(instance)),
      log_(std::move(log)),
      model_exchange_(model_exchange),
      model_(make_exported_model()),
      real_type_(version == FmiVersion::fmi2 ? "Real" : "Float64"),
      integer_type_(version == FmiVersion::fmi2 ? "Integer" : "Int32"),
      phase_(instantiated) {
  if (version_ == FmiVersion::fmi2) {
    elements_ = make_variable_table(*model_, SolverDefaults{}).variables;
    for (const ExportedVariable& v : elements_) address(v.is_real ? real_by_vr_ : integer_by_vr_, v.vr, {&v});
  } else {
    const Fmi3Table table = make_fmi3_table(*model_, SolverDefaults{});
    elements_ = table.elements;
    for (const Fmi3Variable& v : table.variables) {
      Elements elements;
      for (const std::size_t e : v.elements) elements.push_back(&elements_[e]);
      address(v.is_float64 ? real_by_vr_ : integer_by_vr_, v.vr, std::move(elements));
    }
  }
  inputs_.setZero(model_->input_count(), kInputCoefficients);
  buffer_.resize(std::max({model_->state_count(), model_->output_count(), model_->event_indicator_count(), 1}));
}

Status Slave::error(const std::string& message) {
  if (log_) log_(Status::error, message);
  return Status::error;
}

bool Slave::allowed(unsigned phases, const char* call) {
  if ((phase_ & phases) != 0U) return true;
  error(fmt::format("{} is not allowed in the current state (state {})", call, phase_));
  return false;
}

Status Slave::no_variables(const char* call, const char* type, const unsigned int vr[], std::size_t n) {
  if (n == 0) return Status::ok;
  return error(fmt::format("{}: no {} variable with value reference {} (this FMU has no {} variables)", call, type,
                           vr[0], type));
}

const Slave::Elements* Slave::real_elements(unsigned int vr) const {
  if (vr >= real_by_vr_.size() || real_by_vr_[vr].empty()) return nullptr;
  return &real_by_vr_[vr];
}

const Slave::Elements* Slave::integer_elements(unsigned int vr) const {
  if (vr >= integer_by_vr_.size() || integer_by_vr_[vr].empty()) return nullptr;
  return &integer_by_vr_[vr];
}

bool Slave::fits(const char* call, std::size_t at, std::size_t count, std::size_t n_values) {
  if (at + count <= n_values) return true;
  error(fmt::format("{}: nValues = {} is fewer than the values of the value references", call, n_values));
  return false;
}

Status Slave::all_used(const char* call, std::size_t at, std::size_t n_values) {
  if (at == n_values) return Status::ok;
  return error(fmt::format("{}: nValues = {}, but the value references have {} values", call, n_values, at));
}

const char* Slave::state_flag() const {
  return version_ == FmiVersion::fmi2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState";
}

// --- lifecycle ---------------------------------------------------------------------------------------

Status Slave::setup_experiment(const char* call, bool tolerance_defined, double tolerance, double start) {
  if (!allowed(instantiated, call)) return Status::error;
  if (tolerance_defined) solver_.rtol = tolerance;
  start_ = start;
  return Status::ok;
}

void Slave::build_system() {
  IntegratorOptions options;
  options.rtol = solver_.rtol;
  options.atol = solver_.atol;
  options.max_step = solver_.max_step;
  options.steps_per_call = solver_.steps_per_call;
  system_ =
      std::make_unique<NativeSystem>(instance_, model_->clone(), make_integrator(kSolverKinds[solver_.kind], options));
  system_->initialize(start_);
  system_->set_inputs(inputs_);
}

void Slave::start() {
  if (!model_exchange_) {
    build_system();
    return;
  }
  t_ = start_;
  x_ = model_->initial_state();
}

Status Slave::enter_initialization(const char* call) {
  if (!allowed(instantiated, call)) return Status::error;
  return guarded([&] {
    start();
    phase_ = initialization;
    return Status::ok;
  });
}

Status Slave::exit_initialization(const char* call) {
  if (!allowed(initialization, call)) return Status::error;
  return guarded([&] {
    start();  // parameters and inputs set in initialization mode take effect
    phase_ = model_exchange_ ? event_mode : stepping;
    event_handled_ = true;  // nothing to handle at the start but the FMU's own initial event iteration
    return Status::ok;
  });
}

Status Slave::terminate(const char* call) {
  if (!allowed(kRunning | failed, call)) return Status::error;
  phase_ = terminated;
  return Status::ok;
}

Status Slave::reset() {
  system_.reset();
  model_ = make_exported_model();
  t_ = 0.0;
  inputs_.setZero();
  solver_ = SolverDefaults{};
  phase_ = instantiated;
  return Status::ok;
}

// --- values ------------------------------------------------------------------------------------------

Status Slave::get_real_element(const char* call, const ExportedVariable& v, double& value) {
  switch (v.role) {
    case Role::parameter: value = model_->parameter(v.name); break;
    case Role::solver_real: value = v.index == 0 ? solver_.rtol : v.index == 1 ? solver_.atol : solver_.max_step; break;
    case Role::input: value = inputs_(v.index, 0); break;
    case Role::output:
    case Role::state:
    case Role::derivative:
    case Role::event_indicator:
      if (model_exchange_) {
        if (phase_ == instantiated)
          return error(fmt::format("{}: '{}' is not computed before initialization", call, v.name));
        value = me_value(v);
        break;
      }
      if (!system_) return error(fmt::format("{}: '{}' is not computed before initialization", call, v.name));
      if (v.role == Role::output) {
        buffer_.resize(model_->output_count());
        system_->outputs(buffer_);
      } else if (v.role == Role::state) {
        buffer_.resize(model_->state_count());
        system_->states(buffer_);
      } else if (v.role == Role::derivative) {
        buffer_.resize(model_->state_count());
        system_->state_derivatives(buffer_);
      } else {  // FMI 3.0 only: the model's indicators at the system's time, states and inputs
        Eigen::VectorXd x(model_->state_count());
        system_->states(x);
        buffer_.resize(model_->event_indicator_count());
        model_->event_indicators(system_->time(), x, me_inputs(), buffer_);
      }
      value = buffer_(v.index);
      break;
    case Role::solver_integer: break;
  }
  return Status::ok;
}

Status Slave::get_real(const char* call, const unsigned int vr[], std::size_t n, double value[], std::size_t n_values) {
  if (!allowed(kAnyPhase, call)) return Status::error;
  return guarded([&] {
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const Elements* elements = real_elements(vr[k]);
      if (elements == nullptr)
        return error(fmt::format("{}: no {} variable with value reference {}", call, real_type_, vr[k]));
      if (!fits(call, at, elements->size(), n_values)) return Status::error;
      for (const ExportedVariable* v : *elements) {
        if (const Status status = get_real_element(call, *v, value[at++]); status != Status::ok) return status;
      }
    }
    return all_used(call, at, n_values);
  });
}

Status Slave::set_real_element(const char* call, const ExportedVariable& v, double value, bool& inputs_changed) {
  const bool fixed_phase = (phase_ & (instantiated | initialization)) != 0U;
  switch (v.role) {
    case Role::parameter:
      if (!fixed_phase) return error(fmt::format("{}: parameter '{}' is fixed after initialization", call, v.name));
      model_->set_parameter(v.name, value);
      break;
    case Role::solver_real:
      if (!fixed_phase) return error(fmt::format("{}: '{}' is fixed after initialization", call, v.name));
      (v.index == 0 ? solver_.rtol : v.index == 1 ? solver_.atol : solver_.max_step) = value;
      break;
    case Role::input:
      inputs_.row(v.index).setZero();  // a new value: derivatives must be set again
      inputs_(v.index, 0) = value;
      inputs_changed = true;
      break;
    default: return error(fmt::format("{}: '{}' is calculated and cannot be set", call, v.name));
  }
  return Status::ok;
}

Status Slave::set_real(const char* call, const unsigned int vr[], std::size_t n, const double value[],
                       std::size_t n_values) {
  if (!allowed(instantiated | initialization | kRunning, call)) return Status::error;
  return guarded([&] {
    bool inputs_changed = false;
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const Elements* elements = real_elements(vr[k]);
      if (elements == nullptr)
        return error(fmt::format("{}: no {} variable with value reference {}", call, real_type_, vr[k]));
      if (!fits(call, at, elements->size(), n_values)) return Status::error;
      for (const ExportedVariable* v : *elements) {
        if (const Status status = set_real_element(call, *v, value[at++], inputs_changed); status != Status::ok) {
          return status;
        }
      }
    }
    if (const Status status = all_used(call, at, n_values); status != Status::ok) return status;
    if (inputs_changed && system_) system_->set_inputs(inputs_);
    return Status::ok;
  });
}

Status Slave::get_integer(const char* call, const unsigned int vr[], std::size_t n, int value[], std::size_t n_values) {
  if (!allowed(kAnyPhase, call)) return Status::error;
  std::size_t at = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Elements* elements = integer_elements(vr[k]);
    if (elements == nullptr)
      return error(fmt::format("{}: no {} variable with value reference {}", call, integer_type_, vr[k]));
    if (!fits(call, at, elements->size(), n_values)) return Status::error;
    for (const ExportedVariable* v : *elements) value[at++] = v->index == 0 ? solver_.kind : solver_.steps_per_call;
  }
  return all_used(call, at, n_values);
}

Status Slave::set_integer(const char* call, const unsigned int vr[], std::size_t n, const int value[],
                          std::size_t n_values) {
  if (!allowed(instantiated | initialization, call)) return Status::error;
  std::size_t at = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Elements* elements = integer_elements(vr[k]);
    if (elements == nullptr)
      return error(fmt::format("{}: no {} variable with value reference {}", call, integer_type_, vr[k]));
    if (!fits(call, at, elements->size(), n_values)) return Status::error;
    for (const ExportedVariable* v : *elements) {
      const int x = value[at++];
      if (v->index == 0) {
        if (x < 0 || x > 3) return error(fmt::format("solver_kind {} is not 0..3", x));
        solver_.kind = x;
      } else {
        if (x < 1) return error("solver_steps_per_call must be ≥ 1");
        solver_.steps_per_call = x;
      }
    }
  }
  return all_used(call, at, n_values);
}

// --- Co-Simulation -----------------------------------------------------------------------------------

Status Slave::do_step(const char* call, double t, double h, StepReport& report) {
  report = StepReport{};
  if (model_exchange_) return error(fmt::format("{}: instantiated for Model Exchange", call));
  if (!allowed(stepping, call)) return Status::error;
  if (std::abs(t - system_->time()) > 1e-9 * std::max(1.0, std::abs(t))) {
    return error(fmt::format("{}: currentCommunicationPoint {} is not the FMU's time {}", call, t, system_->time()));
  }
  if (!(h > 0.0)) return error(fmt::format("{}: communicationStepSize {} must be positive", call, h));
  return guarded([&] {
    StepResult result = system_->do_step(h);
    // without event mode an event at the communication point is handled inside the step, and the
    // outputs are the right limits
    if (result.ok()) result = system_->handle_pending_events();
    if (result.ok()) return Status::ok;
    if (result.status == StepResult::Status::terminated && version_ == FmiVersion::fmi3) {
      report.terminate = true;  // FMI 3.0: terminateSimulation, at the time the system stopped
      return Status::ok;
    }
    phase_ = failed;
    return error(result.reason);
  });
}

Status Slave::set_input_derivatives(const char* call, const unsigned int vr[], std::size_t n, const int order[],
                                    const double value[]) {
  if (!allowed(instantiated | initialization | stepping, call)) return Status::error;
  return guarded([&] {
    for (std::size_t k = 0; k < n; ++k) {
      const Elements* elements = real_elements(vr[k]);
      if (elements == nullptr || elements->size() != 1 || elements->front()->role != Role::input) {
        return error(fmt::format("{}: value reference {} is not an input", call, vr[k]));
      }
      if (order[k] < 1 || order[k] > kMaxInputDegree) {
        return error(fmt::format("{}: order {} not in 1..{}", call, order[k], kMaxInputDegree));
      }
      double factorial = 1.0;
      for (int j = 2; j <= order[k]; ++j) factorial *= j;
      inputs_(elements->front()->index, order[k]) = value[k] / factorial;  // a_k = u^(k)/k!
    }
    if (system_) system_->set_inputs(inputs_);
    return Status::ok;
  });
}

Status Slave::get_output_derivatives(const char* call, const unsigned int vr[], std::size_t n, const int order[],
                                     double value[], std::size_t n_values) {
  if (!allowed(stepping | terminated | failed, call)) return Status::error;
  return guarded([&] {
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const Elements* elements = real_elements(vr[k]);
      if (elements == nullptr || elements->front()->role != Role::output) {
        return error(fmt::format("{}: value reference {} is not an output", call, vr[k]));
      }
      if (!fits(call, at, elements->size(), n_values)) return Status::error;
      for (const ExportedVariable* v : *elements) {
        buffer_.resize(model_->output_count());
        system_->output_derivatives(order[k], buffer_);
        value[at++] = buffer_(v->index);
      }
    }
    return all_used(call, at, n_values);
  });
}

// --- FMU state ---------------------------------------------------------------------------------------

Status Slave::get_state(const char* call, void** state) {
  if (!allowed(kRunning, call)) return Status::error;
  if (!exported_flags().can_get_and_set_state) return error(fmt::format("{}: {} is false", call, state_flag()));
  return guarded([&] {
    auto* saved = static_cast<SavedState*>(*state);
    if (saved == nullptr) {
      saved = new SavedState;
      *state = saved;
    }
    if (!model_exchange_)
      saved->id = saved->id < 0 ? system_->save_state() : (system_->save_state(saved->id), saved->id);
    saved->inputs = inputs_;
    saved->t = t_;
    saved->x = x_;
    saved->phase = phase_;
    return Status::ok;
  });
}

Status Slave::set_state(const char* call, void* state) {
  if (!allowed(kRunning | failed, call)) return Status::error;
  if (!exported_flags().can_get_and_set_state) return error(fmt::format("{}: {} is false", call, state_flag()));
  if (state == nullptr) return error(fmt::format("{}: null state", call));
  return guarded([&] {
    const auto* saved = static_cast<const SavedState*>(state);
    if (!model_exchange_) system_->restore_state(saved->id);
    inputs_ = saved->inputs;
    t_ = saved->t;
    x_ = saved->x;
    phase_ = saved->phase;
    return Status::ok;
  });
}

Status Slave::free_state(void** state) {
  if (state == nullptr || *state == nullptr) return Status::ok;
  auto* saved = static_cast<SavedState*>(*state);
  if (system_ && saved->id >= 0) system_->release_state(saved->id);
  delete saved;
  *state = nullptr;
  return Status::ok;
}

// --- directional derivatives -------------------------------------------------------------------------

Status Slave::directional_derivative(const char* call, const unsigned int unknowns[], std::size_t n_unknown,
                                     const unsigned int knowns[], std::size_t n_known, const double seed[],
                                     std::size_t n_seed, double sensitivity[], std::size_t n_sensitivity) {
  if (!allowed(initialization | kRunning, call)) return Status::error;
  return guarded([&] {
    const Linearization& lin = model_exchange_ ? me_linearization() : system_->linearize();
    unknowns_.clear();
    knowns_.clear();
    auto add_unknown = [&](unsigned int vr) {
      const Elements* elements = real_elements(vr);
      if (elements == nullptr ||
          (elements->front()->role != Role::derivative && elements->front()->role != Role::output)) {
        return false;
      }
      unknowns_.insert(unknowns_.end(), elements->begin(), elements->end());
      return true;
    };
    // checked in the FMI 2.0 slave's order: the first unknown, the knowns, the other unknowns
    for (std::size_t i = 0; i < n_unknown; ++i) {
      if (!add_unknown(unknowns[i])) {
        return error(fmt::format("{}: unknown {} is not a derivative or an output", call, unknowns[i]));
      }
      if (i != 0) continue;
      for (std::size_t j = 0; j < n_known; ++j) {
        const Elements* elements = real_elements(knowns[j]);
        if (elements == nullptr || (elements->front()->role != Role::state && elements->front()->role != Role::input)) {
          return error(fmt::format("{}: known {} is not a state or an input", call, knowns[j]));
        }
        knowns_.insert(knowns_.end(), elements->begin(), elements->end());
      }
    }
    if (n_unknown == 0) return Status::ok;
    if (knowns_.size() != n_seed || unknowns_.size() != n_sensitivity) {
      return error(
          fmt::format("{}: nSeed = {} and nSensitivity = {}, but the knowns have {} and the unknowns {} values", call,
                      n_seed, n_sensitivity, knowns_.size(), unknowns_.size()));
    }
    for (std::size_t i = 0; i < unknowns_.size(); ++i) {
      const ExportedVariable* u = unknowns_[i];
      double sum = 0.0;
      for (std::size_t j = 0; j < knowns_.size(); ++j) {
        const ExportedVariable* k = knowns_[j];
        const Eigen::MatrixXd& block = u->role == Role::derivative ? (k->role == Role::state ? lin.A : lin.B)
                                                                   : (k->role == Role::state ? lin.C : lin.D);
        sum += block(u->index, k->index) * seed[j];
      }
      sensitivity[i] = sum;
    }
    return Status::ok;
  });
}

// --- Model Exchange ----------------------------------------------------------------------------------

Status Slave::set_time(const char* call, double t) {
  if (!allowed(event_mode | continuous_time, call)) return Status::error;
  t_ = t;
  return Status::ok;
}

Status Slave::set_continuous_states(const char* call, const double x[], std::size_t nx) {
  if (!allowed(continuous_time, call) || !sized(nx, x_.size(), call)) return Status::error;
  std::copy(x, x + nx, x_.data());
  return Status::ok;
}

Status Slave::get_continuous_states(const char* call, double x[], std::size_t nx) {
  if (!allowed(initialization | kRunning | terminated, call) || !sized(nx, x_.size(), call)) return Status::error;
  std::copy(x_.data(), x_.data() + nx, x);
  return Status::ok;
}

Status Slave::get_nominals(const char* call, double x[], std::size_t nx) {
  if (!allowed(kAnyPhase, call) || !sized(nx, model_->state_count(), call)) return Status::error;
  std::fill(x, x + nx, 1.0);
  return Status::ok;
}

Status Slave::get_derivatives(const char* call, double dx[], std::size_t nx) {
  if (!allowed(initialization | kRunning | terminated, call) || !sized(nx, x_.size(), call)) return Status::error;
  return guarded([&] {
    Eigen::Map<Eigen::VectorXd> out(dx, static_cast<Eigen::Index>(nx));
    model_->derivatives(t_, x_, me_inputs(), out);
    return Status::ok;
  });
}

Status Slave::get_event_indicators(const char* call, double z[], std::size_t nz) {
  if (!allowed(initialization | kRunning | terminated, call) || !sized(nz, model_->event_indicator_count(), call)) {
    return Status::error;
  }
  return guarded([&] {
    Eigen::Map<Eigen::VectorXd> out(z, static_cast<Eigen::Index>(nz));
    model_->event_indicators(t_, x_, me_inputs(), out);
    return Status::ok;
  });
}

Status Slave::enter_event_mode(const char* call) {
  if (!allowed(continuous_time | event_mode, call)) return Status::error;
  phase_ = event_mode;
  event_handled_ = false;
  return Status::ok;
}

Status Slave::update_discrete_states(const char* call, DiscreteUpdate& update) {
  if (!allowed(event_mode, call)) return Status::error;
  return guarded([&] {
    update = DiscreteUpdate{};
    if (!event_handled_) {
      EventCause cause;
      cause.time_event = t_ >= announced_time_event_;
      cause.state_event = true;  // the model checks its own conditions
      Eigen::VectorXd x = x_;
      const EventOutcome outcome = model_->handle_event(t_, x, me_inputs(), cause);
      update.values_changed = outcome.states_changed || x != x_;
      update.terminate = outcome.terminate;
      x_ = x;
      event_handled_ = true;
    }
    announced_time_event_ = model_->next_time_event(t_);
    update.next_time_defined = std::isfinite(announced_time_event_);
    update.next_time = update.next_time_defined ? announced_time_event_ : 0.0;
    return Status::ok;
  });
}

Status Slave::enter_continuous_time_mode(const char* call) {
  if (!allowed(event_mode, call)) return Status::error;
  phase_ = continuous_time;
  return Status::ok;
}

Status Slave::completed_integrator_step(const char* call, bool& enter_event_mode, bool& terminate_simulation) {
  if (!allowed(continuous_time, call)) return Status::error;
  enter_event_mode = false;
  terminate_simulation = false;
  return Status::ok;
}

bool Slave::sized(std::size_t n, Eigen::Index expected, const char* call) {
  if (static_cast<Eigen::Index>(n) == expected) return true;
  error(fmt::format("{}: {} values given, the model has {}", call, n, expected));
  return false;
}

const Eigen::VectorXd& Slave::me_inputs() {
  me_u_ = inputs_.col(0);
  return me_u_;
}

double Slave::me_value(const ExportedVariable& v) {
  const Eigen::VectorXd& u = me_inputs();
  switch (v.role) {
    case Role::state: return x_(v.index);
    case Role::derivative:
      buffer_.resize(model_->state_count());
      model_->derivatives(t_, x_, u, buffer_);
      return buffer_(v.index);
    case Role::event_indicator:
      buffer_.resize(model_->event_indicator_count());
      model_->event_indicators(t_, x_, u, buffer_);
      return buffer_(v.index);
    default:
      buffer_.resize(model_->output_count());
      model_->outputs(t_, x_, u, buffer_);
      return buffer_(v.index);
  }
}

const Linearization& Slave::me_linearization() {
  const Eigen::VectorXd& u = me_inputs();
  if (!model_->jacobians(t_, x_, u, me_jacobians_)) finite_difference_jacobians(*model_, t_, x_, u, me_jacobians_);
  return me_jacobians_;
}

}  // namespace cosima::fmu_export
