#include "export/variable_table.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/polynomial.hpp"

namespace cosima::fmu_export {

VariableTable make_variable_table(const OdeModel& model, const SolverDefaults& solver) {
  VariableTable table;
  const auto& s = model.structure();
  unsigned int real_vr = 0, integer_vr = 0;
  auto add = [&](std::string name, Role role, int index, bool is_real, double start, std::string description) {
    table.variables.push_back(
        {std::move(name), role, index, is_real ? real_vr++ : integer_vr++, is_real, start, std::move(description)});
  };
  for (std::size_t i = 0; i < s.parameters.size(); ++i) {
    add(s.parameters[i].name, Role::parameter, static_cast<int>(i), true, model.parameter(s.parameters[i].name),
        s.parameters[i].description);
  }
  add("solver_rtol", Role::solver_real, 0, true, solver.rtol, "relative tolerance of the embedded solver");
  add("solver_atol", Role::solver_real, 1, true, solver.atol, "absolute tolerance of the embedded solver");
  add("solver_max_step", Role::solver_real, 2, true, solver.max_step, "largest internal step (0: no limit)");
  add("solver_kind", Role::solver_integer, 0, false, solver.kind, "0 dopri5, 1 cvode, 2 euler, 3 exact");
  add("solver_steps_per_call", Role::solver_integer, 1, false, solver.steps_per_call, "euler steps per doStep");
  table.first_input_vr = static_cast<int>(real_vr);
  for (std::size_t i = 0; i < s.inputs.size(); ++i) add(s.inputs[i], Role::input, static_cast<int>(i), true, 0.0, "");
  table.first_output_vr = static_cast<int>(real_vr);
  for (std::size_t i = 0; i < s.outputs.size(); ++i)
    add(s.outputs[i], Role::output, static_cast<int>(i), true, 0.0, "");
  table.first_state_vr = static_cast<int>(real_vr);
  // FMI 2.0 §2.2.7: names are unique. A state named like an output (b3.prey's p) is exported as
  // "<name>_state"; the output keeps the model's name.
  for (std::size_t i = 0; i < s.states.size(); ++i) {
    const bool taken = std::find(s.outputs.begin(), s.outputs.end(), s.states[i]) != s.outputs.end() ||
                       std::find(s.inputs.begin(), s.inputs.end(), s.states[i]) != s.inputs.end();
    add(taken ? s.states[i] + "_state" : s.states[i], Role::state, static_cast<int>(i), true, 0.0, "");
  }
  table.first_derivative_vr = static_cast<int>(real_vr);
  for (std::size_t i = 0; i < s.states.size(); ++i) {
    add(fmt::format("der({})", s.states[i]), Role::derivative, static_cast<int>(i), true, 0.0, "");
  }
  table.real_count = static_cast<int>(real_vr);
  table.integer_count = static_cast<int>(integer_vr);
  return table;
}

std::string model_guid(const OdeModel& model) {
  // FNV-1a over the type and the structure: the same model source gives the same GUID.
  std::uint64_t hash = 1469598103934665603ULL;
  auto mix = [&](const std::string& text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
    hash ^= 0xff;
    hash *= 1099511628211ULL;
  };
  const auto& s = model.structure();
  mix(model.type());
  for (const auto* names : {&s.states, &s.inputs, &s.outputs}) {
    for (const auto& n : *names) mix(n);
  }
  for (const auto& p : s.parameters) mix(p.name);
  return fmt::format("{{cosima-{}-{:016x}}}", model.type(), hash);
}

namespace {
std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}
}  // namespace

namespace {

/// FMI 2.0 §2.2.1: the root element's attributes, both interface elements and DefaultExperiment.
std::string fmi2_header(const OdeModel& model, const std::string& model_identifier, bool can_get_and_set_state) {
  const int derivative_order = model.structure().linear_time_invariant ? kMaxInputDegree : 1;
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"{}\" guid=\"{}\" generationTool=\"cosima export kit\"\n"
      "    variableNamingConvention=\"flat\" numberOfEventIndicators=\"{}\">\n"
      "  <ModelExchange modelIdentifier=\"{}\" completedIntegratorStepNotNeeded=\"true\" canGetAndSetFMUstate=\"{}\"\n"
      "      canSerializeFMUstate=\"false\" providesDirectionalDerivative=\"true\"\n"
      "      canNotUseMemoryManagementFunctions=\"true\" canBeInstantiatedOnlyOncePerProcess=\"false\"/>\n"
      "  <CoSimulation modelIdentifier=\"{}\" canHandleVariableCommunicationStepSize=\"true\"\n"
      "      canInterpolateInputs=\"true\" maxOutputDerivativeOrder=\"{}\" canGetAndSetFMUstate=\"{}\"\n"
      "      canSerializeFMUstate=\"false\" providesDirectionalDerivative=\"true\"\n"
      "      canNotUseMemoryManagementFunctions=\"true\" canBeInstantiatedOnlyOncePerProcess=\"false\"/>\n"
      "  <DefaultExperiment startTime=\"0\"/>\n  <ModelVariables>\n",
      escape(model.type()), model_guid(model), model.event_indicator_count(), escape(model_identifier),
      can_get_and_set_state ? "true" : "false", escape(model_identifier), derivative_order,
      can_get_and_set_state ? "true" : "false");
}

/// FMI 2.0 §2.2.7: one ScalarVariable per exported variable, variable k at index k + 1.
std::string fmi2_variables(const VariableTable& table) {
  int state_xml_index_base = 0;  // the index of the first state: a derivative's derivative="…" counts from it
  for (std::size_t i = 0; i < table.variables.size(); ++i) {
    const ExportedVariable& v = table.variables[i];
    if (v.role == Role::state && v.index == 0) state_xml_index_base = static_cast<int>(i) + 1;
  }
  std::string xml;
  for (std::size_t i = 0; i < table.variables.size(); ++i) {
    const ExportedVariable& v = table.variables[i];
    const std::string description =
        v.description.empty() ? "" : fmt::format(" description=\"{}\"", escape(v.description));
    const std::string head = fmt::format("    <!-- {} --><ScalarVariable name=\"{}\" valueReference=\"{}\"{}",
                                         static_cast<int>(i) + 1, escape(v.name), v.vr, description);
    switch (v.role) {
      case Role::parameter:
      case Role::solver_real:
        xml += fmt::format(
            "{} causality=\"parameter\" variability=\"fixed\" initial=\"exact\"><Real "
            "start=\"{:.17g}\"/></ScalarVariable>\n",
            head, v.start);
        break;
      case Role::solver_integer:
        xml += fmt::format(
            "{} causality=\"parameter\" variability=\"fixed\" initial=\"exact\"><Integer "
            "start=\"{}\"/></ScalarVariable>\n",
            head, static_cast<int>(v.start));
        break;
      case Role::input:
        xml += fmt::format("{} causality=\"input\" variability=\"continuous\"><Real start=\"0\"/></ScalarVariable>\n",
                           head);
        break;
      case Role::output:
        xml += fmt::format(
            "{} causality=\"output\" variability=\"continuous\" initial=\"calculated\"><Real/></ScalarVariable>\n",
            head);
        break;
      case Role::state:
        xml += fmt::format(
            "{} causality=\"local\" variability=\"continuous\" initial=\"calculated\"><Real/></ScalarVariable>\n",
            head);
        break;
      case Role::derivative:
        xml += fmt::format(
            "{} causality=\"local\" variability=\"continuous\" initial=\"calculated\"><Real "
            "derivative=\"{}\"/></ScalarVariable>\n",
            head, state_xml_index_base + v.index);
        break;
      case Role::event_indicator: break;  // FMI 3.0 only
    }
  }
  return xml;
}

/// FMI 2.0 §2.2.8: outputs depend on every state and their feedthrough inputs, derivatives on every
/// state and input; outputs, states and derivatives are the initial unknowns.
std::string fmi2_model_structure(const OdeModel& model, const VariableTable& table) {
  std::string xml;
  auto indices_of = [&](Role role) {
    std::vector<int> out;
    for (std::size_t i = 0; i < table.variables.size(); ++i) {
      if (table.variables[i].role == role) out.push_back(static_cast<int>(i) + 1);
    }
    return out;
  };
  const auto inputs = indices_of(Role::input), outputs = indices_of(Role::output), states = indices_of(Role::state),
             derivatives = indices_of(Role::derivative);
  auto join = [](const std::vector<int>& list) {
    std::string text;
    for (int i : list) text += fmt::format("{}{}", text.empty() ? "" : " ", i);
    return text;
  };
  xml += "    <Outputs>\n";
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    std::vector<int> deps = states;                    // outputs may depend on every state ...
    for (std::size_t i = 0; i < inputs.size(); ++i) {  // ... and on the inputs with direct feedthrough
      if (model.output_depends_on_input(static_cast<int>(o), static_cast<int>(i))) deps.push_back(inputs[i]);
    }
    std::sort(deps.begin(), deps.end());  // FMI 2.0: indices in ascending order
    xml += fmt::format("      <Unknown index=\"{}\" dependencies=\"{}\"/>\n", outputs[o], join(deps));
  }
  xml += "    </Outputs>\n    <Derivatives>\n";
  std::vector<int> all = states;
  all.insert(all.end(), inputs.begin(), inputs.end());
  std::sort(all.begin(), all.end());
  for (int d : derivatives) xml += fmt::format("      <Unknown index=\"{}\" dependencies=\"{}\"/>\n", d, join(all));
  xml += "    </Derivatives>\n    <InitialUnknowns>\n";
  std::vector<int> initial = outputs;
  initial.insert(initial.end(), states.begin(), states.end());
  initial.insert(initial.end(), derivatives.begin(), derivatives.end());
  std::sort(initial.begin(), initial.end());
  for (int u : initial) xml += fmt::format("      <Unknown index=\"{}\"/>\n", u);
  xml += "    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n";
  return xml;
}

}  // namespace

std::string model_description_xml(const OdeModel& model, const std::string& model_identifier,
                                  bool can_get_and_set_state) {
  const VariableTable table = make_variable_table(model, SolverDefaults{});
  return fmi2_header(model, model_identifier, can_get_and_set_state) + fmi2_variables(table) +
         "  </ModelVariables>\n  <ModelStructure>\n" + fmi2_model_structure(model, table);
}

// --- FMI 3.0 ------------------------------------------------------------------------------------

namespace {

/// "base[i]" or "base[i,j]" with positive decimal indices: the base and the (1-based) indices.
struct ArrayName {
  std::string base;
  std::vector<std::size_t> indices;
};
std::optional<ArrayName> parse_array_name(const std::string& name) {
  const std::size_t open = name.find('[');
  if (open == 0 || open == std::string::npos || name.back() != ']') return std::nullopt;
  ArrayName parsed{name.substr(0, open), {}};
  const char* at = name.data() + open + 1;
  const char* end = name.data() + name.size() - 1;
  while (true) {
    if (at == end || *at == '0' || *at < '0' || *at > '9') return std::nullopt;  // no sign, no leading zero
    std::size_t index = 0;
    const auto [next, error] = std::from_chars(at, end, index);
    if (error != std::errc()) return std::nullopt;
    parsed.indices.push_back(index);
    if (next == end) break;
    if (*next != ',' || parsed.indices.size() == 2) return std::nullopt;
    at = next + 1;
  }
  return parsed;
}

/// The dimensions of a complete 1-based index set, or empty when the set is not complete.
std::vector<std::size_t> complete_dimensions(const std::vector<std::vector<std::size_t>>& indices) {
  std::vector<std::size_t> dims(indices.front().size(), 0);
  for (const auto& index : indices) {
    if (index.size() != dims.size()) return {};
    for (std::size_t d = 0; d < dims.size(); ++d) dims[d] = std::max(dims[d], index[d]);
  }
  std::size_t count = 1;
  for (const std::size_t d : dims) count *= d;
  if (count != indices.size()) return {};
  const std::set<std::vector<std::size_t>> unique(indices.begin(), indices.end());
  return unique.size() == indices.size() ? dims : std::vector<std::size_t>{};
}

}  // namespace

Fmi3Table make_fmi3_table(const OdeModel& model, const SolverDefaults& solver) {
  const VariableTable table = make_variable_table(model, solver);
  Fmi3Table out;
  out.elements = table.variables;
  out.real_count = table.real_count;
  const auto real_count = static_cast<unsigned int>(table.real_count);
  std::set<std::string> names;
  for (const ExportedVariable& v : out.elements) names.insert(v.name);
  for (int k = 0; k < model.event_indicator_count(); ++k) {
    std::string name = fmt::format("event_indicator_{}", k + 1);
    while (names.contains(name)) name += "_";
    names.insert(name);
    out.elements.push_back({name, Role::event_indicator, k,
                            real_count + static_cast<unsigned int>(table.integer_count + k), true, 0.0,
                            fmt::format("event indicator {} (a state event where it changes sign)", k + 1)});
  }

  // candidate arrays: (role, base) → elements with their indices
  struct Group {
    std::vector<std::size_t> elements;
    std::vector<std::vector<std::size_t>> indices;
    std::vector<std::size_t> dimensions;
  };
  std::map<std::pair<Role, std::string>, Group> groups;
  std::vector<const Group*> group_of(out.elements.size(), nullptr);
  for (std::size_t e = 0; e < out.elements.size(); ++e) {
    const ExportedVariable& v = out.elements[e];
    if (v.role != Role::parameter && v.role != Role::input && v.role != Role::output) continue;
    if (auto parsed = parse_array_name(v.name)) {
      Group& group = groups[{v.role, parsed->base}];
      group.elements.push_back(e);
      group.indices.push_back(std::move(parsed->indices));
    }
  }
  std::map<std::string, int> base_uses;  // a base must name one array and no other variable
  for (const auto& [key, group] : groups) ++base_uses[key.second];
  for (auto& entry : groups) {
    Group& group = entry.second;  // not a structured binding: the lambda below refers to it
    const std::string& base = entry.first.second;
    group.dimensions = complete_dimensions(group.indices);
    if (group.dimensions.empty() || base_uses[base] != 1 || names.contains(base)) continue;
    // row-major: sort the elements by their indices
    std::vector<std::size_t> order(group.elements.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return group.indices[a] < group.indices[b]; });
    std::vector<std::size_t> sorted;
    sorted.reserve(order.size());
    for (const std::size_t k : order) sorted.push_back(group.elements[k]);
    group.elements = std::move(sorted);
    for (const std::size_t e : group.elements) group_of[e] = &group;
  }

  std::set<const Group*> declared;
  for (std::size_t e = 0; e < out.elements.size(); ++e) {
    const ExportedVariable& v = out.elements[e];
    if (const Group* group = group_of[e]) {
      // an array stands where its first element (in table order) stood, with that element's reference
      if (declared.insert(group).second) {
        out.variables.push_back({parse_array_name(v.name)->base, v.role, v.vr, true, group->elements, group->dimensions,
                                 out.elements[group->elements.front()].description});
      }
      continue;
    }
    const unsigned int vr = v.role == Role::solver_integer ? real_count + v.vr : v.vr;  // event indicators: set above
    out.variables.push_back({v.name, v.role, vr, v.is_real, {e}, {}, v.description});
  }
  return out;
}

namespace {

/// FMI 3.0 §2.4.1: the root element's attributes, both interface elements, log categories and
/// DefaultExperiment.
std::string fmi3_header(const OdeModel& model, const std::string& model_identifier, bool can_get_and_set_state) {
  const int derivative_order = model.structure().linear_time_invariant ? kMaxInputDegree : 1;
  const char* state = can_get_and_set_state ? "true" : "false";
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"{}\" instantiationToken=\"{}\"\n"
      "    generationTool=\"cosima export kit\" variableNamingConvention=\"flat\">\n"
      "  <ModelExchange modelIdentifier=\"{}\" needsCompletedIntegratorStep=\"false\" canGetAndSetFMUState=\"{}\"\n"
      "      canSerializeFMUState=\"false\" providesDirectionalDerivatives=\"true\"\n"
      "      canBeInstantiatedOnlyOncePerProcess=\"false\"/>\n"
      "  <CoSimulation modelIdentifier=\"{}\" canHandleVariableCommunicationStepSize=\"true\"\n"
      "      maxOutputDerivativeOrder=\"{}\" hasEventMode=\"false\" canGetAndSetFMUState=\"{}\"\n"
      "      canSerializeFMUState=\"false\" providesDirectionalDerivatives=\"true\"\n"
      "      canBeInstantiatedOnlyOncePerProcess=\"false\"/>\n"
      "  <LogCategories>\n"
      "    <Category name=\"logStatusError\" description=\"calls that failed, and why\"/>\n"
      "  </LogCategories>\n"
      "  <DefaultExperiment startTime=\"0\"/>\n  <ModelVariables>\n",
      escape(model.type()), model_guid(model), escape(model_identifier), state, escape(model_identifier),
      derivative_order, state);
}

/// FMI 3.0 §2.4.7: one variable element (arrays with their Dimensions); `state_vr` gives a
/// derivative's derivative="…".
std::string fmi3_variable(const Fmi3Table& table, const Fmi3Variable& v, const std::vector<unsigned int>& state_vr) {
  std::string xml;
  const ExportedVariable& first = table.elements[v.elements.front()];
  std::string attributes = fmt::format("name=\"{}\" valueReference=\"{}\"", escape(v.name), v.vr);
  if (!v.description.empty()) attributes += fmt::format(" description=\"{}\"", escape(v.description));
  std::string start;
  for (const std::size_t e : v.elements) {
    start += start.empty() ? "" : " ";
    start += v.is_float64 ? fmt::format("{:.17g}", table.elements[e].start)
                          : fmt::format("{}", static_cast<int>(table.elements[e].start));
  }
  switch (v.role) {
    case Role::parameter:
    case Role::solver_real:
    case Role::solver_integer:
      attributes += fmt::format(" causality=\"parameter\" variability=\"fixed\" initial=\"exact\" start=\"{}\"", start);
      break;
    case Role::input:
      attributes += fmt::format(" causality=\"input\" variability=\"continuous\" start=\"{}\"", start);
      break;
    case Role::output: attributes += " causality=\"output\" variability=\"continuous\" initial=\"calculated\""; break;
    case Role::state:
    case Role::event_indicator:
      attributes += " causality=\"local\" variability=\"continuous\" initial=\"calculated\"";
      break;
    case Role::derivative:
      attributes +=
          fmt::format(" causality=\"local\" variability=\"continuous\" initial=\"calculated\" derivative=\"{}\"",
                      state_vr[static_cast<std::size_t>(first.index)]);
      break;
  }
  const char* tag = v.is_float64 ? "Float64" : "Int32";
  if (v.dimensions.empty()) {
    xml += fmt::format("    <{} {}/>\n", tag, attributes);
  } else {
    xml += fmt::format("    <{} {}>\n", tag, attributes);
    for (const std::size_t d : v.dimensions) xml += fmt::format("      <Dimension start=\"{}\"/>\n", d);
    xml += fmt::format("    </{}>\n", tag);
  }
  return xml;
}

std::string fmi3_variables(const OdeModel& model, const Fmi3Table& table) {
  // value references of the states, by state index
  std::vector<unsigned int> state_vr(static_cast<std::size_t>(model.state_count()));
  for (const Fmi3Variable& v : table.variables) {
    if (v.role == Role::state) state_vr[static_cast<std::size_t>(table.elements[v.elements.front()].index)] = v.vr;
  }
  std::string xml;
  for (const Fmi3Variable& v : table.variables) xml += fmi3_variable(table, v, state_vr);
  return xml;
}

/// FMI 3.0 §2.4.8: outputs depend on every state and their feedthrough inputs, derivatives on every
/// state and input; outputs, states and derivatives are the initial unknowns; the event indicators.
std::string fmi3_model_structure(const OdeModel& model, const Fmi3Table& table) {
  std::string xml;
  auto of_role = [&](Role role) {
    std::vector<const Fmi3Variable*> list;
    for (const Fmi3Variable& v : table.variables) {
      if (v.role == role) list.push_back(&v);
    }
    return list;
  };
  const auto inputs = of_role(Role::input), outputs = of_role(Role::output), states = of_role(Role::state),
             derivatives = of_role(Role::derivative), indicators = of_role(Role::event_indicator);
  auto join = [](std::vector<unsigned int> list) {
    std::sort(list.begin(), list.end());  // by value reference
    std::string text;
    for (const unsigned int vr : list) text += fmt::format("{}{}", text.empty() ? "" : " ", vr);
    return text;
  };
  std::vector<unsigned int> state_refs;
  state_refs.reserve(states.size());
  for (const Fmi3Variable* v : states) state_refs.push_back(v->vr);
  for (const Fmi3Variable* output : outputs) {
    std::vector<unsigned int> deps = state_refs;  // outputs may depend on every state ...
    for (const Fmi3Variable* input : inputs) {    // ... and on the inputs with direct feedthrough
      bool feedthrough = false;
      for (const std::size_t o : output->elements) {
        for (const std::size_t i : input->elements) {
          feedthrough = feedthrough || model.output_depends_on_input(table.elements[o].index, table.elements[i].index);
        }
      }
      if (feedthrough) deps.push_back(input->vr);
    }
    xml += fmt::format("    <Output valueReference=\"{}\" dependencies=\"{}\"/>\n", output->vr, join(deps));
  }
  std::vector<unsigned int> all = state_refs;
  for (const Fmi3Variable* input : inputs) all.push_back(input->vr);
  for (const Fmi3Variable* d : derivatives) {
    xml +=
        fmt::format("    <ContinuousStateDerivative valueReference=\"{}\" dependencies=\"{}\"/>\n", d->vr, join(all));
  }
  std::vector<unsigned int> initial;
  for (const auto* list : {&outputs, &states, &derivatives}) {
    for (const Fmi3Variable* v : *list) initial.push_back(v->vr);
  }
  std::sort(initial.begin(), initial.end());
  for (const unsigned int vr : initial) xml += fmt::format("    <InitialUnknown valueReference=\"{}\"/>\n", vr);
  for (const Fmi3Variable* z : indicators) xml += fmt::format("    <EventIndicator valueReference=\"{}\"/>\n", z->vr);
  xml += "  </ModelStructure>\n</fmiModelDescription>\n";
  return xml;
}

}  // namespace

std::string model_description_xml_fmi3(const OdeModel& model, const std::string& model_identifier,
                                       bool can_get_and_set_state) {
  const Fmi3Table table = make_fmi3_table(model, SolverDefaults{});
  return fmi3_header(model, model_identifier, can_get_and_set_state) + fmi3_variables(model, table) +
         "  </ModelVariables>\n  <ModelStructure>\n" + fmi3_model_structure(model, table);
}

}  // namespace cosima::fmu_export
