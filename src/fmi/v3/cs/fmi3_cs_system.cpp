#include "fmi/v3/cs/fmi3_cs_system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/crash.hpp"
#include "core/error.hpp"

namespace cosima::fmi {

namespace {
/// The FMU's own event iteration may not run forever (FMI 3.0 §4.2: until discreteStatesNeedUpdate is false).
constexpr int kMaxEventIterations = 1000;
}  // namespace

Fmi3CsSystem::Fmi3CsSystem(std::string name, const std::filesystem::path& fmu)
    : System(std::move(name)), fmu_(this->name(), fmu, FmiInterface::co_simulation) {
  const fmi::CoSimulationCapabilities& cs = *description().co_simulation;
  // capabilities: declared flag AND the function present
  if (cs.max_output_derivative_order >= 1 && fmu_.f().get_output_derivatives != nullptr) {
    capabilities_.add(Capability::output_derivatives);
  }
  if (fmu_.can_save_state()) capabilities_.add(Capability::rollback);
  if (!fmu_.state_vrs().empty()) capabilities_.add(Capability::state_access);
  if (fmu_.provides_linearization()) capabilities_.add(Capability::linearization);
  if (cs.can_handle_variable_step) capabilities_.add(Capability::variable_step);
}

const PortInfo& Fmi3CsSystem::input_info(int input) const {
  return fmu_.inputs()[static_cast<std::size_t>(input)].info;
}
const PortInfo& Fmi3CsSystem::output_info(int output) const {
  return fmu_.outputs()[static_cast<std::size_t>(output)].info;
}

void Fmi3CsSystem::enter_initialization(double t_start) {
  if (initialized_) throw Error(fmt::format("system '{}': initialized twice", name()));
  fmu_.enter_initialization(t_start, std::nullopt);
  initialized_ = true;
  t_ = t_start;
}

void Fmi3CsSystem::exit_initialization() { fmu_.exit_initialization(); }

void Fmi3CsSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  const ForeignCallScope in = fmu_.enter("fmi3GetXXX", t_);
  fmu_.get_outputs(y);
}

void Fmi3CsSystem::apply_inputs(const InputPolynomials& polynomials) {
  const ForeignCallScope in = fmu_.enter("fmi3SetXXX", t_);
  fmu_.set_inputs(polynomials.col(0), fmi::FmuInstance::Inputs::all);
}

bool Fmi3CsSystem::handle_event() {
  fmu_.enter_event_mode();
  ++events_;
  fmi::FmuInstance::DiscreteUpdate update;
  update.needs_update = true;
  for (int iteration = 0; update.needs_update; ++iteration) {
    if (iteration == kMaxEventIterations) {
      throw Error(
          fmt::format("{}: the event iteration at t = {} did not converge: discreteStatesNeedUpdate still true "
                      "after {} calls of fmi3UpdateDiscreteStates{}",
                      fmu_.where(), t_, kMaxEventIterations, fmu_.recent_log()));
    }
    update = fmu_.update_discrete_states();
    if (update.terminate) return true;
  }
  fmu_.enter_step_mode();
  return false;
}

StepResult Fmi3CsSystem::integrate(double h) {
  const ForeignCallScope in = fmu_.enter("fmi3DoStep", t_);
  if (stop_requested_) return {StepResult::Status::terminated, "the FMU asked to terminate earlier"};
  const double target = t_ + h;
  const double tolerance = 1e-12 * std::max({1.0, std::abs(t_), h});
  const bool no_rollback = !has(Capability::rollback);
  // one macro-step may take several fmi3DoStep calls: the FMU returns early at each of its events
  for (int calls = 0; target - t_ > tolerance; ++calls) {
    if (calls == kMaxEventIterations) {
      return StepResult::failure(fmt::format("FMU '{}': fmi3DoStep returned early {} times in the step to t = {}",
                                             file().string(), calls, target));
    }
    const Fmi3Instance::DoStep step = fmu_.do_step(t_, target - t_, no_rollback);
    if (step.status == CallStatus::error || step.status == CallStatus::fatal ||
        (step.status == CallStatus::discard && !step.terminate)) {
      fmu_.record(step.status, "fmi3DoStep");
      return StepResult::failure(fmt::format("FMU '{}': fmi3DoStep(t = {}, h = {}) returned {}{}", file().string(), t_,
                                             target - t_, fmu_.status_text(step.status), fmu_.recent_log()));
    }
    const double reached = step.early_return || step.status == CallStatus::discard
                               ? std::clamp(step.last_successful_time, t_, target)
                               : target;
    if (step.early_return && reached <= t_ && !step.event_handling_needed && !step.terminate) {
      return StepResult::failure(
          fmt::format("FMU '{}': fmi3DoStep returned early at t = {} without progress and "
                      "without an event",
                      file().string(), t_));
    }
    t_ = reached;
    bool terminate = step.terminate;
    if (!terminate && step.event_handling_needed && fmu_.event_mode_used()) terminate = handle_event();
    if (terminate) {
      stop_requested_ = true;
      const bool completed = target - t_ <= tolerance;
      if (completed) t_ = target;
      StepResult result{StepResult::Status::terminated,
                        fmt::format("FMU '{}' asked to terminate at t = {} (terminateSimulation){}", file().string(),
                                    t_, fmu_.recent_log())};
      result.step_completed = completed;
      return result;
    }
  }
  t_ = target;
  return StepResult::success();
}

void Fmi3CsSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  const ForeignCallScope in = fmu_.enter("fmi3GetOutputDerivatives", t_);
  fmu_.get_output_derivatives(order, dy);
}

StateId Fmi3CsSystem::do_save_state(StateId overwrite) {
  const int slot = fmu_.save_state(overwrite, t_);
  if (static_cast<std::size_t>(slot) >= saved_.size()) saved_.resize(static_cast<std::size_t>(slot) + 1);
  saved_[static_cast<std::size_t>(slot)] = {t_, events_};
  return slot;
}

void Fmi3CsSystem::do_restore_state(StateId id) {
  fmu_.restore_state(id, t_);
  const Saved& saved = saved_.at(static_cast<std::size_t>(id));
  t_ = saved.t;
  events_ = saved.events;
  stop_requested_ = false;
}

void Fmi3CsSystem::do_release_state(StateId id) { fmu_.release_state(id); }

void Fmi3CsSystem::compute_states(Eigen::Ref<Eigen::VectorXd> x) const {
  const ForeignCallScope in = fmu_.enter("fmi3GetFloat64", t_);
  fmu_.get_reals(fmu_.state_vrs(), x);
}

void Fmi3CsSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  const ForeignCallScope in = fmu_.enter("fmi3GetFloat64", t_);
  fmu_.get_reals(fmu_.derivative_vrs(), dx);
}

const Linearization& Fmi3CsSystem::compute_linearization() {
  const ForeignCallScope in = fmu_.enter("fmi3GetDirectionalDerivative", t_);
  fmu_.linearize(linearization_);
  return linearization_;
}

void Fmi3CsSystem::read_variables(Eigen::Ref<Eigen::VectorXd> out) const {
  const ForeignCallScope in = fmu_.enter("fmi3GetXXX", t_);
  fmu_.read_batches(watched_, out);
}

}  // namespace cosima::fmi
