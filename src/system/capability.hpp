#pragma once
// What the master may ask of a black box beyond "set inputs, step, read outputs".
// Each capability mirrors an FMI 2.0 Co-Simulation flag (DESIGN §2, System contract).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cosima {

enum class Capability : std::uint8_t {
  interpolate_inputs,  ///< polynomial inputs over a step   (canInterpolateInputs)
  output_derivatives,  ///< output time-derivatives         (maxOutputDerivativeOrder ≥ 1)
  rollback,            ///< save / restore the state        (canGetAndSetFMUstate)
  state_access,        ///< states and state derivatives    (ModelStructure/Derivatives)
  linearization,       ///< A, B, C, D                      (providesDirectionalDerivative)
  variable_step,       ///< variable communication step     (canHandleVariableCommunicationStepSize)
};

inline constexpr std::array kAllCapabilities = {
    Capability::interpolate_inputs, Capability::output_derivatives, Capability::rollback,
    Capability::state_access,       Capability::linearization,      Capability::variable_step,
};

/// Scenario name of a capability ("rollback", "interpolate_inputs", ...).
std::string_view to_string(Capability capability);
/// The FMI 2.0 flag or element that declares it.
std::string_view fmi_flag(Capability capability);
std::optional<Capability> capability_from_string(std::string_view name);

class CapabilitySet {
 public:
  constexpr CapabilitySet() = default;
  static constexpr CapabilitySet all() {
    CapabilitySet set;
    set.bits_ = (1U << kAllCapabilities.size()) - 1U;
    return set;
  }
  [[nodiscard]] constexpr bool has(Capability c) const { return (bits_ & bit(c)) != 0U; }
  constexpr CapabilitySet& add(Capability c) {
    bits_ |= bit(c);
    return *this;
  }
  constexpr CapabilitySet& remove(Capability c) {
    bits_ &= ~bit(c);
    return *this;
  }
  [[nodiscard]] constexpr CapabilitySet without(CapabilitySet other) const {
    CapabilitySet set;
    set.bits_ = bits_ & ~other.bits_;
    return set;
  }
  [[nodiscard]] constexpr CapabilitySet with(CapabilitySet other) const {
    CapabilitySet set;
    set.bits_ = bits_ | other.bits_;
    return set;
  }
  [[nodiscard]] constexpr CapabilitySet only(CapabilitySet other) const {
    CapabilitySet set;
    set.bits_ = bits_ & other.bits_;
    return set;
  }
  [[nodiscard]] constexpr bool empty() const { return bits_ == 0U; }
  constexpr bool operator==(const CapabilitySet&) const = default;
  /// "rollback, linearization"
  [[nodiscard]] std::string describe() const;

 private:
  static constexpr std::uint32_t bit(Capability c) { return 1U << static_cast<unsigned>(c); }
  std::uint32_t bits_ = 0;
};

/// What cosima can stand in for when a system lacks it (system/emulation/emulated_system.hpp).
inline constexpr CapabilitySet kEmulable =
    CapabilitySet().add(Capability::interpolate_inputs).add(Capability::output_derivatives);

}  // namespace cosima
