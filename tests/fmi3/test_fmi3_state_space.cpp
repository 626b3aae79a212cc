// The export kit's FMI 3.0 state-space FMU (models/state_space.cpp: x' = Ax + Bu, y = Cx + Du, the
// matrices as array parameters, u and y array ports): two of them in feedback, whole arrays
// connected, against the monolithic solution of the native models; and the FMU against the native
// model, step for step.
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "fmi/common/fmu_archive.hpp"
#include "fmu_fixtures.hpp"
#include "scenario/run_scenario.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

const std::filesystem::path kFmi3 = std::filesystem::path(COSIMA_TEST_FMU_DIR) / "fmi3";

/// Two state-space systems in feedback (y1 → u2, y2 → u1); {s} is "model": "state_space" or an FMU.
io::Json feedback(const std::string& system) {
  std::string text = R"({
    "stop": 5, "method": {"type": "jacobi", "dt": 0.01},
    "systems": {"s1": {SYSTEM}, "s2": {SYSTEM, "parameters": {"x0[1]": 0, "x0[2]": 1, "B[2,1]": -1}}},
    "connections": [["s1.y", "s2.u"], ["s2.y", "s1.u"]]
  })";
  for (auto at = text.find("SYSTEM"); at != std::string::npos; at = text.find("SYSTEM")) text.replace(at, 6, system);
  return io::Json::parse(text);
}

const std::string kNative = R"("model": "state_space", "integrator": "cvode",
                                "integrator_options": {"rtol": 1e-11, "atol": 1e-13})";

std::string fmu_system() { return R"("fmu": ")" + (kFmi3 / "state_space.fmu").string() + R"(")"; }

scenario::ScenarioRun run(io::Json doc, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  return scenario::run_scenario(scenario::parse_scenario(doc, "state_space.json"));
}

TEST(Fmi3StateSpace, TheDescriptionHasArrays) {
  const fmi::ModelDescription md = fmi::read_model_description(kFmi3 / "state_space.fmu");
  ASSERT_TRUE(md.is_fmi3());
  for (const char* name : {"A", "B", "C", "D", "u", "y"}) {
    const int index = md.find(name);
    ASSERT_GE(index, 0) << name;
    EXPECT_EQ(md.shape(md.variables[static_cast<std::size_t>(index)]).size(),
              std::string(name) == "u" || std::string(name) == "y" ? 1U : 2U)
        << name;
  }
}

TEST(Fmi3StateSpace, TwoInFeedbackAgainstTheMonolithicSolution) {
  const testing::PrivateTemp temp;
  {
    const scenario::ScenarioRun reference = run(feedback(kNative), {"method.type=monolithic"});
    // the coupling error of each method, through FMI 3.0 FMUs with array ports connected whole
    struct Expectation {
      const char* method;
      double bound;
    };
    // (FMI 3.0 has no input derivatives: ifosmondi-jfm's and missiles' interpolated inputs are
    // emulated by sub-steps, second order, hence 1e-5 where the FMI 2.0 FMU reaches 1e-6)
    for (const Expectation& e :
         {Expectation{"jacobi", 2e-2}, Expectation{"ifosmondi-jfm", 1e-5}, Expectation{"missiles", 1e-5}}) {
      const scenario::ScenarioRun r = run(feedback(fmu_system()), {std::string("method.type=") + e.method});
      EXPECT_LT(scenario::mean_nl2(r, reference), e.bound) << e.method;
    }
    // Jacobi converges with order 1: halving dt halves the error
    const double coarse = scenario::mean_nl2(run(feedback(fmu_system()), {"method.dt=0.02"}), reference);
    const double fine = scenario::mean_nl2(run(feedback(fmu_system()), {"method.dt=0.01"}), reference);
    EXPECT_NEAR(std::log2(coarse / fine), 1.0, 0.15);
  }
  EXPECT_TRUE(temp.no_fmu_left());  // ifosmondi-jfm started PETSc (its MPI session directory stays till exit)
}

TEST(Fmi3StateSpace, TheFmuIsTheNativeModel) {
  // the FMU's embedded solver (solver_kind, solver_rtol, solver_atol) against the same solver natively
  const testing::PrivateTemp temp;
  {
    const std::string native = R"("model": "state_space", "integrator": "dopri5",
                                  "integrator_options": {"rtol": 1e-8, "atol": 1e-10})";
    const scenario::ScenarioRun a = run(feedback(native), {});
    const scenario::ScenarioRun b = run(feedback(fmu_system()), {});
    ASSERT_EQ(a.results->labels(), b.results->labels());
    double worst = 0.0;
    for (std::size_t r = 0; r < a.results->times().size(); ++r) {
      for (std::size_t c = 0; c < a.results->labels().size(); ++c) {
        worst = std::max(worst, std::abs(a.results->value(r, c) - b.results->value(r, c)));
      }
    }
    EXPECT_LE(worst, 1e-12);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3StateSpace, ArrayParametersAsJsonArraysAreTheirElements) {
  const testing::PrivateTemp temp;
  {
    // row-major: A[1,1] A[1,2] / A[2,1] A[2,2]
    const scenario::ScenarioRun by_element =
        run(feedback(fmu_system()), {"systems.s1.parameters.A[1,2]=2", "systems.s1.parameters.A[2,1]=-3",
                                     "systems.s1.parameters.A[2,2]=-0.5", "systems.s1.parameters.A[1,1]=0"});
    const scenario::ScenarioRun by_array =
        run(feedback(fmu_system()), {"systems.s1.parameters.A=[[0, 2], [-3, -0.5]]"});
    ASSERT_EQ(by_element.results->times().size(), by_array.results->times().size());
    for (std::size_t r = 0; r < by_array.results->times().size(); ++r) {
      for (std::size_t c = 0; c < by_array.results->labels().size(); ++c) {
        ASSERT_EQ(by_element.results->value(r, c), by_array.results->value(r, c)) << r << ", " << c;
      }
    }
    const scenario::ScenarioRun original = run(feedback(fmu_system()), {});
    EXPECT_NE(original.results->value(original.results->times().size() - 1, 0),
              by_array.results->value(by_array.results->times().size() - 1, 0));
  }
  const auto refused = [](const std::string& override) {
    return testing::error_of([&] { (void)run(feedback(fmu_system()), {override}); });
  };
  const std::string small = refused("systems.s1.parameters.A=[1, 2]");
  EXPECT_NE(small.find("parameter 'A' is 2×2 in FMU"), std::string::npos) << small;
  EXPECT_NE(small.find("the scenario gives 2"), std::string::npos) << small;
  const std::string ragged = refused("systems.s1.parameters.A=[[1, 2], [3]]");
  EXPECT_NE(ragged.find("'systems.s1.parameters.A' is not a 2×2 array: at [2] a row of 1"), std::string::npos)
      << ragged;
  const std::string deeper = refused("systems.s1.parameters.A=[[1, 2], [3, [4]]]");
  EXPECT_NE(deeper.find("at [2,2] [4] where a value belongs"), std::string::npos) << deeper;
  const std::string none = refused("systems.s1.parameters.Q=[1, 2]");
  EXPECT_NE(none.find("has no array 'Q'"), std::string::npos) << none;
  EXPECT_NE(refused("systems.s1.parameters.A=[]").find("is an empty array"), std::string::npos);
  EXPECT_TRUE(temp.empty());
}

}  // namespace
}  // namespace cosima
