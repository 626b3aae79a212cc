// Whole processes on runs of seconds: what a user feels of a method's cost against NI Jacobi, where
// the in-process timings of bench missiles / ifosmondi (tens of milliseconds at the seeds' settings)
// are dominated by start-up (PETSc) and by per-step work on 2-state systems.
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "bench/bench.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"
#include "fmi/common/fmu_archive.hpp"

namespace cosima::bench {

namespace {

struct LongRun {
  std::string label;
  std::vector<std::string> settings;  ///< --set overrides of the example
  double stop;
};

/// B3 at δt = 1e-4, rows every 0.1: DOPRI5 slaves (the example's) over [0, 200] — 2·10⁶ macro-steps —
/// and CVODE slaves, each integration dearer, over [0, 20] (--quick: a hundredth of each).
std::vector<LongRun> long_runs(bool quick) {
  const double dopri5_stop = quick ? 2.0 : 200.0, cvode_stop = quick ? 0.2 : 20.0;
  return {{fmt::format("B3, DOPRI5 slaves (rtol 1e-10), [0, {}]", dopri5_stop), {}, dopri5_stop},
          {fmt::format("B3, CVODE slaves (rtol 1e-10), [0, {}]", cvode_stop),
           {"systems.prey.integrator=cvode", "systems.predator.integrator=cvode"},
           cvode_stop}};
}

/// One `cosima run` process; Error with its log when it fails.
double time_process(const std::vector<std::string>& args, const std::filesystem::path& scratch) {
  const ChildRun child = run_child(args, scratch / "log.txt");
  if (child.status != 0) {
    std::ifstream log(scratch / "log.txt");
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    throw Error(fmt::format("bench: 'cosima {}' failed ({}): {}", fmt::join(args, " "), child.status, text));
  }
  return child.wall_s;
}

}  // namespace

cosima::io::Json whole_process_ratios(const BenchOptions& options, const std::vector<LongRunMethod>& methods,
                                      std::string& section) {
  const int rounds = options.quick ? 1 : 5;
  const fmi::TemporaryDirectory scratch("cosima-bench");
  std::vector<LongRunMethod> all = {{"jacobi"}};
  all.insert(all.end(), methods.begin(), methods.end());
  std::vector<std::vector<std::string>> rows;
  cosima::io::Json json = cosima::io::Json::array();
  for (const LongRun& run : long_runs(options.quick)) {
    std::vector<std::vector<double>> samples(all.size());
    for (int r = 0; r < rounds; ++r) {  // alternated: A B C A B C …
      for (std::size_t m = 0; m < all.size(); ++m) {
        std::vector<std::string> args = {"run",      (options.examples / "b3_lotka_volterra.json").string(),
                                         "--method", all[m].method,
                                         "--dt",     "1e-4",
                                         "--stop",   fmt::format("{}", run.stop),
                                         "--set",    "output.interval=0.1",
                                         "--out",    (scratch.path() / "out.csv").string(),
                                         "--quiet"};
        for (const std::string& setting : run.settings) args.insert(args.end(), {"--set", setting});
        for (const std::string& setting : all[m].settings) args.insert(args.end(), {"--set", setting});
        samples[m].push_back(time_process(args, scratch.path()));
      }
    }
    const double jacobi = median(samples[0]);
    for (std::size_t m = 0; m < all.size(); ++m) {
      const double wall = median(samples[m]);
      const std::string name = all[m].label.empty() ? all[m].method : all[m].method + ", " + all[m].label;
      rows.push_back({run.label, name, fmt::format("{:.2f}", wall), fmt::format("{:.2f}", wall / jacobi)});
      json.push_back({{"case", run.label}, {"method", name}, {"process_s", wall}, {"ratio_to_jacobi", wall / jacobi}});
    }
  }
  section = fmt::format(
                "## Whole processes on runs of seconds\n\nB3 at δt = 1e-4, rows every 0.1 s, each `cosima run` a whole "
                "process "
                "(start-up, PETSc included), the methods alternated {} times, medians:\n\n",
                rounds) +
            markdown_table({"case", "method", "process s", "/ NI Jacobi"}, rows) + "\n";
  return json;
}

}  // namespace cosima::bench
