// Model Exchange FMUs under cosima's integrators (FMI 2.0 §3): the seed benchmarks through the
// project's FMUs' ModelExchange interface give the native systems' results under every method, the
// bouncing ball's events are where the closed form puts them, and every misbehaviour is an error
// naming the system, the time and the cause.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/identical_runs.hpp"
#include "test_support.hpp"

#include "core/metrics.hpp"
#include "fmi/common/me_model.hpp"
#include "fmi/fmu_factory.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

using Json = cosima::io::Json;
using testing::error_of;
using testing::expect_identical;

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;
const std::filesystem::path kTestFmus = COSIMA_C_FMU_DIR;

Json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return Json::parse(in);
}

/// The scenario with every built-in system replaced by the project's FMU of that model, through
/// its ModelExchange interface, keeping integrator, options and parameters.
Json as_model_exchange(Json doc) {
  for (auto& [name, system] : doc["systems"].items()) {
    std::string model = system["model"].get<std::string>();
    system.erase("model");
    std::replace(model.begin(), model.end(), '.', '_');
    system["fmu"] = model + ".fmu";
    system["interface"] = "me";
  }
  return doc;
}

scenario::ScenarioRun run(Json doc, const std::vector<std::string>& overrides,
                          const std::string& file = "inline.json") {
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  return scenario::run_scenario(scenario::parse_scenario(doc, kExamples / file));
}

struct MethodCase {
  std::string label;
  std::vector<std::string> overrides;
};

/// Every seed method. COSTARICA is IFOSMONDI-JFM without rollback; CHOPtrey is Jacobi with
/// CHOPtrey extrapolation.
std::vector<MethodCase> every_method(const Json& doc) {
  std::vector<std::string> no_rollback = {"method.type=ifosmondi-jfm", "method.epsilon=1e-8"};
  for (const auto& [name, system] : doc["systems"].items())
    no_rollback.push_back("systems." + name + ".rollback=false");
  return {
      {"jacobi", {"method.type=jacobi"}},
      {"gauss-seidel", {"method.type=gauss-seidel"}},
      {"ifosmondi", {"method.type=ifosmondi", "method.epsilon=1e-8"}},
      {"ifosmondi-jfm", {"method.type=ifosmondi-jfm", "method.epsilon=1e-8"}},
      {"costarica", no_rollback},
      {"missiles", {"method.type=missiles"}},
      {"defect-jacobi", {"method.type=defect-jacobi", "method.m=1", "method.n=1", "method.tol=1e-4"}},
      {"choptrey", {"method.type=jacobi", "method.extrapolation=choptrey"}},
  };
}

struct Benchmark {
  std::string file;
  std::vector<std::string> overrides;  ///< a short horizon; dopri5 where the example uses `exact`
};

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> list = {
      {"b1_ifosmondi_damper.json", {"stop=0.5", "method.dt=0.05"}},
      {"b2_two_bodies.json", {"stop=5", "method.dt=0.5"}},
      {"b3_lotka_volterra.json", {"stop=1", "method.dt=0.05"}},
      {"b4_two_mass.json", {"stop=0.05", "method.dt=0.005"}},
      {"b5_rotational_oscillator.json",
       {"stop=5", "method.dt=1", "systems.body1.integrator=dopri5", "systems.body2.integrator=dopri5",
        "systems.body1.integrator_options={\"rtol\": 1e-10, \"atol\": 1e-12}",
        "systems.body2.integrator_options={\"rtol\": 1e-10, \"atol\": 1e-12}"}},
  };
  return list;
}

TEST(ModelExchange, SeedBenchmarksThroughMeFmusMatchTheNativeSystemsBitwiseUnderEveryMethod) {
  // The ME FMU evaluates the same model code at the (t, x, u) cosima's integrator asks for, and
  // cosima provides every capability the same way as for the native system: the arithmetic is the
  // same, so the results are bitwise identical — iterations and integrations included.
  for (const Benchmark& benchmark : benchmarks()) {
    Json native = read_json(kExamples / benchmark.file);
    for (const auto& o : benchmark.overrides) scenario::apply_override(native, o);
    const Json me = as_model_exchange(native);
    for (const MethodCase& method : every_method(native)) {
      const std::string what = fmt::format("{} under {}", benchmark.file, method.label);
      // a method that refuses the benchmark (Gauss–Seidel on B1's algebraic loop) refuses both alike
      const std::string refused = error_of([&] { (void)run(native, method.overrides, benchmark.file); });
      if (!refused.empty()) {
        EXPECT_EQ(refused, error_of([&] { (void)run(me, method.overrides, benchmark.file); })) << what;
        continue;
      }
      expect_identical(run(native, method.overrides, benchmark.file), run(me, method.overrides, benchmark.file), what);
    }
  }
}

TEST(ModelExchange, MonolithicOverMeFmusIsMonolithicOverTheNativeModels) {
  // one CVODE over every ME FMU, its states from the FMUs once initialized (not their declared starts)
  for (const Benchmark& benchmark : benchmarks()) {
    Json native = read_json(kExamples / benchmark.file);
    for (const auto& o : benchmark.overrides) scenario::apply_override(native, o);
    const Json me = as_model_exchange(native);
    const scenario::ScenarioRun a = run(native, {"method.type=monolithic"}, benchmark.file);
    const scenario::ScenarioRun b = run(me, {"method.type=monolithic"}, benchmark.file);
    ASSERT_EQ(a.results->labels(), b.results->labels()) << benchmark.file;
    ASSERT_EQ(a.results->times().size(), b.results->times().size()) << benchmark.file;
    for (const std::string& label : a.results->labels()) {
      const auto x = a.results->column(label), y = b.results->column(label);
      double scale = 0.0;
      for (const double v : x) scale = std::max(scale, std::abs(v));
      for (std::size_t k = 0; k < x.size(); ++k) {
        ASSERT_LE(std::abs(x[k] - y[k]), 1e-9 * std::max(scale, 1e-300))
            << benchmark.file << " " << label << " row " << k;
      }
      EXPECT_GT(scale, 0.0) << benchmark.file << " " << label << ": all zero";
    }
  }
}

TEST(ModelExchange, MissilesAndIfosmondiJfmOnB3AndB4FromMeFmusHaveTheNativeErrors) {
  for (const std::string file : {"b3_lotka_volterra.json", "b4_two_mass.json"}) {
    Json native = read_json(kExamples / file);
    scenario::apply_override(native, file[1] == '3' ? "stop=5" : "stop=0.5");
    const std::string label = file[1] == '3' ? "prey.p" : "right.x2";
    const scenario::ScenarioRun reference =
        run(native, {"method.type=monolithic", file[1] == '3' ? "method.dt=0.001" : "method.dt=0.0001"});
    for (const std::string method : {"missiles", "ifosmondi-jfm"}) {
      const std::vector<std::string> overrides = {"method.type=" + method,
                                                  file[1] == '3' ? "method.dt=0.05" : "method.dt=0.005"};
      auto error_of_run = [&](const Json& doc) {
        const scenario::ScenarioRun r = run(doc, overrides);
        return compare_signals(r.results->times(), r.results->column(label), reference.results->times(),
                               reference.results->column(label))
            .nl2;
      };
      const double native_error = error_of_run(native), me_error = error_of_run(as_model_exchange(native));
      std::cout << fmt::format("{} {}: error on {} native {:.6e}, ME FMUs {:.6e}\n", file, method, label, native_error,
                               me_error);
      EXPECT_EQ(native_error, me_error) << file << " " << method;
    }
  }
}

TEST(ModelExchange, CoSimulationAndModelExchangeFmusInOneScenarioUnderEveryMethod) {
  // The prey through the Co-Simulation interface of its FMU (the export kit's own dopri5), the
  // predator through the Model Exchange interface of its FMU under cosima's dopri5: the same
  // arithmetic as the native pair.
  Json native = read_json(kExamples / "b3_lotka_volterra.json");
  scenario::apply_override(native, "stop=2");
  scenario::apply_override(native, "method.dt=0.05");
  Json mixed = as_model_exchange(native);
  mixed["systems"]["prey"] = Json::parse(
      R"({"fmu": "b3_prey.fmu", "interface": "cs", "parameters": {"solver_kind": 0, "solver_rtol": 1e-10, "solver_atol": 1e-12}})");
  for (const MethodCase& method : every_method(native)) {
    expect_identical(run(native, method.overrides), run(mixed, method.overrides), "CS + ME under " + method.label);
  }
  // a Co-Simulation FMU without rollback next to the ME FMU: every method runs that does not need
  // the prey's rollback, and those that do are refused naming the system and the capability
  mixed["systems"]["prey"]["fmu"] = "b3_prey_norollback.fmu";
  int ran = 0;
  for (const MethodCase& method : every_method(native)) {
    const std::string refused = error_of([&] { (void)run(mixed, method.overrides); });
    if (refused.empty()) {
      ++ran;
      continue;
    }
    EXPECT_NE(refused.find("system 'prey' lacks capability 'rollback'"), std::string::npos)
        << method.label << ": " << refused;
  }
  EXPECT_GE(ran, 6) << "jacobi, gauss-seidel, costarica, missiles, defect-jacobi and choptrey need no rollback";
}

// --- the bouncing ball: state event, time event, step events -----------------------------------------

/// Impact times of the ball (h0 = 1, v0 = 0, g = 9.81, e = 0.8, kick dv = 1 at t = 1.5): flights
/// are parabolas, so each impact solves h + v τ − g τ²/2 = 0.
std::vector<double> closed_form_impacts(int count) {
  const double g = 9.81, e = 0.8, t_kick = 1.5, dv = 1.0;
  double t = 0.0, h = 1.0, v = 0.0;
  bool kicked = false;
  std::vector<double> impacts;
  while (static_cast<int>(impacts.size()) < count) {
    const double tau = (v + std::sqrt(v * v + 2.0 * g * h)) / g;
    if (!kicked && t + tau > t_kick) {
      const double s = t_kick - t;
      h += v * s - 0.5 * g * s * s;
      v += -g * s + dv;
      t = t_kick;
      kicked = true;
      continue;
    }
    t += tau;
    v = -e * (v - g * tau);
    h = 0.0;
    impacts.push_back(t);
  }
  return impacts;
}

Json ball_scenario(const std::string& fmu, const std::string& integrator, double rtol = 1e-10) {
  Json doc = Json::parse(R"({"start": 0, "stop": 3, "method": {"type": "jacobi", "dt": 0.01}})");
  doc["systems"]["ball"] = {
      {"fmu", fmu}, {"integrator", integrator}, {"integrator_options", {{"rtol", rtol}, {"atol", rtol * 1e-2}}}};
  return doc;
}

/// The distinct values an output takes, in order (the ball's impact_time records every bounce).
std::vector<double> distinct(const std::vector<double>& column) {
  std::vector<double> values;
  for (double v : column) {
    if (values.empty() || v != values.back()) values.push_back(v);
  }
  return values;
}

TEST(ModelExchange, BouncingBallImpactsWithin1e8OfTheClosedFormAndTheTimeEventHitExactly) {
  // The event is located to ~1e-14 (CVODE's rootfinding, bisection on dopri5's dense output); what
  // remains is the integration error of the flights: at rtol = 1e-10 CVODE's BDF reaches 4.4e-8 by
  // the fifth impact, at rtol = 1e-12 2.5e-10; dopri5 at 1e-10 stays below 1e-9.
  const std::vector<double> exact = closed_form_impacts(5);
  for (const auto& [integrator, rtol] : {std::pair<std::string, double>{"cvode", 1e-12}, {"dopri5", 1e-10}}) {
    const scenario::ScenarioRun r =
        run(ball_scenario((kTestFmus / "cosima_test_me_ball.fmu").string(), integrator, rtol), {});
    std::vector<double> impacts = distinct(r.results->column("ball.impact_time"));
    ASSERT_GE(impacts.size(), 6U) << integrator;  // -1 before the first bounce, then one per bounce
    impacts.erase(impacts.begin());
    for (int k = 0; k < 5; ++k) {
      std::cout << fmt::format("{} impact {}: {:.15f}  closed form {:.15f}  error {:.2e}\n", integrator, k + 1,
                               impacts[static_cast<std::size_t>(k)], exact[static_cast<std::size_t>(k)],
                               impacts[static_cast<std::size_t>(k)] - exact[static_cast<std::size_t>(k)]);
      EXPECT_NEAR(impacts[static_cast<std::size_t>(k)], exact[static_cast<std::size_t>(k)], 1e-8)
          << integrator << " impact " << k + 1;
    }
    EXPECT_EQ(r.results->column("ball.kick_time").back(), 1.5) << integrator << ": the time event is hit exactly";
    EXPECT_EQ(r.results->column("ball.bounces").back(), 5.0) << integrator;
  }
}

TEST(ModelExchange, NativeBallAndItsFmuThroughEitherInterfaceAgreeBitwise) {
  Json native = ball_scenario("", "cvode");
  native["systems"]["ball"].erase("fmu");
  native["systems"]["ball"]["model"] = "b8.ball";
  for (const std::string integrator : {"cvode", "dopri5"}) {
    scenario::apply_override(native, "systems.ball.integrator=" + integrator);
    const scenario::ScenarioRun reference = run(native, {});
    expect_identical(reference, run(as_model_exchange(native), {}), "b8.ball through ME, " + integrator);
    // the ball bounces (states re-initialised) and is kicked
    const auto& v = reference.results->column("ball.v");
    EXPECT_GT(*std::max_element(v.begin(), v.end()), 3.0) << integrator;
  }
  // through Co-Simulation the FMU's own dopri5 handles the events inside fmi2DoStep
  Json cs = as_model_exchange(native);
  cs["systems"]["ball"] = Json::parse(
      R"({"fmu": "b8_ball.fmu", "interface": "cs", "parameters": {"solver_kind": 0, "solver_rtol": 1e-10, "solver_atol": 1e-12}})");
  scenario::apply_override(native, "systems.ball.integrator=dopri5");
  expect_identical(run(native, {}), run(cs, {}), "b8.ball through CS");
}

TEST(ModelExchange, StepEventsAreHandledAndLeaveTheTrajectory) {
  Json doc = ball_scenario((kTestFmus / "cosima_test_me_ball.fmu").string(), "cvode");
  const scenario::ScenarioRun plain = run(doc, {});
  const scenario::ScenarioRun stepped = run(doc, {"systems.ball.parameters={\"step_event_every\": 5}"});
  EXPECT_GT(stepped.results->column("ball.step_events").back(), 10.0);
  EXPECT_EQ(plain.results->column("ball.step_events").back(), 0.0);
  // an event restarts the integrator but changes nothing in the model
  const auto& a = plain.results->column("ball.h_out");
  const auto& b = stepped.results->column("ball.h_out");
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6) << "sample " << i;
}

/// A hybrid model without continuous states: its only event indicator crosses zero at t = 0.37.
class Alarm final : public OdeModel {
 public:
  Alarm() : OdeModel("alarm", {}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return {}; }
  void derivatives(double, ConstVectorRef, ConstVectorRef, VectorRef) const override {}
  void outputs(double, ConstVectorRef, ConstVectorRef, VectorRef) const override {}
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<Alarm>(*this); }
  [[nodiscard]] int event_indicator_count() const override { return 1; }
  void event_indicators(double t, ConstVectorRef, ConstVectorRef, VectorRef z) const override { z(0) = 0.37 - t; }
  EventOutcome handle_event(double t, VectorRef, ConstVectorRef, const EventCause& cause) override {
    if (cause.state_event) fired_at = t;
    return {};
  }
  double fired_at = -1.0;
};

TEST(ModelExchange, StateEventsOfAModelWithoutStatesAreLocatedByEveryIntegrator) {
  for (const std::string kind : {"cvode", "dopri5", "euler"}) {
    auto alarm = std::make_unique<Alarm>();
    const Alarm& model = *alarm;
    NativeSystem system("alarm", std::move(alarm), make_integrator(kind, {}));
    system.initialize(0.0);
    system.set_inputs(InputPolynomials::Zero(0, kInputCoefficients));
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(system.do_step(0.1).ok()) << kind;
    EXPECT_EQ(system.events(), 1) << kind;
    EXPECT_NEAR(model.fired_at, 0.37, 1e-13) << kind;
  }
}

// --- capabilities provided by cosima -------------------------------------------------------------------

std::unique_ptr<NativeSystem> me_system(const std::filesystem::path& fmu, std::string_view integrator = "cvode") {
  IntegratorOptions options;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  return fmi::make_me_system("s", fmu, make_integrator(integrator, options), options);
}

TEST(ModelExchange, EveryCapabilityIsProvidedAndRollbackFollowsTheStatedRule) {
  // with fmi2Get/SetFMUstate: every capability, rollback across events restores the discrete state
  auto ball = me_system(kTestFmus / "cosima_test_me_ball.fmu");
  EXPECT_TRUE(ball->capabilities().has(Capability::rollback));
  for (Capability c : kAllCapabilities) EXPECT_TRUE(ball->has(c)) << to_string(c);
  ball->initialize(0.0);
  const InputPolynomials none = InputPolynomials::Zero(0, kInputCoefficients);
  ball->set_inputs(none);
  ASSERT_TRUE(ball->do_step(1.0).ok());
  const StateId saved = ball->save_state();
  Eigen::VectorXd first(ball->output_count()), second(ball->output_count());
  ball->set_inputs(none);                // as a method does before every step
  ASSERT_TRUE(ball->do_step(1.0).ok());  // the kick and a bounce
  ball->outputs(first);
  ball->restore_state(saved);
  ball->set_inputs(none);
  ASSERT_TRUE(ball->do_step(1.0).ok());
  ball->outputs(second);
  EXPECT_EQ(first, second) << "bounces, kick_time and the states come back with the FMU state";
  EXPECT_EQ(second(ball->output_index("kick_time")), 1.5);

  // without fmi2GetFMUstate and with discrete state: no rollback
  auto nostate = me_system(kTestFmus / "cosima_test_me_ball_nostate.fmu");
  EXPECT_FALSE(nostate->has(Capability::rollback));
  const std::string refused = error_of([&] { nostate->require(Capability::rollback, "the test"); });
  EXPECT_NE(refused.find("lacks capability 'rollback'"), std::string::npos) << refused;

  // without fmi2GetFMUstate but without discrete state (no event indicators, no discrete variable):
  // the continuous states and the time are the whole state
  auto prey = me_system(std::filesystem::path(COSIMA_TEST_FMU_DIR) / "b3_prey_norollback.fmu");
  EXPECT_TRUE(prey->has(Capability::rollback));
  prey->initialize(0.0);
  InputPolynomials u = InputPolynomials::Zero(1, kInputCoefficients);
  u(0, 0) = 0.5;
  prey->set_inputs(u);
  const StateId at_zero = prey->save_state();
  ASSERT_TRUE(prey->do_step(0.5).ok());
  Eigen::VectorXd y1(1), y2(1);
  prey->outputs(y1);
  prey->restore_state(at_zero);
  ASSERT_TRUE(prey->do_step(0.5).ok());
  prey->outputs(y2);
  EXPECT_EQ(y1, y2);
}

TEST(ModelExchange, OutputDerivativesAndLinearizationByFiniteDifferencesWithoutDirectionalDerivatives) {
  // me_both declares no directional derivatives: x' = (u − x)/τ, y = x, τ = 0.5
  auto lag = me_system(kTestFmus / "cosima_test_me_both.fmu");
  lag->initialize(0.0);
  InputPolynomials u = InputPolynomials::Zero(1, kInputCoefficients);
  u(0, 0) = 1.0;
  u(0, 1) = 2.0;  // u(t) = 1 + 2 s: applied exactly, at every right-hand-side evaluation
  lag->set_inputs(u);
  ASSERT_TRUE(lag->do_step(0.25).ok());
  // x(t) for u = 1 + 2t: x = 1 + 2t − 2τ + (2τ − 1) e^{−t/τ}, τ = 0.5  →  x = 2t + (0 − 0) … = 2t (since 2τ = 1)
  Eigen::VectorXd y(1), dy(1);
  lag->outputs(y);
  EXPECT_NEAR(y(0), 0.5, 1e-8);
  lag->output_derivatives(1, dy);
  EXPECT_NEAR(dy(0), 2.0, 1e-6);  // y' = (u − x)/τ = (1.5 − 0.5)/0.5
  const Linearization& lin = lag->linearize();
  EXPECT_NEAR(lin.A(0, 0), -2.0, 1e-6);
  EXPECT_NEAR(lin.B(0, 0), 2.0, 1e-6);
  EXPECT_NEAR(lin.C(0, 0), 1.0, 1e-6);
  EXPECT_NEAR(lin.D(0, 0), 0.0, 1e-6);
}

TEST(ModelExchange, AnFmuWithBothInterfacesRunsThroughEither) {
  Json doc = Json::parse(R"({"start": 0, "stop": 2, "method": {"type": "jacobi", "dt": 0.1}, "inputs": {"lag.u": 1}})");
  doc["systems"]["lag"] = {{"fmu", (kTestFmus / "cosima_test_me_both.fmu").string()}};
  const double exact = 1.0 - std::exp(-2.0 / 0.5);  // u = 1 (start), x(0) = 0
  const scenario::ScenarioRun cs = run(doc, {});    // Co-Simulation by default
  EXPECT_NEAR(cs.results->column("lag.y").back(), exact, 1e-12);
  const scenario::ScenarioRun me = run(doc, {"systems.lag.interface=me"});
  EXPECT_NEAR(me.results->column("lag.y").back(), exact, 1e-6);  // cvode, rtol 1e-8
  const std::string refused = error_of([&] {
    Json ball = ball_scenario((kTestFmus / "cosima_test_me_ball.fmu").string(), "cvode");
    ball["systems"]["ball"] = {{"fmu", (kTestFmus / "cosima_test_me_ball.fmu").string()}, {"interface", "cs"}};
    run(ball, {});
  });
  EXPECT_NE(refused.find("has no Co-Simulation interface"), std::string::npos) << refused;
}

// --- bad input: each a clear error naming the system, the time and the cause ---------------------------

std::string misbehave(int mode, const std::string& integrator = "cvode", int max_events = 1000) {
  Json doc = Json::parse(R"({"start": 0, "stop": 1, "method": {"type": "jacobi", "dt": 0.1}, "inputs": {"m.u": 0}})");
  doc["systems"]["m"] = {{"fmu", (kTestFmus / "cosima_test_me_misbehave.fmu").string()},
                         {"integrator", integrator},
                         {"integrator_options", {{"max_events_per_step", max_events}}},
                         {"parameters", {{"mode", mode}, {"fail_at", 0.55}}}};
  return error_of([&] { run(doc, {}); });
}

TEST(ModelExchange, EveryMisbehaviourIsAnErrorNamingSystemTimeAndCause) {
  std::string what = misbehave(1);
  EXPECT_NE(what.find("fmi2GetDerivatives returned fmi2Error"), std::string::npos) << what;
  EXPECT_NE(what.find("system 'm'"), std::string::npos) << what;
  EXPECT_NE(what.find("t = 0.55"), std::string::npos) << what;

  what = misbehave(2);
  EXPECT_NE(what.find("event iteration at t = 0.55 did not converge"), std::string::npos) << what;

  what = misbehave(3, "cvode", 50);
  EXPECT_NE(what.find("more than 50 events in the step [0.5"), std::string::npos) << what;
  EXPECT_NE(what.find("chattering"), std::string::npos) << what;
  what = misbehave(3, "dopri5", 50);
  EXPECT_NE(what.find("more than 50 events"), std::string::npos) << what;

  what = misbehave(4);
  EXPECT_NE(what.find("derivative of state 'x' is nan at t = 0.55"), std::string::npos) << what;
  EXPECT_NE(what.find("system 'm'"), std::string::npos) << what;

  what = misbehave(6);
  EXPECT_NE(what.find("fmi2NewDiscreteStates returned fmi2Error"), std::string::npos) << what;
  what = misbehave(7);
  EXPECT_NE(what.find("fmi2CompletedIntegratorStep returned fmi2Error"), std::string::npos) << what;
  // after fmi2Error only fmi2FreeInstance followed: the FMU prints "Illegal call sequence" otherwise
}

TEST(ModelExchange, TerminateSimulationEndsTheRunAtTheEvent) {
  Json doc = Json::parse(R"({"start": 0, "stop": 1, "method": {"type": "jacobi", "dt": 0.1}, "inputs": {"m.u": 0}})");
  doc["systems"]["m"] = {{"fmu", (kTestFmus / "cosima_test_me_misbehave.fmu").string()},
                         {"parameters", {{"mode", 5}, {"fail_at", 0.55}}}};
  const scenario::ScenarioRun r = run(doc, {});
  // the FMU announces its time event at 0.55 (nextEventTime): the grid lands on it, and the run ends
  // there, every communication point up to it complete; the reason names the event
  EXPECT_TRUE(r.stats.terminated_early);
  EXPECT_NE(r.stats.termination_reason.find("asked to terminate at t = 0.55 (terminateSimulation)"), std::string::npos)
      << r.stats.termination_reason;
  EXPECT_EQ(r.stats.end_time, 0.55);
}

}  // namespace
}  // namespace cosima
