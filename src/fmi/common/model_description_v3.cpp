// modelDescription.xml of an FMI 3.0 FMU (FMI 3.0 §2.4), read into the version-neutral
// ModelDescription: typed variable elements (<Float64>, <Int8>, … with <Dimension> children),
// ModelStructure by value reference (turned into 1-based indices here), the interface elements'
// FMI 3.0 attributes.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "fmi/common/description_reader.hpp"

namespace cosima::fmi {

namespace {

using description::Reader;
using description::to_double;
using description::to_integer;
using description::to_unsigned;
using description::words;

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

}  // namespace

ModelDescription parse_fmi3_model_description(const pugi::xml_node& root, const std::string& source) {
  const Reader reader(source);
  ModelDescription md;
  md.fmi_version = "3.0";
  md.binary_folder = "x86_64-linux";
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute("instantiationToken").value();
  md.generation_tool = root.attribute("generationTool").value();
  md.description = root.attribute("description").value();

  // the interface elements (FMI 3.0 §3.2, §4.2, §5.2)
  auto common = [&](const pugi::xml_node node, InterfaceCapabilities& c) {
    c.model_identifier = node.attribute("modelIdentifier").value();
    if (!description::is_c_identifier(c.model_identifier)) {
      reader.fail(fmt::format("{} modelIdentifier=\"{}\" is not a C identifier (FMI 3.0 §2.4.1)", node.name(),
                              c.model_identifier));
    }
    c.can_get_and_set_state = node.attribute("canGetAndSetFMUState").as_bool(false);
    c.provides_directional_derivative = node.attribute("providesDirectionalDerivatives").as_bool(false);
    c.needs_execution_tool = node.attribute("needsExecutionTool").as_bool(false);
    c.only_once_per_process = node.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
  };
  if (const pugi::xml_node cs = root.child("CoSimulation")) {
    CoSimulationCapabilities& c = md.co_simulation.emplace();
    common(cs, c);
    c.can_handle_variable_step = cs.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
    const auto max_order = to_integer(cs.attribute("maxOutputDerivativeOrder").as_string("0"), 0, 1000);
    if (!max_order) reader.fail("CoSimulation maxOutputDerivativeOrder is not a non-negative integer");
    c.max_output_derivative_order = static_cast<int>(*max_order);
    c.has_event_mode = cs.attribute("hasEventMode").as_bool(false);
    c.might_return_early = cs.attribute("mightReturnEarlyFromDoStep").as_bool(false);
    c.provides_intermediate_update = cs.attribute("providesIntermediateUpdate").as_bool(false);
  }
  if (const pugi::xml_node me = root.child("ModelExchange")) {
    ModelExchangeCapabilities& c = md.model_exchange.emplace();
    common(me, c);
    // fmi3ModelExchange.xsd: needsCompletedIntegratorStep defaults to false
    c.completed_integrator_step_not_needed = !me.attribute("needsCompletedIntegratorStep").as_bool(false);
  }
  md.scheduled_execution = static_cast<bool>(root.child("ScheduledExecution"));
  if (!md.co_simulation && !md.model_exchange && !md.scheduled_execution) {
    reader.fail("none of CoSimulation, ModelExchange, ScheduledExecution");
  }

  if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
    md.default_experiment.start_time = reader.optional_number(experiment, "startTime", "DefaultExperiment");
    md.default_experiment.stop_time = reader.optional_number(experiment, "stopTime", "DefaultExperiment");
    md.default_experiment.tolerance = reader.optional_number(experiment, "tolerance", "DefaultExperiment");
    md.default_experiment.step_size = reader.optional_number(experiment, "stepSize", "DefaultExperiment");
  }

  // TypeDefinitions (§2.4.4): <Float64Type name=…>, <EnumerationType name=…><Item …/></EnumerationType>, …
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
    if (is_integer_type(*type) || *type == VariableType::real || *type == VariableType::float32) {
      simple.min = reader.optional_number(node, "min", where);
      simple.max = reader.optional_number(node, "max", where);
    }
    if (*type == VariableType::real || *type == VariableType::float32) {
      simple.unit = node.attribute("unit").value();
      simple.nominal = reader.optional_number(node, "nominal", where);
    }
    for (const pugi::xml_node item : node.children("Item")) {
      const auto value =
          to_integer(item.attribute("value").value(), std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
      if (!value)
        reader.fail(fmt::format("{}: Item '{}' value is not an integer", where, item.attribute("name").value()));
      simple.items.emplace_back(item.attribute("name").value(), static_cast<int>(*value));
    }
    md.types.push_back(std::move(simple));
  }

  // ModelVariables (§2.4.7)
  static const std::unordered_set<std::string> kCausalities = {
      "parameter", "calculatedParameter", "input", "output", "local", "independent", "structuralParameter"};
  std::unordered_set<std::string> names;
  std::unordered_map<unsigned int, std::size_t> by_reference;
  std::vector<std::optional<unsigned int>> derivative_references;
  for (const pugi::xml_node node : root.child("ModelVariables").children()) {
    const auto type = variable_type(node.name());
    if (!type) reader.fail(fmt::format("ModelVariables has an unknown element <{}>", node.name()));
    ScalarVariable v;
    v.type = *type;
    v.name = node.attribute("name").value();
    if (v.name.empty()) reader.fail(fmt::format("a <{}> variable has no name", node.name()));
    const std::string where = fmt::format("variable '{}'", v.name);
    if (!names.insert(v.name).second) reader.fail(fmt::format("two variables are named '{}' (FMI 3.0 §2.4.7)", v.name));
    const auto vr = to_integer(node.attribute("valueReference").value(), 0, std::numeric_limits<unsigned int>::max());
    if (!vr) {
      reader.fail(fmt::format("{}: valueReference=\"{}\" is not a non-negative integer", where,
                              node.attribute("valueReference").value()));
    }
    v.value_reference = static_cast<unsigned int>(*vr);
    if (!by_reference.emplace(v.value_reference, md.variables.size()).second) {
      reader.fail(fmt::format("{}: valueReference {} is already '{}''s (FMI 3.0 §2.4.7: unique)", where, *vr,
                              md.variables[by_reference[v.value_reference]].name));
    }
    const bool is_float = v.type == VariableType::real || v.type == VariableType::float32;
    // §2.4.7.4: continuous by default for floats, discrete for every other type
    reader.roles(node, kCausalities, is_float ? "continuous" : "discrete", where, v);
    if (!is_float && v.variability == "continuous") {
      reader.fail(fmt::format("{}: a {} cannot be continuous (FMI 3.0 §2.4.7.4)", where, node.name()));
    }
    v.declared_type = node.attribute("declaredType").value();
    const SimpleType* declared = md.type_of(v);
    if (!v.declared_type.empty() && (declared == nullptr || declared->type != v.type)) {
      reader.fail(fmt::format("{}: declaredType \"{}\" is not a {}Type of TypeDefinitions", where, v.declared_type,
                              node.name()));
    }
    if (v.type == VariableType::enumeration && declared == nullptr) {
      reader.fail(fmt::format("{}: an Enumeration needs a declaredType", where));
    }
    if (is_integer_type(v.type) || is_float) {
      v.min = reader.optional_number(node, "min", where);
      v.max = reader.optional_number(node, "max", where);
      if (!v.min && declared != nullptr) v.min = declared->min;
      if (!v.max && declared != nullptr) v.max = declared->max;
    }
    if (is_float) {
      v.unit = node.attribute("unit").value();
      if (v.unit.empty() && declared != nullptr) v.unit = declared->unit;
      v.nominal = reader.optional_number(node, "nominal", where);
      if (!v.nominal && declared != nullptr) v.nominal = declared->nominal;
    }
    // start: an attribute of blank-separated values, or <Start value=…/> children (String, Binary)
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
    if (const pugi::xml_attribute derivative = node.attribute("derivative")) {
      const auto of = to_integer(derivative.value(), 0, std::numeric_limits<unsigned int>::max());
      if (!of) reader.fail(fmt::format("{}: derivative=\"{}\" is not a value reference", where, derivative.value()));
      derivative_references.emplace_back(static_cast<unsigned int>(*of));
    } else {
      derivative_references.emplace_back();
    }
    for (const std::string_view clock : words(node.attribute("clocks").value())) {
      const auto reference = to_integer(clock, 0, std::numeric_limits<unsigned int>::max());
      if (!reference) reader.fail(fmt::format("{}: clocks=\"{}\" is not a list of value references", where, clock));
      v.clocks.push_back(static_cast<unsigned int>(*reference));
    }
    for (const pugi::xml_node dimension : node.children("Dimension")) {
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
      v.dimensions.push_back(d);
    }
    md.variables.push_back(std::move(v));
  }

  // references to indices: derivative=, Dimension valueReference=, clocks=
  auto index_of = [&](unsigned int reference, const std::string& what) {
    const auto it = by_reference.find(reference);
    if (it == by_reference.end())
      reader.fail(fmt::format("{} refers to valueReference {}, which no variable has", what, reference));
    return static_cast<int>(it->second) + 1;
  };
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    ScalarVariable& v = md.variables[i];
    if (derivative_references[i])
      v.derivative_of = index_of(*derivative_references[i], fmt::format("variable '{}': derivative", v.name));
    for (const Dimension& d : v.dimensions) {
      if (!d.value_reference) continue;
      const ScalarVariable& size = md.variables[static_cast<std::size_t>(
          index_of(*d.value_reference, fmt::format("variable '{}': Dimension", v.name)) - 1)];
      if (!is_integer_type(size.type) || size.type == VariableType::enumeration || !size.dimensions.empty()) {
        reader.fail(fmt::format("variable '{}': Dimension refers to '{}', not a scalar integer", v.name, size.name));
      }
      // the size is the structural parameter's start: it must lie in the parameter's own range
      const std::optional<long long> start = size.start ? to_integer(*size.start, 0, std::numeric_limits<long long>::max())
                                                        : std::nullopt;
      if (start && ((size.min && static_cast<double>(*start) < *size.min) ||
                    (size.max && static_cast<double>(*start) > *size.max))) {
        reader.fail(fmt::format("variable '{}': its Dimension '{}' = {} is outside [{}, {}]", v.name, size.name, *start,
                                size.min.value_or(0.0), size.max.value_or(std::numeric_limits<double>::infinity())));
      }
    }
    for (const unsigned int clock : v.clocks) {
      const ScalarVariable& c =
          md.variables[static_cast<std::size_t>(index_of(clock, fmt::format("variable '{}': clocks", v.name)) - 1)];
      if (c.type != VariableType::clock)
        reader.fail(fmt::format("variable '{}': clocks names '{}', not a Clock", v.name, c.name));
    }
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
      reader.fail(fmt::format("variable '{}' has {} start values for its {} elements", v.name, v.start_values.size(),
                              elements));
    }
  }

  // ModelStructure (§2.4.8): <Output>, <ContinuousStateDerivative>, <InitialUnknown>, <EventIndicator>
  const pugi::xml_node structure = root.child("ModelStructure");
  auto unknowns = [&](const char* tag) {
    std::vector<Unknown> list;
    for (const pugi::xml_node node : structure.children(tag)) {
      const auto reference =
          to_integer(node.attribute("valueReference").value(), 0, std::numeric_limits<unsigned int>::max());
      if (!reference) {
        reader.fail(fmt::format("ModelStructure/{}: valueReference=\"{}\" is not a value reference", tag,
                                node.attribute("valueReference").value()));
      }
      Unknown unknown;
      unknown.index = index_of(static_cast<unsigned int>(*reference), fmt::format("ModelStructure/{}", tag));
      if (const pugi::xml_attribute deps = node.attribute("dependencies")) {
        std::vector<int> dependencies;
        for (const std::string_view word : words(deps.value())) {
          const auto dependency = to_integer(word, 0, std::numeric_limits<unsigned int>::max());
          if (!dependency)
            reader.fail(fmt::format("ModelStructure/{}: dependency \"{}\" is not a value reference", tag, word));
          dependencies.push_back(
              index_of(static_cast<unsigned int>(*dependency), fmt::format("ModelStructure/{} dependencies", tag)));
        }
        unknown.dependencies = std::move(dependencies);
      }
      list.push_back(std::move(unknown));
    }
    return list;
  };
  md.outputs = unknowns("Output");
  md.derivatives = unknowns("ContinuousStateDerivative");
  md.initial_unknowns = unknowns("InitialUnknown");
  for (const Unknown& indicator : unknowns("EventIndicator")) {
    md.event_indicator_count +=
        static_cast<int>(md.element_count(md.variables[static_cast<std::size_t>(indicator.index - 1)]));
  }
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(d.index - 1)];
    if (!v.derivative_of) {
      reader.fail(fmt::format(
          "ModelStructure/ContinuousStateDerivative lists '{}', which has no 'derivative' attribute", v.name));
    }
  }
  for (const Unknown& o : md.outputs) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(o.index - 1)];
    if (v.causality != "output") {
      reader.fail(fmt::format("ModelStructure/Output lists '{}', whose causality is \"{}\"", v.name, v.causality));
    }
  }
  return md;
}

}  // namespace cosima::fmi
