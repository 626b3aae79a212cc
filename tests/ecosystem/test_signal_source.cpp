// CSV signal sources (system/source/csv_source.hpp): interpolation, jumps announced as time events,
// every method driven by one, and errors that name the file, column or row.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "scenario/run_scenario.hpp"
#include "system/source/csv_source.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;

/// A scratch directory of this test, removed at the end.
class SignalSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cosima-source-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::filesystem::path dir_;
};

TEST_F(SignalSource, InterpolatesLinearlyOrHoldsAndAnnouncesTheJumps) {
  const auto table = write("s.csv", "time,ramp,level\n0,0,1\n1,2,1\n1.5,3,5\n2,1,5\n");
  CsvSource source("s", table, {{"level", SourceInterpolation::hold}});
  ASSERT_EQ(source.output_names(), (std::vector<std::string>{"ramp", "level"}));
  EXPECT_TRUE(source.output_info(0).continuous);
  EXPECT_FALSE(source.output_info(1).continuous);  // held over a macro-step by every method
  source.initialize(0.0);
  Eigen::VectorXd y(2), dy(2);
  EXPECT_EQ(source.next_event_time(), 1.5);  // the held column changes at 1.5
  ASSERT_TRUE(source.do_step(0.25).ok());
  source.outputs(y);
  source.output_derivatives(1, dy);
  EXPECT_DOUBLE_EQ(y(0), 0.5);
  EXPECT_EQ(y(1), 1.0);
  EXPECT_DOUBLE_EQ(dy(0), 2.0);
  EXPECT_EQ(dy(1), 0.0);
  ASSERT_TRUE(source.do_step(1.25).ok());  // lands on the jump: left limits, event pending
  EXPECT_TRUE(source.event_pending());
  source.outputs(y);
  EXPECT_DOUBLE_EQ(y(0), 3.0);
  EXPECT_EQ(y(1), 1.0);
  ASSERT_TRUE(source.handle_pending_events().ok());
  source.outputs(y);
  EXPECT_EQ(y(1), 5.0);
  EXPECT_EQ(source.next_event_time(), std::numeric_limits<double>::infinity());
  const StateId saved = source.save_state();
  ASSERT_TRUE(source.do_step(10.0).ok());  // past the last row: the last row's values
  source.outputs(y);
  EXPECT_EQ(y, Eigen::Vector2d(1.0, 5.0));
  source.restore_state(saved);
  source.outputs(y);
  EXPECT_EQ(y, Eigen::Vector2d(3.0, 5.0));
}

TEST_F(SignalSource, ARepeatedTimeIsAJumpOfALinearColumn) {
  const auto table = write("s.csv", "time,u\n0,0\n1,1\n1,4\n2,4\n");
  CsvSource source("s", table, {});
  source.initialize(0.0);
  EXPECT_EQ(source.next_event_time(), 1.0);
  Eigen::VectorXd y(1);
  ASSERT_TRUE(source.do_step(1.0).ok());
  source.outputs(y);
  EXPECT_EQ(y(0), 1.0);  // left limit
  ASSERT_TRUE(source.handle_pending_events().ok());
  source.outputs(y);
  EXPECT_EQ(y(0), 4.0);  // right limit
}

/// predator q' = δ p q − γ q driven by a measured p(t) = 1 + t/2 (a linear table): exactly
/// q(t) = exp(δ (t + t²/4) − γ t). The methods that interpolate their inputs reproduce it.
TEST_F(SignalSource, DrivesEveryMethod) {
  write("p.csv", "time,p\n0,1\n4,3\n");
  const auto scenario_file = write("s.json", R"({"stop": 2, "systems": {
      "measured": {"csv": "p.csv"},
      "predator": {"model": "b3.predator", "integrator_options": {"rtol": 1e-11, "atol": 1e-13}}},
      "connections": [["measured.p", "predator.p"]], "method": {"dt": 0.05}})");
  const auto exact = [](double t) { return std::exp(t + t * t / 4.0 - t); };
  for (const std::string method :
       {"jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi", "monolithic"}) {
    SCOPED_TRACE(method);
    const std::string assignment = "method.type=\"" + method + "\"";
    if (method == "monolithic") {  // the coupled native model only: a table is not an ODE
      EXPECT_NE(error_of([&] {
                  scenario::run_scenario(scenario::load_scenario(scenario_file, {assignment}));
                }).find("measured"),
                std::string::npos);
      continue;
    }
    const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(scenario_file, {assignment}));
    const auto& times = run.results->times();
    const auto& q = run.results->column("predator.q");
    double worst = 0.0;
    for (std::size_t k = 0; k < times.size(); ++k) worst = std::max(worst, std::abs(q[k] - exact(times[k])));
    // Jacobi and Gauss–Seidel give a system that interpolates its inputs a table's line over each step
    // (PortInfo::signal), not a held value; defect-jacobi's Taylor inputs from the table hold it: O(dt)
    EXPECT_LT(worst, method != "defect-jacobi" ? 1e-7 : 0.1) << "max error " << worst;
    EXPECT_NEAR(times.back(), 2.0, 1e-12);
  }
}

TEST_F(SignalSource, IsEstimatedByCostaricaWhenItsRollbackIsWithheld) {
  // a source without rollback under IFOSMONDI-JFM is estimated from its linearization: no states, no
  // inputs, one row per output (an empty linearization crashed the estimate)
  write("p.csv", "time,p\n0,1\n4,3\n");
  const auto scenario_file = write("s.json", R"({"stop": 2, "systems": {
      "measured": {"csv": "p.csv", "rollback": false},
      "predator": {"model": "b3.predator", "integrator_options": {"rtol": 1e-11, "atol": 1e-13}}},
      "connections": [["measured.p", "predator.p"]], "method": {"type": "ifosmondi-jfm", "dt": 0.05}})");
  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(scenario_file));
  const auto exact = [](double t) { return std::exp(t + t * t / 4.0 - t); };
  const auto& q = run.results->column("predator.q");
  // the estimate of a source without states or inputs holds its value over the step: O(dt), as a
  // zero-order hold (1.7e-3 here); with rollback the same method is within 1e-7 (DrivesEveryMethod)
  EXPECT_NEAR(q.back(), exact(run.results->times().back()), 5e-3);
  EXPECT_NEAR(run.results->times().back(), 2.0, 1e-12);
}

TEST_F(SignalSource, TheGridLandsOnAHeldColumnsJumps) {
  write("u.csv", "time,u\n0,0\n0.33,1\n");
  const auto scenario_file = write("s.json", R"({"stop": 1, "systems": {
      "step": {"csv": "u.csv", "interpolation": "hold"},
      "predator": {"model": "b3.predator"}},
      "connections": [["step.u", "predator.p"]], "method": {"type": "jacobi", "dt": 0.1}})");
  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(scenario_file));
  const auto& times = run.results->times();
  EXPECT_NE(std::find(times.begin(), times.end(), 0.33), times.end());
  // predator: q' = −q before 0.33 (p = 0), then 0: q stays at exp(−0.33)
  EXPECT_NEAR(run.results->column("predator.q").back(), std::exp(-0.33), 1e-6);
}

TEST_F(SignalSource, ErrorsNameTheFileColumnAndRow) {
  const auto back = write("back.csv", "time,u\n0,0\n2,1\n1,2\n");
  EXPECT_NE(error_of([&] { CsvSource("s", back, {}); }).find("row 3: time 1 goes back"), std::string::npos);
  const auto nan = write("nan.csv", "time,u\n0,0\n1,nan\n");
  EXPECT_NE(error_of([&] { CsvSource("s", nan, {}); }).find("row 2: 'u' is nan"), std::string::npos);
  const auto text = write("text.csv", "time,u\n0,\"a\"\n");
  EXPECT_NE(error_of([&] { CsvSource("s", text, {}); }).find("column 'u'"), std::string::npos);
  const auto good = write("good.csv", "time,u\n0,0\n");
  const std::string unknown = error_of([&] { CsvSource("s", good, {{"v", SourceInterpolation::hold}}); });
  EXPECT_NE(unknown.find("column 'v'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("(columns: u)"), std::string::npos) << unknown;
  EXPECT_NE(error_of([&] { CsvSource("s", dir_ / "missing.csv", {}); }).find("missing.csv"), std::string::npos);
  const auto scenario_file = write("s.json", R"({"systems": {"s": {"csv": "good.csv", "interpolation": "cubic"}}})");
  EXPECT_NE(error_of([&] { scenario::load_scenario(scenario_file); }).find("systems.s.interpolation"),
            std::string::npos);
  const auto with_parameters = write("p.json", R"({"systems": {"s": {"csv": "good.csv", "parameters": {"k": 1}}}})");
  EXPECT_NE(error_of([&] { scenario::load_scenario(with_parameters); }).find("signal source: 'parameters'"),
            std::string::npos);
}

}  // namespace
}  // namespace cosima
