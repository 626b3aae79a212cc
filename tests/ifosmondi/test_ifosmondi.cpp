// IFOSMONDI and IFOSMONDI-JFM on B1 (seed 001 §5) against the monolithic reference.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/plugin.hpp"
#include "nonlinear/nonlinear_solver.hpp"
#include "nonlinear/snes_plugin.hpp"

#include <fmt/format.h>
#include "scenario/run_scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

scenario::ScenarioRun run_b1(const std::string& method, double d_d, double dt, std::vector<std::string> extra = {},
                             const std::string& example = "b1_ifosmondi_damper.json") {
  extra.push_back("method.type=" + method);
  extra.push_back(fmt::format("systems.damper.parameters.D_D={}", d_d));
  extra.emplace_back("output.variables=[\"mass.v_L\", \"mass.x_L\", \"damper.x_D\"]");  // the states
  scenario::Scenario scenario = scenario::load_scenario(kExamples / example, extra);
  scenario.run.dt = dt;
  return scenario::run_scenario(scenario);
}

using testing::error_of;

TEST(Ifosmondi, FixedPointConvergesWhenContractive) {
  const auto reference = run_b1("monolithic", 4.0, 1e-3);
  const auto fixed_point = run_b1("ifosmondi", 4.0, 1e-2, {"method.epsilon=1e-4"});
  const double error = scenario::mean_nl2(fixed_point, reference);
  std::cout << "B1 D_D = 4 fixed point: error " << error << ", iterations " << fixed_point.stats.iterations << '\n';
  EXPECT_LE(error, 1e-4);
  EXPECT_EQ(fixed_point.stats.rejected_steps, 0);
}

TEST(Ifosmondi, FixedPointStopsWithADivergenceMessageWhenRhoIsAtLeastOne) {
  for (double d_d : {1.0, 0.64}) {
    const std::string what = error_of([&] { run_b1("ifosmondi", d_d, 1e-2); });
    EXPECT_NE(what.find("does not contract"), std::string::npos) << what;
    EXPECT_NE(what.find("spectral radius"), std::string::npos) << what;
    EXPECT_NE(what.find("ifosmondi-jfm"), std::string::npos) << what;
  }
  // the estimate is the seed's ρ = √(D_SD/D_D) = 1.25 for D_D = 0.64
  EXPECT_NE(error_of([&] { run_b1("ifosmondi", 0.64, 1e-2); }).find("≈ 1.250"), std::string::npos);
}

class JfmSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(JfmSweep, ConvergesForEveryDampingAtEpsilon1e4) {
  for (double d_d : {4.0, 2.0, 1.44, 1.1, 1.0, 0.9, 0.64, 0.25, 0.04, 0.01}) {
    const auto reference = run_b1("monolithic", d_d, 1e-2);
    const auto jfm = run_b1("ifosmondi-jfm", d_d, 1e-2, {"method.epsilon=1e-4", "method.jfm=" + GetParam()});
    const double error = scenario::mean_nl2(jfm, reference);
    std::cout << GetParam() << " D_D = " << d_d << ": error " << error << ", iterations " << jfm.stats.iterations
              << ", integrations " << jfm.stats.integrations << '\n';
    EXPECT_LE(error, 1e-4) << "D_D = " << d_d;
    EXPECT_DOUBLE_EQ(jfm.stats.end_time, 10.0);
  }
}

INSTANTIATE_TEST_SUITE_P(B1, JfmSweep, ::testing::Values("newtonls", "anderson"));

TEST(IfosmondiJfm, EachPointIsEvaluatedOnceAndAGuessThatConvergesNeedsOneEvaluation) {
  // γ(x) = x − Ψ(x) with Ψ(x) = 0.5 x + b, a contraction whose fixed point is 2b
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(4, 1.0, 4.0);
  for (const char* jfm : {"anderson", "newtonls", "ngmres"}) {
    nonlinear::NonlinearOptions options;
    options.solver = jfm;
    options.epsilon_abs = options.epsilon_rel = 1e-10;
    const auto solver = nonlinear::make_nonlinear_solver(options, b.size());
    std::vector<Eigen::VectorXd> evaluated;
    const nonlinear::Residual gamma = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
      evaluated.push_back(x);
      out = x - (0.5 * x + b);
      return true;
    };
    Eigen::VectorXd x = 2.0 * b;  // the solution itself: one evaluation, no iteration
    nonlinear::NonlinearResult result = solver->solve(gamma, x);
    EXPECT_TRUE(result.converged) << jfm;
    EXPECT_EQ(result.iterations, 0) << jfm;
    EXPECT_EQ(evaluated.size(), 1U) << jfm;
    EXPECT_EQ(x, 2.0 * b) << jfm;
    evaluated.clear();
    x.setZero();  // the initial point is evaluated once, not once by us and again by SNES
    result = solver->solve(gamma, x);
    EXPECT_TRUE(result.converged) << jfm;
    EXPECT_GT(result.iterations, 0) << jfm;
    EXPECT_LT((x - 2.0 * b).norm(), 1e-8) << jfm;
    ASSERT_GE(evaluated.size(), 2U) << jfm;
    EXPECT_EQ(evaluated[0], Eigen::VectorXd::Zero(b.size())) << jfm;
    EXPECT_NE(evaluated[1], evaluated[0]) << jfm;
  }
}

TEST(IfosmondiJfm, AndersonKeepsNoMorePastIteratesThanUnknowns) {
  // B1 has 6 unknowns (3 interface values, 3 derivatives): with the paper's memory of 30 the mixing
  // stagnates at a tight ε; min(30, n) converges in about 10 iterations per step (both with table
  // 4's β = 1, which the fitted preset would otherwise adapt)
  const auto reference = run_b1("monolithic", 0.01, 1e-3);
  const auto fitted =
      run_b1("ifosmondi-jfm", 0.01, 1e-2,
             {"method.epsilon=1e-6", "method.jfm=anderson", "method.petsc_options=-snes_anderson_beta 1"});
  const auto paper = run_b1("ifosmondi-jfm", 0.01, 1e-2, {"method.epsilon=1e-6", "method.jfm=anderson-paper"});
  const double per_step = static_cast<double>(fitted.stats.iterations) / static_cast<double>(fitted.stats.macro_steps);
  const double per_step_paper =
      static_cast<double>(paper.stats.iterations) / static_cast<double>(paper.stats.macro_steps);
  std::cout << fmt::format(
      "ε = 1e-6: anderson {:.1f} iterations/step, error {:.2e}; anderson-paper {:.1f}, error {:.2e}\n", per_step,
      scenario::mean_nl2(fitted, reference), per_step_paper, scenario::mean_nl2(paper, reference));
  EXPECT_LE(per_step, 11.0);
  EXPECT_GE(per_step_paper, 25.0);
  EXPECT_LT(scenario::mean_nl2(fitted, reference), 1e-8);
}

TEST(IfosmondiJfm, Fig8AndersonAsAccurateAsNewtonWithFewerIntegrations) {
  // seed 001 Fig. 8 at ε = 1e-4, δt_ref = 1e-2, as `cosima bench ifosmondi` runs it (table 4 as
  // published: eq. 27 not relative to the step): both below
  // 1e-5 on the states, Anderson with fewer integrations. At D_D = 0.01 (ρ(J_Ψ) = 10) table 4's
  // β = 1 multiplies the error of Anderson's least-squares combination by J_Ψ (4.2e-5); the fitted
  // preset mixes with β = 1/ρ estimated from the previous step's iterates (nonlinear/snes_solver.hpp).
  for (double d_d : {4.0, 0.01}) {
    const auto reference = run_b1("monolithic", d_d, 1e-4);  // the bench's reference
    const auto newton = run_b1("ifosmondi-jfm", d_d, 1e-2, {"method.epsilon=1e-4", "method.jfm=newtonls"});
    const auto anderson = run_b1("ifosmondi-jfm", d_d, 1e-2, {"method.epsilon=1e-4", "method.jfm=anderson"});
    const auto paper = run_b1("ifosmondi-jfm", d_d, 1e-2,
                              {"method.epsilon=1e-4", "method.jfm=anderson-paper", "method.epsilon_per_step=false"});
    std::cout << fmt::format(
        "D_D = {}: NewtonLS {:.2e} ({} integrations), Anderson {:.2e} ({}), "
        "anderson-paper {:.2e} ({})\n",
        d_d, scenario::mean_nl2(newton, reference), newton.stats.integrations, scenario::mean_nl2(anderson, reference),
        anderson.stats.integrations, scenario::mean_nl2(paper, reference), paper.stats.integrations);
    EXPECT_LT(scenario::mean_nl2(newton, reference), 1e-5) << "D_D = " << d_d;
    EXPECT_LT(scenario::mean_nl2(anderson, reference), 1e-5) << "D_D = " << d_d;
    EXPECT_LE(anderson.stats.integrations, newton.stats.integrations) << "D_D = " << d_d;
    if (d_d == 0.01) {
      EXPECT_GT(scenario::mean_nl2(paper, reference), 1e-5);  // why the preset departs from table 4
    }
  }
}

TEST(IfosmondiJfm, NgmresFarFromContractiveIsRefusedByNameAndItsLineSearchVariantConverges) {
  // seed 001 Fig. 8: NGMRES without line search failed at ρ(J_Ψ) = 10, the variant with line search
  // converged everywhere. Here plain NGMRES fails from ρ = 5 (D_D = 0.04): the error names the solver
  // and what converges instead; NGMRES-LS is within 1e-5 of the monolithic run as NewtonLS is.
  for (const double d_d : {0.04, 0.01}) {
    const std::string what = error_of([&] {
      run_b1("ifosmondi-jfm", d_d, 1e-2, {"method.epsilon=1e-4", "method.jfm=ngmres"});
    });
    EXPECT_NE(what.find("method.jfm = \"ngmres\" (without line search) does not converge"), std::string::npos) << what;
    EXPECT_NE(what.find("\"ngmres-ls\""), std::string::npos) << what;
    const auto reference = run_b1("monolithic", d_d, 1e-4);
    const auto line_search = run_b1("ifosmondi-jfm", d_d, 1e-2, {"method.epsilon=1e-4", "method.jfm=ngmres-ls"});
    EXPECT_LT(scenario::mean_nl2(line_search, reference), 1e-5) << "D_D = " << d_d;
  }
}

TEST(IfosmondiJfm, TheComponentwiseCriterionWeighsEachUnknownAgainstItsOwnScale) {
  // On B1 the interface position (~50 m) sets eq. 27's tolerance for the force (~0.06 N): Anderson
  // stops at ‖γ‖ ≈ 4e-5 even at ε = 1e-5, which leaves the force a few 1e-4 off. Componentwise,
  // the force has its own tolerance. (Table 4's β = 1: the adapted β alone brings the norm's run
  // below 1e-5.)
  const auto reference = run_b1("monolithic", 0.01, 1e-3);
  const std::vector<std::string> anderson = {"method.epsilon=1e-5", "method.jfm=anderson",
                                             "method.petsc_options=-snes_anderson_beta 1",
                                             "method.epsilon_per_step=false"};  // eq. 27 as published
  auto componentwise = anderson;
  componentwise.emplace_back("method.criterion=componentwise");
  const double norm_error = scenario::mean_nl2(run_b1("ifosmondi-jfm", 0.01, 1e-2, anderson), reference);
  const double componentwise_error = scenario::mean_nl2(run_b1("ifosmondi-jfm", 0.01, 1e-2, componentwise), reference);
  std::cout << fmt::format("ε = 1e-5, anderson: norm {:.2e}, componentwise {:.2e}\n", norm_error, componentwise_error);
  EXPECT_GT(norm_error, 1e-5);
  EXPECT_LT(componentwise_error, 1e-6);
  EXPECT_NE(error_of([] { run_b1("ifosmondi-jfm", 4.0, 1e-2, {"method.criterion=loose"}); }).find("method.criterion"),
            std::string::npos);
}

TEST(IfosmondiJfm, EveryJfmBelowOnePercentAtLargeStepsOnTheNonContractiveCase) {
  const auto reference = run_b1("monolithic", 0.64, 1e-2);
  for (const char* jfm : {"newtonls", "anderson", "ngmres", "ngmres-ls"}) {
    for (double dt : {0.1, 0.2, 0.5}) {
      const double error =
          scenario::mean_nl2(run_b1("ifosmondi-jfm", 0.64, dt, {std::string("method.jfm=") + jfm}), reference);
      EXPECT_LT(error, 1e-2) << jfm << " δt_ref = " << dt;
    }
  }
}

TEST(IfosmondiJfm, SameResultsThroughTheFmus) {
  const auto native = run_b1("ifosmondi-jfm", 0.64, 1e-2, {"method.jfm=newtonls"});
  const auto fmu = run_b1("ifosmondi-jfm", 0.64, 1e-2, {"method.jfm=newtonls"}, "b1_ifosmondi_damper_fmu.json");
  ASSERT_EQ(native.results->times().size(), fmu.results->times().size());
  double worst = 0.0;
  for (const auto& label : native.results->labels()) {
    const auto a = native.results->column(label), b = fmu.results->column(label);
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  EXPECT_LE(worst, 1e-12);
  EXPECT_EQ(native.stats.integrations, fmu.stats.integrations);
}

TEST(Ifosmondi, RefusesMissingCapabilitiesNamingEach) {
  // without rollback the damper would run through COSTARICA, which needs its linearization; the
  // mass's withheld output derivatives are emulated, its variable step cannot be
  const std::string what = error_of([&] {
    run_b1("ifosmondi-jfm", 4.0, 1e-2,
           {"systems.damper.rollback=false", "systems.damper.linearization=false",
            "systems.mass.output_derivatives=false", "systems.mass.variable_step=false"});
  });
  EXPECT_NE(what.find("system 'damper' lacks linearization (providesDirectionalDerivative), needed by COSTARICA"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("system 'mass' lacks variable_step"), std::string::npos) << what;
  EXPECT_EQ(what.find("output_derivatives"), std::string::npos) << what;
}

TEST(Ifosmondi, StepControlHalvesOnRejectionAndGrowsBy30PercentUpToTheReference) {
  // B3 has no direct feedthrough: the fixed point contracts on small steps only. With δt_ref = 2 and
  // 10 iterations some steps are rejected, halved, then grown again (eq. 28 with the erratum).
  const double dt_ref = 2.0;
  scenario::Scenario scenario = scenario::load_scenario(kExamples / "b3_lotka_volterra.json",
                                                        {"method.type=ifosmondi", "method.max_iterations=10"});
  scenario.run.dt = dt_ref;
  const auto run = scenario::run_scenario(scenario);
  const auto& rows = run.steps->rows();
  ASSERT_FALSE(rows.empty());
  int rejected_steps = 0;
  double proposed = dt_ref;
  for (const auto& row : rows) {
    const double start = row.t - row.h;
    const double expected = std::min(proposed, 20.0 - start) / std::pow(2.0, static_cast<double>(row.rejected));
    EXPECT_NEAR(row.h, expected, 1e-9) << "step ending at t = " << row.t;
    rejected_steps += row.rejected > 0 ? 1 : 0;
    proposed = std::min(dt_ref, 1.3 * row.h);
  }
  EXPECT_GT(rejected_steps, 0) << "the case was meant to exercise rejections";
  EXPECT_EQ(run.stats.rejected_steps, [&] {
    std::int64_t total = 0;
    for (const auto& row : rows) total += row.rejected;
    return total;
  }());
  EXPECT_DOUBLE_EQ(run.stats.end_time, 20.0);
}

TEST(IfosmondiJfm, PetscOpensAtTheFirstGuessThatFailsTheTest) {
  const auto petsc_open = [] { return loaded_plugin_symbol(nonlinear::kSnesPlugin, "cosima_snes_create") != nullptr; };
  // ctest runs each test in its own process; the whole binary at once has opened PETSc before
  if (petsc_open()) GTEST_SKIP() << "an earlier test of this process opened PETSc";
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(3, 1.0, 3.0);
  const nonlinear::Residual gamma = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
    out = x - (0.5 * x + b);
    return true;
  };
  nonlinear::NonlinearOptions options;
  options.solver = "anderson";
  options.epsilon_abs = options.epsilon_rel = 1e-10;
  const auto solver = nonlinear::make_nonlinear_solver(options, b.size());
  EXPECT_FALSE(petsc_open());
  Eigen::VectorXd x = 2.0 * b;  // the solution: accepted without SNES
  EXPECT_TRUE(solver->solve(gamma, x).converged);
  EXPECT_FALSE(petsc_open());
  x.setZero();
  const nonlinear::NonlinearResult result = solver->solve(gamma, x);
  EXPECT_TRUE(result.converged);
  EXPECT_GT(result.iterations, 0);
  EXPECT_TRUE(petsc_open());
}

TEST(IfosmondiJfm, PetscOptionsAreCheckedWhenTheSolverIsMade) {
  nonlinear::NonlinearOptions options;
  options.solver = "petsc";
  options.petsc_options = "-snes_type nosuchtype";
  EXPECT_NE(error_of([&] { nonlinear::make_nonlinear_solver(options, 2); }).find("PETSc"), std::string::npos);
}

TEST(Ifosmondi, StopsBelowTheMinimumStepWithTheReason) {
  const std::string what = error_of([&] { run_b1("ifosmondi", 0.64, 1e-2, {"method.dt_min=5e-3"}); });
  EXPECT_NE(what.find("minimum 0.005"), std::string::npos) << what;
  EXPECT_NE(what.find("t = 0"), std::string::npos) << what;
}

TEST(IfosmondiJfm, UnknownSolverAndBadPetscOptionsAreNamed) {
  EXPECT_NE(error_of([&] { run_b1("ifosmondi-jfm", 4.0, 1e-2, {"method.jfm=broyden"}); }).find("'broyden'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              run_b1("ifosmondi-jfm", 4.0, 1e-2, {"method.jfm=petsc", "method.petsc_options=-snes_type nosuchtype"});
            }).find("PETSc"),
            std::string::npos);
}

}  // namespace
}  // namespace cosima
