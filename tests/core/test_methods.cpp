// The methods on the seeds' benchmarks, against the monolithic reference.
#include <cmath>
#include <filesystem>
#include <limits>

#include <gtest/gtest.h>

#include <unsupported/Eigen/MatrixFunctions>
#include "fmi/breaks_model.hpp"

#include "core/error.hpp"
#include "core/metrics.hpp"
#include "methods/explicit_coupling.hpp"
#include "scenario/run_scenario.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

scenario::ScenarioRun run(const std::string& example, const std::string& method, double dt,
                          std::vector<std::string> overrides = {}) {
  overrides.push_back("method.type=" + method);
  scenario::Scenario scenario = scenario::load_scenario(kExamples / example, overrides);
  scenario.run.dt = dt;
  return scenario::run_scenario(scenario);
}

double prey_rel_pct(const scenario::ScenarioRun& result, const scenario::ScenarioRun& reference) {
  return compare_signals(result.results->times(), result.results->column("prey.p"), reference.results->times(),
                         reference.results->column("prey.p"))
      .rel_pct;
}

TEST(Jacobi, B4ConvergesWithOrderOne) {
  std::vector<double> steps = {1e-3, 5e-4, 2.5e-4}, errors;
  for (double dt : steps) {
    const auto reference = run("b4_two_mass.json", "monolithic", dt);
    errors.push_back(scenario::mean_nl2(run("b4_two_mass.json", "jacobi", dt), reference));
  }
  const double order = observed_order(steps, errors);
  std::cout << "B4 Jacobi mean nl2: " << errors[0] << ", " << errors[1] << ", " << errors[2] << " → order " << order
            << '\n';
  EXPECT_GE(order, 0.8);
  EXPECT_LE(order, 1.2);
}

TEST(Jacobi, B3PreyErrorMatchesSeed003Table6) {
  const auto reference = run("b3_lotka_volterra.json", "monolithic", 1e-3);
  const auto jacobi = run("b3_lotka_volterra.json", "jacobi", 1e-3);
  const double error = prey_rel_pct(jacobi, reference);
  std::cout << "B3 Jacobi δt = 1e-3: prey relative error " << error << " % (seed 003: 1.34e-1 %)\n";
  EXPECT_GE(error, 1.34e-1 / 3);
  EXPECT_LE(error, 1.34e-1 * 3);
  EXPECT_EQ(jacobi.stats.macro_steps, 20000);
  EXPECT_EQ(jacobi.stats.integrations, 40000);
}

TEST(GaussSeidel, MoreAccurateThanJacobiOnB3AndB4) {
  for (const auto& [example, dt] : {std::pair{"b3_lotka_volterra.json", 1e-3}, std::pair{"b4_two_mass.json", 5e-4}}) {
    const auto reference = run(example, "monolithic", dt);
    const double jacobi = scenario::mean_nl2(run(example, "jacobi", dt), reference);
    const double gauss_seidel = scenario::mean_nl2(run(example, "gauss-seidel", dt), reference);
    std::cout << example << ": Jacobi " << jacobi << ", Gauss-Seidel " << gauss_seidel << '\n';
    EXPECT_LT(gauss_seidel, jacobi) << example;
  }
}

TEST(GaussSeidel, ReportsTheB1AlgebraicLoop) {
  try {
    run("b1_ifosmondi_damper.json", "gauss-seidel", 1e-2);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("algebraic loop"), std::string::npos) << what;
    EXPECT_NE(what.find("mass.f_C"), std::string::npos) << what;
  }
  // allowed on request
  EXPECT_NO_THROW(run("b1_ifosmondi_damper.json", "gauss-seidel", 1e-2, {"method.allow_algebraic_loops=true"}));
}

TEST(Jacobi, B1ConvergesTowardsTheReference) {
  const auto coarse_ref = run("b1_ifosmondi_damper.json", "monolithic", 2e-2);
  const auto fine_ref = run("b1_ifosmondi_damper.json", "monolithic", 1e-2);
  const double coarse = scenario::mean_nl2(run("b1_ifosmondi_damper.json", "jacobi", 2e-2), coarse_ref);
  const double fine = scenario::mean_nl2(run("b1_ifosmondi_damper.json", "jacobi", 1e-2), fine_ref);
  EXPECT_LT(fine, 0.7 * coarse);
}

TEST(Monolithic, B4ReferenceMatchesTheExactSolutionOfTheCoupledLtiSystem) {
  // B4 assembled as one LTI system z = (x1, v1, x2, v2): z(2) = e^{2M} z(0).
  const double m1 = 5, m2 = 80, c1 = 1e4, c2 = 1e4, c3 = 1e5, d1 = 10, d2 = 10, d3 = 40;
  Eigen::Matrix4d M;
  M << 0, 1, 0, 0,                                         //
      -(c1 + c2) / m1, -(d1 + d2) / m1, c2 / m1, d2 / m1,  //
      0, 0, 0, 1,                                          //
      c2 / m2, d2 / m2, -(c2 + c3) / m2, -(d2 + d3) / m2;
  const Eigen::Vector4d z = (2.0 * M).exp() * Eigen::Vector4d(-1, 0, -3, 0);
  const auto reference = run("b4_two_mass.json", "monolithic", 1e-2);
  const auto last = reference.results->times().size() - 1;
  EXPECT_DOUBLE_EQ(reference.results->times()[last], 2.0);
  EXPECT_NEAR(reference.results->column("left.x1")[last], z(0), 1e-8);
  EXPECT_NEAR(reference.results->column("left.v1")[last], z(1), 1e-6);
  EXPECT_NEAR(reference.results->column("right.x2")[last], z(2), 1e-8);
  EXPECT_NEAR(reference.results->column("right.v2")[last], z(3), 1e-6);
}

TEST(Monolithic, RefusesBlackBoxes) {
  // Every example system is native; monolithic accepts them (a refusal is tested with FMUs).
  EXPECT_NO_THROW(run("b6_tough_case.json", "monolithic", 0.1));
}

TEST(Jacobi, ASystemFailureEndsTheRunWithItsReason) {
  model::ModularModel model;
  model.add_system(std::make_unique<NativeSystem>("fragile", testing::make_breaks(),
                                                  make_integrator("dopri5", IntegratorOptions{})));
  model.set_constant_input("fragile.u", 0.0);
  model.finalize();
  methods::ExplicitCoupling jacobi({});
  try {
    simulation::simulate(model, jacobi, simulation::RunOptions{0.0, 1.0, 0.1});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'fragile'"), std::string::npos) << what;
    EXPECT_NE(what.find("non-finite"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace cosima

namespace cosima {
namespace {

/// A method that takes whatever step it is told to report: the driver must refuse the bad ones.
class StepTaker final : public methods::CouplingMethod {
 public:
  explicit StepTaker(double h) : h_(h) {}
  [[nodiscard]] std::string_view name() const override { return "step-taker"; }
  void check(const model::ModularModel& /*model*/) const override {}
  void initialize(model::ModularModel& /*model*/, double /*t_start*/) override {}
  methods::StepReport step(model::ModularModel& /*model*/, double /*t*/, double /*h_max*/) override {
    methods::StepReport report;
    report.h = h_;
    return report;
  }
  [[nodiscard]] bool chooses_step() const override { return true; }
  [[nodiscard]] double proposed_step() const override { return h_; }

 private:
  double h_;
};

TEST(Simulation, RefusesNonFiniteOrNonPositiveSteps) {
  scenario::Scenario scenario = scenario::load_scenario(kExamples / "b6_tough_case.json");
  for (const double h :
       {std::numeric_limits<double>::quiet_NaN(), 0.0, -0.1, std::numeric_limits<double>::infinity()}) {
    model::ModularModel model = scenario::build_model(scenario);
    StepTaker method(h);
    std::string what;
    try {
      (void)simulation::simulate(model, method, scenario.run);
    } catch (const Error& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("step-taker"), std::string::npos) << "h = " << h << ": " << what;
    EXPECT_NE(what.find("step"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace cosima
