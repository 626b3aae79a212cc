#include "fmi/model_description.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

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

const SimpleType* ModelDescription::type_of(const ScalarVariable& variable) const {
  if (variable.declared_type.empty()) return nullptr;
  for (const SimpleType& type : types) {
    if (type.name == variable.declared_type) return &type;
  }
  return nullptr;
}

namespace {

constexpr std::array kTypeTags = {std::pair{"Real", VariableType::real}, std::pair{"Integer", VariableType::integer},
                                  std::pair{"Boolean", VariableType::boolean}, std::pair{"String", VariableType::string},
                                  std::pair{"Enumeration", VariableType::enumeration}};

PortKind kind_of(VariableType type) {
  switch (type) {
    case VariableType::real: return PortKind::real;
    case VariableType::integer: return PortKind::integer;
    case VariableType::boolean: return PortKind::boolean;
    case VariableType::string: return PortKind::string;
    case VariableType::enumeration: return PortKind::enumeration;
  }
  return PortKind::real;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  return text;
}

/// A whole xs:double (strtod must consume everything but surrounding blanks).
std::optional<double> to_double(std::string_view text) {
  const std::string copy(trim(text));
  if (copy.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE) return std::nullopt;
  return value;
}

/// A whole decimal integer in [min, max].
std::optional<long long> to_integer(std::string_view text, long long min, long long max) {
  const std::string copy(trim(text));
  if (copy.empty()) return std::nullopt;
  std::size_t digits_from = copy[0] == '-' || copy[0] == '+' ? 1 : 0;
  if (digits_from == copy.size()) return std::nullopt;
  for (std::size_t i = digits_from; i < copy.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(copy[i])) == 0) return std::nullopt;
  }
  errno = 0;
  const long long value = std::strtoll(copy.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max) return std::nullopt;
  return value;
}

bool is_c_identifier(std::string_view name) {
  if (name.empty() || (std::isalpha(static_cast<unsigned char>(name[0])) == 0 && name[0] != '_')) return false;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

/// Reads and checks the parts of one file; every failure names the FMU and the element.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: modelDescription.xml: {}", source_, what)); }

  std::optional<double> optional_number(const pugi::xml_node& node, const char* attribute, std::string_view where) const {
    const pugi::xml_attribute a = node.attribute(attribute);
    if (!a) return std::nullopt;
    const auto value = to_double(a.value());
    if (!value) fail(fmt::format("{}: {}=\"{}\" is not a number", where, attribute, a.value()));
    return value;
  }

  std::vector<Unknown> unknowns(const pugi::xml_node& parent, std::size_t variables, const char* section) const {
    std::vector<Unknown> list;
    const auto count = static_cast<long long>(variables);
    for (const pugi::xml_node node : parent.children("Unknown")) {
      const auto index = to_integer(node.attribute("index").value(), 1, count);
      if (!index) {
        fail(fmt::format("ModelStructure/{}: Unknown index=\"{}\" is not an integer in 1..{}", section,
                         node.attribute("index").value(), variables));
      }
      Unknown unknown;
      unknown.index = static_cast<int>(*index);
      if (const pugi::xml_attribute deps = node.attribute("dependencies")) {
        std::vector<int> dependencies;
        const std::string_view text = deps.value();
        std::size_t begin = 0;
        while (begin < text.size()) {
          while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
          std::size_t end = begin;
          while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
          if (end == begin) break;
          const auto dependency = to_integer(text.substr(begin, end - begin), 1, count);
          if (!dependency) {
            fail(fmt::format("ModelStructure/{}: Unknown index=\"{}\" has dependency \"{}\", not an integer in 1..{}",
                             section, *index, text.substr(begin, end - begin), variables));
          }
          dependencies.push_back(static_cast<int>(*dependency));
          begin = end;
        }
        unknown.dependencies = std::move(dependencies);
      }
      list.push_back(std::move(unknown));
    }
    return list;
  }

 private:
  const std::string& source_;
};

}  // namespace

const InterfaceCapabilities& ModelDescription::interface_capabilities(FmiInterface which) const {
  if (which == FmiInterface::co_simulation && co_simulation) return *co_simulation;
  if (which == FmiInterface::model_exchange && model_exchange) return *model_exchange;
  throw Error(fmt::format("model '{}' provides no {} interface", model_name, to_string(which)));
}

bool ModelDescription::may_have_discrete_state() const {
  return event_indicator_count > 0 || std::any_of(variables.begin(), variables.end(), [](const ScalarVariable& v) {
           return v.variability == "discrete" && v.causality != "input";
         });
}

std::string_view to_string(FmiInterface interface) {
  return interface == FmiInterface::co_simulation ? "Co-Simulation" : "Model Exchange";
}

PortInfo ModelDescription::port_info(const ScalarVariable& variable) const {
  PortInfo info;
  info.kind = kind_of(variable.type);
  info.continuous = variable.type == VariableType::real && variable.variability == "continuous";
  if (variable.min) info.min = *variable.min;
  if (variable.max) info.max = *variable.max;
  if (variable.type == VariableType::enumeration) {
    info.declared_type = variable.declared_type;
    if (const SimpleType* type = type_of(variable)) {
      for (const auto& item : type->items) info.allowed.push_back(item.second);
    }
  }
  if (variable.start) {
    if (variable.type == VariableType::string) info.start_text = *variable.start;
    else if (variable.type == VariableType::boolean) info.start = *variable.start == "true" || *variable.start == "1" ? 1.0 : 0.0;
    else info.start = to_double(*variable.start);
  }
  return info;
}

ModelDescription parse_model_description(std::string_view xml, const std::string& source) {
  const Reader reader(source);
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    throw Error(fmt::format("{}: modelDescription.xml is malformed XML ({} at offset {})", source,
                            parsed.description(), parsed.offset));
  }
  const pugi::xml_node root = document.child("fmiModelDescription");
  if (!root) reader.fail("no fmiModelDescription element");
  ModelDescription md;
  md.fmi_version = root.attribute("fmiVersion").value();
  if (md.fmi_version != "2.0") {
    throw Error(fmt::format("{}: fmiVersion is '{}', cosima imports FMI 2.0", source, md.fmi_version));
  }
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute("guid").value();
  md.generation_tool = root.attribute("generationTool").value();

  // the interface elements (FMI 2.0 §3.3, §4.3): at least one
  auto common = [&](const pugi::xml_node node, InterfaceCapabilities& c) {
    c.model_identifier = node.attribute("modelIdentifier").value();
    if (!is_c_identifier(c.model_identifier)) {
      reader.fail(fmt::format("{} modelIdentifier=\"{}\" is not a C identifier (FMI 2.0 §2.2.1)", node.name(),
                              c.model_identifier));
    }
    c.can_get_and_set_state = node.attribute("canGetAndSetFMUstate").as_bool(false);
    c.provides_directional_derivative = node.attribute("providesDirectionalDerivative").as_bool(false);
    c.needs_execution_tool = node.attribute("needsExecutionTool").as_bool(false);
  };
  if (const pugi::xml_node cs = root.child("CoSimulation")) {
    CoSimulationCapabilities& c = md.co_simulation.emplace();
    common(cs, c);
    c.can_handle_variable_step = cs.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
    c.can_interpolate_inputs = cs.attribute("canInterpolateInputs").as_bool(false);
    const auto max_order = to_integer(cs.attribute("maxOutputDerivativeOrder").as_string("0"), 0, 1000);
    if (!max_order) reader.fail("CoSimulation maxOutputDerivativeOrder is not a non-negative integer");
    c.max_output_derivative_order = static_cast<int>(*max_order);
  }
  if (const pugi::xml_node me = root.child("ModelExchange")) {
    ModelExchangeCapabilities& c = md.model_exchange.emplace();
    common(me, c);
    c.completed_integrator_step_not_needed = me.attribute("completedIntegratorStepNotNeeded").as_bool(false);
  }
  if (!md.co_simulation && !md.model_exchange) reader.fail("neither a CoSimulation nor a ModelExchange element");
  const auto indicators = to_integer(root.attribute("numberOfEventIndicators").as_string("0"), 0, 100'000'000);
  if (!indicators) reader.fail("numberOfEventIndicators is not a non-negative integer");
  md.event_indicator_count = static_cast<int>(*indicators);

  if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
    md.default_experiment.start_time = reader.optional_number(experiment, "startTime", "DefaultExperiment");
    md.default_experiment.stop_time = reader.optional_number(experiment, "stopTime", "DefaultExperiment");
    md.default_experiment.tolerance = reader.optional_number(experiment, "tolerance", "DefaultExperiment");
    md.default_experiment.step_size = reader.optional_number(experiment, "stepSize", "DefaultExperiment");
  }

  for (const pugi::xml_node node : root.child("TypeDefinitions").children("SimpleType")) {
    SimpleType type;
    type.name = node.attribute("name").value();
    const std::string where = fmt::format("SimpleType '{}'", type.name);
    pugi::xml_node element;
    for (const auto& [tag, kind] : kTypeTags) {
      if (node.child(tag)) {
        element = node.child(tag);
        type.type = kind;
      }
    }
    if (type.name.empty() || !element) reader.fail(fmt::format("{} needs a name and a type element", where));
    type.min = reader.optional_number(element, "min", where);
    type.max = reader.optional_number(element, "max", where);
    for (const pugi::xml_node item : element.children("Item")) {
      const auto value = to_integer(item.attribute("value").value(), std::numeric_limits<int>::min(),
                                    std::numeric_limits<int>::max());
      if (!value) reader.fail(fmt::format("{}: Item '{}' value is not an integer", where, item.attribute("name").value()));
      type.items.emplace_back(item.attribute("name").value(), static_cast<int>(*value));
    }
    md.types.push_back(std::move(type));
  }

  static const std::unordered_set<std::string> kCausalities = {"parameter", "calculatedParameter", "input",
                                                               "output",    "local",               "independent"};
  static const std::unordered_set<std::string> kVariabilities = {"constant", "fixed", "tunable", "discrete", "continuous"};
  std::unordered_set<std::string> names;
  for (const pugi::xml_node node : root.child("ModelVariables").children("ScalarVariable")) {
    ScalarVariable v;
    v.name = node.attribute("name").value();
    if (v.name.empty()) reader.fail("a ScalarVariable has no name");
    const std::string where = fmt::format("variable '{}'", v.name);
    if (!names.insert(v.name).second) reader.fail(fmt::format("two variables are named '{}' (FMI 2.0 §2.2.7)", v.name));
    const auto vr = to_integer(node.attribute("valueReference").value(), 0, std::numeric_limits<unsigned int>::max());
    if (!vr) {
      reader.fail(fmt::format("{}: valueReference=\"{}\" is not a non-negative integer", where,
                              node.attribute("valueReference").value()));
    }
    v.value_reference = static_cast<unsigned int>(*vr);
    v.causality = node.attribute("causality").as_string("local");
    v.variability = node.attribute("variability").as_string("continuous");
    v.initial = node.attribute("initial").as_string("");
    if (!kCausalities.contains(v.causality)) reader.fail(fmt::format("{}: unknown causality \"{}\"", where, v.causality));
    if (!kVariabilities.contains(v.variability)) reader.fail(fmt::format("{}: unknown variability \"{}\"", where, v.variability));
    pugi::xml_node element;
    for (const auto& [tag, type] : kTypeTags) {
      if (node.child(tag)) {
        element = node.child(tag);
        v.type = type;
      }
    }
    if (!element) reader.fail(fmt::format("{} has no type element", where));
    v.declared_type = element.attribute("declaredType").value();
    const SimpleType* declared = md.type_of(v);
    if (!v.declared_type.empty() && (declared == nullptr || declared->type != v.type)) {
      reader.fail(fmt::format("{}: declaredType \"{}\" is not a {} type of TypeDefinitions", where, v.declared_type,
                              to_string(v.type)));
    }
    if (v.type == VariableType::enumeration && declared == nullptr) {
      reader.fail(fmt::format("{}: an Enumeration needs a declaredType", where));
    }
    if (v.type != VariableType::string && v.type != VariableType::boolean) {
      v.min = reader.optional_number(element, "min", where);
      v.max = reader.optional_number(element, "max", where);
      if (!v.min && declared != nullptr) v.min = declared->min;
      if (!v.max && declared != nullptr) v.max = declared->max;
    }
    if (const pugi::xml_attribute start = element.attribute("start")) {
      v.start = start.value();
      const std::string_view text = *v.start;
      const bool ok = v.type == VariableType::string ||
                      (v.type == VariableType::boolean ? text == "true" || text == "false" || text == "1" || text == "0"
                       : v.type == VariableType::real  ? to_double(text).has_value()
                                                       : to_integer(text, std::numeric_limits<int>::min(),
                                                                    std::numeric_limits<int>::max())
                                                             .has_value());
      if (!ok) reader.fail(fmt::format("{}: start=\"{}\" is not a {} value", where, text, to_string(v.type)));
    }
    if (const pugi::xml_attribute derivative = element.attribute("derivative")) {
      const auto index = to_integer(derivative.value(), 1, std::numeric_limits<int>::max());
      if (!index) reader.fail(fmt::format("{}: derivative=\"{}\" is not a variable index", where, derivative.value()));
      v.derivative_of = static_cast<int>(*index);
    }
    md.variables.push_back(std::move(v));
  }
  // an input may not share its value reference with an output of the same type (it would be both)
  std::map<std::pair<VariableType, unsigned int>, const ScalarVariable*> outputs_by_reference;
  for (const ScalarVariable& v : md.variables) {
    if (v.causality == "output") outputs_by_reference.emplace(std::pair{v.type, v.value_reference}, &v);
  }
  for (const ScalarVariable& v : md.variables) {
    if (v.causality != "input") continue;
    const auto it = outputs_by_reference.find({v.type, v.value_reference});
    if (it != outputs_by_reference.end()) {
      reader.fail(fmt::format("input '{}' and output '{}' share the {} valueReference {}", v.name, it->second->name,
                              to_string(v.type), v.value_reference));
    }
  }
  for (const ScalarVariable& v : md.variables) {
    if (v.derivative_of && static_cast<std::size_t>(*v.derivative_of) > md.variables.size()) {
      reader.fail(fmt::format("variable '{}': derivative=\"{}\" is outside 1..{}", v.name, *v.derivative_of,
                              md.variables.size()));
    }
  }

  const pugi::xml_node structure = root.child("ModelStructure");
  md.outputs = reader.unknowns(structure.child("Outputs"), md.variables.size(), "Outputs");
  md.derivatives = reader.unknowns(structure.child("Derivatives"), md.variables.size(), "Derivatives");
  md.initial_unknowns = reader.unknowns(structure.child("InitialUnknowns"), md.variables.size(), "InitialUnknowns");
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(d.index - 1)];
    if (!v.derivative_of) {
      reader.fail(fmt::format("ModelStructure/Derivatives lists '{}', which has no 'derivative' attribute", v.name));
    }
  }
  for (const Unknown& o : md.outputs) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(o.index - 1)];
    if (v.causality != "output") {
      reader.fail(fmt::format("ModelStructure/Outputs lists '{}', whose causality is \"{}\"", v.name, v.causality));
    }
  }
  return md;
}

}  // namespace cosima::fmi
