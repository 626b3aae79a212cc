#include "fmi/common/me_model.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/slots.hpp"

namespace cosima::fmi {

namespace {

/// The OdeModel structure of the FMU: its states, ports, parameters and feedthrough.
OdeModel::Structure structure_of(const FmuInstance& fmu) {
  OdeModel::Structure structure;
  structure.states = fmu.state_names();
  structure.inputs = fmu.input_names();
  structure.outputs = fmu.output_names();
  for (const auto& port : fmu.inputs()) structure.input_info.push_back(port.info);
  for (const auto& port : fmu.outputs()) structure.output_info.push_back(port.info);
  for (int o = 0; o < static_cast<int>(structure.outputs.size()); ++o) {
    for (int i = 0; i < static_cast<int>(structure.inputs.size()); ++i) {
      if (fmu.output_depends_on_input(o, i)) structure.feedthrough.emplace_back(o, i);
    }
  }
  for (const ScalarVariable& v : fmu.description().variables) {
    if (v.causality != "parameter" || v.type == VariableType::string || v.type == VariableType::binary ||
        !v.dimensions.empty()) {
      continue;
    }
    structure.parameters.push_back({v.name, fmu.description().port_info(v).start.value_or(0.0), ""});
  }
  return structure;
}

}  // namespace

MeModel::MeModel(std::unique_ptr<FmuInstance> instance, const IntegratorOptions& options)
    : OdeModel(instance->file().filename().string(), structure_of(*instance)),
      fmu_(std::move(instance)),
      max_event_iterations_(options.max_event_iterations),
      tolerance_(options.rtol) {
  const auto nx = static_cast<Eigen::Index>(fmu_->state_names().size());
  x_set_.setZero(nx);
  u_set_.setZero(static_cast<Eigen::Index>(fmu_->inputs().size()));
  scratch_.setZero(std::max<Eigen::Index>(nx, 1));
  for (int i = 0; i < static_cast<int>(fmu_->inputs().size()); ++i) {
    const auto& port = fmu_->inputs()[static_cast<std::size_t>(i)];
    if (!port.info.continuous && port.info.kind != PortKind::string && port.type != VariableType::clock) {
      discrete_inputs_.push_back(i);
    }
  }
  discrete_set_.resize(static_cast<Eigen::Index>(discrete_inputs_.size()));
  for (std::size_t k = 0; k < discrete_inputs_.size(); ++k) {
    discrete_set_(static_cast<Eigen::Index>(k)) =
        fmu_->inputs()[static_cast<std::size_t>(discrete_inputs_[k])].info.start.value_or(
            std::numeric_limits<double>::quiet_NaN());
  }
  pending_strings_.resize(fmu_->inputs().size());
}

std::unique_ptr<OdeModel> MeModel::clone() const {
  throw Error(fmt::format("{}: an FMU instance cannot be copied", fmu_->where()));
}

std::string MeModel::string_output(int output) const { return fmu_->string_output(output, t_set_); }

void MeModel::set_string_input(int input, const std::string& value) {
  if (fmu_->inputs().at(static_cast<std::size_t>(input)).info.kind != PortKind::string) {
    fmu_->set_string_input(input, value, t_set_);  // refuses with the port's name
  }
  pending_strings_[static_cast<std::size_t>(input)] = value;
  strings_pending_ = true;
}

Eigen::VectorXd MeModel::initial_state() const { return fmu_->state_starts(); }

void MeModel::enter_initialization(double t_start) {
  fmu_->enter_initialization(t_start, tolerance_);
  t_set_ = t_start;
}

void MeModel::initialization_outputs(double t_start, ConstVectorRef u, VectorRef y) const {
  const ForeignCallScope in = fmu_->enter("GetXXX (Initialization Mode)", t_start);
  fmu_->set_inputs(u, FmuInstance::Inputs::all);
  fmu_->get_outputs(y);
}

Eigen::VectorXd MeModel::start(double t_start, ConstVectorRef u) {
  ForeignCallScope in = fmu_->enter("SetXXX (Initialization Mode)", t_start);
  fmu_->set_inputs(u, FmuInstance::Inputs::all);
  remember_inputs(u);
  in.now("ExitInitializationMode");
  fmu_->exit_initialization();
  // the FMU is now in Event Mode (FMI 2.0 §3.2.3, FMI 3.0 §3.2.1)
  Eigen::VectorXd x = initial_state();
  const FmuInstance::DiscreteUpdate update = event_iteration(t_start);
  if (update.terminate) {
    throw Error(fmt::format("{}: the FMU asked to terminate during initialization (terminateSimulation){}",
                            fmu_->where(), fmu_->recent_log()));
  }
  leave_event_mode(update, x, true);
  t_set_ = t_start;
  time_set_ = true;
  return x;
}

void MeModel::remember_inputs(ConstVectorRef u) {
  u_set_ = u;
  inputs_set_ = true;
  for (std::size_t k = 0; k < discrete_inputs_.size(); ++k) {
    discrete_set_(static_cast<Eigen::Index>(k)) = u(discrete_inputs_[k]);
  }
}

void MeModel::prepare(double t, ConstVectorRef x, ConstVectorRef u) const {
  if (terminated_) return;  // the FMU stays in Event Mode; its values no longer change
  if (!time_set_ || t != t_set_) {
    fmu_->set_time(t);
    t_set_ = t;
    time_set_ = true;
  }
  if (x.size() > 0 && (!states_set_ || x != x_set_)) {
    x_set_ = x;
    fmu_->set_continuous_states(x_set_);
    states_set_ = true;
  }
  if (!fmu_->continuous_real_inputs().vrs.empty() && (!inputs_set_ || u != u_set_)) {
    fmu_->set_inputs(u, FmuInstance::Inputs::continuous);
    u_set_ = u;
    inputs_set_ = true;
  }
}

void MeModel::derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const {
  const ForeignCallScope in = fmu_->enter("GetDerivatives", t);
  prepare(t, x, u);
  if (dx.size() == 0) return;
  fmu_->get_derivatives(dx);
}

void MeModel::outputs(double t, ConstVectorRef x, ConstVectorRef u, VectorRef y) const {
  const ForeignCallScope in = fmu_->enter("GetXXX", t);
  prepare(t, x, u);
  fmu_->get_outputs(y);
}

void MeModel::read_variables(double t, ConstVectorRef x, ConstVectorRef u, Eigen::Ref<Eigen::VectorXd> out) const {
  const ForeignCallScope in = fmu_->enter("GetXXX", t);
  prepare(t, x, u);
  fmu_->read_batches(watched_, out);
}

bool MeModel::jacobians(double t, ConstVectorRef x, ConstVectorRef u, Linearization& out) const {
  if (!fmu_->provides_linearization()) return false;  // finite differences through Set Continuous States
  const ForeignCallScope in = fmu_->enter("GetDirectionalDerivative", t);
  prepare(t, x, u);
  fmu_->linearize(out);
  return true;
}

void MeModel::event_indicators(double t, ConstVectorRef x, ConstVectorRef u, VectorRef z) const {
  const ForeignCallScope in = fmu_->enter("GetEventIndicators", t);
  prepare(t, x, u);
  if (z.size() == 0) return;
  fmu_->get_event_indicators(z);
}

double MeModel::next_time_event(double /*t*/) const { return next_event_time_; }

bool MeModel::wants_step_reports() const { return !description().model_exchange->completed_integrator_step_not_needed; }

IntegratorStepReport MeModel::step_completed(double t, ConstVectorRef x, ConstVectorRef u) const {
  const ForeignCallScope in = fmu_->enter("CompletedIntegratorStep", t);
  prepare(t, x, u);
  // noSetFMUStatePriorToCurrentPoint: true unless cosima may roll back with Set FMU State
  const FmuInstance::StepCompletion completion = fmu_->completed_integrator_step(!fmu_->can_save_state());
  return {completion.enter_event_mode, completion.terminate};
}

bool MeModel::discrete_inputs_changed(ConstVectorRef u) const {
  if (strings_pending_) return true;
  for (std::size_t k = 0; k < discrete_inputs_.size(); ++k) {
    if (u(discrete_inputs_[k]) != discrete_set_(static_cast<Eigen::Index>(k))) return true;
  }
  return false;
}

FmuInstance::DiscreteUpdate MeModel::event_iteration(double t) {
  FmuInstance::DiscreteUpdate update;
  update.needs_update = true;
  bool states_changed = false;
  for (int iteration = 0; update.needs_update; ++iteration) {
    if (iteration == max_event_iterations_) {
      throw Error(
          fmt::format("{}: the event iteration at t = {} did not converge: the FMU still asks for a discrete "
                      "update after {} calls of {} (integrator_options.max_event_iterations){}",
                      fmu_->where(), t, max_event_iterations_, fmu_->api().update_discrete_states, fmu_->recent_log()));
    }
    update = fmu_->update_discrete_states();
    states_changed = states_changed || update.values_changed;
    if (update.terminate) break;
  }
  update.values_changed = states_changed;
  return update;
}

void MeModel::leave_event_mode(const FmuInstance::DiscreteUpdate& update, VectorRef x, bool states_changed) {
  fmu_->enter_continuous_time_mode();
  if ((states_changed || update.values_changed) && x.size() > 0) fmu_->get_continuous_states(x);
  next_event_time_ = update.next_time_defined ? update.next_time : std::numeric_limits<double>::infinity();
  x_set_ = x;  // the instance holds these states now
  states_set_ = x.size() > 0;
}

EventOutcome MeModel::handle_event(double t, VectorRef x, ConstVectorRef u, const EventCause& /*cause*/) {
  const ForeignCallScope in = fmu_->enter("EnterEventMode", t);
  prepare(t, x, u);
  fmu_->enter_event_mode();
  // discrete inputs and Strings are set in Event Mode (FMI 2.0 §3.2.3, FMI 3.0 §3.2.2)
  fmu_->set_inputs(u, FmuInstance::Inputs::discrete);
  for (std::size_t k = 0; k < discrete_inputs_.size(); ++k)
    discrete_set_(static_cast<Eigen::Index>(k)) = u(discrete_inputs_[k]);
  if (strings_pending_) {
    for (std::size_t i = 0; i < pending_strings_.size(); ++i) {
      if (fmu_->inputs()[i].info.kind == PortKind::string)
        fmu_->set_string_input(static_cast<int>(i), pending_strings_[i], t);
    }
    strings_pending_ = false;
  }
  ++events_;
  const FmuInstance::DiscreteUpdate update = event_iteration(t);
  EventOutcome outcome;
  if (update.terminate) {
    terminated_ = true;  // stays in Event Mode; fmi2Terminate follows
    outcome.terminate = true;
    return outcome;
  }
  leave_event_mode(update, x, false);
  outcome.states_changed = update.values_changed;
  return outcome;
}

bool MeModel::can_restore_discrete_state() const {
  return fmu_->can_save_state() || (fmu_->sets_time_back() && !description().may_have_discrete_state());
}

int MeModel::save_discrete_state(int overwrite) {
  const int slot = acquire_slot(saved_, overwrite);
  if (slot < 0) throw Error(fmt::format("{}: no saved state {}", fmu_->where(), overwrite));
  Saved& saved = saved_[static_cast<std::size_t>(slot)];
  if (fmu_->can_save_state()) saved.fmu_slot = fmu_->save_state(saved.fmu_slot, t_set_);
  saved.next_event_time = next_event_time_;
  saved.discrete_set = discrete_set_;
  saved.events = events_;
  saved.t = t_set_;
  saved.in_use = true;
  return slot;
}

void MeModel::restore_discrete_state(int slot) {
  const Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (fmu_->can_save_state()) {
    fmu_->restore_state(saved.fmu_slot, t_set_);
  } else if (saved.events != events_) {
    throw Error(
        fmt::format("{}: cannot roll back to t = {}: the FMU handled an event since, and without "
                    "Get FMU State (canGetAndSetFMUstate=\"false\") its discrete state cannot be restored",
                    fmu_->where(), saved.t));
  }
  next_event_time_ = saved.next_event_time;
  discrete_set_ = saved.discrete_set;
  time_set_ = states_set_ = inputs_set_ = false;  // the instance's values are the saved ones: set all again
  terminated_ = false;
}

void MeModel::release_discrete_state(int slot) {
  Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (saved.fmu_slot >= 0) fmu_->release_state(saved.fmu_slot);
  saved.fmu_slot = -1;
  saved.in_use = false;
}

}  // namespace cosima::fmi
