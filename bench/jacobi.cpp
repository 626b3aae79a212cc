// Non-iterative Jacobi on B3 (Lotka–Volterra, seed 003 Table 6) at δt = 1e-3 and 1e-4: error on
// the prey against the monolithic reference, wall time (median of 5), integrations, and the ratio
// of the run's wall time to the time spent inside the systems' own integrations (the master's
// overhead is that ratio minus one).
#include <iostream>

#include <fmt/format.h>

#include "bench/bench.hpp"
#include "core/metrics.hpp"
#include "scenario/run_scenario.hpp"

namespace cosima::bench {

nlohmann::ordered_json bench_jacobi(const BenchOptions& options) {
  const std::vector<double> steps = options.quick ? std::vector<double>{1e-3} : std::vector<double>{1e-3, 1e-4};
  const int repeats = options.quick ? 1 : 5;
  const std::map<double, double> paper_rel_pct = {{1e-3, 1.34e-1}, {1e-4, 1.35e-2}};
  const std::map<double, double> paper_wall_s = {{1e-3, 1.01}, {1e-4, 13.27}};

  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::cout << "B3 Lotka-Volterra over [0, 20], non-iterative Jacobi (ZOH), DOPRI5 slaves rtol 1e-10\n\n"
            << "| δt | prey rel. error % | seed 003 | macro-steps | integrations | wall s (median of " << repeats
            << ") | seed 003 wall s | wall / integration time |\n|---|---|---|---|---|---|---|---|\n";
  for (double dt : steps) {
    Scenario scenario = load_scenario(options.examples / "b3_lotka_volterra.json",
                                      {"systems.prey.integrator_options.rtol=1e-10",
                                       "systems.predator.integrator_options.rtol=1e-10"});
    scenario.run.dt = dt;
    scenario.output.interval = 0.0;
    scenario.method = {{"type", "monolithic"}};
    const ScenarioRun reference = run_scenario(scenario);
    scenario.method = {{"type", "jacobi"}};
    std::vector<double> walls, ratios;
    ScenarioRun last;
    for (int r = 0; r < repeats; ++r) {
      last = run_scenario(scenario);
      walls.push_back(last.stats.wall_time_s);
      ratios.push_back(last.stats.wall_time_s / last.stats.integration_time_s);
    }
    const auto error = compare_signals(last.results->times(), last.results->column("prey.p"),
                                       reference.results->times(), reference.results->column("prey.p"));
    const double wall = median(walls), ratio = median(ratios);
    std::cout << fmt::format("| {:g} | {:.3e} | {:.3e} | {} | {} | {:.3f} | {:.2f} | {:.2f} |\n", dt, error.rel_pct,
                             paper_rel_pct.at(dt), last.stats.macro_steps, last.stats.integrations, wall,
                             paper_wall_s.at(dt), ratio);
    rows.push_back({{"dt", dt},
                    {"prey_rel_pct", error.rel_pct},
                    {"paper_prey_rel_pct", paper_rel_pct.at(dt)},
                    {"macro_steps", last.stats.macro_steps},
                    {"integrations", last.stats.integrations},
                    {"wall_time_s_median", wall},
                    {"paper_wall_time_s", paper_wall_s.at(dt)},
                    {"wall_over_integration_time", ratio},
                    {"repeats", repeats}});
  }
  return {{"benchmark", "jacobi"}, {"model", "B3"}, {"rows", rows}};
}

}  // namespace cosima::bench
