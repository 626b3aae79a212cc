#pragma once
// modelDescription.xml of an FMI 2.0 Co-Simulation FMU (FMI 2.0 §2.2), what cosima reads of it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cosima::fmi {

enum class VariableType { real, integer, boolean, string, enumeration };

struct ScalarVariable {
  std::string name;
  unsigned int value_reference = 0;
  VariableType type = VariableType::real;
  std::string causality = "local";     ///< parameter, calculatedParameter, input, output, local, independent
  std::string variability = "continuous";
  std::string initial;                  ///< exact, approx, calculated, or empty
  std::optional<std::string> start;
  std::optional<int> derivative_of;     ///< 1-based index of the state this is the derivative of
};

struct Unknown {
  int index = 0;                        ///< 1-based into the variables
  std::optional<std::vector<int>> dependencies;  ///< absent: depends on all knowns
};

struct CoSimulationCapabilities {
  std::string model_identifier;
  bool can_handle_variable_step = false;
  bool can_interpolate_inputs = false;
  int max_output_derivative_order = 0;
  bool can_get_and_set_state = false;
  bool provides_directional_derivative = false;
  bool needs_execution_tool = false;
};

struct DefaultExperiment {
  std::optional<double> start_time, stop_time, tolerance, step_size;
};

struct ModelDescription {
  std::string fmi_version;
  std::string model_name;
  std::string guid;
  std::string generation_tool;
  CoSimulationCapabilities co_simulation;
  DefaultExperiment default_experiment;
  std::vector<ScalarVariable> variables;
  std::vector<Unknown> outputs, derivatives, initial_unknowns;

  /// Index (0-based) of a variable by name, or -1.
  [[nodiscard]] int find(const std::string& name) const;
};

/// Parses modelDescription.xml; `source` names the FMU in errors. Throws Error on malformed XML,
/// fmiVersion ≠ 2.0, a missing CoSimulation element or an inconsistent ModelStructure.
ModelDescription parse_model_description(const std::filesystem::path& xml_file, const std::string& source);

std::string_view to_string(VariableType type);

}  // namespace cosima::fmi
