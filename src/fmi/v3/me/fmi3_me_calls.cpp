// Model Exchange (FMI 3.0 §3.2): the calls an Fmi3Instance makes for fmi/common/me_model, which
// integrates the FMU's continuous states with cosima's integrators.
#include "fmi/v3/fmi3_instance.hpp"

namespace cosima::fmi {

void Fmi3Instance::set_time(double t) { check(f_.set_time(instance_, t), "fmi3SetTime"); }

void Fmi3Instance::set_continuous_states(const Eigen::VectorXd& x) {
  check(f_.set_continuous_states(instance_, x.data(), static_cast<std::size_t>(x.size())), "fmi3SetContinuousStates");
}

void Fmi3Instance::get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  check(f_.get_continuous_state_derivatives(instance_, dx.data(), static_cast<std::size_t>(dx.size())),
        "fmi3GetContinuousStateDerivatives");
}

void Fmi3Instance::get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const {
  check(f_.get_event_indicators(instance_, z.data(), static_cast<std::size_t>(z.size())), "fmi3GetEventIndicators");
}

void Fmi3Instance::get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const {
  check(f_.get_continuous_states(instance_, x.data(), static_cast<std::size_t>(x.size())), "fmi3GetContinuousStates");
}

void Fmi3Instance::enter_event_mode() { check(f_.enter_event_mode(instance_), "fmi3EnterEventMode"); }

fmi::FmuInstance::DiscreteUpdate Fmi3Instance::update_discrete_states() {
  fmi3Boolean needs_update = false, terminate = false, nominals_changed = false, values_changed = false,
              next_defined = false;
  fmi3Float64 next = 0.0;
  check(f_.update_discrete_states(instance_, &needs_update, &terminate, &nominals_changed, &values_changed,
                                  &next_defined, &next),
        "fmi3UpdateDiscreteStates");
  return {needs_update, terminate, values_changed, next_defined, next};
}

void Fmi3Instance::enter_continuous_time_mode() {
  check(f_.enter_continuous_time_mode(instance_), "fmi3EnterContinuousTimeMode");
}

fmi::FmuInstance::StepCompletion Fmi3Instance::completed_integrator_step(bool no_set_state_prior) {
  fmi3Boolean enter_event_mode = false, terminate = false;
  check(f_.completed_integrator_step(instance_, no_set_state_prior, &enter_event_mode, &terminate),
        "fmi3CompletedIntegratorStep");
  return {enter_event_mode, terminate};
}

}  // namespace cosima::fmi
