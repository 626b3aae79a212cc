#include "fmi/model_description.hpp"

#include <sstream>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "core/error.hpp"

namespace cosima::fmi {

std::string_view to_string(VariableType type) {
  switch (type) {
    case VariableType::real: return "Real";
    case VariableType::integer: return "Integer";
    case VariableType::boolean: return "Boolean";
    case VariableType::string: return "String";
    case VariableType::enumeration: return "Enumeration";
  }
  return "?";
}

int ModelDescription::find(const std::string& name) const {
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (variables[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

std::optional<double> optional_double(const pugi::xml_node& node, const char* attribute) {
  const pugi::xml_attribute a = node.attribute(attribute);
  if (!a) return std::nullopt;
  return a.as_double();
}

std::vector<Unknown> parse_unknowns(const pugi::xml_node& parent, const std::string& source, std::size_t variables,
                                    const char* section) {
  std::vector<Unknown> unknowns;
  for (const pugi::xml_node node : parent.children("Unknown")) {
    Unknown unknown;
    unknown.index = node.attribute("index").as_int(0);
    if (unknown.index < 1 || static_cast<std::size_t>(unknown.index) > variables) {
      throw Error(fmt::format("{}: ModelStructure/{} has an Unknown with index {} outside 1..{}", source, section,
                              unknown.index, variables));
    }
    if (const pugi::xml_attribute deps = node.attribute("dependencies")) {
      std::vector<int> list;
      std::istringstream stream(deps.value());
      int index = 0;
      while (stream >> index) {
        if (index < 1 || static_cast<std::size_t>(index) > variables) {
          throw Error(fmt::format("{}: ModelStructure/{} dependency {} outside 1..{}", source, section, index, variables));
        }
        list.push_back(index);
      }
      unknown.dependencies = std::move(list);
    }
    unknowns.push_back(std::move(unknown));
  }
  return unknowns;
}

}  // namespace

ModelDescription parse_model_description(const std::filesystem::path& xml_file, const std::string& source) {
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_file(xml_file.c_str());
  if (!parsed) {
    throw Error(fmt::format("{}: modelDescription.xml is malformed XML ({} at offset {})", source,
                            parsed.description(), parsed.offset));
  }
  const pugi::xml_node root = document.child("fmiModelDescription");
  if (!root) throw Error(fmt::format("{}: modelDescription.xml has no fmiModelDescription element", source));
  ModelDescription md;
  md.fmi_version = root.attribute("fmiVersion").value();
  if (md.fmi_version != "2.0") {
    throw Error(fmt::format("{}: fmiVersion is '{}', cosima imports FMI 2.0", source, md.fmi_version));
  }
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute("guid").value();
  md.generation_tool = root.attribute("generationTool").value();

  const pugi::xml_node cs = root.child("CoSimulation");
  if (!cs) throw Error(fmt::format("{}: no CoSimulation element (not a Co-Simulation FMU)", source));
  md.co_simulation.model_identifier = cs.attribute("modelIdentifier").value();
  if (md.co_simulation.model_identifier.empty()) {
    throw Error(fmt::format("{}: CoSimulation has no modelIdentifier", source));
  }
  md.co_simulation.can_handle_variable_step = cs.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
  md.co_simulation.can_interpolate_inputs = cs.attribute("canInterpolateInputs").as_bool(false);
  md.co_simulation.max_output_derivative_order = cs.attribute("maxOutputDerivativeOrder").as_int(0);
  md.co_simulation.can_get_and_set_state = cs.attribute("canGetAndSetFMUstate").as_bool(false);
  md.co_simulation.provides_directional_derivative = cs.attribute("providesDirectionalDerivative").as_bool(false);
  md.co_simulation.needs_execution_tool = cs.attribute("needsExecutionTool").as_bool(false);

  if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
    md.default_experiment.start_time = optional_double(experiment, "startTime");
    md.default_experiment.stop_time = optional_double(experiment, "stopTime");
    md.default_experiment.tolerance = optional_double(experiment, "tolerance");
    md.default_experiment.step_size = optional_double(experiment, "stepSize");
  }

  for (const pugi::xml_node node : root.child("ModelVariables").children("ScalarVariable")) {
    ScalarVariable v;
    v.name = node.attribute("name").value();
    if (v.name.empty()) throw Error(fmt::format("{}: a ScalarVariable has no name", source));
    if (!node.attribute("valueReference")) {
      throw Error(fmt::format("{}: variable '{}' has no valueReference", source, v.name));
    }
    v.value_reference = node.attribute("valueReference").as_uint();
    v.causality = node.attribute("causality").as_string("local");
    v.variability = node.attribute("variability").as_string("continuous");
    v.initial = node.attribute("initial").as_string("");
    pugi::xml_node type_node;
    for (const auto& [tag, type] : {std::pair{"Real", VariableType::real}, std::pair{"Integer", VariableType::integer},
                                    std::pair{"Boolean", VariableType::boolean}, std::pair{"String", VariableType::string},
                                    std::pair{"Enumeration", VariableType::enumeration}}) {
      if (node.child(tag)) {
        type_node = node.child(tag);
        v.type = type;
      }
    }
    if (!type_node) throw Error(fmt::format("{}: variable '{}' has no type element", source, v.name));
    if (const pugi::xml_attribute start = type_node.attribute("start")) v.start = start.value();
    if (const pugi::xml_attribute derivative = type_node.attribute("derivative")) v.derivative_of = derivative.as_int();
    md.variables.push_back(std::move(v));
  }

  const pugi::xml_node structure = root.child("ModelStructure");
  md.outputs = parse_unknowns(structure.child("Outputs"), source, md.variables.size(), "Outputs");
  md.derivatives = parse_unknowns(structure.child("Derivatives"), source, md.variables.size(), "Derivatives");
  md.initial_unknowns = parse_unknowns(structure.child("InitialUnknowns"), source, md.variables.size(), "InitialUnknowns");
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(d.index - 1)];
    if (!v.derivative_of || *v.derivative_of < 1 || static_cast<std::size_t>(*v.derivative_of) > md.variables.size()) {
      throw Error(fmt::format("{}: ModelStructure/Derivatives lists '{}', which has no valid 'derivative' attribute",
                              source, v.name));
    }
  }
  return md;
}

}  // namespace cosima::fmi
