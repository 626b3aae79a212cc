#include "api/launch.hpp"

#include <utility>

#include "core/error.hpp"
#include "exec/executor.hpp"
#include "exec/executor_spec.hpp"
#include "exec/mpi_executor.hpp"
#include "exec/system_catalog.hpp"
#include "scenario/executors.hpp"

namespace cosima::api {

struct Launch::Where {
  explicit Where(exec::SystemCatalog systems) : catalog(std::move(systems)) {}
  exec::SystemCatalog catalog;  ///< refers to the Launch's scenario
  std::optional<exec::MpiSession> mpi;
};

void check_executor(const std::string& spec) { (void)exec::parse_executor_spec(spec); }

bool executor_isolates(const std::string& spec) {
  return exec::parse_executor_spec(spec).kind == exec::ExecutorSpec::Kind::processes;
}

Launch::Launch(scenario::Scenario scenario, const LaunchOptions& options) : scenario_(std::move(scenario)) {
  // capabilities and "auto": tried and chosen before any executor starts, so that every process
  // builds the same systems and method
  scenario::prove_capabilities(scenario_);
  if (scenario::resolve_auto_method(scenario_)) method_choice_ = scenario_.method_choice;
  where_ = std::make_unique<Where>(scenario::system_catalog(scenario_));
  const exec::ExecutorSpec spec = exec::parse_executor_spec(options.executor);
  if (spec.kind == exec::ExecutorSpec::Kind::mpi) {
    if (!options.mpi_refusal.empty()) throw Error(options.mpi_refusal);
    where_->mpi.emplace();
    if (where_->mpi->rank() != 0) {
      exec::serve_mpi_worker(where_->catalog, where_->mpi->rank(), where_->mpi->size());
      served_ = true;
      return;  // no executor here
    }
  }
  executor_ = scenario::make_executor(spec, scenario_, where_->catalog, options.fmu_timeout,
                                      where_->mpi ? where_->mpi->size() : 0);
}

Launch::~Launch() = default;

scenario::ScenarioRun Launch::run(const scenario::RunOutputs& outputs) {
  if (served_) throw Error("this MPI rank served its systems: rank 0 runs the scenario");
  if (executor_ == nullptr) throw Error("the launch is finished: its executor is stopped");
  return scenario::run_scenario(scenario_, executor_.get(), outputs);
}

void Launch::finish() {
  if (executor_ == nullptr) return;
  const std::string teardown = executor_->finish();
  executor_.reset();  // shuts the MPI workers down, ends the systems' processes
  if (!teardown.empty()) throw Error(teardown);
}

}  // namespace cosima::api
