#pragma once
// A scenario run as a front end starts one (the cosima command, the Python module): the "auto"
// method chosen, the executor of a spec started where the systems live, the run, the executor
// stopped. The front ends name no executor, catalog of systems or MPI session. Call order:
//   Launch launch(std::move(scenario), {.executor = "threads:2"});  // "auto" resolved here; under
//                                                   // mpirun, ranks ≥ 1 serve their systems here
//   if (launch.served()) return;                    // such a rank: nothing is left to do
//   ScenarioRun run = launch.run(outputs);          // once
//   launch.finish();                                // stops the executor
#include <memory>
#include <optional>
#include <string>

#include "exec/executor_fwd.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima::api {

struct LaunchOptions {
  std::string executor = "sequential";  ///< as `--executor` takes it: sequential, threads:N, processes[:N], mpi
  std::optional<double> fmu_timeout;    ///< seconds an FMU call may take: needs executor processes
  /// Why executor 'mpi' cannot run here (a front end that is not started by mpirun); empty: it can.
  std::string mpi_refusal;
};

/// Throws Error naming what is wrong with an executor spec as `--executor` takes it.
void check_executor(const std::string& spec);

/// Whether the spec runs the systems in processes of their own (where an FMU timeout applies).
bool executor_isolates(const std::string& spec);

class Launch {
 public:
  /// Resolves "auto", then starts the executor. Throws Error for a bad spec, an FMU timeout without
  /// processes, 'mpi' where `mpi_refusal` says why not, and a system a worker cannot build.
  Launch(scenario::Scenario scenario, const LaunchOptions& options);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  /// An MPI rank ≥ 1 that has served its systems until rank 0 ended the run: nothing to run.
  [[nodiscard]] bool served() const { return served_; }
  /// Why "auto" chose the method; empty when the scenario named its method.
  [[nodiscard]] const std::string& method_choice() const { return method_choice_; }
  [[nodiscard]] const scenario::Scenario& scenario() const { return scenario_; }

  /// Runs the scenario on the executor (see scenario::run_scenario). Once, before finish(); never
  /// where served().
  scenario::ScenarioRun run(const scenario::RunOutputs& outputs);
  /// Stops the executor (the MPI workers, the systems' processes). Throws Error when a system's
  /// process died on the way out (in its fmi2FreeInstance): the run failed too.
  void finish();

 private:
  struct Where;  ///< where the systems live: their catalog, and the MPI session under mpirun
  scenario::Scenario scenario_;
  std::string method_choice_;
  std::unique_ptr<Where> where_;
  bool served_ = false;
  std::unique_ptr<exec::Executor> executor_;
};

}  // namespace cosima::api
