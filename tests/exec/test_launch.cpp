// api::Launch, the front ends' way to run a scenario: "auto" resolved before the executor starts,
// the run equal to run_scenario's on the same executor, its refusals named, one run per launch.
#include <filesystem>

#include <gtest/gtest.h>

#include "support/identical_runs.hpp"
#include "test_support.hpp"

#include "api/launch.hpp"
#include "exec/executor.hpp"
#include "scenario/executors.hpp"

namespace cosima {
namespace {

using testing::error_of;

const std::filesystem::path kScenarios = COSIMA_EXAMPLES_DIR;

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

scenario::Scenario b3(const std::string& method) {
  return scenario::load_scenario(kScenarios / "b3_lotka_volterra.json", {"method.type=\"" + method + "\"", "stop=2"});
}

TEST(Launch, RunsAsRunScenarioDoesOnTheSameExecutor) {
  api::Launch launch(b3("jacobi"), {.executor = "threads:2"});
  EXPECT_FALSE(launch.served());
  EXPECT_TRUE(launch.method_choice().empty());  // the scenario named its method
  const scenario::ScenarioRun run = launch.run({});
  launch.finish();
  const scenario::Scenario direct = b3("jacobi");
  const auto executor = scenario::make_executor(exec::parse_executor_spec("threads:2"), direct,
                                                scenario::system_catalog(direct), std::nullopt);
  const scenario::ScenarioRun reference = scenario::run_scenario(direct, executor.get());
  testing::expect_identical(run, reference, "launch against run_scenario");
}

TEST(Launch, ResolvesAutoAndSaysWhy) {
  api::Launch launch(b3("auto"), {});
  EXPECT_FALSE(launch.method_choice().empty());
  EXPECT_NE(launch.scenario().method.at("type").get<std::string>(), "auto");
  EXPECT_EQ(launch.scenario().method_choice, launch.method_choice());
}

TEST(Launch, RefusalsAreNamed) {
  EXPECT_TRUE(says(error_of([] { api::Launch launch(b3("jacobi"), {.executor = "gpu"}); }), "gpu"));
  EXPECT_TRUE(says(error_of([] { api::Launch launch(b3("jacobi"), {.executor = "mpi", .mpi_refusal = "not here"}); }),
                   "not here"));
  EXPECT_TRUE(says(error_of([] { api::Launch launch(b3("jacobi"), {.executor = "threads:2", .fmu_timeout = 1.0}); }),
                   "processes"));
  api::Launch launch(b3("jacobi"), {});
  (void)launch.run({});
  launch.finish();
  EXPECT_TRUE(says(error_of([&] { (void)launch.run({}); }), "finished"));
}

TEST(Launch, ExecutorSpecsAreCheckedAndClassified) {
  EXPECT_NO_THROW(api::check_executor("threads:3"));
  EXPECT_TRUE(says(error_of([] { api::check_executor("threads:zero"); }), "threads:zero"));
  EXPECT_TRUE(api::executor_isolates("processes:2"));
  EXPECT_FALSE(api::executor_isolates("sequential"));
}

}  // namespace
}  // namespace cosima
