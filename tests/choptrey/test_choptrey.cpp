// CHOPtrey (seed 002): CHOPoly matrices against the seed's closed forms, extrapolation of test
// signals (Table 2 analogue), and B7 with extrapolated, multi-rate, threaded Jacobi.
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <numbers>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/metrics.hpp"
#include "exec/executor.hpp"
#include "extrapolation/choply.hpp"
#include "extrapolation/extrapolator.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;
using testing::error_of;

TEST(Choply, MatricesReproduceTheSeedClosedForms) {
  // eq. 18: P_{1,3,0}(τ) = (5u_0 + 2u_{−1} − u_{−2})/6 + (u_0 − u_{−2}) τ/2
  Eigen::MatrixXd p130(2, 3);
  p130 << 5.0 / 6, 2.0 / 6, -1.0 / 6, 0.5, 0.0, -0.5;
  EXPECT_LE((extrapolation::choply_matrix(1, 3, 0.0) - p130).cwiseAbs().maxCoeff(), 1e-12);
  // eq. 19: P_{2,5,1}
  Eigen::MatrixXd p251(3, 5);
  p251.row(0) << 65.0 / 70, 12.0 / 70, -6.0 / 70, -4.0 / 70, 3.0 / 70;
  p251.row(1) << 25.0 / 28, -12.0 / 28, -16.0 / 28, -4.0 / 28, 7.0 / 28;
  p251.row(2) << 5.0 / 28, -4.0 / 28, -4.0 / 28, 0.0, 3.0 / 28;
  EXPECT_LE((extrapolation::choply_matrix(2, 5, 1.0) - p251).cwiseAbs().maxCoeff(), 1e-12);
  // P_{0,λ,0} is the running mean, P_{1,2,0} the FOH, P_{0,1,ω} the ZOH
  for (int frame : {1, 3, 7}) {
    EXPECT_LE((extrapolation::choply_matrix(0, frame, 0.0).array() - 1.0 / frame).abs().maxCoeff(), 1e-15) << frame;
  }
  Eigen::MatrixXd foh(2, 2);
  foh << 1.0, 0.0, 1.0, -1.0;
  EXPECT_LE((extrapolation::choply_matrix(1, 2, 0.0) - foh).cwiseAbs().maxCoeff(), 1e-14);
  for (double weight : {0.0, 0.5, 2.0}) EXPECT_NEAR(extrapolation::choply_matrix(0, 1, weight)(0, 0), 1.0, 1e-15);
  EXPECT_NE(error_of([] { (void)extrapolation::choply_matrix(3, 3, 0.0); }).find("δ < λ"), std::string::npos);
}

/// seed 002 Table 2 analogue: 10 s sampled every H = 0.1 s, checked at H/10
double cumulative_error(const std::string& spec, const std::function<double(double)>& signal) {
  return extrapolation::cumulative_extrapolation_error(spec, signal, 0.1, 10.0);
}

TEST(Chopatt, SmoothSignalsLoseAtLeastSixtyPercentOfTheZohError) {
  const std::vector<std::pair<std::string, std::function<double(double)>>> signals = {
      {"sine", [](double t) { return std::sin(2.0 * std::numbers::pi * 0.3 * t); }},
      {"damped", [](double t) { return std::exp(-0.3 * t) * std::cos(2.0 * t); }},
      {"ramp-and-bend", [](double t) { return 0.5 * t + std::tanh(t - 5.0); }},
      {"chirp", [](double t) { return std::sin(0.2 * t * t); }},
  };
  for (const auto& [name, signal] : signals) {
    const double zoh = cumulative_error("zoh", signal);
    std::string line = fmt::format("{:>14}: ZOH {:.3f}", name, zoh);
    for (const std::string spec : {"choptrey:0", "choptrey:0.5", "choptrey:2", "choptrey"}) {
      const double error = cumulative_error(spec, signal);
      line += fmt::format(", {} {:.3f} ({:.0f} % below)", spec, error, 100.0 * (1.0 - error / zoh));
    }
    std::cout << line << '\n';
    EXPECT_LE(cumulative_error("choptrey", signal), 0.4 * zoh) << name;
  }
}

TEST(Chopatt, TheCliffRuleKeepsAJumpAtOrBelowZoh) {
  // seed 002 Fig. 9/10: a slow signal with a sharp jump
  const auto signal = [](double t) { return 0.2 * std::sin(0.5 * t) + (t >= 5.05 ? 10.0 : 0.0); };
  const double zoh = cumulative_error("zoh", signal);
  const double choptrey = cumulative_error("choptrey", signal);
  const double quadratic = cumulative_error("poly:2,5,0", signal);
  std::cout << fmt::format("jump: ZOH {:.3f}, CHOPtrey {:.3f}, P_2,5,0 {:.3f}\n", zoh, choptrey, quadratic);
  EXPECT_LE(choptrey, zoh);
  EXPECT_GT(quadratic, zoh);
}

TEST(Chopatt, SpecsAreChecked) {
  for (const std::string bad : {"poly:1,1,0", "poly:4,6,0", "poly:1,3", "cubic", "choptrey:-1", "poly:1,3,-2"}) {
    EXPECT_NE(error_of([&] { (void)extrapolation::parse_extrapolation(bad); }).find("expected zoh"), std::string::npos)
        << bad;
  }
}

// --- B7 ------------------------------------------------------------------------------------------

TEST(Chopoly, AnExtrapolationRestartsAtAnAnnouncedJump) {
  // B2's force jumps at the declared time event t = 100: Jacobi with a CHOPoly predictor restarts
  // the extrapolation of that input from the right limit (a constant, then rising degrees) instead
  // of fitting a polynomial through samples on both sides of the jump. The error over the whole run
  // keeps the order it has before the jump.
  const auto run = [](double dt, const std::string& stop, const std::string& method) {
    std::vector<std::string> overrides = {"method.type=" + method, stop};
    if (method == "jacobi") overrides.emplace_back("method.extrapolation=poly:2,3,0");
    scenario::Scenario scenario = scenario::load_scenario(kExamples / "b2_two_bodies.json", overrides);
    scenario.run.dt = dt;
    return scenario::run_scenario(scenario);
  };
  const std::vector<double> steps = {1.0, 0.5, 0.25};
  for (const std::string stop : {"stop=96", "stop=200"}) {
    const scenario::ScenarioRun reference = run(0.01, stop, "monolithic");
    std::vector<double> errors;
    for (const double dt : steps) {
      const scenario::ScenarioRun result = run(dt, stop, "jacobi");
      errors.push_back(compare_signals(result.results->times(), result.results->column("right.x_r"),
                                       reference.results->times(), reference.results->column("right.x_r"))
                           .nl2);
    }
    const double order = observed_order(steps, errors);
    std::cout << fmt::format("B2 Jacobi poly:2,3,0, {}: errors {:.3e} {:.3e} {:.3e}, order {:.2f}\n", stop, errors[0],
                             errors[1], errors[2], order);
    EXPECT_GE(order, 2.5) << stop;
  }
}

scenario::ScenarioRun run_b7(double dt, std::vector<std::string> overrides, exec::Executor* executor = nullptr) {
  overrides.emplace_back("stop=7200");
  scenario::Scenario scenario = scenario::load_scenario(kExamples / "b7_thermal_zones.json", overrides);
  scenario.run.dt = dt;
  return scenario::run_scenario(scenario, executor);
}

TEST(B7, ChoptreyAtTwoAndAHalfTimesTheStepBeatsZohThere) {
  const auto reference = run_b7(10.0, {"method.type=monolithic"});
  const double zoh_h = scenario::mean_nl2(run_b7(60.0, {}), reference);
  const double zoh_wide = scenario::mean_nl2(run_b7(150.0, {}), reference);
  const double choptrey_wide = scenario::mean_nl2(run_b7(150.0, {"method.extrapolation=choptrey"}), reference);
  std::cout << fmt::format("B7: ZOH at H {:.3e}, ZOH at 2.5 H {:.3e}, CHOPtrey at 2.5 H {:.3e}\n", zoh_h, zoh_wide,
                           choptrey_wide);
  EXPECT_LT(choptrey_wide, zoh_wide);
}

TEST(B7, MultiRateOnThreadsMatchesSequentialBitwise) {
  // the slow supply loop communicates every 4 base steps, the zones every step
  const std::vector<std::string> multirate = {"method.extrapolation=choptrey", "method.rates={\"supply\": 4}"};
  const auto sequential = run_b7(30.0, multirate);
  exec::ThreadPoolExecutor threads(2);
  const auto threaded = run_b7(30.0, multirate, &threads);
  for (const auto& label : sequential.results->labels()) {
    const auto& a = sequential.results->column(label);
    const auto& b = threaded.results->column(label);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << label << " sample " << i;
  }
  const int supply = sequential.model.system_index("supply"), zone = sequential.model.system_index("zone1");
  EXPECT_EQ(sequential.model.system(zone).integrations(), sequential.stats.macro_steps);
  EXPECT_EQ(sequential.model.system(supply).integrations(), sequential.stats.macro_steps / 4);
  const auto reference = run_b7(10.0, {"method.type=monolithic"});
  const double error = scenario::mean_nl2(sequential, reference);
  std::cout << fmt::format("B7 multi-rate (zones 30 s, supply 120 s), CHOPtrey: error {:.3e}\n", error);
  EXPECT_LE(error, 1e-2);
}

TEST(B7, SystemsThatCannotInterpolateGetTheMeanOfTheExtrapolation) {
  const auto reference = run_b7(10.0, {"method.type=monolithic"});
  const auto mean =
      run_b7(150.0, {"method.extrapolation=poly:1,2,0", "systems.zone1.interpolate_inputs=false",
                     "systems.zone2.interpolate_inputs=false", "systems.zone3.interpolate_inputs=false",
                     "systems.zone4.interpolate_inputs=false", "systems.supply.interpolate_inputs=false"});
  const double zoh = scenario::mean_nl2(run_b7(150.0, {}), reference);
  std::cout << fmt::format("B7 at 2.5 H: FOH applied by the master as a mean {:.3e}, ZOH {:.3e}\n",
                           scenario::mean_nl2(mean, reference), zoh);
  EXPECT_LT(scenario::mean_nl2(mean, reference), zoh);
}

TEST(B7, RatesAndExtrapolationsAreChecked) {
  EXPECT_NE(error_of([] { run_b7(60.0, {"method.rates={\"nobody\": 2}"}); }).find("no system 'nobody'"),
            std::string::npos);
  EXPECT_NE(error_of([] { run_b7(60.0, {"method.rates={\"supply\": 0}"}); }).find("positive multiple"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              run_b7(60.0, {"method.type=gauss-seidel", "method.rates={\"supply\": 2}"});
            }).find("needs jacobi"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              run_b7(60.0, {"method.extrapolation={\"zone9.T_w\": \"choptrey\"}"});
            }).find("no input 'zone9.T_w'"),
            std::string::npos);
}

}  // namespace
}  // namespace cosima
