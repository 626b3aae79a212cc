#include "fmi/export/variable_table.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/polynomial.hpp"

namespace cosima::fmu_export {

VariableTable make_variable_table(const OdeModel& model, const SolverDefaults& solver) {
  VariableTable table;
  const auto& s = model.structure();
  unsigned int real_vr = 0, integer_vr = 0;
  auto add = [&](std::string name, Role role, int index, bool is_real, double start, std::string description) {
    table.variables.push_back({std::move(name), role, index, is_real ? real_vr++ : integer_vr++, is_real, start,
                               std::move(description)});
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
  for (std::size_t i = 0; i < s.outputs.size(); ++i) add(s.outputs[i], Role::output, static_cast<int>(i), true, 0.0, "");
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

std::string model_description_xml(const OdeModel& model, const std::string& model_identifier,
                                  bool can_get_and_set_state) {
  const VariableTable table = make_variable_table(model, SolverDefaults{});
  const auto& s = model.structure();
  const int derivative_order = s.linear_time_invariant ? kMaxInputDegree : 1;
  std::string xml = fmt::format(
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
  std::vector<int> xml_index(table.variables.size());  // 1-based index of each variable
  int state_xml_index_base = 0;
  for (std::size_t i = 0; i < table.variables.size(); ++i) {
    xml_index[i] = static_cast<int>(i) + 1;
    if (table.variables[i].role == Role::state && table.variables[i].index == 0) state_xml_index_base = xml_index[i];
  }
  for (std::size_t i = 0; i < table.variables.size(); ++i) {
    const ExportedVariable& v = table.variables[i];
    const std::string description = v.description.empty() ? "" : fmt::format(" description=\"{}\"", escape(v.description));
    const std::string head = fmt::format("    <!-- {} --><ScalarVariable name=\"{}\" valueReference=\"{}\"{}", xml_index[i],
                                         escape(v.name), v.vr, description);
    switch (v.role) {
      case Role::parameter:
      case Role::solver_real:
        xml += fmt::format("{} causality=\"parameter\" variability=\"fixed\" initial=\"exact\"><Real start=\"{:.17g}\"/></ScalarVariable>\n",
                           head, v.start);
        break;
      case Role::solver_integer:
        xml += fmt::format("{} causality=\"parameter\" variability=\"fixed\" initial=\"exact\"><Integer start=\"{}\"/></ScalarVariable>\n",
                           head, static_cast<int>(v.start));
        break;
      case Role::input:
        xml += fmt::format("{} causality=\"input\" variability=\"continuous\"><Real start=\"0\"/></ScalarVariable>\n", head);
        break;
      case Role::output:
        xml += fmt::format("{} causality=\"output\" variability=\"continuous\" initial=\"calculated\"><Real/></ScalarVariable>\n", head);
        break;
      case Role::state:
        xml += fmt::format("{} causality=\"local\" variability=\"continuous\" initial=\"calculated\"><Real/></ScalarVariable>\n", head);
        break;
      case Role::derivative:
        xml += fmt::format("{} causality=\"local\" variability=\"continuous\" initial=\"calculated\"><Real derivative=\"{}\"/></ScalarVariable>\n",
                           head, state_xml_index_base + v.index);
        break;
    }
  }
  xml += "  </ModelVariables>\n  <ModelStructure>\n";
  auto indices_of = [&](Role role) {
    std::vector<int> out;
    for (std::size_t i = 0; i < table.variables.size(); ++i) {
      if (table.variables[i].role == role) out.push_back(xml_index[i]);
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
    std::vector<int> deps = states;  // outputs may depend on every state ...
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

}  // namespace cosima::fmu_export
