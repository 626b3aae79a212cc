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

/// A fresh system initialized at t_start, or nullptr when it cannot be.
std::unique_ptr<System> initialized(const std::function<std::unique_ptr<System>()>& make, double t_start) {
  try {
    std::unique_ptr<System> system = make();
    system->initialize(t_start);
    return system;
  } catch (const Error&) {
    return nullptr;
  }
}

}  // namespace

std::vector<CapabilityFailure> probe_declared_capabilities(const std::function<std::unique_ptr<System>()>& make,
                                                           double t_start) {
  std::vector<CapabilityFailure> failures;
  std::unique_ptr<System> system;
  for (const Capability capability : kProbed) {
    if (!system) system = initialized(make, t_start);
    if (!system) break;
    if (!system->has(capability)) continue;
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
