#pragma once
// What a system declares, tried once before a run chooses a method by it: exporters declare
// capabilities whose calls then fail (maxOutputDerivativeOrder="1" with fmi2GetRealOutputDerivatives
// returning fmi2Error). Each declared capability with a read-only call is exercised on an instance
// of its own, initialized at t_start, and freed after (after fmi2Error an instance is good only for
// fmi2FreeInstance, FMI 2.0 §2.1.3; FMI 3.0 §2.2.3):
//
//   output_derivatives   output_derivatives(1)                  fmi2GetRealOutputDerivatives
//   rollback             save_state, restore_state, release     fmi2GetFMUstate / SetFMUstate / FreeFMUstate
//   linearization        linearize                              fmi2GetDirectionalDerivative
//   interpolate_inputs   set_inputs with a slope on every       fmi2SetRealInputDerivatives
//                        continuous Real input
//
// A capability whose call throws is returned with the error; the caller withholds it, so that
// cosima emulates it or the method does without. `probed` narrows the probe to what a method reads
// of the system (CouplingMethod::wanted): a system none of whose declared capabilities is wanted is
// built but neither initialized nor called.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "system/capability.hpp"
#include "system/system.hpp"

namespace cosima {

struct CapabilityFailure {
  Capability capability;
  std::string error;  ///< the call's error, as thrown (names the system, FMU and call)
};

/// Which capabilities of a (built, not initialized) system to probe; null: every probed one declared.
using ProbedCapabilities = std::function<CapabilitySet(const System&)>;

/// The declared capabilities of `make()`'s system whose calls fail. An instance that cannot even
/// be built or initialized is not probed (the run reports that itself).
std::vector<CapabilityFailure> probe_declared_capabilities(const std::function<std::unique_ptr<System>()>& make,
                                                           double t_start, const ProbedCapabilities& probed = nullptr);

}  // namespace cosima
