#pragma once
// modelDescription.xml of an FMI 2.0 or FMI 3.0 FMU (FMI 2.0 §2.2, FMI 3.0 §2.4), what cosima reads of
// it, in one version-neutral form, validated: every defect is an Error naming the FMU and the element.
// FMI 3.0 specifics map onto it: variables are referred to by index here (FMI 3.0 refers to them by
// value reference), array variables carry their Dimensions, and each array element becomes a port.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "system/port.hpp"

namespace cosima::fmi {

/// The FMI types. `real` is FMI 2.0's Real and FMI 3.0's Float64; `integer` is FMI 2.0's Integer and
/// FMI 3.0's Int32; the others exist in FMI 3.0 only.
enum class VariableType {
  real,
  integer,
  boolean,
  string,
  enumeration,
  float32,
  int8,
  uint8,
  int16,
  uint16,
  uint32,
  int64,
  uint64,
  binary,
  clock
};
/// The port kind cosima exchanges a variable of this type as (Float32 as a Real, the sized integers
/// as Integers, Binary as hexadecimal text like a String, a Clock as a Boolean).
PortKind port_kind(VariableType type);

/// One Dimension of an FMI 3.0 array variable (FMI 3.0 §2.4.7.2): a fixed size, or the value
/// reference of a structural parameter whose start value is the size.
struct Dimension {
  std::optional<std::uint64_t> start;
  std::optional<unsigned int> value_reference;
};

struct ScalarVariable {
  std::string name;
  unsigned int value_reference = 0;
  VariableType type = VariableType::real;
  std::string causality = "local";  ///< parameter, calculatedParameter, input, output, local, independent
  std::string variability = "continuous";
  std::string initial;                    ///< exact, approx, calculated, or empty
  std::string declared_type;              ///< the SimpleType it refers to (required for Enumeration)
  std::optional<std::string> start;       ///< the start text (FMI 3.0 arrays: all values, blank-separated)
  std::vector<std::string> start_values;  ///< FMI 3.0: one text per start value (<Start value=…/> or token)
  std::optional<double> min, max;         ///< from the variable, else from its declared type
  /// Real (FMI 3.0: Float32/Float64): its `nominal` (a state's scale: integrators' tolerances), from
  /// the variable, else from its declared type.
  std::optional<double> nominal;
  std::optional<int> derivative_of;   ///< 1-based index of the state this is the derivative of
  std::vector<Dimension> dimensions;  ///< FMI 3.0 arrays; empty for a scalar
  std::vector<unsigned int> clocks;   ///< FMI 3.0: value references of the clocks it is clocked by
  /// Real (FMI 3.0: Float32/Float64): the name of its unit (a Unit of UnitDefinitions), from the
  /// variable's own `unit` attribute, else its declared type's; empty when neither declares one.
  std::string unit;
  std::string description;  ///< its `description` attribute (may be empty)
  /// FMI 1.0 alias="negatedAlias": its value is minus that of the variable its value reference names.
  bool negated_alias = false;
  /// FMI 1.0 alias="alias" or "negatedAlias": another name of the variable of its value reference and
  /// type, read and set through it (ME §3.5) — an output may so be an input's alias.
  bool alias = false;
  /// The variable declared first under the same name (0-based), when this is a second declaration
  /// (an exporter's slip the peers tolerate): ignored, its name used by the first; -1 otherwise.
  int duplicate_of = -1;
};

/// A SimpleType of TypeDefinitions (FMI 2.0 §2.2.3): what cosima needs of it.
struct SimpleType {
  std::string name;
  VariableType type = VariableType::real;
  std::optional<double> min, max;
  std::optional<double> nominal;                   ///< Real (FMI 3.0: Float32Type/Float64Type)
  std::vector<std::pair<std::string, int>> items;  ///< Enumeration items (name, value)
  std::string unit;  ///< Real (FMI 3.0: Float32Type/Float64Type): its `unit`, inherited by its variables
};

/// The SI base units whose exponents a BaseUnit gives, in the order of UnitDefinition::exponents.
inline constexpr std::array<const char*, 8> kBaseUnitNames = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};

/// A Unit of UnitDefinitions (FMI 2.0 §2.2.2, FMI 3.0 §2.4.3): a value v in this unit is
/// factor·v + offset in the SI base units kg^e0·m^e1·s^e2·A^e3·K^e4·mol^e5·cd^e6·rad^e7.
struct UnitDefinition {
  std::string name;
  bool has_base_unit = false;      ///< whether it has a BaseUnit (optional): without one it converts to nothing
  std::array<int, 8> exponents{};  ///< of kBaseUnitNames, 0 when not given
  double factor = 1.0;             ///< finite, not 0
  double offset = 0.0;             ///< finite
};

struct Unknown {
  int index = 0;                                 ///< 1-based into the variables
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
  bool only_once_per_process = false;  ///< canBeInstantiatedOnlyOncePerProcess
};

struct CoSimulationCapabilities : InterfaceCapabilities {
  bool can_handle_variable_step = false;
  bool can_interpolate_inputs = false;
  int max_output_derivative_order = 0;
  // FMI 3.0 §4.3
  bool has_event_mode = false;
  bool might_return_early = false;  ///< mightReturnEarlyFromDoStep
  bool provides_intermediate_update = false;
};

struct ModelExchangeCapabilities : InterfaceCapabilities {
  /// fmi2CompletedIntegratorStep need not be called (FMI 2.0 §3.3).
  bool completed_integrator_step_not_needed = false;
};

struct DefaultExperiment {
  std::optional<double> start_time, stop_time, tolerance, step_size;
};

struct ModelDescription {
  std::string fmi_version;  ///< "1.0", "2.0" or "3.0"
  /// The folder of binaries/ holding this platform's library: FMI 2.0 §2.4 "linux64", FMI 3.0
  /// §2.5.1.4 the platform tuple "x86_64-linux" (set by the version's parser).
  std::string binary_folder;
  std::string model_name;
  std::string guid;
  std::string generation_tool;
  std::string description;                                ///< the model's `description` attribute (may be empty)
  std::optional<CoSimulationCapabilities> co_simulation;  ///< at least one of the two is present
  std::optional<ModelExchangeCapabilities> model_exchange;
  bool scheduled_execution = false;  ///< FMI 3.0: a ScheduledExecution element
  int event_indicator_count = 0;     ///< numberOfEventIndicators (FMI 3.0: the EventIndicator elements' sizes)
  /// FMI 1.0's numberOfContinuousStates: its states are named only at run time (fmiGetStateValueReferences).
  /// 0 in the other versions, whose states are those of ModelStructure's Derivatives.
  int continuous_state_count = 0;
  DefaultExperiment default_experiment;
  std::vector<SimpleType> types;
  std::vector<UnitDefinition> units;  ///< UnitDefinitions, each name once
  std::vector<ScalarVariable> variables;
  std::vector<Unknown> outputs, derivatives, initial_unknowns;

  /// The attributes of one interface; throws Error when the FMU does not provide it.
  [[nodiscard]] const InterfaceCapabilities& interface_capabilities(FmiInterface which) const;
  /// Event indicators, or a discrete variable that is not an input: the model may change state at
  /// events, which restoring continuous states alone does not undo.
  [[nodiscard]] bool may_have_discrete_state() const;
  /// Index (0-based) of a variable by name, or -1; a name declared twice finds its first declaration.
  [[nodiscard]] int find(const std::string& name) const;
  /// Whether a name is declared more than once (ScalarVariable::duplicate_of).
  [[nodiscard]] bool declared_twice(const std::string& name) const;
  /// The base variable (alias="noAlias") an FMI 1.0 alias reads and sets through, or nullptr.
  [[nodiscard]] const ScalarVariable* alias_base(const ScalarVariable& alias) const;
  /// The declared type of a variable, or nullptr.
  [[nodiscard]] const SimpleType* type_of(const ScalarVariable& variable) const;
  /// The Unit of UnitDefinitions of this name, or nullptr.
  [[nodiscard]] const UnitDefinition* unit_named(std::string_view name) const;
  /// The variable as a port: kind, variability, range (Integer: also the type's range), Enumeration
  /// items, start (of element `element` of an array).
  [[nodiscard]] PortInfo port_info(const ScalarVariable& variable, std::size_t element = 0) const;

  [[nodiscard]] bool is_fmi3() const { return fmi_version == "3.0"; }
  [[nodiscard]] bool is_fmi1() const { return fmi_version == "1.0"; }
  /// The sizes of an array variable's dimensions, structural parameters at their start values;
  /// empty for a scalar. Throws Error when a size cannot be resolved.
  [[nodiscard]] std::vector<std::size_t> shape(const ScalarVariable& variable) const;
  /// How many scalars the variable holds (1 for a scalar).
  [[nodiscard]] std::size_t element_count(const ScalarVariable& variable) const;
  /// "name" for a scalar; "name[i]" or "name[i,j]" (1-based, row-major) for element `element` of an array.
  [[nodiscard]] std::string element_name(const ScalarVariable& variable, std::size_t element) const;
  /// The index of the variable with this value reference (FMI 3.0: unique), or -1.
  [[nodiscard]] int find_by_reference(unsigned int value_reference) const;
  /// The type's name in this FMI version ("Real" in 2.0 is "Float64" in 3.0).
  [[nodiscard]] std::string_view type_name(VariableType type) const;
  /// The clock variables (FMI 3.0), for the refusal of clocks.
  [[nodiscard]] std::vector<std::string> clock_names() const;
};

/// Parses and validates modelDescription.xml given as text; `source` names the FMU in errors.
/// Every version goes through one reader (read_description, description_reader.hpp) with each
/// version's differences from model_description_v1.cpp, _v2.cpp and _v3.cpp.
/// Throws Error on malformed XML, fmiVersion not 1.0, 2.0 or 3.0, no interface, and every
/// defect the standard forbids: a valueReference that is not a non-negative integer, an input
/// sharing its value reference with an output of the same type (FMI 1.0: unless one is an alias), two
/// variables of one name where one of them is an input or an output (§2.2.7; otherwise the second
/// declaration is ignored, ScalarVariable::duplicate_of),
/// a modelIdentifier that is not a C identifier, a missing or unknown declaredType of an
/// Enumeration, non-numeric start/min/max of a numeric variable, ModelStructure indices or
/// dependencies that are not integers in range, and a Unit without a name, defined twice, or whose
/// BaseUnit has an exponent that is not an integer or a factor/offset that is not a finite number
/// (factor 0 included).
ModelDescription parse_model_description(std::string_view xml, const std::string& source);

std::string_view to_string(VariableType type);
std::string_view to_string(FmiInterface interface);

}  // namespace cosima::fmi
