#include "scenario/executors.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "exec/mpi_executor.hpp"
#include "exec/process_executor.hpp"
#include "methods/method_registry.hpp"

namespace cosima {

SystemCatalog system_catalog(const Scenario& scenario) {
  SystemCatalog catalog;
  for (const SystemSpec& spec : scenario.systems) {
    catalog.names.push_back(spec.name);
    catalog.fmus.push_back(spec.fmu);
  }
  // what the method needs of each system decides its emulation: one method per process that builds
  std::shared_ptr<CouplingMethod> method;
  catalog.build = [&scenario, method](int s) mutable {
    if (!method) {
      std::vector<std::string> ignored;
      method = make_method(scenario.method, scenario.run.dt, ignored);
    }
    return build_system(scenario.systems.at(static_cast<std::size_t>(s)), *method);
  };
  return catalog;
}

std::unique_ptr<Executor> make_executor(const ExecutorSpec& spec, const Scenario& scenario,
                                        const SystemCatalog& catalog, std::optional<double> fmu_timeout,
                                        int mpi_ranks) {
  if (fmu_timeout && spec.kind != ExecutorSpec::Kind::processes) {
    throw Error(
        fmt::format("an FMU timeout needs executor 'processes', not '{}' (an FMU in this process cannot "
                    "be stopped)",
                    spec.text));
  }
  switch (spec.kind) {
    case ExecutorSpec::Kind::mpi: return std::make_unique<MpiExecutor>(catalog, mpi_ranks);
    case ExecutorSpec::Kind::processes:
      return std::make_unique<ProcessExecutor>(
          catalog, ProcessOptions{.processes = spec.count, .timeout = fmu_timeout.value_or(0.0)});
    default: return make_local_executor(spec, static_cast<int>(scenario.systems.size()));
  }
}

}  // namespace cosima
