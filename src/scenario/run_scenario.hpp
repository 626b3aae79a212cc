#pragma once
// One scenario run end to end: build the model, the method and the recorder, simulate.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/modular_model.hpp"
#include "observer/result_recorder.hpp"
#include "observer/step_log.hpp"
#include "scenario/scenario.hpp"
#include "simulation/simulation.hpp"

namespace cosima::scenario {

struct ScenarioRun {
  model::ModularModel model;
  simulation::RunStatistics stats;
  std::unique_ptr<observer::ResultRecorder> results;
  std::unique_ptr<observer::StepLog> steps;
  std::vector<std::string> warnings;
};

/// Where a run's results go: streamed to files as the run goes (created before it starts, so a
/// bad path fails at once) and/or kept in memory for the caller.
struct RunOutputs {
  std::optional<std::filesystem::path> results_csv, steps_csv;
  /// Results as MATLAB v4 (observer/mat_results.hpp), streamed as the run goes, as a CSV file is.
  std::optional<std::filesystem::path> results_mat;
  bool keep_in_memory = true;  ///< results (and step log: keep_step_log) readable from the ScenarioRun
  /// With keep_in_memory, the step log too (ScenarioRun::steps->rows()): a row of 80 bytes per macro-step,
  /// whose growth (copies, and page faults of ≈ 10–20 µs under a hypervisor) costs about what a cheap
  /// step does. Off where nobody reads it (the Python module, the benches that time methods).
  bool keep_step_log = true;
  /// Rows at start + k·output.interval interpolated between communication points where they fall
  /// between them (rows_between_steps: a method that chooses its steps, a fixed step the interval
  /// does not divide); false: at the first communication point at or after each, exact values.
  bool interpolate_rows = true;
  bool watched = false;  ///< a terminal is watching: results reach the disk within 0.1 s (CsvStream)
  std::vector<observer::Observer*> observers;  ///< the caller's own, called after the recorders (e.g. ProgressLine)
};

enum class ResultsFormat : std::uint8_t { csv, mat };
/// The format of the results file `path`: `declared` (output.format) when set, else its extension,
/// ".csv" or ".mat"; standard output ("-") and an existing device or FIFO take CSV. Throws Error
/// naming the path for any other extension, and for a declared format its extension contradicts.
ResultsFormat results_format(const std::filesystem::path& path, const std::string& declared);

/// Builds and runs the scenario; the systems carry out their orders on `executor` (nullptr:
/// sequential, in this thread).
ScenarioRun run_scenario(const Scenario& scenario, exec::Executor* executor = nullptr, const RunOutputs& outputs = {});

/// The mean over the recorded variables of the normalized L2 error against a reference run of the
/// same variables (seed 001 §5) — the error measure of most benchmarks.
double mean_nl2(const ScenarioRun& run, const ScenarioRun& reference);

/// The stats JSON: macro_steps, rejected_steps, iterations, integrations, wall_time_s, ...
cosima::io::Json stats_to_json(const simulation::RunStatistics& stats);

}  // namespace cosima::scenario
