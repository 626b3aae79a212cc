#include "system/capability_probe.hpp"

#include <array>

#include <Eigen/Dense>

#include "core/error.hpp"

namespace cosima {

namespace {

constexpr std::array kProbed = {Capability::output_derivatives, Capability::rollback, Capability::linearization};

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
    case Capability::linearization:
      (void)system.linearize();
      break;
    default:
      break;
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
