#include "system/capability.hpp"

namespace cosima {

std::string_view to_string(Capability capability) {
  switch (capability) {
    case Capability::interpolate_inputs: return "interpolate_inputs";
    case Capability::output_derivatives: return "output_derivatives";
    case Capability::rollback: return "rollback";
    case Capability::state_access: return "state_access";
    case Capability::linearization: return "linearization";
    case Capability::variable_step: return "variable_step";
  }
  return "unknown";
}

std::string_view fmi_flag(Capability capability) {
  switch (capability) {
    case Capability::interpolate_inputs: return "canInterpolateInputs";
    case Capability::output_derivatives: return "maxOutputDerivativeOrder";
    case Capability::rollback: return "canGetAndSetFMUstate";
    case Capability::state_access: return "ModelStructure/Derivatives";
    case Capability::linearization: return "providesDirectionalDerivative";
    case Capability::variable_step: return "canHandleVariableCommunicationStepSize";
  }
  return "unknown";
}

std::optional<Capability> capability_from_string(std::string_view name) {
  for (Capability c : kAllCapabilities) {
    if (to_string(c) == name) return c;
  }
  return std::nullopt;
}

std::string CapabilitySet::describe() const {
  std::string text;
  for (Capability c : kAllCapabilities) {
    if (!has(c)) continue;
    if (!text.empty()) text += ", ";
    text += to_string(c);
  }
  return text.empty() ? "none" : text;
}

}  // namespace cosima
