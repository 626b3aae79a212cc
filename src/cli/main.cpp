// The `cosima` command: run scenarios, list models, compare results, reproduce the seeds' figures.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "core/crash.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "core/whole_number.hpp"
#include "exec/mpi_executor.hpp"
#include "exec/process_executor.hpp"
#include "fmi/fmu_system.hpp"
#include "io/csv.hpp"
#include "methods/method_factory.hpp"
#include "models/registry.hpp"
#include "scenario/run_scenario.hpp"

namespace {

using cosima::Error;

constexpr const char* kUsage = R"(cosima — co-simulation master

usage:
  cosima run SCENARIO.json [--method M] [--dt H] [--stop T] [--set PATH=VALUE]...
                           [--out FILE.csv] [--stats FILE.json] [--steps FILE.csv] [--quiet]
                           [--executor sequential|threads:N|processes[:N]|mpi] [--fmu-timeout SECONDS]
                           [--log-level error|warning|info|debug]
  cosima models
  cosima info FILE.fmu
  cosima compare RESULT.csv REFERENCE.csv [--json]
  cosima bench NAME [--quick] [--json FILE] [--docs DIR] [--baseline OTHER_COSIMA]

  --set overrides any value of the scenario by its dot path, e.g.
        --set systems.damper.parameters.D_D=0.64   --set method.epsilon=1e-4
  --set inputs.SYSTEM.PORT=VALUE sets a constant input.
  --executor processes[:N] runs the systems in child processes (default one per system): an FMU
        that crashes, exits or hangs (--fmu-timeout) ends the run with a message naming it, and
        the results computed so far stay on disk.
  --log-level (or the scenario's "log_level") filters cosima's messages; at debug the FMUs are
        instantiated with loggingOn and their messages are shown with the system's name.
  method 'monolithic' simulates the coupled native model as one ODE (the reference).
  --method auto picks the most accurate method the systems' capabilities allow (auto:fast the
        cheapest accurate one) and says which and why; a capability a method needs and a system
        lacks (input interpolation, output derivatives) is emulated and listed in the stats.
)";

struct UsageError : Error {
  using Error::Error;
};

/// Pops the value after a flag.
std::string value_of(const std::vector<std::string>& args, std::size_t& i) {
  if (i + 1 >= args.size()) throw UsageError(fmt::format("{} needs a value", args[i]));
  return args[++i];
}

double number_of(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw UsageError(fmt::format("{} expects a number, got '{}'", flag, text));
  return value;
}

int command_run(const std::vector<std::string>& args) {
  std::optional<std::string> scenario_file, method, out, stats_file, steps_file;
  std::string executor_spec = "sequential";
  std::optional<double> dt, stop;
  std::vector<std::string> overrides;
  std::optional<std::string> log_level;
  std::optional<double> fmu_timeout;
  bool quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--method") method = value_of(args, i);
    else if (a == "--dt") dt = number_of(a, value_of(args, i));
    else if (a == "--stop") stop = number_of(a, value_of(args, i));
    else if (a == "--set") overrides.push_back(value_of(args, i));
    else if (a == "--out") out = value_of(args, i);
    else if (a == "--stats") stats_file = value_of(args, i);
    else if (a == "--steps") steps_file = value_of(args, i);
    else if (a == "--quiet") quiet = true;
    else if (a == "--executor") executor_spec = value_of(args, i);
    else if (a == "--log-level") log_level = value_of(args, i);
    else if (a == "--fmu-timeout") fmu_timeout = number_of(a, value_of(args, i));
    else if (a.starts_with("--")) throw UsageError(fmt::format("unknown option '{}'", a));
    else if (!scenario_file) scenario_file = a;
    else throw UsageError(fmt::format("unexpected argument '{}'", a));
  }
  if (!scenario_file) throw UsageError("run needs a scenario file");
  if (method) overrides.push_back("method.type=\"" + *method + "\"");
  if (dt) overrides.push_back(fmt::format("method.dt={:.17g}", *dt));
  if (stop) overrides.push_back(fmt::format("stop={:.17g}", *stop));
  if (log_level && !cosima::parse_log_level(*log_level)) {
    throw UsageError(fmt::format("--log-level is '{}'; give error, warning, info or debug", *log_level));
  }
  cosima::Scenario scenario = cosima::load_scenario(*scenario_file, overrides);
  if (const std::string level = log_level.value_or(scenario.log_level); !level.empty()) {
    cosima::set_log_level(*cosima::parse_log_level(level));
  }
  // "auto": chosen here, before any executor starts, so that every process builds the same method
  const bool chosen = cosima::resolve_auto_method(scenario);
  // --executor mpi under mpirun: rank 0 runs the method, the other ranks serve their systems
  std::optional<cosima::MpiSession> mpi;
  std::unique_ptr<cosima::Executor> executor;
  if (executor_spec == "mpi") {
    mpi.emplace();
    if (mpi->rank() != 0) {
      cosima::serve_mpi_worker(scenario, mpi->rank(), mpi->size());
      return 0;
    }
  }
  if (chosen) std::cerr << "cosima: " << scenario.method_choice << '\n';
  if (executor_spec == "mpi") {
    executor = std::make_unique<cosima::MpiExecutor>(scenario, mpi->size());
  } else if (executor_spec == "processes" || executor_spec.starts_with("processes:")) {
    cosima::ProcessOptions options{.processes = 0, .timeout = fmu_timeout.value_or(0.0)};
    if (executor_spec != "processes") {
      const double count = number_of("--executor processes:N", executor_spec.substr(10));
      const auto whole = cosima::whole_number(count, 1, 1 << 20);
      if (!whole) throw UsageError(fmt::format("--executor {}: N must be a positive integer", executor_spec));
      options.processes = *whole;
    }
    executor = std::make_unique<cosima::ProcessExecutor>(scenario, options);
  } else {
    if (fmu_timeout) throw UsageError("--fmu-timeout needs --executor processes (an FMU in this process cannot be stopped)");
    executor = cosima::make_local_executor(executor_spec, static_cast<int>(scenario.systems.size()));
  }
  // results stream to disk as the run goes; a stats file is created before the run, like them
  const std::string csv = out.value_or(std::filesystem::path(*scenario_file).stem().string() + ".csv");
  std::optional<std::ofstream> stats_stream;
  if (stats_file) {
    stats_stream.emplace(*stats_file);
    if (!*stats_stream) throw Error(fmt::format("cannot write '{}'", *stats_file));
  }
  cosima::install_interrupt_handlers();
  const cosima::RunOutputs outputs{.results_csv = csv,
                                   .steps_csv = steps_file ? std::optional<std::filesystem::path>(*steps_file) : std::nullopt,
                                   .keep_in_memory = false,
                                   .flush_every_row = isatty(STDERR_FILENO) != 0};
  cosima::ScenarioRun run = cosima::run_scenario(scenario, executor.get(), outputs);
  executor.reset();  // shuts the MPI workers down
  for (const auto& warning : run.warnings) std::cerr << "cosima: note: " << warning << '\n';
  const auto stats = cosima::stats_to_json(run.stats);
  if (stats_stream) {
    *stats_stream << stats.dump(2) << '\n';
    stats_stream->flush();
    if (!*stats_stream) throw Error(fmt::format("cannot write '{}'", *stats_file));
  }
  if (!quiet) {
    std::cout << fmt::format(
        "scenario   {}\nmethod     {} (executor {})\ntime       [{}, {}] with dt = {}\nmacro-steps {}  rejected {}  iterations {}  "
        "integrations {}\nwall time  {:.3f} s ({:.3f} s inside the systems)\nresults    {} ({} rows, {} variables)\n",
        scenario.name, run.stats.method, executor_spec, scenario.run.start, run.stats.end_time, scenario.run.dt, run.stats.macro_steps,
        run.stats.rejected_steps, run.stats.iterations, run.stats.integrations, run.stats.wall_time_s,
        run.stats.integration_time_s, csv, run.results->rows(), run.results->labels().size());
    if (stats_file) std::cout << "stats      " << *stats_file << '\n';
  }
  if (run.stats.terminated_early) std::cerr << "cosima: run ended early: " << run.stats.termination_reason << '\n';
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
    for (const auto& p : s.parameters) parameters += fmt::format("{}{}={:g}", parameters.empty() ? "" : ", ", p.name, p.value);
    std::cout << fmt::format("             states: {} | inputs: {} | outputs: {}\n             parameters: {}\n",
                             list(s.states), list(s.inputs), list(s.outputs), parameters);
  }
  return 0;
}

int command_info(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError("info needs one FMU file");
  std::cout << cosima::fmi::describe_fmu(args[0]);
  return 0;
}

int command_compare(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json") json = true;
    else if (a.starts_with("--")) throw UsageError(fmt::format("unknown option '{}'", a));
    else files.push_back(a);
  }
  if (files.size() != 2) throw UsageError("compare needs RESULT.csv and REFERENCE.csv");
  const cosima::Table result = cosima::read_csv(files[0]);
  const cosima::Table reference = cosima::read_csv(files[1]);
  // a comparison is meaningless on non-finite numbers or a result that stops short
  for (const auto& [table, file] : {std::pair{&result, &files[0]}, std::pair{&reference, &files[1]}}) {
    for (std::size_t r = 0; r < table->time.size(); ++r) {
      if (!std::isfinite(table->time[r])) throw Error(fmt::format("'{}': time is {} in row {}", *file, table->time[r], r + 1));
      for (std::size_t c = 0; c < table->columns.size(); ++c) {
        if (!std::isfinite(table->values[c][r])) {
          throw Error(fmt::format("'{}': '{}' is {} at t = {}", *file, table->columns[c], table->values[c][r], table->time[r]));
        }
      }
    }
    if (table->time.empty()) throw Error(fmt::format("'{}' has no rows", *file));
  }
  if (result.time.back() < reference.time.back() - 1e-9 * std::max(1.0, std::abs(reference.time.back()))) {
    throw Error(fmt::format("'{}' ends at t = {}, before the reference '{}' (t = {})", files[0], result.time.back(), files[1],
                            reference.time.back()));
  }
  nlohmann::ordered_json document;
  document["variables"] = nlohmann::ordered_json::object();
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
    if (!json) std::cout << fmt::format("{:<24} {:>12.4e} {:>12.4e} {:>12.4e}\n", result.columns[c], m.nl2, m.rel_pct, m.max_abs);
  }
  if (compared == 0) throw Error(fmt::format("'{}' and '{}' share no variable", files[0], files[1]));
  document["mean_nl2"] = nl2_sum / compared;
  if (json) std::cout << document.dump(2) << '\n';
  else std::cout << fmt::format("mean nl2 {:.4e}\n", nl2_sum / compared);
  return 0;
}

int command_bench(const std::vector<std::string>& args) {
  cosima::bench::BenchOptions options;
  std::optional<std::string> name;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--quick") options.quick = true;
    else if (args[i] == "--json") options.json_file = value_of(args, i);
    else if (args[i] == "--examples") options.examples = value_of(args, i);
    else if (args[i] == "--docs") options.docs = value_of(args, i);
    else if (args[i] == "--baseline") options.baseline = value_of(args, i);
    else if (args[i].starts_with("--")) throw UsageError(fmt::format("unknown option '{}'", args[i]));
    else if (!name) name = args[i];
    else throw UsageError(fmt::format("unexpected argument '{}'", args[i]));
  }
  if (!name) throw UsageError(fmt::format("bench needs a name ({})", cosima::bench::names()));
  return cosima::bench::run(*name, options);
}

}  // namespace

int main(int argc, char** argv) {
  cosima::install_crash_handlers();
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    std::cout << kUsage;
    return all.empty() ? 2 : 0;
  }
  const std::string& command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "run") return command_run(args);
    if (command == "models") return command_models();
    if (command == "info") return command_info(args);
    if (command == "compare") return command_compare(args);
    if (command == "bench") return command_bench(args);
    throw UsageError(fmt::format("unknown command '{}'", command));
  } catch (const UsageError& e) {
    std::cerr << "cosima: " << e.what() << "\n\n" << kUsage;
    return 2;
  } catch (const Error& e) {
    std::cerr << "cosima: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "cosima: internal error: " << e.what() << '\n';
    return 1;
  }
}
