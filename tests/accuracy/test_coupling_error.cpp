// The coupling error every run reports (methods/coupling_error.hpp), against the true error: the
// source outputs' RMS deviation from the monolithic reference, relative to the same scale (label
// accuracy). The table over B1–B5 and every method is `cosima bench accuracy` (docs/results/accuracy.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "bench/bench.hpp"
#include "methods/coupling_error.hpp"
#include "model/modular_model.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

/// An example through bench accuracy's scenario (accurate systems, the connections' sources
/// recorded), under `method`.
scenario::Scenario accurate(const std::string& example, const std::string& method, double dt) {
  scenario::Scenario scenario = bench::accuracy_scenario(kExamples, example, dt);
  scenario.method = {{"type", method}};
  return scenario;
}

TEST(CouplingError, JacobisEstimateFallsWithTheStepAndStaysNearTheTrueError) {
  const scenario::ScenarioRun reference = scenario::run_scenario(accurate("b3_lotka_volterra", "monolithic", 1e-3));
  std::vector<double> estimates;
  for (const double dt : {1e-3, 1e-4}) {
    const scenario::ScenarioRun run = scenario::run_scenario(accurate("b3_lotka_volterra", "jacobi", dt));
    const methods::CouplingErrorReport& report = run.stats.coupling_error;
    ASSERT_TRUE(report.tracked);
    ASSERT_EQ(report.connections.size(), 2U);
    const double truth = bench::coupling_true_error(run, reference);
    EXPECT_GT(report.rms_relative, 0.05 * truth) << "dt = " << dt;
    EXPECT_LT(report.rms_relative, 20 * truth) << "dt = " << dt;
    EXPECT_FALSE(report.accuracy_warning);
    estimates.push_back(report.rms_relative);
    // every step's defect is in the step log
    ASSERT_FALSE(run.steps->rows().empty());
    for (const auto& row : run.steps->rows()) ASSERT_TRUE(std::isfinite(row.coupling_error));
  }
  EXPECT_NEAR(estimates[0] / estimates[1], 10.0, 1.0);  // first order, like ZOH Jacobi's error
}

TEST(CouplingError, HermiteInterfacesReportTheirInterpolationError) {
  // MISSILES' inputs meet the outputs at both ends: its defect is inside the step (O(h⁴))
  const scenario::ScenarioRun reference = scenario::run_scenario(accurate("b4_two_mass", "monolithic", 1e-3));
  for (const std::string method : {"missiles", "ifosmondi-jfm"}) {
    const scenario::ScenarioRun run = scenario::run_scenario(accurate("b4_two_mass", method, 1e-3));
    const double truth = bench::coupling_true_error(run, reference), estimate = run.stats.coupling_error.rms_relative;
    EXPECT_GT(estimate, 0.05 * truth) << method;
    EXPECT_LT(estimate, 100 * truth) << method;
    EXPECT_FALSE(run.stats.coupling_error.accuracy_warning) << method;
  }
}

TEST(CouplingError, ACoarseStepWarnsAndNamesTheWorstConnection) {
  const scenario::ScenarioRun run = scenario::run_scenario(accurate("b5_rotational_oscillator", "jacobi", 1.0));
  const methods::CouplingErrorReport& report = run.stats.coupling_error;
  ASSERT_TRUE(report.accuracy_warning);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(report.warnings[0].find("body2.omega2 → body1.omega2"), std::string::npos) << report.warnings[0];
  EXPECT_NE(report.warnings[0].find("accuracy.threshold = 0.01"), std::string::npos) << report.warnings[0];
  // a threshold above the defect: no warning
  scenario::Scenario relaxed = accurate("b5_rotational_oscillator", "jacobi", 1.0);
  relaxed.run.accuracy.threshold = 1.0;
  EXPECT_FALSE(scenario::run_scenario(relaxed).stats.coupling_error.accuracy_warning);
}

TEST(CouplingError, AJumpIFOSMONDILocatesLeavesNoInterpolationErrorAcrossIt) {
  // B2's force switches at t = 100 unannounced: IFOSMONDI locates the jump by halving and restarts
  // the interface there; the divided differences must not straddle it (they read 4e21 once)
  scenario::Scenario scenario = scenario::load_scenario(
      kExamples / "b2_two_bodies.json", {"method.type=ifosmondi-jfm", "systems.right.parameters.announce_switch=0"});
  const scenario::ScenarioRun run = scenario::run_scenario(scenario);
  EXPECT_GT(run.stats.method_totals.at(0).second, 0.0) << "jumps_located";
  EXPECT_LT(run.stats.coupling_error.rms_relative, 1e-3);
}

TEST(CouplingError, AJumpAnEstimatorDetectsIsNoCouplingError) {
  // B2's Co-Simulation FMU switches its force from 4 N to 1000 N inside doStep at t = 100, a
  // communication point: the inputs were right on both sides of it, and a step's defect against the
  // right limit (996 N) is the jump, not the coupling. MISSILES and IFOSMONDI (COSTARICA) see the jump
  // in their estimates' gap; the estimate stays within 100x of the true error (it read 1.5e5x).
  const scenario::ScenarioRun reference = scenario::run_scenario(accurate("b2_two_bodies", "monolithic", 0.2));
  for (const std::string method : {"missiles", "ifosmondi"}) {
    const scenario::ScenarioRun run = scenario::run_scenario(accurate("b2_two_bodies_fmu", method, 0.2));
    const double truth = bench::coupling_true_error(run, reference), estimate = run.stats.coupling_error.rms_relative;
    EXPECT_GT(estimate, 1e-2 * truth) << method;
    EXPECT_LT(estimate, 1e2 * truth) << method;
    EXPECT_FALSE(run.stats.coupling_error.accuracy_warning) << method;
  }
}

TEST(CouplingError, MonolithicCouplesExactlyAndTracksNothing) {
  const scenario::ScenarioRun run = scenario::run_scenario(accurate("b3_lotka_volterra", "monolithic", 1e-2));
  EXPECT_FALSE(run.stats.coupling_error.tracked);
  EXPECT_FALSE(run.stats.coupling_error.accuracy_warning);
  EXPECT_TRUE(std::isnan(run.steps->rows().front().coupling_error));
}

TEST(CouplingError, TheScaleCountsAcceptedStepsOnly) {
  const io::Json doc = io::Json::parse(R"({"stop": 1, "systems": {"prey": {"model": "b3.prey"},
    "predator": {"model": "b3.predator"}}, "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]]})");
  model::ModularModel model = scenario::build_model(scenario::parse_scenario(doc, "scale.json"));
  methods::CouplingErrorMonitor monitor;
  monitor.configure(model);
  const Eigen::Vector2d u_start(1.0, 1.0), u_end(1.5, 1.5), y_accepted(2.0, 2.0), y_trial(1e6, 1e6);
  // a trial step whose outputs blow up is judged against them, and rejected …
  EXPECT_GT(monitor.step_error(0.1, u_start, u_end, y_trial, false, 1e-3, -1.0), 1.0);
  // … and the step accepted after it is the scale
  monitor.record(0.0, 0.1, u_start, u_end, y_accepted);
  for (const methods::ConnectionError& connection : monitor.report(model).connections) EXPECT_EQ(connection.scale, 2.0);
}

TEST(CouplingError, OnlyALoopDiverges) {
  // every step's defect over half the signal's scale while it grows 10x a step (a held input whose
  // source runs away): on a loop of connections a divergence, from a source outside every loop (a
  // table, a CSV source, an --input column) none, however it grows
  const auto diverges = [](const std::string& connections) {
    const io::Json doc = io::Json::parse(R"({"stop": 30, "method": {"dt": 1}, "systems": {"prey": {"model": "b3.prey"},
      "predator": {"model": "b3.predator"}}, )" +
                                         connections + "}");
    model::ModularModel model = scenario::build_model(scenario::parse_scenario(doc, "loop.json"));
    methods::CouplingErrorMonitor monitor;
    monitor.configure(model);
    double y = 1e-3;
    for (int k = 0; k < 30 && monitor.diverging().empty(); ++k, y *= 10.0) {
      const Eigen::Vector2d held(y, y), next(10.0 * y, 10.0 * y);
      monitor.record(k, 1.0, held, held, next);
    }
    return monitor.diverging();
  };
  EXPECT_NE(diverges(R"("connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]])").find("diverges"),
            std::string::npos);
  EXPECT_EQ(diverges(R"("connections": [["prey.p", "predator.p"]], "inputs": {"prey.q": 1})"), "");
}

TEST(CouplingError, AccuracyOptionsAreRead) {
  io::Json doc = io::Json::parse(
      R"({"stop": 1, "systems": {"a": {"model": "b3.prey"}}, "accuracy": {"threshold": 0.5, "growth": 3}})");
  scenario::Scenario scenario = scenario::parse_scenario(doc, "a.json");
  EXPECT_EQ(scenario.run.accuracy.threshold, 0.5);
  EXPECT_EQ(scenario.run.accuracy.growth, 3.0);
  doc["accuracy"]["threshold"] = -1;
  EXPECT_THROW(scenario::parse_scenario(doc, "a.json"), Error);
  doc["accuracy"] = {{"treshold", 1}};
  EXPECT_THROW(scenario::parse_scenario(doc, "a.json"), Error);
}

}  // namespace
}  // namespace cosima
