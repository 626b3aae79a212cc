// modelDescription.xml of an FMI 1.0 FMU ("FMI for Model Exchange 1.0" §3, "FMI for Co-Simulation 1.0"
// §4 for the Implementation element): what it differs in from FMI 2.0, as the VersionRules
// read_description (model_description.cpp) reads it by, and mapped onto the version-neutral form:
// - the interface: the root's modelIdentifier; Co-Simulation when an Implementation element is there
//   (CoSimulation_StandAlone, or CoSimulation_Tool: needs its tool), Model Exchange otherwise;
// - causality input|output|internal|none and variability constant|parameter|discrete|continuous become
//   FMI 2.0's roles: variability="parameter" is a parameter (fixed), internal and none are locals;
//   `fixed="false"` on a start makes it approximate;
// - alias="negatedAlias" marks a variable whose value is minus its value reference's;
// - an output's DirectDependency lists the inputs it depends on (none given: all), as ModelStructure
//   Outputs do in FMI 2.0; states have no derivative= link (the FMU names them at run time);
// - TypeDefinitions: <Type name=…><RealType …/></Type>, an EnumerationType's Items numbered from 1.
#include <fmt/format.h>

#include <array>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>

#include "fmi/common/description_reader.hpp"

namespace cosima::fmi::description::v1 {

namespace {

constexpr std::array kTypeTags = {std::pair{"Real", VariableType::real}, std::pair{"Integer", VariableType::integer},
                                  std::pair{"Boolean", VariableType::boolean},
                                  std::pair{"String", VariableType::string},
                                  std::pair{"Enumeration", VariableType::enumeration}};

void read_no_element(const pugi::xml_node& /*node*/, CoSimulationCapabilities& /*c*/) {}
void read_no_element(const pugi::xml_node& /*node*/, ModelExchangeCapabilities& /*c*/) {}

/// A non-negative integer attribute of the root (0 when absent).
int root_count(const pugi::xml_node& root, const char* attribute, const Reader& reader) {
  const auto count = to_integer(root.attribute(attribute).as_string("0"), 0, 100'000'000);
  if (!count) reader.fail(fmt::format("{} is not a non-negative integer", attribute));
  return static_cast<int>(*count);
}

/// Co-Simulation's Implementation/CoSimulation_StandAlone|CoSimulation_Tool/Capabilities.
void read_implementation(const pugi::xml_node& implementation, const Reader& reader, CoSimulationCapabilities& c) {
  pugi::xml_node kind = implementation.child("CoSimulation_StandAlone");
  if (!kind) {
    kind = implementation.child("CoSimulation_Tool");
    c.needs_execution_tool = true;
  }
  if (!kind) reader.fail("Implementation has neither CoSimulation_StandAlone nor CoSimulation_Tool");
  const pugi::xml_node capabilities = kind.child("Capabilities");
  c.can_handle_variable_step = capabilities.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
  c.can_interpolate_inputs = capabilities.attribute("canInterpolateInputs").as_bool(false);
  c.only_once_per_process = capabilities.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
  const auto max_order = to_integer(capabilities.attribute("maxOutputDerivativeOrder").as_string("0"), 0, 1000);
  if (!max_order) reader.fail("Capabilities maxOutputDerivativeOrder is not a non-negative integer");
  c.max_output_derivative_order = static_cast<int>(*max_order);
}

/// The one interface an FMI 1.0 FMU has, named by the root's modelIdentifier; the root's counts.
void check_interfaces(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  const std::string identifier = root.attribute("modelIdentifier").value();
  if (!is_c_identifier(identifier)) {
    reader.fail(
        fmt::format("fmiModelDescription modelIdentifier=\"{}\" is not a C identifier (FMI 1.0 ME §3.1)", identifier));
  }
  if (const pugi::xml_node implementation = root.child("Implementation")) {
    CoSimulationCapabilities& c = md.co_simulation.emplace();
    c.model_identifier = identifier;
    read_implementation(implementation, reader, c);
  } else {
    md.model_exchange.emplace().model_identifier = identifier;
  }
  md.event_indicator_count = root_count(root, "numberOfEventIndicators", reader);
  md.continuous_state_count = root_count(root, "numberOfContinuousStates", reader);
}

/// TypeDefinitions: <Type name=…> with one of RealType, IntegerType, BooleanType, StringType,
/// EnumerationType (whose Items are numbered 1, 2, … in their order).
void read_type_definitions(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  static constexpr std::array kTags = {
      std::pair{"RealType", VariableType::real}, std::pair{"IntegerType", VariableType::integer},
      std::pair{"BooleanType", VariableType::boolean}, std::pair{"StringType", VariableType::string},
      std::pair{"EnumerationType", VariableType::enumeration}};
  for (const pugi::xml_node node : root.child("TypeDefinitions").children("Type")) {
    SimpleType type;
    type.name = node.attribute("name").value();
    const std::string where = fmt::format("Type '{}'", type.name);
    pugi::xml_node element;
    for (const auto& [tag, kind] : kTags) {
      if (node.child(tag)) std::tie(element, type.type) = std::pair{node.child(tag), kind};
    }
    if (type.name.empty() || !element) reader.fail(fmt::format("{} needs a name and a type element", where));
    type.min = reader.optional_number(element, "min", where);
    type.max = reader.optional_number(element, "max", where);
    if (type.type == VariableType::real) {
      type.unit = element.attribute("unit").value();
      type.nominal = reader.optional_number(element, "nominal", where);
    }
    int value = 1;
    for (const pugi::xml_node item : element.children("Item"))
      type.items.emplace_back(item.attribute("name").value(), value++);
    md.types.push_back(std::move(type));
  }
}

pugi::xml_node type_element(const pugi::xml_node& node, const Reader& /*reader*/, ScalarVariable& v) {
  pugi::xml_node element;
  for (const auto& [tag, kind] : kTypeTags) {
    if (node.child(tag)) std::tie(element, v.type) = std::pair{node.child(tag), kind};
  }
  return element;
}

std::string unnamed(const pugi::xml_node& /*node*/) { return "a ScalarVariable has no name"; }

const char* default_variability(VariableType /*type*/) { return "continuous"; }

/// causality and variability of FMI 1.0, as FMI 2.0's roles (initial is set with the start value).
void read_roles(const pugi::xml_node& node, const Reader& reader, std::string_view where, ScalarVariable& v) {
  static const std::map<std::string, std::string> kCausalities = {
      {"input", "input"}, {"output", "output"}, {"internal", "local"}, {"none", "local"}};
  static const std::unordered_set<std::string> kVariabilities = {"constant", "parameter", "discrete", "continuous"};
  const std::string causality = node.attribute("causality").as_string("internal");
  const std::string variability = node.attribute("variability").as_string("continuous");
  const auto mapped = kCausalities.find(causality);
  if (mapped == kCausalities.end()) reader.fail(fmt::format("{}: unknown causality \"{}\"", where, causality));
  if (!kVariabilities.contains(variability))
    reader.fail(fmt::format("{}: unknown variability \"{}\"", where, variability));
  v.causality = mapped->second;
  v.variability = variability;
  if (variability == "parameter") {
    v.variability = "fixed";
    if (v.causality == "local") v.causality = "parameter";
  }
  v.description = node.attribute("description").value();
  const std::string alias = node.attribute("alias").as_string("noAlias");
  if (alias != "noAlias" && alias != "alias" && alias != "negatedAlias") {
    reader.fail(fmt::format("{}: alias=\"{}\" is none of noAlias, alias, negatedAlias", where, alias));
  }
  v.negated_alias = alias == "negatedAlias";
  v.alias = alias != "noAlias";
}

void check_type(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                const ScalarVariable& /*v*/) {
  if (!element) reader.fail(fmt::format("{} has no type element", where));
}

/// start (a value of the type) and what it makes `initial`: exact, or approx with fixed="false";
/// outputs and locals without one are calculated.
void read_start(const pugi::xml_node& element, std::string_view where, const Reader& reader, ScalarVariable& v) {
  const pugi::xml_attribute start = element.attribute("start");
  if (!start) {
    if (v.causality == "output" || v.causality == "local") v.initial = "calculated";
    return;
  }
  v.start = start.value();
  const std::string_view text = *v.start;
  const bool ok = is_scalar_start(v.type, text);
  if (!ok) reader.fail(fmt::format("{}: start=\"{}\" is not a {} value", where, text, to_string(v.type)));
  if (v.causality != "input") v.initial = element.attribute("fixed").as_bool(true) ? "exact" : "approx";
}

/// An output's DirectDependency: the names of the inputs it depends on, resolved once all are read.
void read_references(const pugi::xml_node& element, std::string_view /*where*/, const Reader& /*reader*/,
                     VariableReading& reading, ScalarVariable& v) {
  const pugi::xml_node dependency = element.parent().child("DirectDependency");
  if (v.causality != "output" || !dependency) return;
  std::vector<std::string>& names = reading.direct_dependencies[reading.names.size() - 1];
  for (const pugi::xml_node name : dependency.children("Name")) names.emplace_back(name.text().get());
}

/// An input may not share its value reference with an output of the same type; a DirectDependency
/// names inputs.
void check_references(const Reader& reader, ModelDescription& md, const VariableReading& reading) {
  check_inputs_apart_from_outputs(reader, md);
  for (const auto& [output, names] : reading.direct_dependencies) {
    for (const std::string& name : names) {
      const int input = md.find(name);
      if (input < 0 || md.variables[static_cast<std::size_t>(input)].causality != "input") {
        reader.fail(fmt::format("output '{}': DirectDependency names '{}', which is not an input",
                                md.variables[output].name, name));
      }
    }
  }
}

/// The outputs, with their DirectDependency as dependencies; FMI 1.0 lists no derivatives and no
/// initial unknowns.
std::vector<Unknown> unknowns(const pugi::xml_node& /*structure*/, const char* tag, const Reader& /*reader*/,
                              const ModelDescription& md, const VariableReading& reading) {
  std::vector<Unknown> list;
  if (std::string_view(tag) != "Outputs") return list;
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    if (md.variables[i].causality != "output") continue;
    Unknown unknown{static_cast<int>(i) + 1, std::nullopt};
    if (const auto it = reading.direct_dependencies.find(i); it != reading.direct_dependencies.end()) {
      std::vector<int>& dependencies = unknown.dependencies.emplace();
      for (const std::string& name : it->second) dependencies.push_back(md.find(name) + 1);
    }
    list.push_back(std::move(unknown));
  }
  return list;
}

const VersionRules& rules() {
  static const VersionRules kRules = {
      .fmi_version = "1.0",
      .binary_folder = "linux64",
      .token_attribute = "guid",
      .root_section = "FMI 1.0 ME §3.1",
      .state_attribute = "canGetAndSetFMUstate",  // no such capability in FMI 1.0: never present
      .directional_attribute = "providesDirectionalDerivative",
      .read_co_simulation = read_no_element,
      .read_model_exchange = read_no_element,
      .check_interfaces = check_interfaces,
      .read_type_definitions = read_type_definitions,
      .variable_tag = "ScalarVariable",
      .variables_section = "FMI 1.0 ME §3.5",
      .causalities = {},
      .unique_value_references = false,
      .type_suffix = "Type",
      .type_element = type_element,
      .unnamed = unnamed,
      .default_variability = default_variability,
      .read_roles = read_roles,
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

}  // namespace cosima::fmi::description::v1

namespace cosima::fmi {

ModelDescription parse_fmi1_model_description(const pugi::xml_node& root, const std::string& source) {
  return description::read_description(root, description::Reader(source), description::v1::rules());
}

}  // namespace cosima::fmi
