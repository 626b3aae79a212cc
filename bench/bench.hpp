#pragma once
// Benchmarks reproducing the seeds' figures: `cosima bench NAME [--quick] [--json FILE]`.
// Each prints a markdown table; wall times are medians of repeated runs on this machine, next to
// counts that do not depend on it (macro-steps, integrations, iterations).
#include <filesystem>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "scenario/run_scenario.hpp"

namespace cosima::bench {

/// A table cell without a figure.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct BenchOptions {
  bool quick = false;
  std::filesystem::path json_file;  ///< empty: no JSON
  std::filesystem::path examples = COSIMA_EXAMPLES_DIR;
  std::filesystem::path docs;      ///< where reports (markdown, PNG) go; empty: none
  std::filesystem::path baseline;  ///< another cosima binary measured beside this one (bench overhead)
};

/// A `cosima` run in a child process: its exit status, wall time and peak resident set size.
struct ChildRun {
  double peak_rss_mb = 0.0;
  double wall_s = 0.0;
  double cpu_s = 0.0;  ///< user + system, of the child and the descendants it reaped
  int status = -1;
};
/// Runs `program ARGS…` (default: this cosima binary) with stdout and stderr to `log`; peak RSS
/// from wait4's rusage.
ChildRun run_child(const std::vector<std::string>& args, const std::filesystem::path& log,
                   const std::filesystem::path& program = {});

/// Runs the named benchmark; returns the process exit code. Throws Error for an unknown name.
int run(const std::string& name, const BenchOptions& options);
/// "ifosmondi, jacobi"
std::string names();

/// Median of a non-empty sample.
double median(std::vector<double> sample);

/// What a timed in-process run records: its results (the errors), no step log, whose growth in memory
/// (a row per macro-step) would be timed too and would favour methods with fewer steps.
inline const scenario::RunOutputs kTimedOutputs{.keep_step_log = false};
/// Timed in-process runs of several scenarios, alternated (A B C A B C …) so that a slow phase of
/// the host weighs on every case alike: `rounds` rounds, each scenario once per round.
struct AlternatedRuns {
  std::vector<double> medians;              ///< per scenario, the median of its wall times
  std::vector<scenario::ScenarioRun> last;  ///< per scenario, its last run (errors, counts)
};
AlternatedRuns run_alternated(const std::vector<scenario::Scenario>& scenarios, int rounds);
/// Writes `document` to options.json_file when set.
void write_json(const BenchOptions& options, const cosima::io::Json& document);

/// An example (`examples`/NAME.json) with accurate systems (rtol 1e-11), every connection's source
/// recorded at every communication point, at step dt: bench accuracy's runs.
/// `overrides` as `cosima run --set` takes them.
scenario::Scenario accuracy_scenario(const std::filesystem::path& examples, const std::string& example, double dt,
                                     const std::vector<std::string>& overrides = {});
/// The true coupling error of a run against a reference run: √(mean over the connections of its
/// stats' coupling_error of (RMS of the source output − the reference's, on the reference's grid,
/// / the connection's scale)²).
double coupling_true_error(const scenario::ScenarioRun& run, const scenario::ScenarioRun& reference);

/// The true coupling error of a run whose rows are at its communication points (RunOutputs::
/// interpolate_rows = false) against a finer reference read by cubic interpolation: √(mean over the
/// connections of (time-weighted RMS of the source output's error / the connection's scale)²)
/// (bench/tolerance.cpp).
double communication_point_error(const scenario::ScenarioRun& run, const scenario::ScenarioRun& reference);

/// A method of whole_process_ratios: its --method, and --set overrides with the label they show.
struct LongRunMethod {
  std::string method;
  std::vector<std::string> settings = {};
  std::string label = {};  ///< the table's name for the settings (empty: the method's defaults)
};

/// B3 at δt = 1e-4 over runs of seconds (DOPRI5 and CVODE slaves), NI Jacobi and each of `methods` as
/// whole `cosima run` processes, alternated: medians and ratios to Jacobi, as JSON and a markdown
/// `section` (bench/long_runs.cpp).
cosima::io::Json whole_process_ratios(const BenchOptions& options, const std::vector<LongRunMethod>& methods,
                                      std::string& section);

// The benchmarks.
cosima::io::Json bench_accuracy(const BenchOptions& options);
cosima::io::Json bench_jacobi(const BenchOptions& options);
cosima::io::Json bench_ifosmondi(const BenchOptions& options);
cosima::io::Json bench_costarica(const BenchOptions& options);
cosima::io::Json bench_missiles(const BenchOptions& options);
cosima::io::Json bench_defect(const BenchOptions& options);
cosima::io::Json bench_scaling(const BenchOptions& options);
cosima::io::Json bench_choptrey(const BenchOptions& options);
cosima::io::Json bench_reliability(const BenchOptions& options);
cosima::io::Json bench_me(const BenchOptions& options);
cosima::io::Json bench_overhead(const BenchOptions& options);
cosima::io::Json bench_tolerance(const BenchOptions& options);
cosima::io::Json bench_emulation(const BenchOptions& options);
cosima::io::Json bench_history(const BenchOptions& options);

}  // namespace cosima::bench
