// Rows fall on the grid (docs/design.md §3): under every method, on every shipped example, each row is
// written at start + k·interval exactly as computed from k, and the last one where the run ended.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "methods/method_registry.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

std::vector<std::filesystem::path> examples() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RowTimes, EveryRowOfEveryMethodOnEveryExampleIsOnTheGrid) {
  int runs = 0;
  for (const std::filesystem::path& file : examples()) {
    for (const methods::MethodEntry& entry : methods::registered_methods()) {
      SCOPED_TRACE(entry.name + " on " + file.filename().string());
      scenario::Scenario scenario = scenario::load_scenario(file, {"method.type=" + entry.name});
      // a short stretch of each run, an interval that no step divides (rows between the communication
      // points of the variable-step methods, grid points that accumulate rounding when summed)
      const double start = scenario.run.start;
      scenario.run.stop = start + std::min(scenario.run.stop - start, 1.0);
      const double interval = (scenario.run.stop - start) / 37.0;
      scenario.output.interval = interval;
      scenario::ScenarioRun run;
      try {
        run = scenario::run_scenario(scenario);
      } catch (const CapabilityError&) {
        continue;                 // a method the example's systems cannot run (refused by name before the start)
      } catch (const Error& e) {  // or whose model it cannot couple
        const std::string what = e.what();
        EXPECT_TRUE(what.find("algebraic loop") != std::string::npos ||
                    what.find("is a black box") != std::string::npos)
            << what;
        continue;
      }
      ++runs;
      const std::vector<double>& times = run.results->times();
      ASSERT_FALSE(times.empty());
      for (std::size_t r = 0; r < times.size(); ++r) {
        const double k = std::round((times[r] - start) / interval);
        const bool on_grid = times[r] == start + k * interval;
        const bool last_at_end = r + 1 == times.size() && times[r] == run.stats.end_time;
        EXPECT_TRUE(on_grid || last_at_end)
            << "row " << r << " at t = " << times[r] << " (k·interval: " << start + k * interval << ")";
        if (r > 0) {
          EXPECT_GT(times[r], times[r - 1]);
        }
      }
      EXPECT_EQ(times.back(), run.stats.end_time);
    }
  }
  EXPECT_GE(runs, 60) << "too few method × example runs";
}

}  // namespace
}  // namespace cosima
