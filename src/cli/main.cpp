// The `cosima` command: run scenarios, list models, compare results, reproduce
// the seeds' figures.
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "api/cosima.hpp"
#include "bench/bench.hpp"
#include "core/crash.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "core/output_file.hpp"
#include "core/suggest.hpp"

namespace {

using cosima::Error;

/// A mistake in the command line itself (exit 2, like CLI11's own parse
/// errors).
struct UsageError : Error {
  using Error::Error;
};

/// A CLI11 check of a number: "" when `text` is a finite number that `admit`s,
/// else why not.
CLI::Validator number_check(bool (*admit)(double), const char* requirement, const char* name) {
  return {[=](const std::string& text) -> std::string {
            std::size_t used = 0;
            double value = 0.0;
            try {
              value = std::stod(text, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != text.size() || text.empty()) return fmt::format("expects a number, got '{}'", text);
            if (!std::isfinite(value) || !admit(value)) return fmt::format("must be {}, got '{}'", requirement, text);
            return {};
          },
          name};
}

const CLI::Validator kFinitePositive =
    number_check([](double value) { return value > 0.0; }, "a finite number > 0", "POSITIVE");  // a step, a timeout
const CLI::Validator kFinite = number_check([](double) { return true; }, "a finite number", "NUMBER");

/// CLI11 check of --executor: sequential, threads:N, processes, processes:N or
/// mpi.
const CLI::Validator kExecutor(
    [](const std::string& text) -> std::string {
      try {
        cosima::api::check_executor(text);
        return {};
      } catch (const cosima::Error& e) {
        return e.what();
      }
    },
    "EXECUTOR");

/// What `cosima run` takes from its command line.
struct RunArguments {
  std::string scenario_file;
  std::optional<std::string> method, out, stats_file, steps_file, plot_file, log_level;
  std::string executor_spec = "sequential";
  std::optional<double> dt, stop, fmu_timeout;
  std::vector<std::string> overrides;
  std::vector<std::string> start_values;  ///< of an FMU run on its own
  std::optional<std::string> interface;   ///< of an FMU run on its own: cs or me
  std::string input;                      ///< of an FMU run on its own: a CSV driving its inputs
  std::string ssd;                        ///< the SSD of an SSP package or folder (default SystemStructure.ssd)
  bool quiet = false, progress = false, strict_inputs = false;
};

/// The methods with their options, defaults and help, for `cosima run --help`.
std::string methods_help() {
  std::string text = "Methods (--method, or the scenario's \"method\": {\"type\": ..., options}):\n";
  for (const cosima::methods::MethodEntry& method : cosima::methods::registered_methods()) {
    text += fmt::format("  {:<16} {}\n", method.name, method.summary);
    for (const cosima::methods::MethodOption& option : method.options) {
      text += fmt::format("      {:<22} {:<10} {}\n", option.name,
                          option.default_value.empty() ? "-" : option.default_value, option.help);
    }
  }
  return text +
         "  auto, auto:fast  the most accurate (cheapest accurate) "
         "method the systems' capabilities allow\n";
}

/// The stats file, registered for the fatal paths (core/crash.hpp) for the lifetime of a run.
class EmergencyStats {
 public:
  explicit EmergencyStats(cosima::OutputFile* file) { cosima::register_emergency_stats(file); }
  ~EmergencyStats() { cosima::register_emergency_stats(nullptr); }
  EmergencyStats(const EmergencyStats&) = delete;
  EmergencyStats& operator=(const EmergencyStats&) = delete;
};

/// Writes the stats and puts the file in place.
void write_stats(cosima::OutputFile& stats, const cosima::io::Json& json) {
  stats.write(json.dump(2, ' ', false, cosima::io::Json::error_handler_t::replace) + '\n');
  stats.publish();
}

/// The stats of a run that failed: why, and that it ended early.
void write_failed_stats(cosima::OutputFile& stats, const std::string& error) {
  cosima::io::Json json;
  json["terminated_early"] = true;
  json["error"] = error;
  try {
    write_stats(stats, json);
  } catch (const Error& e) {
    std::cerr << fmt::format("cosima: the stats of the failed run could not be written either: {}\n", e.what());
  }
}

/// A run's output files by option ("--out", path; unset: empty).
using Outputs = std::vector<std::pair<std::string, std::string>>;

/// Throws UsageError when two of a run's outputs are one file or both standard output ("-"), or one
/// is a file the run reads (`reads`: the scenario, its SSD, SSV and SSM files, FMUs, tables, --input):
/// one would destroy the other. The same file by device and inode, links followed; a path that does
/// not exist yet, by its canonical form. Unset outputs are skipped.
void refuse_clashing_paths(const Outputs& outputs, const std::vector<std::filesystem::path>& reads) {
  const auto same = [](const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code error;
    if (std::filesystem::equivalent(a, b, error)) return true;
    const auto canonical_a = std::filesystem::weakly_canonical(a, error);
    if (error) return false;
    const auto canonical_b = std::filesystem::weakly_canonical(b, error);
    return !error && canonical_a == canonical_b;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty()) continue;
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const std::string& other = outputs[j].second;
      if (path == "-" && other == "-")
        throw UsageError(
            fmt::format("{} and {} both write to standard output; give one of them a file", option, outputs[j].first));
      if (path != "-" && !other.empty() && other != "-" && same(path, other)) {
        throw UsageError(fmt::format("{} and {} name the same file '{}'", option, outputs[j].first, path));
      }
    }
    if (path == "-") continue;
    for (const std::filesystem::path& read : reads) {
      if (!same(path, read)) continue;
      if (&read == &reads.front()) throw UsageError(fmt::format("{} '{}' is the scenario being run", option, path));
      throw UsageError(fmt::format("{} '{}' is '{}', which the run reads; give the output another name", option, path,
                                   read.string()));
    }
  }
}

/// The outputs the command line names (the results file before the scenario gives its default).
Outputs given_outputs(const RunArguments& arguments, const std::string& results) {
  return {{"--out", results},
          {"--stats", arguments.stats_file.value_or("")},
          {"--steps", arguments.steps_file.value_or("")},
          {"--plot", arguments.plot_file.value_or("")}};
}

/// The scenario as the command line amends it (--method, --dt, --stop, --strict-inputs, --set),
/// with its log level applied.
cosima::scenario::Scenario load_run_scenario(const RunArguments& arguments) {
  std::vector<std::string> overrides = arguments.overrides;
  if (arguments.method) overrides.push_back("method.type=\"" + *arguments.method + "\"");
  if (arguments.dt) overrides.push_back(fmt::format("method.dt={:.17g}", *arguments.dt));
  if (arguments.stop) overrides.push_back(fmt::format("stop={:.17g}", *arguments.stop));
  if (arguments.strict_inputs) overrides.emplace_back("strict_inputs=true");
  if (arguments.interface) {
    if (!cosima::scenario::is_fmu_file(arguments.scenario_file)) {
      throw UsageError(
          "--interface is for an FMU run on its own (cosima run X.fmu); in a scenario set "
          "systems.NAME.interface");
    }
    overrides.push_back(fmt::format("systems.{}.interface=\"{}\"",
                                    cosima::scenario::fmu_system_name(arguments.scenario_file), *arguments.interface));
  }
  cosima::scenario::Scenario scenario = cosima::scenario::load_scenario(
      arguments.scenario_file, overrides, {.start_values = arguments.start_values, .input = arguments.input},
      arguments.ssd);
  if (const std::string level = arguments.log_level.value_or(scenario.log_level); !level.empty()) {
    cosima::set_log_level(*cosima::parse_log_level(level));
  }
  return scenario;
}

/// The results file (--out, or the scenario's name), said on stderr when it was not given; every
/// output checked against the others and the files the run reads before anything is written.
std::string results_file(const RunArguments& arguments, const cosima::scenario::Scenario& scenario) {
  const std::string& format = scenario.output.format;
  std::string csv = arguments.out.value_or(std::filesystem::path(arguments.scenario_file).stem().string() +
                                           (format == "mat" ? ".mat" : ".csv"));
  if (!arguments.out) {  // never silently: say where the results go, and what they replace
    std::error_code ignored;
    std::cerr << fmt::format("cosima: results go to '{}'{} (--out chooses the file)\n", csv,
                             std::filesystem::exists(csv, ignored) ? ", replacing the file there" : "");
  }
  refuse_clashing_paths(given_outputs(arguments, csv), cosima::scenario::files_read(scenario));
  return csv;
}

void print_summary(std::ostream& summary, const cosima::scenario::Scenario& scenario,
                   const cosima::scenario::ScenarioRun& run, const RunArguments& arguments, const std::string& csv) {
  summary << fmt::format(
      "scenario   {}\nmethod     {} (executor {})\ntime       [{}, {}] with "
      "dt = {}\nmacro-steps {}  rejected {}  iterations {}  "
      "integrations {}\nwall time  {:.3f} s ({:.3f} s inside the "
      "systems)\nresults    {} ({} rows, {} variables)\n",
      scenario.name, run.stats.method, arguments.executor_spec, scenario.run.start, run.stats.end_time, scenario.run.dt,
      run.stats.macro_steps, run.stats.rejected_steps, run.stats.iterations, run.stats.integrations,
      run.stats.wall_time_s, run.stats.integration_time_s, csv, run.results->rows(), run.results->labels().size());
  if (arguments.stats_file) summary << "stats      " << *arguments.stats_file << '\n';
}

/// Whether mpirun started this process as a rank other than 0 (which serves its systems and writes no
/// file of the run's).
bool mpi_worker_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* rank = std::getenv(variable); rank != nullptr && std::string_view(rank) != "0") return true;
  }
  return false;
}

/// The launch of the run (core of command_run): a failure to start it — a system its process cannot
/// build, under processes or MPI — still leaves the stats file saying why, as a failed run does.
cosima::api::Launch launch_run(const RunArguments& arguments) {
  try {
    cosima::scenario::Scenario scenario = load_run_scenario(arguments);
    // (before a failed launch writes its stats: no output over what the run reads)
    refuse_clashing_paths(given_outputs(arguments, arguments.out.value_or("")), cosima::scenario::files_read(scenario));
    return {std::move(scenario), {.executor = arguments.executor_spec, .fmu_timeout = arguments.fmu_timeout}};
  } catch (const UsageError&) {
    throw;  // an output that clashes is written by no one
  } catch (const Error& e) {
    if (arguments.stats_file && !mpi_worker_rank()) {
      try {
        cosima::OutputFile stats(*arguments.stats_file);
        write_failed_stats(stats, e.what());
      } catch (const Error& unwritable) {  // the run's own error is the one to report
        std::cerr << fmt::format("cosima: the stats of the failed run could not be written either: {}\n",
                                 unwritable.what());
      }
    }
    throw;
  }
}

int command_run(const RunArguments& arguments) {
  if (arguments.fmu_timeout && !cosima::api::executor_isolates(arguments.executor_spec)) {
    throw UsageError("--fmu-timeout needs --executor processes (an FMU in this process cannot be stopped)");
  }
  // the outputs given are checked before anything is read or written (results_file checks the default
  // results name once the scenario is known)
  std::vector<std::filesystem::path> reads = {arguments.scenario_file};
  if (!arguments.input.empty()) reads.emplace_back(arguments.input);
  refuse_clashing_paths(given_outputs(arguments, arguments.out.value_or("")), reads);
  cosima::api::Launch launch = launch_run(arguments);
  if (launch.served()) return 0;  // an MPI worker, done serving
  if (!launch.method_choice().empty()) std::cerr << "cosima: " << launch.method_choice() << '\n';
  const cosima::scenario::Scenario& scenario = launch.scenario();
  const std::string csv = results_file(arguments, scenario);
  std::optional<cosima::OutputFile> stats_file;  // created (under a temporary name) before the run
  if (arguments.stats_file) stats_file.emplace(*arguments.stats_file);
  const EmergencyStats emergency_stats(stats_file ? &*stats_file : nullptr);
  cosima::install_interrupt_handlers();
  // a closed pipe is a write error (EPIPE) that names the output and ends the run, not a silent death
  std::signal(SIGPIPE, SIG_IGN);
  const bool terminal = isatty(STDERR_FILENO) != 0;
  cosima::observer::ProgressLine progress_line(stderr, terminal, scenario.run.start, scenario.run.stop);
  const bool mat =
      cosima::scenario::results_format(csv, scenario.output.format) == cosima::scenario::ResultsFormat::mat;
  if (mat && arguments.plot_file) throw UsageError("--plot draws CSV results; write them with --out x.csv");
  cosima::scenario::RunOutputs outputs{
      .results_csv = mat ? std::nullopt : std::optional<std::filesystem::path>(csv),
      .steps_csv = arguments.steps_file ? std::optional<std::filesystem::path>(*arguments.steps_file) : std::nullopt,
      .results_mat = mat ? std::optional<std::filesystem::path>(csv) : std::nullopt,
      .keep_in_memory = false,
      .watched = terminal,
      .observers = {}};
  if (arguments.progress || (terminal && !arguments.quiet)) outputs.observers.push_back(&progress_line);
  cosima::scenario::ScenarioRun run;
  try {
    run = launch.run(outputs);
    launch.finish();  // a system's process that dies on the way out (in fmi2FreeInstance) fails the run too
  } catch (const Error& e) {
    if (stats_file) write_failed_stats(*stats_file, e.what());
    throw;
  }
  for (const auto& warning : run.warnings) std::cerr << "cosima: note: " << warning << '\n';
  if (stats_file) write_stats(*stats_file, cosima::scenario::stats_to_json(run.stats));
  // with the results on standard output, the summary goes to standard error
  std::ostream& summary = csv == "-" ? std::cerr : std::cout;
  if (!arguments.quiet) print_summary(summary, scenario, run, arguments, csv);
  if (run.stats.terminated_early) std::cerr << "cosima: run ended early: " << run.stats.termination_reason << '\n';
  if (arguments.plot_file) {
    cosima::plot::plot_results(
        {.results = csv,
         .variables = {},
         .reference = {},
         .steps = arguments.steps_file ? std::filesystem::path(*arguments.steps_file) : std::filesystem::path(),
         .image = *arguments.plot_file});
    if (!arguments.quiet) summary << "plot       " << *arguments.plot_file << '\n';
  }
  return run.stats.interrupted_by != 0 ? 128 + run.stats.interrupted_by : 0;
}

int command_models() {
  for (const auto& entry : cosima::models::catalog()) {
    auto model = cosima::models::make_model(entry.name);
    std::cout << fmt::format("{:<12} {}\n", entry.name, entry.description);
    const auto& s = model->structure();
    auto list = [](const std::vector<std::string>& names) {
      std::string text;
      for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
      return text;
    };
    std::string parameters;
    for (const auto& p : s.parameters)
      parameters += fmt::format("{}{}={:g}", parameters.empty() ? "" : ", ", p.name, p.value);
    std::cout << fmt::format(
        "             states: {} | inputs: {} | outputs: "
        "{}\n             parameters: {}\n",
        list(s.states), list(s.inputs), list(s.outputs), parameters);
  }
  return 0;
}

int command_info(const std::string& fmu) {
  std::cout << cosima::fmi::describe_fmu(fmu);
  return 0;
}

int command_compare(const std::vector<std::string>& files, bool json) {
  const cosima::io::Table result = cosima::io::read_csv(files[0]);
  const cosima::io::Table reference = cosima::io::read_csv(files[1]);
  // a comparison is meaningless on non-finite numbers or a result that stops
  // short
  for (const auto& [table, file] : {std::pair{&result, &files[0]}, std::pair{&reference, &files[1]}}) {
    for (std::size_t r = 0; r < table->time.size(); ++r) {
      if (!std::isfinite(table->time[r]))
        throw Error(fmt::format("'{}': time is {} in row {}", *file, table->time[r], r + 1));
      for (std::size_t c = 0; c < table->columns.size(); ++c) {
        if (!std::isfinite(table->values[c][r])) {
          throw Error(
              fmt::format("'{}': '{}' is {} at t = {}", *file, table->columns[c], table->values[c][r], table->time[r]));
        }
      }
    }
    if (table->time.empty()) throw Error(fmt::format("'{}' has no rows", *file));
  }
  if (result.time.back() < reference.time.back() - 1e-9 * std::max(1.0, std::abs(reference.time.back()))) {
    throw Error(fmt::format("'{}' ends at t = {}, before the reference '{}' (t = {})", files[0], result.time.back(),
                            files[1], reference.time.back()));
  }
  cosima::io::Json document;
  document["variables"] = cosima::io::Json::object();
  double nl2_sum = 0.0;
  int compared = 0;
  if (!json) std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12}\n", "variable", "nl2", "rel_pct", "max_abs");
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    const int r = reference.column_index(result.columns[c]);
    if (r < 0) {
      std::cerr << fmt::format("cosima: note: '{}' is not in '{}', skipped\n", result.columns[c], files[1]);
      continue;
    }
    const auto m = cosima::compare_signals(result.time, result.values[c], reference.time,
                                           reference.values[static_cast<std::size_t>(r)]);
    document["variables"][result.columns[c]] = {{"nl2", m.nl2}, {"rel_pct", m.rel_pct}, {"max_abs", m.max_abs}};
    nl2_sum += m.nl2;
    ++compared;
    if (!json)
      std::cout << fmt::format("{:<24} {:>12.4e} {:>12.4e} {:>12.4e}\n", result.columns[c], m.nl2, m.rel_pct,
                               m.max_abs);
  }
  if (compared == 0) throw Error(fmt::format("'{}' and '{}' share no variable", files[0], files[1]));
  document["mean_nl2"] = nl2_sum / compared;
  if (json)
    std::cout << document.dump(2) << '\n';
  else
    std::cout << fmt::format("mean nl2 {:.4e}\n", nl2_sum / compared);
  return 0;
}

/// `cosima plot`: a result's signals, optionally against a reference and with a
/// step log.
int command_plot(const cosima::plot::ResultPlot& plot) {
  cosima::plot::plot_results(plot);
  std::cout << "plot " << plot.image.string() << '\n';
  return 0;
}

/// The command line: parse, dispatch, and turn every failure into a message and
/// an exit status.
/// Every command's arguments, filled by CLI11, and the subcommands that parsed them.
struct Commands {
  RunArguments run;
  std::string exported_scenario, ssp_file;
  std::vector<std::string> export_overrides;
  std::string fmu;
  std::vector<std::string> compared;
  bool compare_json = false;
  cosima::plot::ResultPlot plot;
  std::string plot_image;
  cosima::bench::BenchOptions bench;
  std::string bench_name;
  CLI::App *run_command = nullptr, *export_command = nullptr, *models_command = nullptr, *info_command = nullptr,
           *compare_command = nullptr, *plot_command = nullptr, *bench_command = nullptr;
};

void add_run_command(CLI::App& app, Commands& c) {
  RunArguments& run = c.run;
  CLI::App* command = c.run_command =
      app.add_subcommand("run",
                         "Run a scenario (JSON, an SSP package .ssp, an OSP OspSystemStructure.xml), or one "
                         "FMU on its own.");
  command
      ->add_option("scenario", run.scenario_file,
                   "Scenario file: JSON, .ssp, .ssd, OspSystemStructure.xml, or an FMU run on its own (.fmu)")
      ->required();
  command->add_option("--ssd", run.ssd, "The SSD of an SSP package or folder to run (default SystemStructure.ssd)");
  command->add_option("--method", run.method, "Coupling method (see below); overrides the scenario's");
  command->add_option("--dt", run.dt, "Macro-step (δt_ref of the variable-step methods)")->check(kFinitePositive);
  command->add_option("--stop", run.stop, "Stop time")->check(kFinite);
  command->add_option("--set", run.overrides,
                      "Override any value by its dot path: systems.damper.parameters.D_D=0.64, "
                      "method.epsilon=1e-4, inputs.SYSTEM.PORT=VALUE");
  command->add_option("--out", run.out, "Result CSV, '-' for standard output (default: ./<scenario>.csv, announced)");
  command->add_option("--stats", run.stats_file, "Statistics JSON");
  command->add_option("--steps", run.steps_file, "Step log CSV: step sizes, iterations, defects");
  command->add_option("--plot", run.plot_file, "Plot the results (and the step log) to a .png or .svg at the end");
  command
      ->add_option("--executor", run.executor_spec,
                   "sequential | threads:N | processes[:N] (one child per system: a crashing or hanging FMU ends "
                   "the run with a message naming it) | mpi (under mpirun)")
      ->capture_default_str()
      ->check(kExecutor);
  command->add_option("--fmu-timeout", run.fmu_timeout, "Seconds a system may take (--executor processes)")
      ->check(kFinitePositive);
  command->add_option("--log-level", run.log_level, "Messages shown; at debug FMUs log too (default: the scenario's)")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}));
  command->add_flag("--strict-inputs", run.strict_inputs,
                    "Refuse unconnected inputs (by default they keep their declared start values)");
  command->add_option("--start-values", run.start_values,
                      "NAME=VALUE: variables of an FMU run on its own (cosima run X.fmu), as FMPy's --start-values");
  command->add_option("--input", run.input,
                      "CSV driving the inputs of an FMU run on its own: time, then columns named like its inputs");
  command->add_option("--interface", run.interface, "cs or me: the interface of an FMU run on its own")
      ->check(CLI::IsMember({"cs", "me"}));
  command->add_flag("--quiet", run.quiet, "No summary and no progress line");
  command->add_flag("--progress", run.progress, "The progress line even when stderr is not a terminal");
  command->footer(methods_help());
}

void add_tool_commands(CLI::App& app, Commands& c) {
  c.export_command = app.add_subcommand(
      "export-ssp", "Write an FMU scenario as an SSP package (SSP 1.0) that 'cosima run' reads back.");
  c.export_command->add_option("scenario", c.exported_scenario, "Scenario file (JSON, or .ssp)")->required();
  c.export_command->add_option("-o,--output", c.ssp_file, "The .ssp to write")->required();
  c.export_command->add_option("--set", c.export_overrides, "Override a value by its dot path first, as in 'run'");
  c.models_command = app.add_subcommand("models", "List the built-in models with their ports and parameters.");
  c.info_command = app.add_subcommand("info", "Describe an FMU: interfaces, capabilities, variables.");
  c.info_command->add_option("fmu", c.fmu, "FMU file")->required();
  c.compare_command = app.add_subcommand("compare", "Errors of a result against a reference (nl2, max).");
  c.compare_command->add_option("files", c.compared, "RESULT.csv REFERENCE.csv")->required()->expected(2);
  c.compare_command->add_flag("--json", c.compare_json, "JSON instead of a table");
  c.plot_command = app.add_subcommand("plot", "Plot a result CSV with gnuplot.");
  c.plot_command->add_option("results", c.plot.results, "RESULT.csv")->required();
  c.plot_command->add_option("variables", c.plot.variables, "Columns to draw (default: all)");
  c.plot_command->add_option("--reference", c.plot.reference, "A reference CSV, drawn dashed beside each signal");
  c.plot_command->add_option("--steps", c.plot.steps, "A step log CSV (cosima run --steps): step sizes and iterations");
  c.plot_command->add_option("-o,--output", c.plot_image, "Image: .png or .svg")->required();
  c.bench_command = app.add_subcommand("bench", "Reproduce a seed's figures; reports under docs/results.");
  c.bench_command->add_option("name", c.bench_name, cosima::bench::names())->required();
  c.bench_command->add_flag("--quick", c.bench.quick, "A short smoke version");
  c.bench_command->add_option("--json", c.bench.json_file, "Write the figures as JSON");
  c.bench_command->add_option("--examples", c.bench.examples, "Folder of the example scenarios");
  c.bench_command->add_option("--docs", c.bench.docs, "Write the report (markdown, PNG) into this folder");
  c.bench_command->add_option("--baseline", c.bench.baseline, "Another cosima binary measured beside this one");
}

/// False (with the message) when argv[1] names no command: CLI11 would only say that one is required.
bool known_command(const CLI::App& app, int argc, char** argv) {
  if (argc <= 1 || argv[1][0] == '-') return true;
  if (!app.get_subcommands([&](const CLI::App* command) { return command->get_name() == argv[1]; }).empty()) {
    return true;
  }
  std::string commands;
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) {
    commands += (commands.empty() ? "" : ", ") + command->get_name();
    names.push_back(command->get_name());
  }
  std::cerr << fmt::format("cosima: unknown command '{}' (commands: {}){}\nRun 'cosima --help'.\n", argv[1], commands,
                           cosima::did_you_mean(argv[1], names));
  return false;
}

/// "; did you mean '--method'?" for the first argument that is a flag no command of argv takes.
std::string flag_hint(const CLI::App& app, int argc, char** argv) {
  if (argc <= 1) return "";
  const auto named = app.get_subcommands([&](const CLI::App* c) { return c->get_name() == argv[1]; });
  if (named.empty()) return "";
  const CLI::App* command = named.front();
  std::vector<std::string> flags;
  for (const CLI::Option* option : command->get_options()) {
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
  }
  for (int k = 2; k < argc; ++k) {
    std::string given = argv[k];
    if (!given.starts_with("--")) continue;
    given = given.substr(0, given.find('='));
    if (std::find(flags.begin(), flags.end(), given) != flags.end()) continue;
    return cosima::did_you_mean(given, flags);
  }
  return "";
}

/// Runs the command that parsed; its exit status.
int dispatch(Commands& c) {
  if (c.run_command->parsed()) return command_run(c.run);
  if (c.export_command->parsed()) {
    cosima::scenario::export_ssp(c.exported_scenario, c.ssp_file, c.export_overrides);
    std::cout << "ssp " << c.ssp_file << '\n';
    return 0;
  }
  if (c.models_command->parsed()) return command_models();
  if (c.info_command->parsed()) return command_info(c.fmu);
  if (c.compare_command->parsed()) return command_compare(c.compared, c.compare_json);
  if (c.plot_command->parsed()) {
    c.plot.image = c.plot_image;
    return command_plot(c.plot);
  }
  if (c.bench_command->parsed()) return cosima::bench::run(c.bench_name, c.bench);
  return 2;
}

int command_line(int argc, char** argv) {
  CLI::App app{"cosima — co-simulation master: couples FMUs and native models with the methods of the seed papers."};
  app.set_version_flag("--version", std::string("cosima ") + COSIMA_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'cosima COMMAND --help' for a command's options. Exit status: 0 done, 1 error, 2 usage.");
  Commands commands;
  add_run_command(app, commands);
  add_tool_commands(app, commands);
  if (!known_command(app, argc, argv)) return 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "cosima: " << e.what() << flag_hint(app, argc, argv)
              << "\nRun 'cosima --help' or 'cosima COMMAND --help'.\n";
    return 2;
  }
  try {
    return dispatch(commands);
  } catch (const UsageError& e) {
    std::cerr << "cosima: " << e.what() << "\nRun 'cosima --help' or 'cosima COMMAND --help'.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "cosima: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "cosima: internal error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // glibc's fast bins hold freed small blocks unmerged; freeing any block of 64 KiB or more then
  // merges all of them (malloc_consolidate), a cost that grows with the heap: 12 % of setting up and
  // tearing down 10⁵ systems. tcache still serves small blocks without locking.
  mallopt(M_MXFAST, 0);
  cosima::install_crash_handlers();
  try {
    return command_line(argc, argv);
  } catch (const std::exception& e) {  // building the parser itself failed
    std::cerr << "cosima: internal error: " << e.what() << '\n';
    return 1;
  }
}
