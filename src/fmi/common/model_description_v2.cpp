// modelDescription.xml of an FMI 2.0 FMU (FMI 2.0 §2.2): what it differs in from FMI 3.0, as the
// VersionRules read_description (model_description.cpp) reads it by: <ScalarVariable> elements with
// a type child (<Real …/>, …), value references that variables of different types (and aliases) may
// share, ModelStructure by 1-based index, numberOfEventIndicators, the interface elements' FMI 2.0
// attributes.
#include <fmt/format.h>

#include <array>
#include <limits>
#include <string>
#include <unordered_set>

#include "fmi/common/description_reader.hpp"

namespace cosima::fmi::description::v2 {

namespace {

/// The type elements of a ScalarVariable and of a SimpleType.
constexpr std::array kTypeTags = {std::pair{"Real", VariableType::real}, std::pair{"Integer", VariableType::integer},
                                  std::pair{"Boolean", VariableType::boolean},
                                  std::pair{"String", VariableType::string},
                                  std::pair{"Enumeration", VariableType::enumeration}};

/// The type child of a ScalarVariable or SimpleType (the last of kTypeTags it has), its type in `type`;
/// a null node when it has none.
pugi::xml_node type_child(const pugi::xml_node& node, VariableType& type) {
  pugi::xml_node element;
  for (const auto& [tag, kind] : kTypeTags) {
    if (node.child(tag)) {
      element = node.child(tag);
      type = kind;
    }
  }
  return element;
}

void read_co_simulation(const pugi::xml_node& node, CoSimulationCapabilities& c) {
  c.can_interpolate_inputs = node.attribute("canInterpolateInputs").as_bool(false);
}

void read_model_exchange(const pugi::xml_node& node, ModelExchangeCapabilities& c) {
  c.completed_integrator_step_not_needed = node.attribute("completedIntegratorStepNotNeeded").as_bool(false);
}

/// At least one interface element; numberOfEventIndicators, an attribute of the root.
void check_interfaces(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  if (!md.co_simulation && !md.model_exchange) reader.fail("neither a CoSimulation nor a ModelExchange element");
  const auto indicators = to_integer(root.attribute("numberOfEventIndicators").as_string("0"), 0, 100'000'000);
  if (!indicators) reader.fail("numberOfEventIndicators is not a non-negative integer");
  md.event_indicator_count = static_cast<int>(*indicators);
}

/// TypeDefinitions (FMI 2.0 §2.2.3): <SimpleType name=…><Real …/></SimpleType>, …; min and max read
/// whatever the type.
void read_type_definitions(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  for (const pugi::xml_node node : root.child("TypeDefinitions").children("SimpleType")) {
    SimpleType type;
    type.name = node.attribute("name").value();
    const std::string where = fmt::format("SimpleType '{}'", type.name);
    const pugi::xml_node element = type_child(node, type.type);
    if (type.name.empty() || !element) reader.fail(fmt::format("{} needs a name and a type element", where));
    read_type_attributes(element, true, where, reader, type);
    md.types.push_back(std::move(type));
  }
}

/// A ScalarVariable's type child; one without is refused by check_type, after the roles.
pugi::xml_node type_element(const pugi::xml_node& node, const Reader& /*reader*/, ScalarVariable& v) {
  return type_child(node, v.type);
}

std::string unnamed(const pugi::xml_node& /*node*/) { return "a ScalarVariable has no name"; }

const char* default_variability(VariableType /*type*/) { return "continuous"; }

void check_type(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                const ScalarVariable& /*v*/) {
  if (!element) reader.fail(fmt::format("{} has no type element", where));
}

/// start: one value of the type (a Boolean's as xs:boolean, an Integer's and an Enumeration's in int's range).
void read_start(const pugi::xml_node& element, std::string_view where, const Reader& reader, ScalarVariable& v) {
  const pugi::xml_attribute start = element.attribute("start");
  if (!start) return;
  v.start = start.value();
  const std::string_view text = *v.start;
  const bool ok = is_scalar_start(v.type, text);
  if (!ok) reader.fail(fmt::format("{}: start=\"{}\" is not a {} value", where, text, to_string(v.type)));
}

/// derivative=: the 1-based index of the state (within the variables: checked once all are read).
void read_references(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                     VariableReading& /*reading*/, ScalarVariable& v) {
  if (const pugi::xml_attribute derivative = element.attribute("derivative")) {
    const auto index = to_integer(derivative.value(), 1, std::numeric_limits<int>::max());
    if (!index) reader.fail(fmt::format("{}: derivative=\"{}\" is not a variable index", where, derivative.value()));
    v.derivative_of = static_cast<int>(*index);
  }
}

/// An input may not share its value reference with an output of the same type (it would be both); a
/// derivative= index lies within the variables.
void check_references(const Reader& reader, ModelDescription& md, const VariableReading& /*reading*/) {
  check_inputs_apart_from_outputs(reader, md);
  for (const ScalarVariable& v : md.variables) {
    if (v.derivative_of && static_cast<std::size_t>(*v.derivative_of) > md.variables.size()) {
      reader.fail(fmt::format("variable '{}': derivative=\"{}\" is outside 1..{}", v.name, *v.derivative_of,
                              md.variables.size()));
    }
  }
}

/// ModelStructure (FMI 2.0 §2.2.8): the <Unknown index=…/> children of its element `tag`.
std::vector<Unknown> unknowns(const pugi::xml_node& structure, const char* tag, const Reader& reader,
                              const ModelDescription& md, const VariableReading& /*reading*/) {
  return reader.unknowns(structure.child(tag), md.variables.size(), tag);
}

/// FMI 2.0's part of the reading.
const VersionRules& rules() {
  static const VersionRules kRules = {
      .fmi_version = "2.0",
      .binary_folder = "linux64",
      .token_attribute = "guid",
      .root_section = "FMI 2.0 §2.2.1",
      .state_attribute = "canGetAndSetFMUstate",
      .directional_attribute = "providesDirectionalDerivative",
      .read_co_simulation = read_co_simulation,
      .read_model_exchange = read_model_exchange,
      .check_interfaces = check_interfaces,
      .read_type_definitions = read_type_definitions,
      .variable_tag = "ScalarVariable",
      .variables_section = "FMI 2.0 §2.2.7",
      .causalities = {"parameter", "calculatedParameter", "input", "output", "local", "independent"},
      .unique_value_references = false,
      .type_suffix = " type",
      .type_element = type_element,
      .unnamed = unnamed,
      .default_variability = default_variability,
      .read_roles = nullptr,
      .check_type = check_type,
      .read_start = read_start,
      .read_references = read_references,
      .check_references = check_references,
      .outputs_tag = "Outputs",
      .derivatives_tag = "Derivatives",
      .initial_unknowns_tag = "InitialUnknowns",
      .event_indicators_tag = nullptr,
      .unknowns = unknowns,
  };
  return kRules;
}

}  // namespace

}  // namespace cosima::fmi::description::v2

namespace cosima::fmi {

ModelDescription parse_fmi2_model_description(const pugi::xml_node& root, const std::string& source) {
  return description::read_description(root, description::Reader(source), description::v2::rules());
}

}  // namespace cosima::fmi
