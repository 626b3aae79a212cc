#include "fmi/common/model_description.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "core/error.hpp"
#include "fmi/common/description_reader.hpp"

namespace cosima::fmi {

std::string_view to_string(VariableType type) {
  switch (type) {
    case VariableType::real: return "Real";
    case VariableType::integer: return "Integer";
    case VariableType::boolean: return "Boolean";
    case VariableType::string: return "String";
    case VariableType::enumeration: return "Enumeration";
    case VariableType::float32: return "Float32";
    case VariableType::int8: return "Int8";
    case VariableType::uint8: return "UInt8";
    case VariableType::int16: return "Int16";
    case VariableType::uint16: return "UInt16";
    case VariableType::uint32: return "UInt32";
    case VariableType::int64: return "Int64";
    case VariableType::uint64: return "UInt64";
    case VariableType::binary: return "Binary";
    case VariableType::clock: return "Clock";
  }
  return "?";
}

std::string_view ModelDescription::type_name(VariableType type) const {
  if (is_fmi3() && type == VariableType::real) return "Float64";
  if (is_fmi3() && type == VariableType::integer) return "Int32";
  return to_string(type);
}

int ModelDescription::find_by_reference(unsigned int value_reference) const {
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (variables[i].value_reference == value_reference) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::size_t> ModelDescription::shape(const ScalarVariable& variable) const {
  std::vector<std::size_t> sizes;
  for (const Dimension& dimension : variable.dimensions) {
    if (dimension.start) {
      sizes.push_back(static_cast<std::size_t>(*dimension.start));
      continue;
    }
    const int index = dimension.value_reference ? find_by_reference(*dimension.value_reference) : -1;
    const ScalarVariable* parameter = index >= 0 ? &variables[static_cast<std::size_t>(index)] : nullptr;
    const auto size =
        parameter != nullptr && parameter->start ? description::to_unsigned(*parameter->start) : std::nullopt;
    if (!size) {
      throw Error(
          fmt::format("model '{}': variable '{}': a Dimension's size is neither a start nor the start of a "
                      "structural parameter",
                      model_name, variable.name));
    }
    sizes.push_back(static_cast<std::size_t>(*size));
  }
  return sizes;
}

std::size_t ModelDescription::element_count(const ScalarVariable& variable) const {
  std::size_t count = 1;
  for (const std::size_t size : shape(variable)) count *= size;
  return count;
}

std::string ModelDescription::element_name(const ScalarVariable& variable, std::size_t element) const {
  if (variable.dimensions.empty()) return variable.name;
  const std::vector<std::size_t> sizes = shape(variable);
  std::vector<std::size_t> index(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {  // row-major: the last index runs fastest (FMI 3.0 §2.2.6.2)
    index[d] = element % sizes[d] + 1;
    element /= sizes[d];
  }
  std::string name = variable.name + "[";
  for (std::size_t d = 0; d < index.size(); ++d) name += fmt::format("{}{}", d > 0 ? "," : "", index[d]);
  return name + "]";
}

std::vector<std::string> ModelDescription::clock_names() const {
  std::vector<std::string> names;
  for (const ScalarVariable& v : variables) {
    if (v.type == VariableType::clock) names.push_back(v.name);
  }
  return names;
}

int ModelDescription::find(const std::string& name) const {
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (variables[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool ModelDescription::declared_twice(const std::string& name) const {
  return std::any_of(variables.begin(), variables.end(),
                     [&](const ScalarVariable& v) { return v.duplicate_of >= 0 && v.name == name; });
}

const ScalarVariable* ModelDescription::alias_base(const ScalarVariable& alias) const {
  if (!alias.alias) return nullptr;
  for (const ScalarVariable& v : variables) {
    if (!v.alias && v.duplicate_of < 0 && v.value_reference == alias.value_reference && v.type == alias.type) return &v;
  }
  return nullptr;
}

const SimpleType* ModelDescription::type_of(const ScalarVariable& variable) const {
  if (variable.declared_type.empty()) return nullptr;
  for (const SimpleType& type : types) {
    if (type.name == variable.declared_type) return &type;
  }
  return nullptr;
}

const UnitDefinition* ModelDescription::unit_named(std::string_view name) const {
  for (const UnitDefinition& unit : units) {
    if (unit.name == name) return &unit;
  }
  return nullptr;
}

namespace {

/// UnitDefinitions (FMI 2.0 §2.2.2, FMI 3.0 §2.4.3; alike in both): each Unit's name and BaseUnit.
std::vector<UnitDefinition> read_unit_definitions(const pugi::xml_node& root, const description::Reader& reader) {
  std::vector<UnitDefinition> units;
  std::unordered_set<std::string> names;
  for (const pugi::xml_node node : root.child("UnitDefinitions").children("Unit")) {
    UnitDefinition unit;
    unit.name = node.attribute("name").value();
    if (unit.name.empty()) reader.fail("UnitDefinitions: a Unit has no name");
    if (!names.insert(unit.name).second)
      reader.fail(fmt::format("UnitDefinitions: unit '{}' is defined twice", unit.name));
    const std::string where = fmt::format("UnitDefinitions: unit '{}': BaseUnit", unit.name);
    if (const pugi::xml_node base = node.child("BaseUnit")) {
      unit.has_base_unit = true;
      for (std::size_t i = 0; i < kBaseUnitNames.size(); ++i) {
        const pugi::xml_attribute a = base.attribute(kBaseUnitNames[i]);
        if (!a) continue;
        const auto exponent =
            description::to_integer(a.value(), std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        if (!exponent) reader.fail(fmt::format("{} {}=\"{}\" is not an integer", where, kBaseUnitNames[i], a.value()));
        unit.exponents[i] = static_cast<int>(*exponent);
      }
      // factor and offset: finite, and a factor of 0 would make every value the offset
      if (const pugi::xml_attribute a = base.attribute("factor")) {
        const auto factor = description::to_double(a.value());
        if (!factor || !std::isfinite(*factor) || *factor == 0.0)
          reader.fail(fmt::format("{} factor=\"{}\" is not a finite, non-zero number", where, a.value()));
        unit.factor = *factor;
      }
      if (const pugi::xml_attribute a = base.attribute("offset")) {
        const auto offset = description::to_double(a.value());
        if (!offset || !std::isfinite(*offset))
          reader.fail(fmt::format("{} offset=\"{}\" is not a finite number", where, a.value()));
        unit.offset = *offset;
      }
    }
    units.push_back(std::move(unit));
  }
  return units;
}

/// The range of an integer type (FMI 3.0 §2.4.7.4); Int64/UInt64 as far as a double carries them.
std::pair<double, double> integer_range(VariableType type) {
  switch (type) {
    case VariableType::int8: return {-128.0, 127.0};
    case VariableType::uint8: return {0.0, 255.0};
    case VariableType::int16: return {-32768.0, 32767.0};
    case VariableType::uint16: return {0.0, 65535.0};
    case VariableType::uint32: return {0.0, 4294967295.0};
    case VariableType::int64: return {-9223372036854775808.0, 9223372036854775807.0};
    case VariableType::uint64: return {0.0, 18446744073709551615.0};
    default: return {-2147483648.0, 2147483647.0};
  }
}

}  // namespace

namespace description {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  return text;
}

std::optional<double> to_double(std::string_view text) {
  const std::string copy(trim(text));
  if (copy.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE) return std::nullopt;
  return value;
}

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

void Reader::fail(const std::string& what) const {
  throw Error(fmt::format("{}: modelDescription.xml: {}", source_, what));
}

void Reader::roles(const pugi::xml_node& node, const std::unordered_set<std::string>& causalities,
                   const char* default_variability, std::string_view where, ScalarVariable& v) const {
  static const std::unordered_set<std::string> kVariabilities = {"constant", "fixed", "tunable", "discrete",
                                                                 "continuous"};
  v.causality = node.attribute("causality").as_string("local");
  v.variability = node.attribute("variability").as_string(default_variability);
  v.initial = node.attribute("initial").as_string("");
  v.description = node.attribute("description").value();
  if (!causalities.contains(v.causality)) fail(fmt::format("{}: unknown causality \"{}\"", where, v.causality));
  if (!kVariabilities.contains(v.variability))
    fail(fmt::format("{}: unknown variability \"{}\"", where, v.variability));
}

std::optional<double> Reader::optional_number(const pugi::xml_node& node, const char* attribute,
                                              std::string_view where) const {
  const pugi::xml_attribute a = node.attribute(attribute);
  if (!a) return std::nullopt;
  const auto value = to_double(a.value());
  if (!value) fail(fmt::format("{}: {}=\"{}\" is not a number", where, attribute, a.value()));
  return value;
}

std::vector<Unknown> Reader::unknowns(const pugi::xml_node& parent, std::size_t variables, const char* section) const {
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
      for (const std::string_view word : words(deps.value())) {
        const auto dependency = to_integer(word, 1, count);
        if (!dependency) {
          fail(fmt::format("ModelStructure/{}: Unknown index=\"{}\" has dependency \"{}\", not an integer in 1..{}",
                           section, *index, word, variables));
        }
        dependencies.push_back(static_cast<int>(*dependency));
      }
      unknown.dependencies = std::move(dependencies);
    }
    list.push_back(std::move(unknown));
  }
  return list;
}

std::optional<unsigned long long> to_unsigned(std::string_view text) {
  const std::string copy(trim(text));
  if (copy.empty() || copy.size() > 20) return std::nullopt;
  for (char c : copy) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
  }
  errno = 0;
  const unsigned long long value = std::strtoull(copy.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return value;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> list;
  std::size_t begin = 0;
  while (begin < text.size()) {
    while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
    std::size_t end = begin;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
    if (end > begin) list.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return list;
}

bool is_integer_type(VariableType type) {
  switch (type) {
    case VariableType::integer:
    case VariableType::int8:
    case VariableType::uint8:
    case VariableType::int16:
    case VariableType::uint16:
    case VariableType::uint32:
    case VariableType::int64:
    case VariableType::uint64:
    case VariableType::enumeration: return true;
    default: return false;
  }
}

bool is_float_type(VariableType type) { return type == VariableType::real || type == VariableType::float32; }

bool is_scalar_start(VariableType type, std::string_view text) {
  switch (type) {
    case VariableType::string: return true;
    case VariableType::boolean: return text == "true" || text == "false" || text == "1" || text == "0";
    case VariableType::real: return to_double(text).has_value();
    default: return to_integer(text, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()).has_value();
  }
}

void check_inputs_apart_from_outputs(const Reader& reader, const ModelDescription& md) {
  std::map<std::pair<VariableType, unsigned int>, const ScalarVariable*> outputs_by_reference;
  for (const ScalarVariable& v : md.variables) {
    if (v.causality == "output") outputs_by_reference.emplace(std::pair{v.type, v.value_reference}, &v);
  }
  for (const ScalarVariable& v : md.variables) {
    if (v.causality != "input") continue;
    const auto it = outputs_by_reference.find({v.type, v.value_reference});
    if (it != outputs_by_reference.end() && !v.alias && !it->second->alias) {  // FMI 1.0: an alias is one variable
      reader.fail(fmt::format("input '{}' and output '{}' share the {} valueReference {}", v.name, it->second->name,
                              to_string(v.type), v.value_reference));
    }
  }
}

void read_type_attributes(const pugi::xml_node& element, bool has_range, std::string_view where, const Reader& reader,
                          SimpleType& type) {
  if (has_range) {
    type.min = reader.optional_number(element, "min", where);
    type.max = reader.optional_number(element, "max", where);
  }
  if (is_float_type(type.type)) {
    type.unit = element.attribute("unit").value();
    type.nominal = reader.optional_number(element, "nominal", where);
  }
  for (const pugi::xml_node item : element.children("Item")) {
    const auto value =
        to_integer(item.attribute("value").value(), std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (!value)
      reader.fail(fmt::format("{}: Item '{}' value is not an integer", where, item.attribute("name").value()));
    type.items.emplace_back(item.attribute("name").value(), static_cast<int>(*value));
  }
}

namespace {

/// The root's attributes (FMI 2.0 §2.2.1, FMI 3.0 §2.4.1).
void read_header(const pugi::xml_node& root, const VersionRules& rules, ModelDescription& md) {
  md.fmi_version = rules.fmi_version;
  md.binary_folder = rules.binary_folder;
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute(rules.token_attribute).value();
  md.generation_tool = root.attribute("generationTool").value();
  md.description = root.attribute("description").value();
}

/// The attributes every interface element carries (FMI 2.0 §3.3, §4.3; FMI 3.0 §3.2, §4.2, §5.2).
void read_common_interface(const pugi::xml_node& node, const Reader& reader, const VersionRules& rules,
                           InterfaceCapabilities& c) {
  c.model_identifier = node.attribute("modelIdentifier").value();
  if (!is_c_identifier(c.model_identifier)) {
    reader.fail(fmt::format("{} modelIdentifier=\"{}\" is not a C identifier ({})", node.name(), c.model_identifier,
                            rules.root_section));
  }
  c.can_get_and_set_state = node.attribute(rules.state_attribute).as_bool(false);
  c.provides_directional_derivative = node.attribute(rules.directional_attribute).as_bool(false);
  c.needs_execution_tool = node.attribute("needsExecutionTool").as_bool(false);
  c.only_once_per_process = node.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
}

/// The interface elements: CoSimulation, ModelExchange (what both versions give them, then what the
/// version adds), then the version's check of which are there.
void read_interfaces(const pugi::xml_node& root, const Reader& reader, const VersionRules& rules,
                     ModelDescription& md) {
  if (const pugi::xml_node cs = root.child("CoSimulation")) {
    CoSimulationCapabilities& c = md.co_simulation.emplace();
    read_common_interface(cs, reader, rules, c);
    c.can_handle_variable_step = cs.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
    const auto max_order = to_integer(cs.attribute("maxOutputDerivativeOrder").as_string("0"), 0, 1000);
    if (!max_order) reader.fail("CoSimulation maxOutputDerivativeOrder is not a non-negative integer");
    c.max_output_derivative_order = static_cast<int>(*max_order);
    rules.read_co_simulation(cs, c);
  }
  if (const pugi::xml_node me = root.child("ModelExchange")) {
    ModelExchangeCapabilities& c = md.model_exchange.emplace();
    read_common_interface(me, reader, rules, c);
    rules.read_model_exchange(me, c);
  }
  rules.check_interfaces(root, reader, md);
}

/// DefaultExperiment (alike in both versions): each attribute, when there, a number.
DefaultExperiment read_default_experiment(const pugi::xml_node& root, const Reader& reader) {
  DefaultExperiment experiment;
  if (const pugi::xml_node node = root.child("DefaultExperiment")) {
    experiment.start_time = reader.optional_number(node, "startTime", "DefaultExperiment");
    experiment.stop_time = reader.optional_number(node, "stopTime", "DefaultExperiment");
    experiment.tolerance = reader.optional_number(node, "tolerance", "DefaultExperiment");
    experiment.step_size = reader.optional_number(node, "stepSize", "DefaultExperiment");
  }
  return experiment;
}

/// A variable's declaredType (a SimpleType of its own type; an Enumeration needs one), and what it
/// takes from that type when it does not give it itself: min and max (integers and floats), unit and
/// nominal (floats).
void read_declared_type(const pugi::xml_node& element, std::string_view where, const Reader& reader,
                        const char* type_suffix, const ModelDescription& md, ScalarVariable& v) {
  v.declared_type = element.attribute("declaredType").value();
  const SimpleType* declared = md.type_of(v);
  if (!v.declared_type.empty() && (declared == nullptr || declared->type != v.type)) {
    reader.fail(fmt::format("{}: declaredType \"{}\" is not a {}{} of TypeDefinitions", where, v.declared_type,
                            element.name(), type_suffix));
  }
  if (v.type == VariableType::enumeration && declared == nullptr) {
    reader.fail(fmt::format("{}: an Enumeration needs a declaredType", where));
  }
  if (is_integer_type(v.type) || is_float_type(v.type)) {
    v.min = reader.optional_number(element, "min", where);
    v.max = reader.optional_number(element, "max", where);
    if (!v.min && declared != nullptr) v.min = declared->min;
    if (!v.max && declared != nullptr) v.max = declared->max;
  }
  if (is_float_type(v.type)) {
    v.unit = element.attribute("unit").value();
    if (v.unit.empty() && declared != nullptr) v.unit = declared->unit;
    v.nominal = reader.optional_number(element, "nominal", where);
    if (!v.nominal && declared != nullptr) v.nominal = declared->nominal;
  }
}

/// One variable (FMI 2.0 §2.2.7, FMI 3.0 §2.4.7): its type element, name (unique), value reference,
/// roles, declared type, start and references, each checked as it is read.
ScalarVariable read_variable(const pugi::xml_node& node, const Reader& reader, const VersionRules& rules,
                             const ModelDescription& md, VariableReading& reading) {
  ScalarVariable v;
  const pugi::xml_node element = rules.type_element(node, reader, v);
  v.name = node.attribute("name").value();
  if (v.name.empty()) reader.fail(rules.unnamed(node));
  const std::string where = fmt::format("variable '{}'", v.name);
  if (!reading.names.insert(v.name).second) v.duplicate_of = md.find(v.name);
  const auto vr = to_integer(node.attribute("valueReference").value(), 0, std::numeric_limits<unsigned int>::max());
  if (!vr) {
    reader.fail(fmt::format("{}: valueReference=\"{}\" is not a non-negative integer", where,
                            node.attribute("valueReference").value()));
  }
  v.value_reference = static_cast<unsigned int>(*vr);
  if (rules.unique_value_references && !reading.by_reference.emplace(v.value_reference, md.variables.size()).second) {
    reader.fail(fmt::format("{}: valueReference {} is already '{}''s ({}: unique)", where, *vr,
                            md.variables[reading.by_reference.at(v.value_reference)].name, rules.variables_section));
  }
  if (rules.read_roles != nullptr) {
    rules.read_roles(node, reader, where, v);
  } else {
    reader.roles(node, rules.causalities, rules.default_variability(v.type), where, v);
  }
  rules.check_type(element, where, reader, v);
  read_declared_type(element, where, reader, rules.type_suffix, md, v);
  rules.read_start(element, where, reader, v);
  rules.read_references(element, where, reader, reading, v);
  return v;
}

/// ModelVariables: the variables in their order (indices count from 1 in it).
void read_variables(const pugi::xml_node& root, const Reader& reader, const VersionRules& rules, ModelDescription& md,
                    VariableReading& reading) {
  for (const pugi::xml_node node : root.child("ModelVariables").children()) {
    if (rules.variable_tag != nullptr && std::string_view(node.name()) != rules.variable_tag) continue;
    md.variables.push_back(read_variable(node, reader, rules, md, reading));
  }
  // a name declared twice: tolerated (the first declaration counts) unless it names a port, which
  // connections and the results would have to choose between
  for (const ScalarVariable& v : md.variables) {
    if (v.duplicate_of < 0) continue;
    const ScalarVariable& first = md.variables[static_cast<std::size_t>(v.duplicate_of)];
    for (const ScalarVariable* port : {&first, &v}) {
      if (port->causality == "input" || port->causality == "output") {
        reader.fail(
            fmt::format("two variables are named '{}' ({}), and one is an {}: which port is meant would be a "
                        "guess",
                        v.name, rules.variables_section, port->causality));
      }
    }
  }
}

/// ModelStructure (FMI 2.0 §2.2.8, FMI 3.0 §2.4.8): the outputs, the derivatives, the initial unknowns,
/// and where the version lists them there, the event indicators (each element of an array one).
void read_model_structure(const pugi::xml_node& root, const Reader& reader, const VersionRules& rules,
                          ModelDescription& md, const VariableReading& reading) {
  const pugi::xml_node structure = root.child("ModelStructure");
  md.outputs = rules.unknowns(structure, rules.outputs_tag, reader, md, reading);
  md.derivatives = rules.unknowns(structure, rules.derivatives_tag, reader, md, reading);
  md.initial_unknowns = rules.unknowns(structure, rules.initial_unknowns_tag, reader, md, reading);
  if (rules.event_indicators_tag == nullptr) return;
  for (const Unknown& indicator : rules.unknowns(structure, rules.event_indicators_tag, reader, md, reading)) {
    md.event_indicator_count +=
        static_cast<int>(md.element_count(md.variables[static_cast<std::size_t>(indicator.index - 1)]));
  }
}

/// What ModelStructure lists is what the variables say: each derivative has a derivative= attribute,
/// each output the causality output.
void check_model_structure(const Reader& reader, const VersionRules& rules, const ModelDescription& md) {
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(d.index - 1)];
    if (!v.derivative_of) {
      reader.fail(fmt::format("ModelStructure/{} lists '{}', which has no 'derivative' attribute",
                              rules.derivatives_tag, v.name));
    }
  }
  for (const Unknown& o : md.outputs) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(o.index - 1)];
    if (v.causality != "output") {
      reader.fail(fmt::format("ModelStructure/{} lists '{}', whose causality is \"{}\"", rules.outputs_tag, v.name,
                              v.causality));
    }
  }
}

}  // namespace

ModelDescription read_description(const pugi::xml_node& root, const Reader& reader, const VersionRules& rules) {
  ModelDescription md;
  read_header(root, rules, md);
  read_interfaces(root, reader, rules, md);
  md.default_experiment = read_default_experiment(root, reader);
  rules.read_type_definitions(root, reader, md);
  VariableReading reading;
  read_variables(root, reader, rules, md, reading);
  rules.check_references(reader, md, reading);
  read_model_structure(root, reader, rules, md, reading);
  check_model_structure(reader, rules, md);
  return md;
}

}  // namespace description

using description::Reader;
using description::to_double;

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

PortInfo ModelDescription::port_info(const ScalarVariable& variable, std::size_t element) const {
  PortInfo info;
  info.kind = port_kind(variable.type);
  const bool is_float = variable.type == VariableType::real || variable.type == VariableType::float32;
  info.continuous = is_float && variable.variability == "continuous";
  std::tie(info.integer_min, info.integer_max) = integer_range(variable.type);
  if (variable.min) info.min = *variable.min;
  if (variable.max) info.max = *variable.max;
  if (is_float) info.nominal = variable.nominal;
  if (variable.type == VariableType::enumeration) {
    info.declared_type = variable.declared_type;
    if (const SimpleType* type = type_of(variable)) {
      for (const auto& item : type->items) {
        info.allowed.push_back(item.second);
        info.item_names.push_back(item.first);
      }
    }
  }
  std::optional<std::string> start;
  if (!variable.start_values.empty()) {
    start = variable.start_values[std::min(element, variable.start_values.size() - 1)];
  } else {
    start = variable.start;
  }
  if (start) {
    if (info.kind == PortKind::string)
      info.start_text = *start;
    else if (variable.type == VariableType::boolean)
      info.start = *start == "true" || *start == "1" ? 1.0 : 0.0;
    else
      info.start = to_double(*start);
  }
  info.wide = variable.type == VariableType::int64 || variable.type == VariableType::uint64;
  if (info.wide && start) info.wide_start = WideInteger::parse(description::trim(*start));
  return info;
}

ModelDescription parse_model_description(std::string_view xml, const std::string& source) {
  const Reader reader(source);
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    throw Error(fmt::format("{}: modelDescription.xml is malformed XML ({} at offset {})", source, parsed.description(),
                            parsed.offset));
  }
  const pugi::xml_node root = document.child("fmiModelDescription");
  if (!root) reader.fail("no fmiModelDescription element");
  const std::string version = root.attribute("fmiVersion").value();
  if (version == "3.0" || version.starts_with("3.0.")) {
    ModelDescription md = parse_fmi3_model_description(root, source);
    md.units = read_unit_definitions(root, reader);
    return md;
  }
  if (version == "1.0") return parse_fmi1_model_description(root, source);  // UnitDefinitions: display only
  if (version != "2.0") {
    throw Error(fmt::format("{}: fmiVersion is '{}', cosima imports FMI 1.0, 2.0 and 3.0", source, version));
  }
  // FMI 2.0's UnitDefinitions are checked before the rest of the description, FMI 3.0's after it
  std::vector<UnitDefinition> units = read_unit_definitions(root, reader);
  ModelDescription md = parse_fmi2_model_description(root, source);
  md.units = std::move(units);
  return md;
}

PortKind port_kind(VariableType type) {
  if (type == VariableType::enumeration) return PortKind::enumeration;
  if (type == VariableType::boolean || type == VariableType::clock) return PortKind::boolean;
  if (type == VariableType::string || type == VariableType::binary) return PortKind::string;  // Binary: hex text
  return description::is_integer_type(type) ? PortKind::integer : PortKind::real;             // Float64, Float32: real
}

}  // namespace cosima::fmi
