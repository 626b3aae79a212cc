// Building the systems and the model a scenario describes (the parsing is in scenario.cpp, which
// links without the numerics so that the fuzzers stay small).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <unordered_set>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/array_element.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/fmu_factory.hpp"
#include "methods/coupling_method.hpp"
#include "methods/method_choice.hpp"
#include "methods/method_registry.hpp"
#include "models/registry.hpp"
#include "scenario/scenario.hpp"
#include "system/capability_probe.hpp"
#include "system/emulation/emulated_system.hpp"
#include "system/emulation/run_ahead_system.hpp"
#include "system/native/native_system.hpp"
#include "system/source/csv_source.hpp"

namespace cosima::scenario {

namespace {

std::unique_ptr<Integrator> integrator_of(const SystemSpec& spec, const IntegratorOptions& options) {
  try {
    return make_integrator(spec.integrator, options);
  } catch (const Error& e) {
    throw Error(fmt::format("system '{}': {}", spec.name, e.what()));
  }
}

/// SystemSpec "csv": a table of signals (system/source).
std::unique_ptr<System> build_csv_source(const SystemSpec& spec) {
  std::map<std::string, SourceInterpolation> interpolation;
  for (const auto& [column, mode] : spec.interpolation) {
    interpolation[column] = mode == "hold" ? SourceInterpolation::hold : SourceInterpolation::linear;
  }
  return std::make_unique<CsvSource>(spec.name, spec.csv, interpolation);
}

/// The interface of an FMU the spec asks for (or the FMU's Co-Simulation one, else its Model
/// Exchange one), checked against what the FMU offers.
fmi::FmiInterface fmu_interface(const SystemSpec& spec, const fmi::ModelDescription& md) {
  if (!md.co_simulation && !md.model_exchange) {
    throw Error(
        fmt::format("system '{}': FMU '{}' offers Scheduled Execution only, which cosima does not import "
                    "(FMI 3.0 §5); it needs a Co-Simulation or Model Exchange interface",
                    spec.name, spec.fmu.string()));
  }
  const fmi::FmiInterface interface =
      spec.interface.value_or(md.co_simulation ? fmi::FmiInterface::co_simulation : fmi::FmiInterface::model_exchange);
  if ((interface == fmi::FmiInterface::co_simulation && !md.co_simulation) ||
      (interface == fmi::FmiInterface::model_exchange && !md.model_exchange)) {
    throw Error(fmt::format("system '{}': FMU '{}' has no {} interface", spec.name, spec.fmu.string(),
                            fmi::to_string(interface)));
  }
  if (interface == fmi::FmiInterface::co_simulation && spec.integrator_given) {
    throw Error(
        fmt::format("system '{}' is a Co-Simulation FMU: it embeds its own solver (set its parameters "
                    "instead of 'integrator', or choose \"interface\": \"me\")",
                    spec.name));
  }
  return interface;
}

/// The shape of the FMU's array `name`: an FMI 3.0 array variable's Dimensions (structural
/// parameters stay at their start values), or, in an FMI 2.0 description, the largest index per
/// dimension of the scalars "name[i,j,…]". Empty when the FMU has no such array.
std::vector<std::size_t> declared_shape(const fmi::ModelDescription& md, const std::string& name) {
  if (const int at = md.find(name); at >= 0 && !md.variables[static_cast<std::size_t>(at)].dimensions.empty()) {
    return md.shape(md.variables[static_cast<std::size_t>(at)]);
  }
  std::vector<std::size_t> shape;
  for (const fmi::ScalarVariable& v : md.variables) {
    const auto suffix = element_suffix(v.name, name);
    if (!suffix) continue;
    const std::vector<std::size_t> index = element_indices(*suffix);
    shape.resize(std::max(shape.size(), index.size()), 0);
    for (std::size_t d = 0; d < index.size(); ++d) shape[d] = std::max(shape[d], index[d]);
  }
  return shape;
}

/// Parameters given as JSON arrays have the shape the FMU declares (the elements alone would set a
/// part of a larger array and leave the rest at its start values without a word).
void check_array_shapes(const SystemSpec& spec, const fmi::ModelDescription& md) {
  for (const auto& [name, given] : spec.array_shapes) {
    const std::vector<std::size_t> declared = declared_shape(md, name);
    if (declared.empty()) {
      throw Error(fmt::format("system '{}': parameter '{}' is given as an array, but FMU '{}' has no array '{}'",
                              spec.name, name, spec.fmu.string(), name));
    }
    if (declared != given) {
      throw Error(fmt::format("system '{}': parameter '{}' is {} in FMU '{}'; the scenario gives {}", spec.name, name,
                              fmt::join(declared, "×"), spec.fmu.string(), fmt::join(given, "×")));
    }
  }
}

/// true/false given to an FMU variable: 1/0 for a Boolean, refused by name for any other type (a
/// Real or an Integer given true is a slip, not a value).
double boolean_for(const SystemSpec& spec, const fmi::ModelDescription& md, const std::string& name, bool value) {
  const std::size_t open = name.find('[');
  const int at = md.find(open == std::string::npos ? name : name.substr(0, open));
  const fmi::VariableType type = at >= 0 ? md.variables[static_cast<std::size_t>(at)].type : fmi::VariableType::boolean;
  if (type != fmi::VariableType::boolean) {
    const bool text = type == fmi::VariableType::string || type == fmi::VariableType::binary;
    throw Error(fmt::format("system '{}': parameter '{}' ({}) is given {}, a Boolean value; give it {}", spec.name,
                            name, md.type_name(type), value, text ? "a text" : "a number"));
  }
  return value ? 1.0 : 0.0;  // (a name the FMU lacks is refused by set_parameter)
}

/// SystemSpec "fmu": an FMU of any version, through the interface chosen (fmi/fmu_factory.hpp).
std::unique_ptr<System> build_fmu_system(const SystemSpec& spec) {
  const fmi::ModelDescription md = fmi::read_model_description(spec.fmu);
  check_array_shapes(spec, md);
  std::unique_ptr<System> system;
  if (fmu_interface(spec, md) == fmi::FmiInterface::model_exchange) {
    // the FMU's DefaultExperiment tolerance is the integrator's unless the scenario gives one
    IntegratorOptions options = spec.integrator_options;
    if (!options.rtol_given && md.default_experiment.tolerance && *md.default_experiment.tolerance > 0.0) {
      options.rtol = *md.default_experiment.tolerance;
      if (!options.atol_given) options.atol = 1e-2 * options.rtol;
    }
    const auto make = [&spec](const IntegratorOptions& o) { return integrator_of(spec, o); };
    system = fmi::make_me_system(spec.name, spec.fmu, make, options);
  } else {
    system = fmi::make_cs_system(spec.name, spec.fmu, md);
  }
  for (const auto& [parameter, value] : spec.parameters) {
    if (const auto* text = std::get_if<std::string>(&value))
      system->set_string_parameter(parameter, *text);
    else if (const auto* whole = std::get_if<WideInteger>(&value))
      system->set_wide_parameter(parameter, *whole);
    else if (const auto* flag = std::get_if<bool>(&value))
      system->set_parameter(parameter, boolean_for(spec, md, parameter, *flag));
    else
      system->set_parameter(parameter, std::get<double>(value));
  }
  return system;
}

/// SystemSpec "model": a built-in model (models/registry.hpp) under one of cosima's integrators.
std::unique_ptr<System> build_native_system(const SystemSpec& spec) {
  auto ode = models::make_model(spec.model);
  if (!spec.array_shapes.empty()) {
    throw Error(
        fmt::format("system '{}': parameter '{}' is given as an array; built-in model '{}' has scalar "
                    "parameters only",
                    spec.name, spec.array_shapes.begin()->first, spec.model));
  }
  for (const auto& [parameter, value] : spec.parameters) {
    try {
      if (std::holds_alternative<std::string>(value)) {
        throw Error(
            fmt::format("parameter '{}' is a number; \"{}\" is a text", parameter, std::get<std::string>(value)));
      }
      if (const auto* flag = std::get_if<bool>(&value)) {
        throw Error(fmt::format("parameter '{}' is a number; {} is a Boolean value", parameter, *flag));
      }
      if (const auto* whole = std::get_if<WideInteger>(&value))
        ode->set_wide_parameter(parameter, *whole);
      else
        ode->set_parameter(parameter, std::get<double>(value));
    } catch (const Error& e) {
      throw Error(fmt::format("system '{}': {}", spec.name, e.what()));
    }
  }
  auto native = std::make_unique<NativeSystem>(spec.name, std::move(ode), integrator_of(spec, spec.integrator_options));
  native->set_step_cost(spec.step_cost);
  native->set_max_events_per_step(spec.integrator_options.max_events_per_step);
  return native;
}

/// The kinds of system a scenario names, each by the key that selects it (one entry per kind: a
/// new kind adds its builder and one line here). The scenario reader ensures exactly one is set.
struct SystemKind {
  const char* key;
  bool (*selected)(const SystemSpec&);
  std::unique_ptr<System> (*build)(const SystemSpec&);
};
constexpr std::array<SystemKind, 3> kSystemKinds = {{
    {"csv", [](const SystemSpec& s) { return !s.csv.empty(); }, build_csv_source},
    {"fmu", [](const SystemSpec& s) { return !s.fmu.empty(); }, build_fmu_system},
    {"model", [](const SystemSpec& s) { return !s.model.empty(); }, build_native_system},
}};

}  // namespace

std::unique_ptr<System> build_system(const SystemSpec& spec) {
  const auto kind =
      std::find_if(kSystemKinds.begin(), kSystemKinds.end(), [&](const SystemKind& k) { return k.selected(spec); });
  if (kind == kSystemKinds.end()) {
    throw Error(fmt::format("system '{}' names no \"model\", \"fmu\" or \"csv\"", spec.name));
  }
  std::unique_ptr<System> system;
  try {
    system = kind->build(spec);
  } catch (const Error& e) {  // every message names the system, wherever it is built (a worker too)
    if (std::string_view(e.what()).find("'" + spec.name + "'") != std::string_view::npos) throw;
    throw Error(fmt::format("system '{}': {}", spec.name, e.what()));
  }
  for (Capability c : kAllCapabilities) {
    if (spec.withheld.has(c)) system->withhold(c);
  }
  return system;
}

std::unique_ptr<System> build_system(const SystemSpec& spec, const methods::CouplingMethod& method) {
  auto system = build_system(spec);
  CapabilitySet wanted = method.wanted(*system);
  // CVODE's BDF history cannot be saved (CVODE 6 has no API for it): under a method that rolls the
  // system back, every step would restart it at order 1 — N restarts × rtol. Such a system integrates
  // with ARKODE's DIRK instead, a one-step stiff method that a rollback costs nothing (docs/design.md §4).
  if (const auto* native = dynamic_cast<const NativeSystem*>(system.get());
      native != nullptr && wanted.has(Capability::rollback) && native->has(Capability::rollback) &&
      native->integrator().kind() == "cvode") {
    SystemSpec one_step = spec;
    one_step.integrator = "arkode";
    log(LogLevel::info, fmt::format("system '{}': {} rolls it back, so it integrates with arkode (one-step, stiff) "
                                    "instead of cvode, whose history a rollback would lose",
                                    spec.name, method.name()));
    system = build_system(one_step);
    wanted = method.wanted(*system);
  }
  return emulate_missing(
      run_ahead_if_wanted(std::move(system), wanted), wanted,
      EmulationOptions{.substeps = spec.emulation_substeps, .derivatives = spec.emulation_derivatives});
}

namespace {

/// Whether an interface of the FMU declares a capability that probe_declared_capabilities tries; false
/// for an FMU that cannot be read (the run names the system and the file when it builds it).
bool declares_probed_capability(const std::filesystem::path& fmu) {
  fmi::ModelDescription md;
  try {
    md = fmi::read_model_description(fmu);
  } catch (const Error&) {
    return false;
  }
  const auto common = [](const fmi::InterfaceCapabilities& c) {
    return c.can_get_and_set_state || c.provides_directional_derivative;
  };
  if (md.model_exchange && common(*md.model_exchange)) return true;
  return md.co_simulation && (common(*md.co_simulation) || md.co_simulation->can_interpolate_inputs ||
                              md.co_simulation->max_output_derivative_order > 0);
}

/// Declared capabilities whose calls fail are withheld (emulated, or done without), each said as a
/// warning naming the system, FMU and call (system/capability_probe.hpp). Only what `method` reads of
/// a system is probed; every declared capability when the method is still to be chosen (null).
void withhold_failing_capabilities(Scenario& scenario, const methods::CouplingMethod* method) {
  ProbedCapabilities probed;
  // and what the results read: the rows between the steps of a method that chooses them are Hermite
  // interpolants where a system has output derivatives (observer/result_recorder.hpp)
  if (method != nullptr) {
    probed = [method, between = rows_between_steps(scenario, *method)](const System& system) {
      CapabilitySet wanted = method->wanted(system);
      return between ? wanted.add(Capability::output_derivatives) : wanted;
    };
  }
  for (SystemSpec& spec : scenario.systems) {
    // an FMU that declares nothing the probe tries is not instantiated here: an FMU that crashes as it
    // is instantiated does so in the run, where the executor names it (in its own process under
    // --executor processes)
    if (spec.fmu.empty() || !declares_probed_capability(spec.fmu)) continue;
    const auto make = [&spec] { return build_system(spec); };
    for (const CapabilityFailure& failure : probe_declared_capabilities(make, scenario.run.start, probed)) {
      spec.withheld.add(failure.capability);
      log(LogLevel::warning, fmt::format("system '{}' (FMU '{}') declares {} ({}), but its call failed at "
                                         "initialization: {}; it is withheld and emulated where a method needs it",
                                         spec.name, spec.fmu.string(), to_string(failure.capability),
                                         fmi_flag(failure.capability), failure.error));
    }
  }
}

/// Whether some continuous Real output feeds a continuous input (not held) of another system.
bool continuously_coupled(const model::ModularModel& model) {
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source < 0 || model.input_held(g)) continue;
    const int system = model.system_of_output(source);
    if (model.system(system).output_info(source - model.output_offset(system)).continuous) return true;
  }
  return false;
}

methods::MethodChoice choose_for(const Scenario& scenario, const std::string& request) {
  const model::ModularModel model = build_model(scenario);
  std::vector<const System*> view;
  view.reserve(static_cast<std::size_t>(model.system_count()));
  for (int s = 0; s < model.system_count(); ++s) view.push_back(&model.system(s));
  return methods::choose_method(request, view, continuously_coupled(model));
}

/// The FMU systems left to their default interface (Co-Simulation) that also have Model Exchange.
std::vector<std::size_t> dual_interface_systems(const Scenario& scenario) {
  std::vector<std::size_t> dual;
  for (std::size_t i = 0; i < scenario.systems.size(); ++i) {
    const SystemSpec& spec = scenario.systems[i];
    if (spec.fmu.empty() || spec.interface) continue;
    const fmi::ModelDescription md = fmi::read_model_description(spec.fmu);
    if (md.co_simulation && md.model_exchange) dual.push_back(i);
  }
  return dual;
}

/// Whether every system is an FMU with a Model Exchange interface that the scenario does not pin
/// to Co-Simulation: cosima can then integrate them all as one ODE.
bool all_model_exchange(const Scenario& scenario) {
  for (const SystemSpec& spec : scenario.systems) {
    if (spec.fmu.empty() || spec.interface == fmi::FmiInterface::co_simulation) return false;
    if (!fmi::read_model_description(spec.fmu).model_exchange) return false;
  }
  return true;
}

/// "auto" over Model Exchange FMUs only: the monolithic method integrates their coupled equations
/// as one ODE (CVODE, events kept), which no iteration of co-simulation steps matches.
bool choose_monolithic(Scenario& scenario, methods::MethodChoice& choice) {
  if (!all_model_exchange(scenario)) return false;
  std::string names;
  for (SystemSpec& spec : scenario.systems) {
    spec.interface = fmi::FmiInterface::model_exchange;
    names += fmt::format("{}'{}'", names.empty() ? "" : ", ", spec.name);
  }
  choice = {"monolithic", fmt::format("every system ({}) is an FMU with a Model Exchange interface: cosima integrates "
                                      "their coupled equations as one ODE (CVODE at tight tolerance, events kept), "
                                      "the coupled solution without a coupling error",
                                      names)};
  return true;
}

/// When the FMUs that offer both interfaces allow a more accurate method through Model Exchange
/// (cosima integrates it and provides rollback, states and linearization), they run through it.
void prefer_model_exchange(Scenario& scenario, const std::string& request, methods::MethodChoice& choice) {
  const std::vector<std::size_t> dual = dual_interface_systems(scenario);
  if (dual.empty() || methods::choice_rank(choice) == 2) return;
  Scenario trial = scenario;
  std::string names;
  for (const std::size_t i : dual) {
    trial.systems[i].interface = fmi::FmiInterface::model_exchange;
    names += fmt::format("{}'{}'", names.empty() ? "" : ", ", trial.systems[i].name);
  }
  methods::MethodChoice better = choose_for(trial, request);
  if (methods::choice_rank(better) <= methods::choice_rank(choice)) return;
  for (const std::size_t i : dual) scenario.systems[i].interface = fmi::FmiInterface::model_exchange;
  better.reason = fmt::format("{} through Model Exchange, as their Co-Simulation interface allows only {} ({}); {}",
                              names, choice.type, choice.reason, better.reason);
  choice = std::move(better);
}

/// A constant input given as a JSON array covers the whole array port: as many elements as the
/// system's inputs named "port[…]" (each element given exists: set_constant_input checked it).
void check_input_array_sizes(const Scenario& scenario, const model::ModularModel& model) {
  for (const auto& [label, shape] : scenario.input_array_shapes) {
    std::size_t given = 1;
    for (const std::size_t size : shape) given *= size;
    const auto splits = model.split_label(label);
    if (splits.empty()) continue;  // set_constant_input named the missing system
    const std::size_t declared = element_count(model.system(splits.front().system).input_names(), splits.front().port);
    if (declared != given) {
      throw Error(fmt::format("input '{}' has {} elements; the scenario gives {} ({})", label, declared, given,
                              fmt::join(shape, "×")));
    }
  }
}

}  // namespace

bool rows_between_steps(const Scenario& scenario, const methods::CouplingMethod& method) {
  if (method.chooses_step()) return true;
  const double interval = scenario.output.interval, dt = scenario.run.dt;
  if (!(interval > 0.0) || !(dt > 0.0)) return false;
  const double steps = std::nearbyint(interval / dt);
  return steps < 1.0 || std::abs(steps * dt - interval) > 1e-9 * interval;
}

void prove_capabilities(Scenario& scenario) {
  if (scenario.capabilities_proven) return;
  scenario.capabilities_proven = true;
  if (methods::is_auto_method(scenario.method)) {
    withhold_failing_capabilities(scenario, nullptr);
    return;
  }
  std::vector<std::string> ignored;  // said by the run that makes the method again
  const auto method = methods::make_method(scenario.method, scenario.run.dt, ignored);
  withhold_failing_capabilities(scenario, method.get());
}

bool resolve_auto_method(Scenario& scenario) {
  if (!methods::is_auto_method(scenario.method)) return false;
  if (scenario.systems.empty()) throw Error("method auto: the scenario has no systems");
  prove_capabilities(scenario);
  const std::string request = scenario.method["type"].get<std::string>();
  methods::MethodChoice choice;
  if (request != "auto" || !choose_monolithic(scenario, choice)) {
    choice = choose_for(scenario, request);
    if (request == "auto") prefer_model_exchange(scenario, request, choice);
  }
  scenario.method["type"] = choice.type;
  scenario.method_choice = fmt::format("method {}: {}", choice.type, choice.reason);
  return true;
}

namespace {

/// A "parameter" that names an input of its system is that input's start value (an FMU takes it
/// before initialization; SSP parameter bindings reach inputs this way): while no connection or
/// constant drives the input, it is held at that value.
void drive_inputs_set_as_parameters(const Scenario& scenario, model::ModularModel& model) {
  std::vector<std::pair<std::string, const ScalarValue*>> named_inputs;  // rare: most scenarios have none
  for (const SystemSpec& spec : scenario.systems) {
    const System& system = model.system(model.system_index(spec.name));
    for (const auto& [parameter, value] : spec.parameters) {
      if (system.input_index(parameter) >= 0) named_inputs.emplace_back(spec.name + "." + parameter, &value);
    }
  }
  if (named_inputs.empty()) return;
  std::unordered_set<std::string_view> driven;
  for (const auto& c : scenario.connections) driven.insert(c.to);
  for (const auto& [port, value] : scenario.constant_inputs) driven.insert(port);
  for (const auto& named : named_inputs) {
    const std::string& label = named.first;
    if (!driven.contains(label)) std::visit([&](const auto& v) { model.set_constant_input(label, v); }, *named.second);
  }
}

}  // namespace

model::ModularModel build_model(const Scenario& scenario, const SystemMaker& make) {
  model::ModularModel model;
  for (const SystemSpec& spec : scenario.systems) model.add_system(make ? make(spec) : build_system(spec));
  for (const auto& c : scenario.connections) model.connect(c.from, c.to, c.convert, c.transform);
  for (const auto& [port, value] : scenario.constant_inputs) {
    std::visit([&, &port = port](const auto& v) { model.set_constant_input(port, v); }, value);
  }
  check_input_array_sizes(scenario, model);
  drive_inputs_set_as_parameters(scenario, model);
  model.set_strict_inputs(scenario.strict_inputs);
  model.finalize();
  return model;
}

}  // namespace cosima::scenario
