#pragma once
// What the readers of modelDescription.xml share: strict number parsing, one failure format naming
// the FMU, and the one skeleton both versions are read by (read_description, model_description.cpp),
// which follows a VersionRules for what FMI 2.0 (model_description_v2.cpp) and FMI 3.0
// (model_description_v3.cpp) differ in.
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fmi/common/model_description.hpp"

namespace cosima::fmi::description {

std::string_view trim(std::string_view text);
/// A whole xs:double (strtod must consume everything but surrounding blanks).
std::optional<double> to_double(std::string_view text);
/// A whole decimal integer in [min, max].
std::optional<long long> to_integer(std::string_view text, long long min, long long max);
/// A whole non-negative decimal integer (up to 2^64 - 1).
std::optional<unsigned long long> to_unsigned(std::string_view text);
bool is_c_identifier(std::string_view name);
/// The blank-separated words of a text.
std::vector<std::string_view> words(std::string_view text);

/// Reads and checks the parts of one file; every failure names the FMU and the element.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  [[noreturn]] void fail(const std::string& what) const;
  std::optional<double> optional_number(const pugi::xml_node& node, const char* attribute,
                                        std::string_view where) const;
  /// A variable's causality (one of `causalities`, default "local"), variability (one of FMI's five,
  /// default `default_variability`), initial and description, read from `node` and checked.
  void roles(const pugi::xml_node& node, const std::unordered_set<std::string>& causalities,
             const char* default_variability, std::string_view where, ScalarVariable& v) const;
  /// FMI 2.0 ModelStructure <Unknown index=… dependencies=…/> children of `parent`.
  std::vector<Unknown> unknowns(const pugi::xml_node& parent, std::size_t variables, const char* section) const;

 private:
  const std::string& source_;
};

/// The integer types (Enumeration among them): those with a min and a max.
bool is_integer_type(VariableType type);
/// Real (FMI 3.0: Float64) and Float32: those with a unit and a nominal.
bool is_float_type(VariableType type);

/// Whether `text` is one start value of an FMI 1.0 / 2.0 variable of this type: a Boolean's as
/// xs:boolean, an Integer's and an Enumeration's in int's range, a Real's a number; any String.
bool is_scalar_start(VariableType type, std::string_view text);
/// FMI 1.0 and 2.0, where value references may be shared: an input may not share its value reference
/// with an output of the same type (it would be both).
void check_inputs_apart_from_outputs(const Reader& reader, const ModelDescription& md);

/// What a SimpleType gives its variables, read from its type element (FMI 2.0: the <Real …/> child of
/// <SimpleType>, FMI 3.0: the <Float64Type …/> itself): min and max (when `has_range`), unit and
/// nominal (floats), the Enumeration items.
void read_type_attributes(const pugi::xml_node& element, bool has_range, std::string_view where, const Reader& reader,
                          SimpleType& type);

/// What reading ModelVariables gathers for the steps after it.
struct VariableReading {
  std::unordered_set<std::string> names;  ///< of the variables read so far
  /// Each value reference's variable (0-based), when the version has them unique (FMI 3.0).
  std::unordered_map<unsigned int, std::size_t> by_reference;
  /// FMI 3.0: each variable's derivative= (a value reference), made an index once every variable is read.
  std::vector<std::optional<unsigned int>> derivative_references;
  /// FMI 1.0: the input names of each output's DirectDependency, by the output's index (0-based).
  std::unordered_map<std::size_t, std::vector<std::string>> direct_dependencies;
};

/// What modelDescription.xml of one FMI version differs in from the other's: the data and the small
/// functions read_description calls between the steps both share.
struct VersionRules {
  const char* fmi_version;            ///< ModelDescription::fmi_version
  const char* binary_folder;          ///< ModelDescription::binary_folder
  const char* token_attribute;        ///< the root's attribute read as ModelDescription::guid
  const char* root_section;           ///< fmiModelDescription's section, cited for a modelIdentifier
  const char* state_attribute;        ///< can_get_and_set_state on an interface element
  const char* directional_attribute;  ///< provides_directional_derivative on an interface element
  /// What the version adds to CoSimulation and ModelExchange.
  void (*read_co_simulation)(const pugi::xml_node& node, CoSimulationCapabilities& c);
  void (*read_model_exchange)(const pugi::xml_node& node, ModelExchangeCapabilities& c);
  /// After the interface elements: which of them a description needs (FMI 2.0: then numberOfEventIndicators).
  void (*check_interfaces)(const pugi::xml_node& root, const Reader& reader, ModelDescription& md);
  void (*read_type_definitions)(const pugi::xml_node& root, const Reader& reader, ModelDescription& md);

  const char* variable_tag;       ///< the children of ModelVariables that are variables; nullptr: every child
  const char* variables_section;  ///< ModelVariables' section, cited for a name (and a value reference) used twice
  std::unordered_set<std::string> causalities;  ///< those a variable may have
  bool unique_value_references;                 ///< whether two variables may not share a value reference
  /// After a variable's element name, the SimpleType its declaredType must be ("a Real type", "a Float64Type").
  const char* type_suffix;
  /// The element holding a variable's type attributes (and `v.type`); may fail on an unknown one.
  pugi::xml_node (*type_element)(const pugi::xml_node& node, const Reader& reader, ScalarVariable& v);
  /// The failure for a variable without a name.
  std::string (*unnamed)(const pugi::xml_node& node);
  const char* (*default_variability)(VariableType type);
  /// A variable's causality, variability, initial and description; nullptr: Reader::roles with
  /// `causalities` (FMI 1.0 maps its own onto these).
  void (*read_roles)(const pugi::xml_node& node, const Reader& reader, std::string_view where, ScalarVariable& v);
  /// After the roles: the type element there (FMI 2.0) and fitting them (FMI 3.0).
  void (*check_type)(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                     const ScalarVariable& v);
  void (*read_start)(const pugi::xml_node& element, std::string_view where, const Reader& reader, ScalarVariable& v);
  /// What a variable refers to other variables by (derivative=, FMI 3.0: clocks= and Dimensions).
  void (*read_references)(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                          VariableReading& reading, ScalarVariable& v);
  /// Once every variable is read: the references, checked (FMI 3.0: made indices), and the cross checks.
  void (*check_references)(const Reader& reader, ModelDescription& md, const VariableReading& reading);

  /// ModelStructure's lists: their element (FMI 2.0) or their children's (FMI 3.0) names.
  const char* outputs_tag;
  const char* derivatives_tag;
  const char* initial_unknowns_tag;
  const char* event_indicators_tag;  ///< nullptr: the version counts them elsewhere (FMI 2.0: numberOfEventIndicators)
  std::vector<Unknown> (*unknowns)(const pugi::xml_node& structure, const char* tag, const Reader& reader,
                                   const ModelDescription& md, const VariableReading& reading);
};

/// The root element of modelDescription.xml, read by the steps both versions share, in order,
/// with `rules` for what the version differs in: header, interfaces, DefaultExperiment,
/// TypeDefinitions, ModelVariables, the references between variables, ModelStructure and its checks.
/// UnitDefinitions are the caller's.
ModelDescription read_description(const pugi::xml_node& root, const Reader& reader, const VersionRules& rules);

}  // namespace cosima::fmi::description

namespace cosima::fmi {
/// FMI 1.0 ME §3 and CS: the root element of a description whose fmiVersion is 1.0.
ModelDescription parse_fmi1_model_description(const pugi::xml_node& root, const std::string& source);
/// FMI 2.0 §2.2: the root element of a description whose fmiVersion is 2.0.
ModelDescription parse_fmi2_model_description(const pugi::xml_node& root, const std::string& source);
/// FMI 3.0 §2.4: the root element of a description whose fmiVersion is 3.0.
ModelDescription parse_fmi3_model_description(const pugi::xml_node& root, const std::string& source);
}  // namespace cosima::fmi
