// modelDescription.xml of an FMI 3.0 FMU (FMI 3.0 §2.4): what it differs in from FMI 2.0, as the
// VersionRules read_description (model_description.cpp) reads it by: typed variable elements
// (<Float64>, <Int8>, … with <Dimension> children), unique value references, ModelStructure by value
// reference (turned into 1-based indices here), the EventIndicator elements, the interface elements'
// FMI 3.0 attributes.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fmi/common/description_reader.hpp"

namespace cosima::fmi::description::v3 {

namespace {

/// FMI 3.0 §2.4.7: the variable elements and their TypeDefinitions counterparts.
constexpr std::array kVariableTags = {
    std::pair{"Float64", VariableType::real},    std::pair{"Float32", VariableType::float32},
    std::pair{"Int8", VariableType::int8},       std::pair{"UInt8", VariableType::uint8},
    std::pair{"Int16", VariableType::int16},     std::pair{"UInt16", VariableType::uint16},
    std::pair{"Int32", VariableType::integer},   std::pair{"UInt32", VariableType::uint32},
    std::pair{"Int64", VariableType::int64},     std::pair{"UInt64", VariableType::uint64},
    std::pair{"Boolean", VariableType::boolean}, std::pair{"String", VariableType::string},
    std::pair{"Binary", VariableType::binary},   std::pair{"Enumeration", VariableType::enumeration},
    std::pair{"Clock", VariableType::clock}};

std::optional<VariableType> variable_type(std::string_view tag) {
  for (const auto& [name, type] : kVariableTags) {
    if (tag == name) return type;
  }
  return std::nullopt;
}

/// The most elements an array variable may have (each is a port).
constexpr std::size_t kMaxArrayElements = 1'000'000;

bool is_hex(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  return text.size() % 2 == 0 && std::all_of(text.begin(), text.end(),
                                             [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

/// Whether one start value is a value of the type.
bool valid_start(VariableType type, std::string_view text) {
  switch (type) {
    case VariableType::real:
    case VariableType::float32: return to_double(text).has_value();
    case VariableType::boolean: return text == "true" || text == "false" || text == "1" || text == "0";
    case VariableType::string: return true;
    case VariableType::binary: return is_hex(text);
    case VariableType::clock: return text == "true" || text == "false" || text == "1" || text == "0";
    case VariableType::uint64: return to_unsigned(text).has_value();
    default:
      return text.starts_with('-') ? to_integer(text, std::numeric_limits<long long>::min(), 0).has_value()
                                   : to_unsigned(text).has_value();
  }
}

void read_co_simulation(const pugi::xml_node& node, CoSimulationCapabilities& c) {
  c.has_event_mode = node.attribute("hasEventMode").as_bool(false);
  c.might_return_early = node.attribute("mightReturnEarlyFromDoStep").as_bool(false);
  c.provides_intermediate_update = node.attribute("providesIntermediateUpdate").as_bool(false);
}

void read_model_exchange(const pugi::xml_node& node, ModelExchangeCapabilities& c) {
  // fmi3ModelExchange.xsd: needsCompletedIntegratorStep defaults to false
  c.completed_integrator_step_not_needed = !node.attribute("needsCompletedIntegratorStep").as_bool(false);
}

/// At least one interface element, ScheduledExecution among them.
void check_interfaces(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  md.scheduled_execution = static_cast<bool>(root.child("ScheduledExecution"));
  if (!md.co_simulation && !md.model_exchange && !md.scheduled_execution) {
    reader.fail("none of CoSimulation, ModelExchange, ScheduledExecution");
  }
}

/// TypeDefinitions (§2.4.4): <Float64Type name=…>, <EnumerationType name=…><Item …/></EnumerationType>, …
void read_type_definitions(const pugi::xml_node& root, const Reader& reader, ModelDescription& md) {
  for (const pugi::xml_node node : root.child("TypeDefinitions").children()) {
    std::string_view tag = node.name();
    if (!tag.ends_with("Type")) continue;
    tag.remove_suffix(4);
    const auto type = variable_type(tag);
    if (!type) continue;  // unknown types are not cosima's concern until a variable uses them
    SimpleType simple;
    simple.name = node.attribute("name").value();
    simple.type = *type;
    const std::string where = fmt::format("{} '{}'", node.name(), simple.name);
    if (simple.name.empty()) reader.fail(fmt::format("a {} has no name", node.name()));
    read_type_attributes(node, is_integer_type(*type) || is_float_type(*type), where, reader, simple);
    md.types.push_back(std::move(simple));
  }
}

/// A variable is an element named after its type (<Float64 …/>, §2.4.7); any other child of
/// ModelVariables is refused.
pugi::xml_node type_element(const pugi::xml_node& node, const Reader& reader, ScalarVariable& v) {
  const auto type = variable_type(node.name());
  if (!type) reader.fail(fmt::format("ModelVariables has an unknown element <{}>", node.name()));
  v.type = *type;
  return node;
}

std::string unnamed(const pugi::xml_node& node) { return fmt::format("a <{}> variable has no name", node.name()); }

/// §2.4.7.4: continuous by default for floats, discrete for every other type
const char* default_variability(VariableType type) { return is_float_type(type) ? "continuous" : "discrete"; }

void check_type(const pugi::xml_node& element, std::string_view where, const Reader& reader, const ScalarVariable& v) {
  if (!is_float_type(v.type) && v.variability == "continuous") {
    reader.fail(fmt::format("{}: a {} cannot be continuous (FMI 3.0 §2.4.7.4)", where, element.name()));
  }
}

/// start: an attribute of blank-separated values, or <Start value=…/> children (String, Binary); each a
/// value of the type.
void read_start(const pugi::xml_node& node, std::string_view where, const Reader& reader, ScalarVariable& v) {
  if (const pugi::xml_attribute start = node.attribute("start")) {
    v.start = start.value();
    if (v.type == VariableType::string) {
      v.start_values.emplace_back(start.value());
    } else {
      for (const std::string_view word : words(start.value())) v.start_values.emplace_back(word);
    }
  }
  for (const pugi::xml_node start : node.children("Start"))
    v.start_values.emplace_back(start.attribute("value").value());
  if (!v.start && !v.start_values.empty()) v.start = v.start_values.front();
  for (const std::string& value : v.start_values) {
    if (!valid_start(v.type, value))
      reader.fail(fmt::format("{}: start \"{}\" is not a {} value", where, value, node.name()));
  }
}

/// A Dimension of an array variable (§2.4.7.2): its size, or the value reference of the structural
/// parameter that is.
Dimension read_dimension(const pugi::xml_node& dimension, std::string_view where, const Reader& reader) {
  Dimension d;
  if (dimension.attribute("start") && dimension.attribute("valueReference")) {
    reader.fail(fmt::format("{}: a Dimension has start or valueReference, not both (FMI 3.0 §2.4.7.2)", where));
  }
  if (const pugi::xml_attribute start = dimension.attribute("start")) {
    const auto size = to_unsigned(start.value());
    if (!size)
      reader.fail(fmt::format("{}: Dimension start=\"{}\" is not a non-negative integer", where, start.value()));
    d.start = *size;
  } else if (const pugi::xml_attribute reference = dimension.attribute("valueReference")) {
    const auto of = to_integer(reference.value(), 0, std::numeric_limits<unsigned int>::max());
    if (!of)
      reader.fail(
          fmt::format("{}: Dimension valueReference=\"{}\" is not a value reference", where, reference.value()));
    d.value_reference = static_cast<unsigned int>(*of);
  } else {
    reader.fail(fmt::format("{}: a Dimension needs start or valueReference (FMI 3.0 §2.4.7.2)", where));
  }
  return d;
}

/// derivative= and clocks= (value references, made indices once every variable is read), the Dimensions.
void read_references(const pugi::xml_node& node, std::string_view where, const Reader& reader, VariableReading& reading,
                     ScalarVariable& v) {
  if (const pugi::xml_attribute derivative = node.attribute("derivative")) {
    const auto of = to_integer(derivative.value(), 0, std::numeric_limits<unsigned int>::max());
    if (!of) reader.fail(fmt::format("{}: derivative=\"{}\" is not a value reference", where, derivative.value()));
    reading.derivative_references.emplace_back(static_cast<unsigned int>(*of));
  } else {
    reading.derivative_references.emplace_back();
  }
  for (const std::string_view clock : words(node.attribute("clocks").value())) {
    const auto reference = to_integer(clock, 0, std::numeric_limits<unsigned int>::max());
    if (!reference) reader.fail(fmt::format("{}: clocks=\"{}\" is not a list of value references", where, clock));
    v.clocks.push_back(static_cast<unsigned int>(*reference));
  }
  for (const pugi::xml_node dimension : node.children("Dimension"))
    v.dimensions.push_back(read_dimension(dimension, where, reader));
}

/// The 1-based index of the variable with the value reference; `what` refers to it.
int index_of(const VariableReading& reading, unsigned int reference, const std::string& what, const Reader& reader) {
  const auto it = reading.by_reference.find(reference);
  if (it == reading.by_reference.end())
    reader.fail(fmt::format("{} refers to valueReference {}, which no variable has", what, reference));
  return static_cast<int>(it->second) + 1;
}

/// The structural parameter a Dimension of `v` refers to: a scalar integer whose start, the size, lies
/// in its own range.
void check_dimension(const Reader& reader, const ModelDescription& md, const VariableReading& reading,
                     const ScalarVariable& v, unsigned int reference) {
  const ScalarVariable& size = md.variables[static_cast<std::size_t>(
      index_of(reading, reference, fmt::format("variable '{}': Dimension", v.name), reader) - 1)];
  if (!is_integer_type(size.type) || size.type == VariableType::enumeration || !size.dimensions.empty()) {
    reader.fail(fmt::format("variable '{}': Dimension refers to '{}', not a scalar integer", v.name, size.name));
  }
  // the size is the structural parameter's start: it must lie in the parameter's own range
  const std::optional<long long> start =
      size.start ? to_integer(*size.start, 0, std::numeric_limits<long long>::max()) : std::nullopt;
  if (start && ((size.min && static_cast<double>(*start) < *size.min) ||
                (size.max && static_cast<double>(*start) > *size.max))) {
    reader.fail(fmt::format("variable '{}': its Dimension '{}' = {} is outside [{}, {}]", v.name, size.name, *start,
                            size.min.value_or(0.0), size.max.value_or(std::numeric_limits<double>::infinity())));
  }
}

/// An array's shape resolves, its element count is bounded, and its start values fit the count.
void check_elements(const Reader& reader, const ModelDescription& md, const ScalarVariable& v) {
  std::vector<std::size_t> shape;
  try {
    shape = md.shape(v);
  } catch (const Error&) {
    reader.fail(
        fmt::format("variable '{}': a Dimension refers to a structural parameter without an integer start", v.name));
  }
  // every element becomes a port: bound the count (and keep the product from overflowing)
  std::size_t elements = 1;
  for (const std::size_t size : shape) {
    if (size != 0 && elements > kMaxArrayElements / size) {
      reader.fail(fmt::format("variable '{}' has more than {} elements", v.name, kMaxArrayElements));
    }
    elements *= size;
  }
  // an array's start values: one for every element (or a single one, repeated, as cosima has read them)
  if (!shape.empty() && v.start_values.size() > 1 && v.start_values.size() != elements) {
    reader.fail(
        fmt::format("variable '{}' has {} start values for its {} elements", v.name, v.start_values.size(), elements));
  }
}

/// References to indices, variable by variable: derivative=, Dimension valueReference=, clocks=; then
/// the variable's elements.
void check_references(const Reader& reader, ModelDescription& md, const VariableReading& reading) {
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    ScalarVariable& v = md.variables[i];
    if (reading.derivative_references[i]) {
      v.derivative_of = index_of(reading, *reading.derivative_references[i],
                                 fmt::format("variable '{}': derivative", v.name), reader);
    }
    for (const Dimension& d : v.dimensions) {
      if (d.value_reference) check_dimension(reader, md, reading, v, *d.value_reference);
    }
    for (const unsigned int clock : v.clocks) {
      const ScalarVariable& c = md.variables[static_cast<std::size_t>(
          index_of(reading, clock, fmt::format("variable '{}': clocks", v.name), reader) - 1)];
      if (c.type != VariableType::clock)
        reader.fail(fmt::format("variable '{}': clocks names '{}', not a Clock", v.name, c.name));
    }
    check_elements(reader, md, v);
  }
}

/// ModelStructure (§2.4.8): the <tag valueReference=… dependencies=…/> children, references made indices.
std::vector<Unknown> unknowns(const pugi::xml_node& structure, const char* tag, const Reader& reader,
                              const ModelDescription& /*md*/, const VariableReading& reading) {
  std::vector<Unknown> list;
  for (const pugi::xml_node node : structure.children(tag)) {
    const auto reference =
        to_integer(node.attribute("valueReference").value(), 0, std::numeric_limits<unsigned int>::max());
    if (!reference) {
      reader.fail(fmt::format("ModelStructure/{}: valueReference=\"{}\" is not a value reference", tag,
                              node.attribute("valueReference").value()));
    }
    Unknown unknown;
    unknown.index =
        index_of(reading, static_cast<unsigned int>(*reference), fmt::format("ModelStructure/{}", tag), reader);
    if (const pugi::xml_attribute deps = node.attribute("dependencies")) {
      std::vector<int> dependencies;
      for (const std::string_view word : words(deps.value())) {
        const auto dependency = to_integer(word, 0, std::numeric_limits<unsigned int>::max());
        if (!dependency)
          reader.fail(fmt::format("ModelStructure/{}: dependency \"{}\" is not a value reference", tag, word));
        dependencies.push_back(index_of(reading, static_cast<unsigned int>(*dependency),
                                        fmt::format("ModelStructure/{} dependencies", tag), reader));
      }
      unknown.dependencies = std::move(dependencies);
    }
    list.push_back(std::move(unknown));
  }
  return list;
}

/// FMI 3.0's part of the reading.
const VersionRules& rules() {
  static const VersionRules kRules = {
      .fmi_version = "3.0",
      .binary_folder = "x86_64-linux",
      .token_attribute = "instantiationToken",
      .root_section = "FMI 3.0 §2.4.1",
      .state_attribute = "canGetAndSetFMUState",
      .directional_attribute = "providesDirectionalDerivatives",
      .read_co_simulation = read_co_simulation,
      .read_model_exchange = read_model_exchange,
      .check_interfaces = check_interfaces,
      .read_type_definitions = read_type_definitions,
      .variable_tag = nullptr,
      .variables_section = "FMI 3.0 §2.4.7",
      .causalities = {"parameter", "calculatedParameter", "input", "output", "local", "independent",
                      "structuralParameter"},
      .unique_value_references = true,
      .type_suffix = "Type",
      .type_element = type_element,
      .unnamed = unnamed,
      .default_variability = default_variability,
      .read_roles = nullptr,
      .check_type = check_type,
      .read_start = read_start,
      .read_references = read_references,
      .check_references = check_references,
      .outputs_tag = "Output",
      .derivatives_tag = "ContinuousStateDerivative",
      .initial_unknowns_tag = "InitialUnknown",
      .event_indicators_tag = "EventIndicator",
      .unknowns = unknowns,
  };
  return kRules;
}

}  // namespace

}  // namespace cosima::fmi::description::v3

namespace cosima::fmi {

ModelDescription parse_fmi3_model_description(const pugi::xml_node& root, const std::string& source) {
  return description::read_description(root, description::Reader(source), description::v3::rules());
}

}  // namespace cosima::fmi
