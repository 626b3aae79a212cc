#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "models/registry.hpp"
#include "system/native/native_system.hpp"
#include "test_models.hpp"

namespace cosima {
namespace {

using testing::LinearPair;

std::unique_ptr<NativeSystem> make_pair_system(const std::string& integrator) {
  IntegratorOptions options;
  options.rtol = 1e-9;
  return std::make_unique<NativeSystem>("pair", std::make_unique<LinearPair>(), make_integrator(integrator, options));
}

class EveryIntegrator : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryIntegrator, SaveRestoreMakesARepeatedStepBitwiseIdentical) {
  auto system = make_pair_system(GetParam());
  system->initialize(0.0);
  InputPolynomials u = testing::cubic_input();
  system->set_inputs(u);
  ASSERT_TRUE(system->do_step(0.1).ok());
  const StateId saved = system->save_state();
  u(0, 1) = -3.0;
  system->set_inputs(u);
  ASSERT_TRUE(system->do_step(0.2).ok());
  Eigen::VectorXd y_first(1), x_first(2);
  system->outputs(y_first);
  system->states(x_first);
  system->restore_state(saved);
  EXPECT_DOUBLE_EQ(system->time(), 0.1);
  system->set_inputs(u);
  ASSERT_TRUE(system->do_step(0.2).ok());
  Eigen::VectorXd y_second(1), x_second(2);
  system->outputs(y_second);
  system->states(x_second);
  EXPECT_EQ(y_first(0), y_second(0));  // bitwise
  EXPECT_EQ(x_first(0), x_second(0));
  EXPECT_EQ(x_first(1), x_second(1));
  system->release_state(saved);
}

// A system keeps its last output derivatives until something they depend on changes: after each
// change, a system that had read them before it must give what a system that never read them gives.
TEST_P(EveryIntegrator, OutputDerivativesAfterEveryChangeAreThoseOfASystemThatNeverReadThem) {
  InputPolynomials other = testing::cubic_input();
  other(0, 1) = -3.0;
  StateId saved = -1;
  const std::vector<std::function<void(NativeSystem&)>> changes = {
      [](NativeSystem& s) { s.set_inputs(testing::cubic_input()); },
      [](NativeSystem& s) { ASSERT_TRUE(s.do_step(0.1).ok()); },
      [&](NativeSystem& s) { saved = s.save_state(); },  // restarts the integrator (euler's slope)
      [&](NativeSystem& s) { s.set_inputs(other); },
      [](NativeSystem& s) { ASSERT_TRUE(s.do_step(0.2).ok()); },
      [&](NativeSystem& s) { s.restore_state(saved); },
      [](NativeSystem& s) { ASSERT_TRUE(s.do_step(0.05).ok()); },
  };
  const int order = GetParam() == "exact" ? 2 : 1;
  auto reading = make_pair_system(GetParam());
  reading->initialize(0.0);
  Eigen::VectorXd dy(1), fresh(1);
  for (std::size_t k = 0; k < changes.size(); ++k) {
    reading->output_derivatives(order, dy);  // kept
    changes[k](*reading);
    reading->output_derivatives(order, dy);
    auto replayed = make_pair_system(GetParam());  // the same changes, no derivative read before
    replayed->initialize(0.0);
    for (std::size_t j = 0; j <= k; ++j) changes[j](*replayed);
    replayed->output_derivatives(order, fresh);
    EXPECT_EQ(dy(0), fresh(0)) << "after change " << k;  // bitwise
  }
}

INSTANTIATE_TEST_SUITE_P(Native, EveryIntegrator, ::testing::Values("dopri5", "cvode", "euler", "exact"));

TEST(NativeSystem, WithheldCapabilityIsRefusedWithSystemAndCapabilityNamed) {
  auto system = make_pair_system("dopri5");
  system->withhold(Capability::rollback);
  system->initialize(0.0);
  try {
    (void)system->save_state();
    FAIL() << "no error";
  } catch (const CapabilityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'pair'"), std::string::npos) << what;
    EXPECT_NE(what.find("rollback"), std::string::npos) << what;
    EXPECT_NE(what.find("canGetAndSetFMUstate"), std::string::npos) << what;
  }
}

TEST(NativeSystem, ZohOnlySystemRefusesPolynomialInputs) {
  auto system = make_pair_system("dopri5");
  system->withhold(Capability::interpolate_inputs);
  system->initialize(0.0);
  InputPolynomials constant = InputPolynomials::Zero(1, kInputCoefficients);
  constant(0, 0) = 2.0;
  EXPECT_NO_THROW(system->set_inputs(constant));
  EXPECT_THROW(system->set_inputs(testing::cubic_input()), CapabilityError);
}

TEST(NativeSystem, OutputDerivativesFollowTheChainRule) {
  auto system = make_pair_system("exact");
  system->initialize(0.0);
  const InputPolynomials u = testing::cubic_input();
  system->set_inputs(u);
  ASSERT_TRUE(system->do_step(0.4).ok());
  const LinearPair m;
  Eigen::VectorXd x(2), du(1);
  system->states(x);
  // y' = C(Ax + Bu) + D u',  y'' = C(A(Ax + Bu) + B u') + D u''  (inputs in s = t − 0)
  Eigen::VectorXd u0(1), u1(1), u2(1);
  evaluate_polynomials(u, 0.4, 0, u0);
  evaluate_polynomials(u, 0.4, 1, u1);
  evaluate_polynomials(u, 0.4, 2, u2);
  const Eigen::Vector2d x1 = m.A * x + m.B * u0(0);
  const Eigen::Vector2d x2 = m.A * x1 + m.B * u1(0);
  Eigen::VectorXd dy(1);
  system->output_derivatives(1, dy);
  EXPECT_NEAR(dy(0), m.C * x1 + m.D * u1(0), 1e-8);
  system->output_derivatives(2, dy);
  EXPECT_NEAR(dy(0), m.C * x2 + m.D * u2(0), 1e-8);  // A, B by finite differences (no analytic Jacobians)
  EXPECT_THROW(system->output_derivatives(4, dy), CapabilityError);
}

TEST(NativeSystem, FiniteDifferenceLinearizationMatchesTheMatrices) {
  auto system = make_pair_system("dopri5");
  system->initialize(0.0);
  system->set_inputs(testing::cubic_input());
  const Linearization& lin = system->linearize();
  const LinearPair m;
  EXPECT_LT((lin.A - m.A).norm(), 1e-9);
  EXPECT_LT((lin.B - m.B).norm(), 1e-9);
  EXPECT_LT((lin.C - m.C).norm(), 1e-9);
  EXPECT_NEAR(lin.D(0, 0), m.D, 1e-9);
}

TEST(BenchmarkModels, AnalyticJacobiansAgreeWithFiniteDifferences) {
  for (const auto& entry : models::catalog()) {
    const auto model = models::make_model(entry.name);
    Eigen::VectorXd x = model->initial_state() + Eigen::VectorXd::LinSpaced(model->state_count(), 0.1, 0.3);
    Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(model->input_count(), 0.2, 0.7);
    Linearization analytic, numeric;
    ASSERT_TRUE(model->jacobians(0.5, x, u, analytic)) << entry.name << " has no analytic Jacobians";
    finite_difference_jacobians(*model, 0.5, x, u, numeric);
    auto close = [&](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const char* which) {
      ASSERT_EQ(a.rows(), b.rows()) << entry.name << " " << which;
      ASSERT_EQ(a.cols(), b.cols()) << entry.name << " " << which;
      EXPECT_LE((a - b).lpNorm<Eigen::Infinity>(), 1e-6 * std::max(1.0, b.lpNorm<Eigen::Infinity>()))
          << entry.name << " " << which << "\n"
          << a << "\nvs\n"
          << b;
    };
    close(analytic.A, numeric.A, "A");
    close(analytic.B, numeric.B, "B");
    close(analytic.C, numeric.C, "C");
    close(analytic.D, numeric.D, "D");
  }
}

TEST(BenchmarkModels, DeclaredFeedthroughMatchesTheOutputJacobian) {
  for (const auto& entry : models::catalog()) {
    const auto model = models::make_model(entry.name);
    Linearization lin;
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(model->input_count());
    finite_difference_jacobians(*model, 0.5, model->initial_state(), ones, lin);
    for (int o = 0; o < model->output_count(); ++o) {
      for (int i = 0; i < model->input_count(); ++i) {
        if (lin.D(o, i) != 0.0) {
          EXPECT_TRUE(model->output_depends_on_input(o, i)) << entry.name << " y" << o << " u" << i;
        }
      }
    }
  }
}

// A model that declares its outputs independent of t gets no g_t (NativeSystem::add_output_time_slope):
// its outputs must then be bitwise the same at every t for the same x and u.
TEST(BenchmarkModels, OutputsDeclaredIndependentOfTimeAreSo) {
  std::vector<std::string> declared;
  for (const auto& entry : models::catalog()) {
    const auto model = models::make_model(entry.name);
    if (model->outputs_depend_on_time()) continue;
    declared.push_back(entry.name);
    const Eigen::VectorXd x = model->initial_state() + Eigen::VectorXd::LinSpaced(model->state_count(), 0.1, 0.3);
    const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(model->input_count(), 0.2, 0.7);
    Eigen::VectorXd y0(model->output_count()), y(model->output_count());
    model->outputs(0.5, x, u, y0);
    for (const double t : {0.5 + 6e-6, 1.0, 3600.0, 43200.0}) {
      model->outputs(t, x, u, y);
      for (int o = 0; o < model->output_count(); ++o) EXPECT_EQ(y(o), y0(o)) << entry.name << " y" << o << " t " << t;
    }
  }
  // by their declaration (B3, B7, B8) or as LTI models (B1, B4, B5 and the state-space model);
  // B2's right body and B6 read t
  for (const char* name :
       {"b1.mass", "b3.prey", "b3.predator", "b4.left", "b5.body2", "b7.zone", "b7.supply", "b8.ball"}) {
    EXPECT_NE(std::find(declared.begin(), declared.end(), name), declared.end()) << name;
  }
  for (const char* name : {"b2.right", "b6.tough"}) {
    EXPECT_EQ(std::find(declared.begin(), declared.end(), name), declared.end()) << name;
  }
}

TEST(BenchmarkModels, UnknownParameterIsNamedWithTheValidOnes) {
  auto model = models::make_model("b1.damper");
  try {
    model->set_parameter("DD", 1.0);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'DD'"), std::string::npos);
    EXPECT_NE(what.find("D_D"), std::string::npos);
  }
}

}  // namespace
}  // namespace cosima
