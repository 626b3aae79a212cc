// Model Exchange (FMI 1.0 ME §2.7 – §2.8): the calls an Fmi1Instance makes for fmi/common/me_model,
// which integrates the FMU's continuous states with cosima's integrators.
#include "fmi/v1/fmi1_instance.hpp"

#include <fmt/format.h>

#include <utility>

#include "core/error.hpp"

namespace cosima::fmi {

void Fmi1Instance::set_time(double t) { check(f_.set_time(component_, t), "fmiSetTime"); }

void Fmi1Instance::set_continuous_states(const Eigen::VectorXd& x) {
  check(f_.set_continuous_states(component_, x.data(), static_cast<std::size_t>(x.size())), "fmiSetContinuousStates");
}

void Fmi1Instance::get_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  check(f_.get_derivatives(component_, dx.data(), static_cast<std::size_t>(dx.size())), "fmiGetDerivatives");
}

void Fmi1Instance::get_event_indicators(Eigen::Ref<Eigen::VectorXd> z) const {
  check(f_.get_event_indicators(component_, z.data(), static_cast<std::size_t>(z.size())), "fmiGetEventIndicators");
}

void Fmi1Instance::get_continuous_states(Eigen::Ref<Eigen::VectorXd> x) const {
  check(f_.get_continuous_states(component_, x.data(), static_cast<std::size_t>(x.size())), "fmiGetContinuousStates");
}

FmuInstance::DiscreteUpdate Fmi1Instance::update_discrete_states() {
  fmi1EventInfo info{};
  if (std::exchange(initial_update_due_, false) && initial_events_.iterationConverged != fmi1False) {
    // ME §2.6: fmiInitialize did the initial event iteration and says so (iterationConverged): its
    // eventInfo is the update, and fmiEventUpdate follows only an event (a time, state or step event,
    // or a discrete input set to a new value). An FMU counting its event updates would count one more.
    info = initial_events_;
  } else {
    // without intermediate results fmiEventUpdate iterates to convergence itself (ME §2.8)
    check(f_.event_update(component_, fmi1False, &info), "fmiEventUpdate");
  }
  const bool terminate = info.terminateSimulation != fmi1False;
  if (info.stateValueReferencesChanged != fmi1False) {
    throw Error(
        fmt::format("{}: fmiEventUpdate changed the states' value references (stateValueReferencesChanged); "
                    "cosima keeps one state vector per run",
                    where()));
  }
  return {info.iterationConverged == fmi1False, terminate, info.stateValuesChanged != fmi1False,
          info.upcomingTimeEvent != fmi1False, info.nextEventTime};
}

FmuInstance::StepCompletion Fmi1Instance::completed_integrator_step(bool /*no_set_state_prior*/) {
  fmi1Boolean call_event_update = fmi1False;
  check(f_.completed_integrator_step(component_, &call_event_update), "fmiCompletedIntegratorStep");
  return {call_event_update != fmi1False, false};
}

}  // namespace cosima::fmi
