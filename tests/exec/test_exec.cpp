// Executors: every method gives bitwise-identical results whichever executor carries out its
// orders; the thread pool's failures come back as errors.
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/identical_runs.hpp"
#include "test_support.hpp"

#include "exec/executor.hpp"
#include "scenario/oscillator_network.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;
using testing::error_of;
using testing::expect_identical;

struct MethodCase {
  std::string label;
  std::vector<std::string> overrides;
};

const std::vector<MethodCase>& methods() {
  static const std::vector<MethodCase> cases = {
      {"jacobi", {"method.type=jacobi"}},
      {"gauss-seidel", {"method.type=gauss-seidel"}},
      {"ifosmondi-jfm", {"method.type=ifosmondi-jfm", "method.epsilon=1e-8"}},
      {"ifosmondi-jfm hybrid", {"method.type=ifosmondi-jfm", "method.epsilon=1e-8", "systems.osc2.rollback=false"}},
      {"missiles", {"method.type=missiles"}},
      {"defect-jacobi", {"method.type=defect-jacobi", "method.m=1", "method.n=1", "method.tol=1e-4"}},
      // error-controlled steps: rejected attempts undone by snapshots (Jacobi) or before any real
      // integration (MISSILES), IFOSMONDI from its snapshots
      {"jacobi under tolerance", {"method.type=jacobi", "method.tolerance=1e-3"}},
      {"missiles under tolerance", {"method.type=missiles", "method.tolerance=1e-5"}},
      {"ifosmondi-jfm under tolerance", {"method.type=ifosmondi-jfm", "method.tolerance=1e-5"}},
  };
  return cases;
}

scenario::ScenarioRun run_network(const scenario::OscillatorNetwork& network, const std::vector<std::string>& overrides,
                                  exec::Executor* executor) {
  cosima::io::Json doc = scenario::oscillator_network(network);
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  return scenario::run_scenario(scenario::parse_scenario(doc, kExamples / "network.json"), executor);
}

TEST(Executors, EveryMethodGivesBitwiseIdenticalResultsOnEveryLocalExecutor) {
  for (bool ring : {false, true}) {
    const scenario::OscillatorNetwork network{.size = 8, .ring = ring, .stop = 2.0, .dt = 0.05};
    for (const MethodCase& method : methods()) {
      const scenario::ScenarioRun reference = run_network(network, method.overrides, nullptr);
      for (const std::string spec : {"sequential", "threads:2", "threads:3", "threads:8"}) {
        const auto executor = exec::make_local_executor(spec);
        expect_identical(reference, run_network(network, method.overrides, executor.get()),
                         fmt::format("{} on a {} with {}", method.label, ring ? "ring" : "chain", spec));
      }
      // the adaptive pool may run these cheap batches inline: the shared path is tested too
      for (const int threads : {2, 3}) {
        exec::ThreadPoolExecutor shared(threads, exec::ThreadPoolExecutor::Sharing::always);
        expect_identical(reference, run_network(network, method.overrides, &shared),
                         fmt::format("{} on a {} with {} threads, every batch shared", method.label,
                                     ring ? "ring" : "chain", threads));
        EXPECT_GT(shared.shared_batches(), 0);
      }
    }
  }
}

TEST(Executors, TheSeedModelsThroughFmusAgreeOnThreads) {
  // FMUs (each its own shared-library instance) stepped concurrently
  for (const std::string method : {"jacobi", "ifosmondi-jfm", "missiles"}) {
    scenario::Scenario scenario =
        scenario::load_scenario(kExamples / "b3_lotka_volterra_fmu.json", {"method.type=" + method, "stop=2"});
    scenario.run.dt = 1e-2;
    const scenario::ScenarioRun sequential = scenario::run_scenario(scenario);
    exec::ThreadPoolExecutor threads(2);
    expect_identical(sequential, scenario::run_scenario(scenario, &threads), method + " through FMUs");
  }
}

TEST(Executors, ThePlainStepGivesTheNumbersOfTheOrderPath) {
  // Jacobi and Gauss–Seidel with held inputs step as a PlainBatch (System::step_constant; through an
  // FMU of Real ports, one fmi2SetReal/DoStep/GetReal on the stacked vectors): the same numbers as
  // the orders it replaces, in this thread and shared among threads
  for (const std::string method : {"jacobi", "gauss-seidel"}) {
    const scenario::OscillatorNetwork network{.size = 8, .ring = false, .stop = 2.0, .dt = 0.05};
    const scenario::ScenarioRun orders =
        run_network(network, {"method.type=" + method, "method.plain_steps=false"}, nullptr);
    expect_identical(orders, run_network(network, {"method.type=" + method}, nullptr), method + ", native, sequential");
    const std::vector<std::string> controlled = {"method.type=" + method, "method.tolerance=1e-3"};
    std::vector<std::string> controlled_orders = controlled;
    controlled_orders.emplace_back("method.plain_steps=false");
    expect_identical(run_network(network, controlled_orders, nullptr), run_network(network, controlled, nullptr),
                     method + " under tolerance, native, sequential");
    exec::ThreadPoolExecutor shared(2, exec::ThreadPoolExecutor::Sharing::always);
    expect_identical(orders, run_network(network, {"method.type=" + method}, &shared), method + ", native, shared");
    EXPECT_GT(shared.shared_batches(), 0);

    scenario::Scenario scenario =
        scenario::load_scenario(kExamples / "b3_lotka_volterra_fmu.json", {"method.type=" + method, "stop=2"});
    scenario.run.dt = 1e-2;
    const scenario::ScenarioRun plain = scenario::run_scenario(scenario);
    scenario = scenario::load_scenario(kExamples / "b3_lotka_volterra_fmu.json",
                                       {"method.type=" + method, "stop=2", "method.plain_steps=false"});
    scenario.run.dt = 1e-2;
    expect_identical(scenario::run_scenario(scenario), plain, method + " through FMUs");
  }
}

/// Lotka–Volterra species as peer masters' FMUs declare them (output depending on the input): a loop of
/// two (`fmu`: cosima_test_lotka or cosima_test_lotka_all), or a chain prey → gain → gain with no loop.
io::Json feedthrough_scenario(const std::string& fmu, bool chain, const std::string& method) {
  const std::string dir = COSIMA_C_FMU_DIR;
  io::Json doc = io::Json::parse(R"({"stop": 2, "method": {"dt": 0.01}})");
  doc["method"]["type"] = method;
  doc["systems"]["prey"] = {{"fmu", dir + "/" + fmu + ".fmu"}, {"parameters", {{"a", 1.5}, {"b", -1.0}}}};
  if (chain) {
    doc["systems"]["g1"] = {{"fmu", dir + "/cosima_test_gain.fmu"}};
    doc["systems"]["g2"] = {{"fmu", dir + "/cosima_test_gain.fmu"}, {"parameters", {{"q", 0.1}}}};
    doc["connections"] = io::Json::parse(R"([["prey.x", "g1.u"], ["g1.y", "g2.u"]])");
    doc["inputs"] = {{"prey.u", 0.5}};
  } else {
    doc["systems"]["predator"] = {{"fmu", dir + "/" + fmu + ".fmu"}, {"parameters", {{"a", -3.0}, {"b", 1.0}}}};
    doc["connections"] = io::Json::parse(R"([["prey.x", "predator.u"], ["predator.x", "prey.u"]])");
  }
  return doc;
}

TEST(Executors, DeclaredFeedthroughSettlesOnThePlainPathWithTheNumbersOfTheOrderPath) {
  // FMUs whose outputs declare a dependency on their inputs settle each communication point: compiled
  // as PlainBatch entries without a step, the same numbers as the orders of settle_communication_point
  for (const auto& [fmu, chain] : {std::pair{"cosima_test_lotka", false}, std::pair{"cosima_test_lotka_all", false},
                                   std::pair{"cosima_test_lotka", true}}) {
    const std::string label = fmt::format("{}{}", fmu, chain ? " in a chain" : " in a loop");
    io::Json doc = feedthrough_scenario(fmu, chain, "jacobi");
    doc["method"]["plain_steps"] = false;
    const scenario::ScenarioRun orders = scenario::run_scenario(scenario::parse_scenario(doc, "ft.json"));
    doc["method"].erase("plain_steps");
    const scenario::Scenario scenario = scenario::parse_scenario(doc, "ft.json");
    expect_identical(orders, scenario::run_scenario(scenario), label + ", sequential");
    exec::ThreadPoolExecutor shared(2, exec::ThreadPoolExecutor::Sharing::always);
    expect_identical(orders, scenario::run_scenario(scenario, &shared), label + ", shared among threads");
    EXPECT_GT(shared.shared_batches(), 0);
  }
}

TEST(Executors, ThePoolSharesABatchOnlyWhenItsWorkOutweighsTheHandOff) {
  // the rule: sharing saves about work·(1 − 1/lanes) and costs a hand-off
  EXPECT_FALSE(exec::ThreadPoolExecutor::sharing_pays(400.0, 5000.0, 2));  // two cheap FMUs: ns against µs
  EXPECT_TRUE(exec::ThreadPoolExecutor::sharing_pays(8e6, 5000.0, 2));     // 8 systems of 1 ms
  EXPECT_FALSE(exec::ThreadPoolExecutor::sharing_pays(-1.0, 0.0, 2));      // work not yet measured
  // Which later batches are shared depends on measured times (a loaded machine measures a slow
  // hand-off and rightly keeps batches inline: the fresh-clone CI once did, beside the MPI test), so
  // the speed-up of 8 costly systems is measured by `cosima bench scaling`, not asserted here. What
  // does not depend on the clock: a batch whose work is not yet known runs inline, and every batch
  // is one or the other.
  exec::ThreadPoolExecutor adaptive(2);
  const scenario::OscillatorNetwork costly{.size = 8, .step_cost = 1e-4, .stop = 0.5, .dt = 0.05};
  const scenario::ScenarioRun reference = run_network(costly, {"method.type=jacobi"}, nullptr);
  expect_identical(reference, run_network(costly, {"method.type=jacobi"}, &adaptive), "adaptive sharing");
  EXPECT_GE(adaptive.inline_batches(), 1);
  EXPECT_GE(adaptive.inline_batches() + adaptive.shared_batches(), 10);  // a batch per macro-step at least
}

TEST(Executors, AFailingSystemOnAThreadIsAnErrorNamingIt) {
  exec::ThreadPoolExecutor threads(2);
  // the damper of B1 without its linearization and rollback cannot be estimated: refused before any step
  const std::string refused = error_of([&] {
    scenario::Scenario s = scenario::load_scenario(
        kExamples / "b1_ifosmondi_damper.json",
        {"method.type=missiles", "systems.damper.linearization=false", "systems.damper.rollback=false"});
    scenario::run_scenario(s, &threads);
  });
  EXPECT_NE(refused.find("system 'damper' lacks linearization"), std::string::npos) << refused;
  // a system that fails while stepping on a worker thread
  const std::string failed = error_of([&] {
    scenario::Scenario s =
        scenario::load_scenario(kExamples / "b3_lotka_volterra_fmu.json",
                                {"method.type=jacobi", "stop=1", "systems.prey.fmu=test_breaks.fmu",
                                 "connections=[[\"prey.y\", \"predator.p\"], [\"predator.q\", \"prey.u\"]]",
                                 "output.variables=[\"predator.q\"]", "systems.prey.parameters={}"});
    s.run.dt = 0.1;
    scenario::run_scenario(s, &threads);
  });
  EXPECT_NE(failed.find("system 'prey'"), std::string::npos) << failed;
}

TEST(Executors, SpecsAreChecked) {
  EXPECT_NE(error_of([] { (void)exec::make_local_executor("threads:0"); }).find("threads:N"), std::string::npos);
  EXPECT_NE(error_of([] { (void)exec::make_local_executor("threads:x"); }).find("threads:N"), std::string::npos);
  EXPECT_NE(error_of([] { (void)exec::make_local_executor("gpu"); }).find("unknown executor"), std::string::npos);
}

}  // namespace
}  // namespace cosima
