#include "system/capability_probe.hpp"

#include <algorithm>
#include <array>

#include <Eigen/Dense>

#include "core/error.hpp"

namespace cosima {

namespace {

constexpr std::array kProbed = {Capability::output_derivatives, Capability::rollback, Capability::linearization,
                                Capability::interpolate_inputs};

/// Inputs at legal values (the start value, else the one nearest 0 or the first item), each
/// continuous Real one rising with slope 1: a polynomial the system can only take by interpolating
/// it (FMI 2.0: fmi2SetRealInputDerivatives).
InputPolynomials rising_inputs(const System& system) {
  InputPolynomials p = InputPolynomials::Zero(system.input_count(), kInputCoefficients);
  for (int i = 0; i < system.input_count(); ++i) {
    const PortInfo& info = system.input_info(i);
    if (info.kind == PortKind::string) continue;
    const double fallback = info.allowed.empty() ? std::clamp(0.0, info.min, info.max) : info.allowed.front();
    p(i, 0) = info.start.value_or(fallback);
    if (info.kind == PortKind::real && info.continuous) p(i, 1) = 1.0;
  }
  return p;
}

/// The capability's read-only call on an initialized system; throws what the system throws.
void exercise(Capability capability, System& system) {
  switch (capability) {
    case Capability::output_derivatives: {
      Eigen::VectorXd dy(system.output_count());
      system.output_derivatives(1, dy);
      break;
    }
    case Capability::rollback: {
      const StateId id = system.save_state();
      system.restore_state(id);
      system.release_state(id);
      break;
    }
    case Capability::linearization: (void)system.linearize(); break;
    case Capability::interpolate_inputs:  // the probe's instance is freed after: its inputs do not matter
      system.set_inputs(rising_inputs(system));
      break;
    default: break;
  }
}

/// A fresh system, or nullptr when it cannot be built.
std::unique_ptr<System> built(const std::function<std::unique_ptr<System>()>& make) {
  try {
    return make();
  } catch (const Error&) {
    return nullptr;
  }
}

/// Whether `system` initializes at t_start (it is reset when it does not).
bool initialize(std::unique_ptr<System>& system, double t_start) {
  try {
    system->initialize(t_start);
    return true;
  } catch (const Error&) {
    system.reset();
    return false;
  }
}

}  // namespace

std::vector<CapabilityFailure> probe_declared_capabilities(const std::function<std::unique_ptr<System>()>& make,
                                                           double t_start, const ProbedCapabilities& probed) {
  std::vector<CapabilityFailure> failures;
  std::unique_ptr<System> system = built(make);
  if (!system) return failures;
  const CapabilitySet wanted = probed ? probed(*system) : system->capabilities();
  std::vector<Capability> pending;
  for (const Capability capability : kProbed) {
    if (system->has(capability) && wanted.has(capability)) pending.push_back(capability);
  }
  if (pending.empty() || !initialize(system, t_start)) return failures;
  for (const Capability capability : pending) {
    if (!system && (!(system = built(make)) || !initialize(system, t_start))) break;
    try {
      exercise(capability, *system);
    } catch (const Error& e) {
      failures.push_back({capability, e.what()});
      system.reset();  // after an error the instance is good for nothing but freeing
    }
  }
  return failures;
}

}  // namespace cosima
