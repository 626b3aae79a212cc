#include "fmi/v2/cs/fmi2_cs_system.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/crash.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace cosima::fmi {

Fmi2CsSystem::Fmi2CsSystem(std::string name, const std::filesystem::path& fmu)
    : System(std::move(name)),
      fmu_(this->name(), fmu, FmiInterface::co_simulation),
      f_(fmu_.f()),
      input_derivatives_(fmu_) {
  const CoSimulationCapabilities& cs = *description().co_simulation;
  // capabilities: declared flag AND the function present
  if (cs.can_interpolate_inputs && f_.set_real_input_derivatives != nullptr)
    capabilities_.add(Capability::interpolate_inputs);
  if (cs.max_output_derivative_order >= 1 && f_.get_real_output_derivatives != nullptr) {
    capabilities_.add(Capability::output_derivatives);
  }
  if (fmu_.can_save_state()) capabilities_.add(Capability::rollback);
  if (!fmu_.state_vrs().empty()) capabilities_.add(Capability::state_access);
  if (fmu_.provides_linearization()) capabilities_.add(Capability::linearization);
  if (cs.can_handle_variable_step) capabilities_.add(Capability::variable_step);
  const std::size_t widest = std::max({fmu_.outputs().size(), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  order_buffer_.assign(widest, 0);
  const auto* in = fmu_.inputs_as_one_real_batch();
  const auto* out = fmu_.outputs_as_one_real_batch();
  real_input_vrs_ = in != nullptr ? in->vrs.data() : nullptr;
  real_output_vrs_ = out != nullptr ? out->vrs.data() : nullptr;
  one_call_ports_ = (in != nullptr || fmu_.inputs().empty()) && (out != nullptr || fmu_.outputs().empty());
}

const PortInfo& Fmi2CsSystem::input_info(int input) const {
  return fmu_.inputs()[static_cast<std::size_t>(input)].info;
}
const PortInfo& Fmi2CsSystem::output_info(int output) const {
  return fmu_.outputs()[static_cast<std::size_t>(output)].info;
}

void Fmi2CsSystem::enter_initialization(double t_start) {
  if (initialized_) throw Error(fmt::format("system '{}': initialized twice", name()));
  fmu_.enter_initialization(t_start, std::nullopt);
  initialized_ = true;
  t_ = t_start;
}

void Fmi2CsSystem::exit_initialization() { fmu_.exit_initialization(); }

void Fmi2CsSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  const ForeignCallScope in = fmu_.enter("fmi2GetXXX", t_);
  fmu_.get_outputs(y);
}

void Fmi2CsSystem::apply_inputs(const InputPolynomials& polynomials) {
  const ForeignCallScope in = fmu_.enter("fmi2SetXXX", t_);
  fmu_.set_inputs(polynomials.col(0), Fmi2Instance::Inputs::all);
  if (input_derivatives_.empty() || !has(Capability::interpolate_inputs)) return;  // none to send
  if (input_derivatives_.update(polynomials)) {
    const auto& d = input_derivatives_;
    fmu_.check(f_.set_real_input_derivatives(fmu_.component(), d.vrs().data(), d.vrs().size(), d.orders().data(),
                                             d.values().data()),
               "fmi2SetRealInputDerivatives");
  }
}

void Fmi2CsSystem::apply_constant_inputs(ConstVectorView u) {
  if (input_derivatives_.held()) return System::apply_constant_inputs(u);  // zero the derivatives the FMU holds
  const ForeignCallScope in = fmu_.enter("fmi2SetXXX", t_);
  fmu_.set_inputs(u, Fmi2Instance::Inputs::all);
}

StepResult Fmi2CsSystem::integrate_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y) {
  if (!one_call_ports_ || input_derivatives_.held()) return System::integrate_constant(u, h, y);
  return fused_step_constant(u, h, y);  // (a call: its one named result is built in our caller's slot)
}

StepResult Fmi2CsSystem::fused_step_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y) {
  ForeignCallScope in = fmu_.enter("fmi2SetReal", t_);
  const fmi2Component c = fmu_.component();
  if (u.size() > 0)
    fmu_.check(f_.set_real(c, real_input_vrs_, static_cast<std::size_t>(u.size()), u.data()), "fmi2SetReal");
  in.now("fmi2DoStep");
  StepResult result = call_do_step(h);
  if (result.reached_end() && y.size() > 0) {
    in.now("fmi2GetReal");
    fmu_.check(f_.get_real(c, real_output_vrs_, static_cast<std::size_t>(y.size()), y.data()), "fmi2GetReal");
  }
  return result;  // the one named result: built in place (no early return of another object)
}

void Fmi2CsSystem::exchange_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y) {
  if (!one_call_ports_ || input_derivatives_.held()) {
    System::exchange_constant(u, y);
    return;
  }
  ForeignCallScope in = fmu_.enter("fmi2SetReal", t_);
  const fmi2Component c = fmu_.component();
  if (u.size() > 0)
    fmu_.check(f_.set_real(c, real_input_vrs_, static_cast<std::size_t>(u.size()), u.data()), "fmi2SetReal");
  in.now("fmi2GetReal");
  if (y.size() > 0)
    fmu_.check(f_.get_real(c, real_output_vrs_, static_cast<std::size_t>(y.size()), y.data()), "fmi2GetReal");
}

StepResult Fmi2CsSystem::integrate_held(double h, Eigen::Ref<Eigen::VectorXd> y) {
  if (!one_call_ports_ || input_derivatives_.held()) return System::integrate_held(h, y);
  return fused_step_held(h, y);
}

StepResult Fmi2CsSystem::fused_step_held(double h, Eigen::Ref<Eigen::VectorXd> y) {
  ForeignCallScope in = fmu_.enter("fmi2DoStep", t_);
  StepResult result = call_do_step(h);
  if (result.reached_end() && y.size() > 0) {
    in.now("fmi2GetReal");
    fmu_.check(f_.get_real(fmu_.component(), real_output_vrs_, static_cast<std::size_t>(y.size()), y.data()),
               "fmi2GetReal");
  }
  return result;
}

StepResult Fmi2CsSystem::integrate(double h) {
  const ForeignCallScope in = fmu_.enter("fmi2DoStep", t_);
  return call_do_step(h);
}

StepResult Fmi2CsSystem::call_do_step(double h) {
  if (stop_requested_) return {StepResult::Status::terminated, "the FMU asked to terminate earlier"};
  const fmi2Boolean no_rollback = has(Capability::rollback) ? fmi2False : fmi2True;
  const fmi2Status status = f_.do_step(fmu_.component(), t_, h, no_rollback);
  if (status == fmi2OK || status == fmi2Warning) {
    t_ += h;
    return StepResult::success();
  }
  if (status == fmi2Discard) {
    // FMI 2.0 §4.2.3: fmi2Terminated asks to end the run; lastSuccessfulTime says how far it got
    fmi2Boolean terminated = fmi2False;
    if (f_.get_boolean_status != nullptr &&
        f_.get_boolean_status(fmu_.component(), fmi2Terminated, &terminated) != fmi2OK) {
      terminated = fmi2False;
    }
    if (terminated == fmi2True) {
      double last = t_;
      if (f_.get_real_status != nullptr &&
          f_.get_real_status(fmu_.component(), fmi2LastSuccessfulTime, &last) != fmi2OK) {
        last = t_;
      }
      stop_requested_ = true;
      const bool completed = last >= t_ + h - 1e-9 * std::max({1.0, std::abs(t_), h});
      t_ = completed ? t_ + h : last;
      StepResult result{StepResult::Status::terminated,
                        fmt::format("FMU '{}' asked to terminate at t = {} (fmi2Terminated){}", file().string(), last,
                                    fmu_.recent_log())};
      result.step_completed = completed;
      return result;
    }
  }
  fmu_.record(status, "fmi2DoStep");
  return StepResult::failure(fmt::format("FMU '{}': fmi2DoStep(t = {}, h = {}) returned {}{}", file().string(), t_, h,
                                         status_name(status), fmu_.recent_log()));
}

void Fmi2CsSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  const ForeignCallScope in = fmu_.enter("fmi2GetRealOutputDerivatives", t_);
  dy.setZero();  // held (non-Real) outputs have none
  const auto& real_out = fmu_.real_outputs();
  const std::size_t n = real_out.vrs.size();
  std::fill_n(order_buffer_.begin(), n, order);
  fmu_.check(f_.get_real_output_derivatives(fmu_.component(), real_out.vrs.data(), n, order_buffer_.data(),
                                            real_buffer_.data()),
             "fmi2GetRealOutputDerivatives");
  for (std::size_t k = 0; k < n; ++k) {
    if (output_info(real_out.ports[k]).continuous) dy(real_out.ports[k]) = real_buffer_[k];
  }
}

StateId Fmi2CsSystem::do_save_state(StateId overwrite) {
  const int slot = fmu_.save_state(overwrite, t_);
  if (static_cast<std::size_t>(slot) >= saved_times_.size()) saved_times_.resize(static_cast<std::size_t>(slot) + 1);
  saved_times_[static_cast<std::size_t>(slot)] = t_;
  return slot;
}

void Fmi2CsSystem::do_restore_state(StateId id) {
  fmu_.restore_state(id, t_);
  t_ = saved_times_.at(static_cast<std::size_t>(id));
  input_derivatives_.forget();  // the restored FMU may carry input derivatives: reset them next time
}

void Fmi2CsSystem::do_release_state(StateId id) { fmu_.release_state(id); }

void Fmi2CsSystem::compute_states(Eigen::Ref<Eigen::VectorXd> x) const {
  const ForeignCallScope in = fmu_.enter("fmi2GetReal", t_);
  fmu_.get_reals(fmu_.state_vrs(), x);
}

void Fmi2CsSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  const ForeignCallScope in = fmu_.enter("fmi2GetReal", t_);
  fmu_.get_reals(fmu_.derivative_vrs(), dx);
}

const Linearization& Fmi2CsSystem::compute_linearization() {
  const ForeignCallScope in = fmu_.enter("fmi2GetDirectionalDerivative", t_);
  fmu_.linearize(linearization_);
  return linearization_;
}

void Fmi2CsSystem::read_variables(Eigen::Ref<Eigen::VectorXd> out) const {
  const ForeignCallScope in = fmu_.enter("fmi2GetXXX", t_);
  fmu_.read_batches(watched_, out);
}

}  // namespace cosima::fmi
