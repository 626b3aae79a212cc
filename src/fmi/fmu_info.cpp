#include "fmi/fmu_info.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fmi/common/fmu_archive.hpp"
#include "fmi/common/model_description.hpp"

namespace cosima::fmi {

namespace {

/// One variable: name, value reference, type (FMI 3.0: its type name and shape), causality,
/// variability, start, unit and description.
std::string variable_line(const ModelDescription& md, const ScalarVariable& v) {
  std::string type = describe(md.port_info(v));
  if (md.is_fmi3()) {
    // the FMI 3.0 type name in place of the port kind, and the array's shape
    const std::string_view kind = to_string(md.port_info(v).kind);
    type = std::string(md.type_name(v.type)) + type.substr(std::min(type.size(), kind.size()));
    if (!v.dimensions.empty()) {
      std::string shape;
      for (const std::size_t size : md.shape(v)) shape += fmt::format("{}{}", shape.empty() ? "" : ",", size);
      type += fmt::format(" [{}]", shape);
    }
  }
  std::string line = fmt::format("  {:<24} vr={:<4} {:<28} {:<10} {:<10}", v.name, v.value_reference, type, v.causality,
                                 v.variability);
  if (v.start) line += " start=" + *v.start;
  if (const ScalarVariable* base = md.alias_base(v)) {
    line += fmt::format(" ({} of '{}')", v.negated_alias ? "negated alias" : "alias", base->name);
  } else if (v.alias) {
    line += v.negated_alias ? " (negated alias)" : " (alias)";
  }
  if (v.duplicate_of >= 0) line += fmt::format(" (declared again: variable {} counts)", v.duplicate_of + 1);
  if (!v.unit.empty()) line += fmt::format(" [{}]", v.unit);
  if (!v.description.empty()) line += fmt::format(" \"{}\"", v.description);
  return line + "\n";
}

}  // namespace

std::string describe_fmu(const std::filesystem::path& fmu) {
  const ModelDescription md = read_model_description(fmu);
  std::string text =
      fmt::format("FMU         {}\nmodel       {} (FMI {}, {})\nguid        {}\n", fmu.string(), md.model_name,
                  md.fmi_version, md.generation_tool.empty() ? "unknown tool" : md.generation_tool, md.guid);
  std::vector<std::string> binaries;
  if (const auto& cs = md.co_simulation) {
    if (md.is_fmi3()) {
      text += fmt::format(
          "Co-Simulation   identifier={} canHandleVariableCommunicationStepSize={} maxOutputDerivativeOrder={} "
          "hasEventMode={} mightReturnEarlyFromDoStep={} canGetAndSetFMUState={} providesDirectionalDerivatives={}\n"
          "  under cosima: {}; interpolated inputs emulated when a method needs them\n",
          cs->model_identifier, cs->can_handle_variable_step, cs->max_output_derivative_order, cs->has_event_mode,
          cs->might_return_early, cs->can_get_and_set_state, cs->provides_directional_derivative,
          cs->has_event_mode ? "events handled in Event Mode at the time the FMU stops for them"
                             : "events handled inside fmi3DoStep by the FMU");
    } else {
      text += fmt::format(
          "Co-Simulation   identifier={} canHandleVariableCommunicationStepSize={} canInterpolateInputs={} "
          "maxOutputDerivativeOrder={} canGetAndSetFMUstate={} providesDirectionalDerivative={}\n",
          cs->model_identifier, cs->can_handle_variable_step, cs->can_interpolate_inputs,
          cs->max_output_derivative_order, cs->can_get_and_set_state, cs->provides_directional_derivative);
    }
    binaries.push_back(cs->model_identifier);
  }
  if (const auto& me = md.model_exchange) {
    // what cosima provides on top of an ME FMU (fmi/common/me_model.hpp)
    const bool discrete_state = md.may_have_discrete_state();
    const char* p = md.is_fmi3() ? "fmi3" : md.is_fmi1() ? "fmi" : "fmi2";
    text += fmt::format(
        "Model Exchange  identifier={} numberOfEventIndicators={} canGetAndSetFMUstate={} "
        "providesDirectionalDerivative={} completedIntegratorStepNotNeeded={}\n"
        "  under cosima: every capability; linearization and output derivatives by {}; rollback {}\n",
        me->model_identifier, md.event_indicator_count, me->can_get_and_set_state, me->provides_directional_derivative,
        me->completed_integrator_step_not_needed,
        me->provides_directional_derivative ? fmt::format("{}GetDirectionalDerivative", p) : "finite differences",
        me->can_get_and_set_state ? fmt::format("by {}Get/SetFMU{}tate", p, md.is_fmi3() ? "S" : "s")
        : discrete_state
            ? fmt::format("only until the first event (no {}GetFMU{}tate, discrete state)", p, md.is_fmi3() ? "S" : "s")
            : std::string("by its continuous states (no discrete state)"));
    if (binaries.empty() || binaries.front() != me->model_identifier) binaries.push_back(me->model_identifier);
  }
  if (md.scheduled_execution) text += "Scheduled Execution  (not imported by cosima)\n";
  if (const std::vector<std::string> clocks = md.clock_names(); !clocks.empty()) {
    std::string names;
    for (const std::string& name : clocks) names += (names.empty() ? "" : ", ") + name;
    text += fmt::format("note        Clocks ({}): cosima refuses to run this FMU\n", names);
  }
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  const auto& de = md.default_experiment;
  text += fmt::format("experiment  start={} stop={} tolerance={} step={}\n", opt(de.start_time), opt(de.stop_time),
                      opt(de.tolerance), opt(de.step_size));
  auto states = static_cast<std::size_t>(md.continuous_state_count);  // FMI 1.0; the others list them
  for (const Unknown& d : md.derivatives)
    states += md.element_count(md.variables[static_cast<std::size_t>(d.index - 1)]);
  text += fmt::format("states      {}\nvariables   {}\n", states, md.variables.size());
  for (const ScalarVariable& v : md.variables) text += variable_line(md, v);
  for (const std::string& identifier : binaries) {
    if (const std::string entry = binary_entry(md, identifier); !archive_has_entry(fmu, entry)) {
      text += fmt::format("note        no binary for this platform ({}): cannot run here\n", entry);
    }
  }
  return text;
}

}  // namespace cosima::fmi
