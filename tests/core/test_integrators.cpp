// Each integrator against the closed form of a linear system with a cubic input.
#include <cmath>

#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "models/b_models.hpp"
#include "system/native/dopri5.hpp"
#include "system/native/integrator.hpp"
#include "test_models.hpp"

namespace cosima {
namespace {

using testing::LinearPair;

double integrate_error(Integrator& integrator, double t_end, int calls) {
  const LinearPair model;
  const InputPolynomials u = testing::cubic_input();
  const StepRhs rhs(model, u, 0.0);
  Eigen::VectorXd x = model.initial_state();
  for (int i = 0; i < calls; ++i) {
    const StepResult r = integrator.advance(rhs, t_end * i / calls, t_end * (i + 1) / calls, x);
    EXPECT_TRUE(r.ok()) << r.reason;
  }
  return (x - model.solution(t_end, u)).lpNorm<Eigen::Infinity>();
}

TEST(Integrators, ExactLtiMatchesTheClosedFormTo1e12) {
  IntegratorOptions options;
  auto exact = make_integrator("exact", options);
  EXPECT_LE(integrate_error(*exact, 1.0, 1), 1e-12);
  auto exact_steps = make_integrator("exact", options);
  EXPECT_LE(integrate_error(*exact_steps, 2.0, 7), 1e-12);  // inputs re-expanded at each call's start
}

TEST(Integrators, ExactUsesAModelsClosedFormFlowWithPolynomialInputs) {
  // B3's prey p' = α p − β p q is linear in p: with q(t) a cubic, 'exact' is its closed-form flow,
  // which DOPRI5 at rtol 1e-12 must reproduce, over one call and over seven (inputs re-expanded)
  const auto prey = models::make_b3_prey();
  const InputPolynomials q = testing::cubic_input();
  const StepRhs rhs(*prey, q, 0.0);
  IntegratorOptions tight;
  tight.rtol = 1e-12;
  tight.atol = 1e-14;
  for (const int calls : {1, 7}) {
    auto exact = make_integrator("exact", IntegratorOptions{});
    auto dopri = make_integrator("dopri5", tight);
    Eigen::VectorXd x_exact = prey->initial_state(), x_dopri = x_exact;
    for (int i = 0; i < calls; ++i) {
      const double t0 = 1.0 * i / calls, t1 = 1.0 * (i + 1) / calls;
      ASSERT_TRUE(exact->advance(rhs, t0, t1, x_exact).ok());
      ASSERT_TRUE(dopri->advance(rhs, t0, t1, x_dopri).ok());
    }
    EXPECT_NEAR(x_exact(0), x_dopri(0), 1e-10 * std::abs(x_dopri(0))) << calls << " calls";
    EXPECT_EQ(exact->rhs_evaluations(), 0);  // one exp per step, no right-hand side
  }
}

TEST(Integrators, ForwardEulerConvergesWithOrderOne) {
  std::vector<double> steps, errors;
  for (int n : {100, 200, 400, 800}) {
    IntegratorOptions options;
    options.steps_per_call = n;
    auto euler = make_integrator("euler", options);
    steps.push_back(1.0 / n);
    errors.push_back(integrate_error(*euler, 1.0, 1));
  }
  EXPECT_NEAR(observed_order(steps, errors), 1.0, 0.05);
}

TEST(Integrators, ForwardEulerTakesOneStepPerCallByDefault) {
  const LinearPair model;
  const InputPolynomials u = testing::cubic_input();
  auto euler = make_integrator("euler", IntegratorOptions{});
  Eigen::VectorXd x = model.initial_state();
  const Eigen::VectorXd x0 = x;
  ASSERT_TRUE(euler->advance(StepRhs(model, u, 0.0), 0.0, 0.1, x).ok());
  Eigen::VectorXd dx(2);
  const Eigen::VectorXd u0 = Eigen::VectorXd::Constant(1, u(0, 0));
  model.derivatives(0.0, x0, u0, dx);
  EXPECT_EQ(x, x0 + 0.1 * dx);
  EXPECT_EQ(euler->rhs_evaluations(), 1);
}

TEST(Integrators, Dopri5StaysWithinItsTolerance) {
  for (double rtol : {1e-6, 1e-9}) {
    IntegratorOptions options;
    options.rtol = rtol;
    options.atol = rtol * 1e-2;
    auto dopri = make_integrator("dopri5", options);
    const double error = integrate_error(*dopri, 5.0, 10);
    EXPECT_LE(error, 10 * rtol) << "rtol " << rtol;
    EXPECT_GT(error, 0.0);
  }
}

TEST(Integrators, Dopri5DenseOutputIsFourthOrderAccurate) {
  IntegratorOptions options;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  Dopri5 dopri(options);
  const LinearPair model;
  const InputPolynomials u = testing::cubic_input();
  Eigen::VectorXd x = model.initial_state();
  ASSERT_TRUE(dopri.advance(StepRhs(model, u, 0.0), 0.0, 1.0, x).ok());
  EXPECT_FALSE(dopri.dense_output(2.0, x));
  Eigen::VectorXd inside;
  ASSERT_TRUE(dopri.dense_output(0.999, inside));
  EXPECT_LE((inside - model.solution(0.999, u)).lpNorm<Eigen::Infinity>(), 1e-8);
}

TEST(Integrators, CvodeStaysWithinItsTolerance) {
  IntegratorOptions options;
  options.rtol = 1e-9;
  options.atol = 1e-11;
  auto cvode = make_integrator("cvode", options);
  EXPECT_LE(integrate_error(*cvode, 5.0, 10), 1e-7);
}

TEST(Integrators, UnknownKindIsNamed) {
  try {
    make_integrator("rk99", IntegratorOptions{});
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("rk99"), std::string::npos);
  }
}

}  // namespace
}  // namespace cosima
