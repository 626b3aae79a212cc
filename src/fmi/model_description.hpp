#pragma once
// modelDescription.xml of an FMI 2.0 FMU (FMI 2.0 §2.2), what cosima reads of it, validated: every
// defect is an Error naming the FMU and the element.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "system/port.hpp"

namespace cosima::fmi {

enum class VariableType { real, integer, boolean, string, enumeration };

struct ScalarVariable {
  std::string name;
  unsigned int value_reference = 0;
  VariableType type = VariableType::real;
  std::string causality = "local";     ///< parameter, calculatedParameter, input, output, local, independent
  std::string variability = "continuous";
  std::string initial;                  ///< exact, approx, calculated, or empty
  std::string declared_type;            ///< the SimpleType it refers to (required for Enumeration)
  std::optional<std::string> start;
  std::optional<double> min, max;       ///< from the variable, else from its declared type
  std::optional<int> derivative_of;     ///< 1-based index of the state this is the derivative of
};

/// A SimpleType of TypeDefinitions (FMI 2.0 §2.2.3): what cosima needs of it.
struct SimpleType {
  std::string name;
  VariableType type = VariableType::real;
  std::optional<double> min, max;
  std::vector<std::pair<std::string, int>> items;  ///< Enumeration items (name, value)
};

struct Unknown {
  int index = 0;                        ///< 1-based into the variables
  std::optional<std::vector<int>> dependencies;  ///< absent: depends on all knowns
};

/// Which of the two FMI 2.0 interfaces an instance uses.
enum class FmiInterface : std::uint8_t { co_simulation, model_exchange };

/// The attributes both interface elements carry (FMI 2.0 §3.3 and §4.3).
struct InterfaceCapabilities {
  std::string model_identifier;
  bool can_get_and_set_state = false;
  bool provides_directional_derivative = false;
  bool needs_execution_tool = false;
};

struct CoSimulationCapabilities : InterfaceCapabilities {
  bool can_handle_variable_step = false;
  bool can_interpolate_inputs = false;
  int max_output_derivative_order = 0;
};

struct ModelExchangeCapabilities : InterfaceCapabilities {
  /// fmi2CompletedIntegratorStep need not be called (FMI 2.0 §3.3).
  bool completed_integrator_step_not_needed = false;
};

struct DefaultExperiment {
  std::optional<double> start_time, stop_time, tolerance, step_size;
};

struct ModelDescription {
  std::string fmi_version;
  std::string model_name;
  std::string guid;
  std::string generation_tool;
  std::optional<CoSimulationCapabilities> co_simulation;  ///< at least one of the two is present
  std::optional<ModelExchangeCapabilities> model_exchange;
  int event_indicator_count = 0;  ///< numberOfEventIndicators
  DefaultExperiment default_experiment;
  std::vector<SimpleType> types;
  std::vector<ScalarVariable> variables;
  std::vector<Unknown> outputs, derivatives, initial_unknowns;

  /// The attributes of one interface; throws Error when the FMU does not provide it.
  [[nodiscard]] const InterfaceCapabilities& interface_capabilities(FmiInterface which) const;
  /// Event indicators, or a discrete variable that is not an input: the model may change state at
  /// events, which restoring continuous states alone does not undo.
  [[nodiscard]] bool may_have_discrete_state() const;
  /// Index (0-based) of a variable by name, or -1.
  [[nodiscard]] int find(const std::string& name) const;
  /// The declared type of a variable, or nullptr.
  [[nodiscard]] const SimpleType* type_of(const ScalarVariable& variable) const;
  /// The variable as a port: kind, variability, range (Integer: also 32 bit), Enumeration items, start.
  [[nodiscard]] PortInfo port_info(const ScalarVariable& variable) const;
};

/// Parses and validates modelDescription.xml given as text; `source` names the FMU in errors.
/// Throws Error on malformed XML, fmiVersion ≠ 2.0, neither a CoSimulation nor a ModelExchange
/// element, and every
/// defect the standard forbids: a valueReference that is not a non-negative integer, an input
/// sharing its value reference with an output of the same type, two variables of one name (§2.2.7),
/// a modelIdentifier that is not a C identifier, a missing or unknown declaredType of an
/// Enumeration, non-numeric start/min/max of a numeric variable, and ModelStructure indices or
/// dependencies that are not integers in range.
ModelDescription parse_model_description(std::string_view xml, const std::string& source);

std::string_view to_string(VariableType type);
std::string_view to_string(FmiInterface interface);

}  // namespace cosima::fmi
