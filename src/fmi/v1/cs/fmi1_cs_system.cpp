#include "fmi/v1/cs/fmi1_cs_system.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/crash.hpp"
#include "core/error.hpp"

namespace cosima::fmi {

Fmi1CsSystem::Fmi1CsSystem(std::string name, const std::filesystem::path& fmu)
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
  if (cs.can_handle_variable_step) capabilities_.add(Capability::variable_step);
  const std::size_t widest = std::max({fmu_.outputs().size(), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  order_buffer_.assign(widest, 0);
}

const PortInfo& Fmi1CsSystem::input_info(int input) const {
  return fmu_.inputs()[static_cast<std::size_t>(input)].info;
}
const PortInfo& Fmi1CsSystem::output_info(int output) const {
  return fmu_.outputs()[static_cast<std::size_t>(output)].info;
}

void Fmi1CsSystem::enter_initialization(double t_start) {
  if (initialized_) throw Error(fmt::format("system '{}': initialized twice", name()));
  fmu_.enter_initialization(t_start, std::nullopt);
  initialized_ = true;
  t_ = t_start;
}

void Fmi1CsSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  const ForeignCallScope in = fmu_.enter("fmiGetXXX", t_);
  fmu_.get_outputs(y);
}

void Fmi1CsSystem::apply_inputs(const InputPolynomials& polynomials) {
  const ForeignCallScope in = fmu_.enter("fmiSetXXX", t_);
  fmu_.set_inputs(polynomials.col(0), FmuInstance::Inputs::all);
  if (input_derivatives_.empty() || !has(Capability::interpolate_inputs)) return;
  if (input_derivatives_.update(polynomials)) {
    const auto& d = input_derivatives_;
    fmu_.check(f_.set_real_input_derivatives(fmu_.component(), d.vrs().data(), d.vrs().size(), d.orders().data(),
                                             d.values().data()),
               "fmiSetRealInputDerivatives");
  }
}

StepResult Fmi1CsSystem::integrate(double h) {
  const ForeignCallScope in = fmu_.enter("fmiDoStep", t_);
  if (stopped_) return {StepResult::Status::terminated, "the FMU ended the run earlier (fmiDiscard)"};
  const fmi1Status status = f_.do_step(fmu_.component(), t_, h, fmi1True);
  if (status == fmi1OK || status == fmi1Warning) {
    t_ += h;
    return StepResult::success();
  }
  double last = t_;
  if (status == fmi1Discard && f_.get_real_status != nullptr &&
      f_.get_real_status(fmu_.component(), fmi1LastSuccessfulTime, &last) == fmi1OK) {
    // CS §3.3: the slave computed only up to fmiLastSuccessfulTime. FMI 1.0 has no fmiTerminated
    // status: a slave that discards a step without rollback (cosima gives none to FMI 1.0) ends the
    // run there, its values at that time; the master calls no further fmiDoStep.
    stopped_ = true;
    const bool completed = last >= t_ + h - 1e-9 * std::max({1.0, std::abs(t_), h});
    StepResult result{StepResult::Status::terminated,
                      fmt::format("FMU '{}' discarded the step from t = {} at fmiLastSuccessfulTime = {} (fmiDiscard): "
                                  "the run ends there{}",
                                  file().string(), t_, last, fmu_.recent_log())};
    t_ = completed ? t_ + h : std::max(t_, last);
    result.step_completed = completed;
    return result;
  }
  const std::string reached = status == fmi1Discard ? " (fmiLastSuccessfulTime unknown)" : "";
  fmu_.record(status, "fmiDoStep");
  return StepResult::failure(fmt::format("FMU '{}': fmiDoStep(t = {}, h = {}) returned {}{}{}", file().string(), t_, h,
                                         status_name(status), reached, fmu_.recent_log()));
}

void Fmi1CsSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  const ForeignCallScope in = fmu_.enter("fmiGetRealOutputDerivatives", t_);
  dy.setZero();  // held (non-Real) outputs have none
  const auto& real_out = fmu_.real_outputs();
  const std::size_t n = real_out.vrs.size();
  std::fill_n(order_buffer_.begin(), n, order);
  fmu_.check(f_.get_real_output_derivatives(fmu_.component(), real_out.vrs.data(), n, order_buffer_.data(),
                                            real_buffer_.data()),
             "fmiGetRealOutputDerivatives");
  for (std::size_t k = 0; k < n; ++k) {
    const double sign = real_out.signs.empty() ? 1.0 : real_out.signs[k];
    if (output_info(real_out.ports[k]).continuous) dy(real_out.ports[k]) = sign * real_buffer_[k];
  }
}

void Fmi1CsSystem::read_variables(Eigen::Ref<Eigen::VectorXd> out) const {
  const ForeignCallScope in = fmu_.enter("fmiGetXXX", t_);
  fmu_.read_batches(watched_, out);
}

}  // namespace cosima::fmi
