// Model Exchange (FMI 2.0 §3.2): the calls an Fmi2Instance makes for fmi/common/me_model, which
// integrates the FMU's continuous states with cosima's integrators.
#include "fmi/v2/fmi2_instance.hpp"

namespace cosima::fmi {

void Fmi2Instance::set_time(double t) { check(f_.set_time(component_, t), "fmi2SetTime"); }

void Fmi2Instance::set_continuous_states(const Eigen::VectorXd& x) {
  check(f_.set_continuous_states(component_, x.data(), static_cast<std::size_t>(x.size())), "fmi2SetContinuousStates");
}

void Fmi2Instance::get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  check(f_.get_derivatives(component_, dx.data(), static_cast<std::size_t>(dx.size())), "fmi2GetDerivatives");
}

void Fmi2Instance::get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const {
  check(f_.get_event_indicators(component_, z.data(), static_cast<std::size_t>(z.size())), "fmi2GetEventIndicators");
}

void Fmi2Instance::get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const {
  check(f_.get_continuous_states(component_, x.data(), static_cast<std::size_t>(x.size())), "fmi2GetContinuousStates");
}

void Fmi2Instance::enter_event_mode() { check(f_.enter_event_mode(component_), "fmi2EnterEventMode"); }

FmuInstance::DiscreteUpdate Fmi2Instance::update_discrete_states() {
  fmi2EventInfo info{};
  check(f_.new_discrete_states(component_, &info), "fmi2NewDiscreteStates");
  return {info.newDiscreteStatesNeeded != fmi2False, info.terminateSimulation != fmi2False,
          info.valuesOfContinuousStatesChanged != fmi2False, info.nextEventTimeDefined != fmi2False,
          info.nextEventTime};
}

void Fmi2Instance::enter_continuous_time_mode() {
  check(f_.enter_continuous_time_mode(component_), "fmi2EnterContinuousTimeMode");
}

FmuInstance::StepCompletion Fmi2Instance::completed_integrator_step(bool no_set_state_prior) {
  fmi2Boolean enter_event_mode = fmi2False, terminate = fmi2False;
  check(f_.completed_integrator_step(component_, no_set_state_prior ? fmi2True : fmi2False, &enter_event_mode,
                                     &terminate),
        "fmi2CompletedIntegratorStep");
  return {enter_event_mode != fmi2False, terminate != fmi2False};
}

}  // namespace cosima::fmi
