#include "scenario/run_scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "methods/method_choice.hpp"
#include "methods/method_registry.hpp"

namespace cosima::scenario {

namespace {

/// The run's connection defect (methods/coupling_error.hpp) in the stats.
cosima::io::Json coupling_error_json(const methods::CouplingErrorReport& report) {
  auto connections = cosima::io::Json::array();
  for (const methods::ConnectionError& c : report.connections) {
    connections.push_back({{"output", c.output},
                           {"input", c.input},
                           {"rms", c.rms},
                           {"max", c.max},
                           {"scale", c.scale},
                           {"rms_relative", c.relative(c.rms)},
                           {"max_relative", c.relative(c.max)}});
  }
  return {{"rms_relative", report.rms_relative}, {"max_relative", report.max_relative}, {"connections", connections}};
}

}  // namespace

ResultsFormat results_format(const std::filesystem::path& path, const std::string& declared) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::error_code error;
  const bool stream =
      path == "-" || (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error));
  if (!declared.empty()) {
    const bool known = extension == ".csv" || extension == ".mat";
    if (known && extension != "." + declared) {
      throw Error(
          fmt::format("results file '{}' is {} but output.format is \"{}\"", path.string(), extension, declared));
    }
    return declared == "mat" ? ResultsFormat::mat : ResultsFormat::csv;
  }
  if (extension == ".mat") return ResultsFormat::mat;
  if (extension == ".csv" || stream) return ResultsFormat::csv;
  throw Error(
      fmt::format("results file '{}': {} is not a results format: .csv or .mat (MATLAB v4), or set "
                  "output.format",
                  path.string(), extension.empty() ? "no extension" : "'" + extension + "'"));
}

ScenarioRun run_scenario(const Scenario& given, exec::Executor* executor, const RunOutputs& outputs) {
  Scenario resolved;
  if (!given.capabilities_proven || methods::is_auto_method(given.method)) {  // (Launch does it before the executor
    resolved = given;                                                         // starts)
    prove_capabilities(resolved);
    resolve_auto_method(resolved);
  }
  const Scenario& scenario = resolved.method.is_null() ? given : resolved;
  ScenarioRun run;
  const auto method = methods::make_method(scenario.method, scenario.run.dt, run.warnings);
  run.model = build_model(scenario, [&](const SystemSpec& spec) {
    auto remote = executor != nullptr ? executor->remote_system(spec.name) : nullptr;
    return remote ? std::move(remote) : build_system(spec, *method);
  });
  run.results = std::make_unique<observer::ResultRecorder>(
      run.model, scenario.output.variables,
      observer::RecorderOptions{.interval = scenario.output.interval,
                                .csv = outputs.results_csv,
                                .mat = outputs.results_mat,
                                .keep_in_memory = outputs.keep_in_memory,
                                .watched = outputs.watched,
                                .interpolate = outputs.interpolate_rows && rows_between_steps(scenario, *method)});
  const bool keep_steps = outputs.keep_in_memory && outputs.keep_step_log;
  run.steps = std::make_unique<observer::StepLog>(outputs.steps_csv, keep_steps);
  simulation::RunOptions options = scenario.run;
  options.executor = executor;
  std::vector<observer::Observer*> observers = {run.results.get()};
  if (outputs.steps_csv || keep_steps) observers.push_back(run.steps.get());  // else it records nothing
  observers.insert(observers.end(), outputs.observers.begin(), outputs.observers.end());
  run.stats = simulation::simulate(run.model, *method, options, observers);
  run.stats.method_choice = scenario.method_choice;
  run.stats.guessed = scenario.guessed;
  return run;
}

double mean_nl2(const ScenarioRun& run, const ScenarioRun& reference) {
  const auto& labels = run.results->labels();
  double sum = 0.0;
  for (const auto& label : labels) {
    sum += compare_signals(run.results->times(), run.results->column(label), reference.results->times(),
                           reference.results->column(label))
               .nl2;
  }
  return labels.empty() ? 0.0 : sum / static_cast<double>(labels.size());
}

cosima::io::Json stats_to_json(const simulation::RunStatistics& stats) {
  cosima::io::Json json;
  json["method"] = stats.method;
  if (!stats.method_choice.empty()) json["method_choice"] = stats.method_choice;
  if (!stats.guessed.empty()) json["guessed"] = stats.guessed;
  auto& capabilities = json["capabilities"];
  capabilities = cosima::io::Json::object();
  for (const simulation::SystemCapabilities& system : stats.capabilities) {
    const auto names = [](CapabilitySet set) {
      auto list = cosima::io::Json::array();
      for (Capability c : kAllCapabilities) {
        if (set.has(c)) list.push_back(std::string(to_string(c)));
      }
      return list;
    };
    auto& entry = capabilities[system.system];
    entry["native"] = names(system.native);
    entry["emulated"] = names(system.emulated);
    if (!system.emulated.empty()) entry["substeps"] = system.substeps;
    if (!system.stand_in.empty()) entry["stand_in"] = system.stand_in;
    if (!system.derivatives.empty()) entry["derivatives"] = system.derivatives;
    if (!system.inputs.empty()) entry["inputs"] = system.inputs;
  }
  if (!stats.inputs_at_start_values.empty()) json["inputs_at_start_values"] = stats.inputs_at_start_values;
  json["initialization"] = {{"sweeps", stats.initialization.sweeps},
                            {"newton_iterations", stats.initialization.newton_iterations},
                            {"residual", stats.initialization.residual},
                            {"settling_sweeps", stats.initialization.settling_sweeps}};
  json["macro_steps"] = stats.macro_steps;
  json["rejected_steps"] = stats.rejected_steps;
  json["iterations"] = stats.iterations;
  json["integrations"] = stats.integrations;
  if (stats.steps_at_step_floor > 0) json["steps_at_step_floor"] = stats.steps_at_step_floor;
  json["wall_time_s"] = stats.wall_time_s;
  json["integration_time_s"] = stats.integration_time_s;
  json["end_time"] = stats.end_time;
  if (!std::isnan(stats.max_estimate_gap)) json["max_estimate_gap"] = stats.max_estimate_gap;
  for (const auto& [name, value] : stats.method_totals) json[name] = value;
  if (stats.coupling_error.tracked) json["coupling_error"] = coupling_error_json(stats.coupling_error);
  json["accuracy_warning"] = stats.coupling_error.accuracy_warning;
  if (const auto warnings = logged_warnings(); !warnings.empty()) json["warnings"] = warnings;
  json["terminated_early"] = stats.terminated_early;
  if (stats.terminated_early) json["termination_reason"] = stats.termination_reason;
  if (stats.interrupted_by != 0) json["interrupted_by"] = stats.interrupted_by;
  return json;
}

}  // namespace cosima::scenario
