// Error-controlled macro-steps (methods/error_control.hpp): method.tolerance from 1e-2 to 1e-6 on
// B2–B5 under jacobi, gauss-seidel, ifosmondi-jfm and missiles. For each run, the true coupling error: each
// connection's source output at the run's communication points (the first at or after each
// k·δt/10: exact values, not rows interpolated between long steps) against the monolithic reference
// at δt/100, read between its points by cubic interpolation; RMS over the run weighted by the time
// each row stands for, relative to the signal's scale; √(mean over connections of its square). Its
// ratio to the tolerance, the same of the rows (k·δt/10, interpolated between communication points as
// a results file has them), and the steps taken and rejected. The error follows the tolerance when
// the ratio stays within [0.1, 10].
#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "bench/bench.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"
#include "scenario/run_scenario.hpp"

namespace cosima::bench {

namespace {

struct Case {
  std::string example;
  double dt;
};

/// The value at t of the cubic through the four reference points around it (Lagrange).
double cubic_at(const std::vector<double>& times, const std::vector<double>& values, double t) {
  const auto n = static_cast<std::ptrdiff_t>(times.size());
  const std::ptrdiff_t upper = std::lower_bound(times.begin(), times.end(), t) - times.begin();
  const std::ptrdiff_t first = std::clamp<std::ptrdiff_t>(upper - 2, 0, std::max<std::ptrdiff_t>(n - 4, 0));
  double sum = 0.0;
  for (std::ptrdiff_t i = first; i < std::min(first + 4, n); ++i) {
    double weight = 1.0;
    for (std::ptrdiff_t j = first; j < std::min(first + 4, n); ++j) {
      if (j != i) weight *= (t - times[j]) / (times[i] - times[j]);
    }
    sum += weight * values[i];
  }
  return sum;
}

}  // namespace

double communication_point_error(const scenario::ScenarioRun& run, const scenario::ScenarioRun& reference) {
  const auto& times = run.results->times();
  const auto& ref_times = reference.results->times();
  const double span = times.back() - times.front();
  double sum = 0.0;
  for (const methods::ConnectionError& c : run.stats.coupling_error.connections) {
    const std::vector<double> values = run.results->column(c.output);
    const std::vector<double> ref = reference.results->column(c.output);
    double square = 0.0;
    for (std::size_t k = 0; k < times.size(); ++k) {  // each row stands for half its neighbouring gaps
      const double weight =
          0.5 * ((k + 1 < times.size() ? times[k + 1] : times[k]) - (k > 0 ? times[k - 1] : times[k]));
      const double e = values[k] - cubic_at(ref_times, ref, times[k]);
      square += weight * e * e;
    }
    const double rms = std::sqrt(square / span);
    sum += c.scale > 0.0 ? (rms / c.scale) * (rms / c.scale) : 0.0;
  }
  const auto count = static_cast<double>(run.stats.coupling_error.connections.size());
  return count > 0 ? std::sqrt(sum / count) : 0.0;
}

namespace {

struct Outcome {
  double error = kNaN;
  double rows_error = kNaN;  ///< the same at the rows k·δt/10, interpolated between communication points
  std::int64_t steps = 0, rejected = 0;
  double wall = kNaN;
  std::string failure;
};

Outcome controlled_run(scenario::Scenario scenario, const std::string& method, double tolerance,
                       const scenario::ScenarioRun& reference) {
  scenario.method = {{"type", method}, {"tolerance", tolerance}};
  Outcome outcome;
  try {
    const auto start = std::chrono::steady_clock::now();
    scenario::RunOutputs outputs = kTimedOutputs;
    outputs.interpolate_rows = false;  // the communication points' own values
    const scenario::ScenarioRun run = scenario::run_scenario(scenario, nullptr, outputs);
    outcome.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.error = communication_point_error(run, reference);
    outcome.steps = run.stats.macro_steps;
    outcome.rejected = run.stats.rejected_steps;
    outputs.interpolate_rows = true;  // what a user's results file holds
    outcome.rows_error = communication_point_error(scenario::run_scenario(scenario, nullptr, outputs), reference);
  } catch (const Error& e) {
    outcome.failure = e.what();
    fmt::print(stderr, "{} tolerance={}: {}\n", method, tolerance, e.what());
  }
  return outcome;
}

}  // namespace

cosima::io::Json bench_tolerance(const BenchOptions& options) {
  const std::vector<Case> cases = options.quick ? std::vector<Case>{{"b2_two_bodies", 0.2}}
                                                : std::vector<Case>{{"b2_two_bodies", 0.2},
                                                                    {"b3_lotka_volterra", 1e-3},
                                                                    {"b4_two_mass", 1e-3},
                                                                    {"b5_rotational_oscillator", 1.0}};
  const std::vector<double> tolerances =
      options.quick ? std::vector<double>{1e-2, 1e-4} : std::vector<double>{1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  const std::vector<std::string> methods = {"jacobi", "gauss-seidel", "ifosmondi-jfm", "missiles"};
  Report report;
  report.add(
      "# Error-controlled macro-steps: the error against `method.tolerance`\n\nGenerated by `cosima bench "
      "tolerance`. Each run sets `method.tolerance` and starts at the example's δt. The error is the true "
      "coupling error: each connection's source output at the run's communication points (the first at or after "
      "each k·δt/10) against the monolithic reference at δt/100 (cubic between its points), RMS over the run "
      "relative to the signal's scale. Rows: the same error of the rows a results file holds, at k·δt/10, "
      "interpolated between the communication points (RunOutputs::interpolate_rows). Systems at rtol 1e-11.\n\n");
  std::vector<std::vector<std::string>> rows;
  cosima::io::Json json_rows = cosima::io::Json::array();
  for (const Case& c : cases) {
    scenario::Scenario scenario = accuracy_scenario(options.examples, c.example, c.dt / 100);
    scenario.method = {{"type", "monolithic"}};
    const scenario::ScenarioRun reference = scenario::run_scenario(scenario);
    scenario.run.dt = c.dt;
    scenario.output.interval = c.dt / 10;
    for (const std::string& method : methods) {
      for (const double tolerance : tolerances) {
        const Outcome o = controlled_run(scenario, method, tolerance, reference);
        const bool ran = o.failure.empty();
        rows.push_back({c.example.substr(0, 2), method, fmt::format("{:g}", tolerance), ran ? sci(o.error) : "—",
                        ran ? fmt::format("{:.2g}", o.error / tolerance) : "—",
                        ran ? fmt::format("{:.2g}", o.rows_error / tolerance) : "—", std::to_string(o.steps),
                        std::to_string(o.rejected), ran ? fmt::format("{:.2f}", o.wall) : "fails"});
        json_rows.push_back({{"example", c.example},
                             {"method", method},
                             {"tolerance", tolerance},
                             {"error", o.error},
                             {"rows_error", o.rows_error},
                             {"steps", o.steps},
                             {"rejected", o.rejected},
                             {"wall_s", o.wall},
                             {"failure", o.failure}});
      }
    }
  }
  report.add(markdown_table({"model", "method", "tolerance", "true error", "error / tolerance",
                             "rows: error / tolerance", "steps", "rejected", "wall s"},
                            rows));
  report.write(options, "tolerance.md");
  return {{"benchmark", "tolerance"}, {"rows", json_rows}};
}

}  // namespace cosima::bench
