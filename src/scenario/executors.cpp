#include "scenario/executors.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "exec/mpi_executor.hpp"
#include "exec/process_executor.hpp"
#include "methods/method_registry.hpp"

namespace cosima::scenario {

exec::SystemCatalog system_catalog(const Scenario& scenario) {
  exec::SystemCatalog catalog;
  for (const SystemSpec& spec : scenario.systems) {
    catalog.names.push_back(spec.name);
    catalog.fmus.push_back(spec.fmu);
  }
  // what the method needs of each system decides its emulation: one method per process that builds
  std::shared_ptr<methods::CouplingMethod> method;
  catalog.build = [&scenario, method](int s) mutable {
    if (!method) {
      std::vector<std::string> ignored;
      method = methods::make_method(scenario.method, scenario.run.dt, ignored);
    }
    return build_system(scenario.systems.at(static_cast<std::size_t>(s)), *method);
  };
  return catalog;
}

std::unique_ptr<exec::Executor> make_executor(const exec::ExecutorSpec& spec, const Scenario& scenario,
                                              const exec::SystemCatalog& catalog, std::optional<double> fmu_timeout,
                                              int mpi_ranks) {
  if (fmu_timeout && spec.kind != exec::ExecutorSpec::Kind::processes) {
    throw Error(
        fmt::format("an FMU timeout needs executor 'processes', not '{}' (an FMU in this process cannot "
                    "be stopped)",
                    spec.text));
  }
  switch (spec.kind) {
    case exec::ExecutorSpec::Kind::mpi: return std::make_unique<exec::MpiExecutor>(catalog, mpi_ranks);
    case exec::ExecutorSpec::Kind::processes:
      return std::make_unique<exec::ProcessExecutor>(
          catalog, exec::ProcessOptions{.processes = spec.count, .timeout = fmu_timeout.value_or(0.0)});
    default: return exec::make_local_executor(spec, static_cast<int>(scenario.systems.size()));
  }
}

}  // namespace cosima::scenario
