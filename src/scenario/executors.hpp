#pragma once
// The executor of a run from its spec (exec/executor_spec.hpp). Local executors need only the
// number of systems; the process and MPI executors build the scenario's systems where they live,
// through a catalog (exec/system_catalog.hpp) whose builder applies the method's stand-ins as the
// sequential run does.
#include <memory>
#include <optional>

#include "exec/executor.hpp"
#include "exec/executor_spec.hpp"
#include "exec/system_catalog.hpp"
#include "scenario/scenario.hpp"

namespace cosima::scenario {

/// The scenario's systems for an out-of-process executor. Refers to `scenario`, which must outlive it.
exec::SystemCatalog system_catalog(const Scenario& scenario);

/// `catalog` (of the same scenario) must outlive the executor. `fmu_timeout` needs processes;
/// `mpi_ranks` is the job's size under mpirun (rank 0 calls this; see exec/mpi_executor.hpp).
std::unique_ptr<exec::Executor> make_executor(const exec::ExecutorSpec& spec, const Scenario& scenario,
                                              const exec::SystemCatalog& catalog, std::optional<double> fmu_timeout,
                                              int mpi_ranks = 0);

}  // namespace cosima::scenario
