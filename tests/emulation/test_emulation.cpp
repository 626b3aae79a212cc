// Capability emulation (issue: every method on every FMU): a system lacking input interpolation or
// output derivatives takes part in every method through system/emulation/, at a stated cost.
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/test_models.hpp"
#include "test_support.hpp"

#include "core/metrics.hpp"
#include "methods/method_choice.hpp"
#include "methods/method_registry.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "system/emulation/emulated_system.hpp"
#include "system/emulation/run_ahead_system.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;
const std::filesystem::path kTestFmus = COSIMA_C_FMU_DIR;
using testing::error_of;
using testing::LinearPair;

/// A native system integrated tightly (DOPRI5, rtol 1e-13, atol 1e-15): its error is the emulation's.
std::unique_ptr<NativeSystem> tight_native(const std::string& name, std::unique_ptr<OdeModel> model) {
  IntegratorOptions tight;
  tight.rtol = 1e-13;
  tight.atol = 1e-15;
  return std::make_unique<NativeSystem>(name, std::move(model), make_integrator("dopri5", tight));
}

/// LinearPair (closed form) integrated tightly, without interpolation and output derivatives of its own.
std::unique_ptr<System> bare_linear_pair() {
  auto system = tight_native("pair", std::make_unique<LinearPair>());
  system->withhold(Capability::interpolate_inputs);
  system->withhold(Capability::output_derivatives);
  return system;
}

struct OneStep {
  double state_error, derivative_error;
};

/// One macro-step of h under the cubic input, K sub-steps: errors of y(h) and y'(h) against the closed form.
OneStep one_step(int substeps, double h) {
  EmulatedSystem system(bare_linear_pair(), kEmulable, {.substeps = substeps});
  system.initialize(0.0);
  const InputPolynomials u = testing::cubic_input();
  system.set_inputs(u);
  EXPECT_TRUE(system.do_step(h).ok());
  const LinearPair model;
  const Eigen::Vector2d x = model.solution(h, u);
  Eigen::VectorXd u_h(1), du_h(1), y(1), dy(1);
  evaluate_polynomials(u, h, 0, u_h);
  evaluate_polynomials(u, h, 1, du_h);
  system.outputs(y);
  system.output_derivatives(1, dy);
  const double y_exact = model.C * x + model.D * u_h(0);
  const double dy_exact = model.C * (model.A * x + model.B * u_h(0)) + model.D * du_h(0);
  return {std::abs(y(0) - y_exact), std::abs(dy(0) - dy_exact)};
}

TEST(Emulation, MomentMatchedInputsMakeTheStepsEndHighOrderAndDerivativesFollowTheClosedForm) {
  std::vector<double> steps, value_errors, derivative_errors;
  for (const double h : {0.4, 0.2, 0.1, 0.05}) {
    const OneStep e = one_step(4, h);
    steps.push_back(h);
    value_errors.push_back(e.state_error);
    derivative_errors.push_back(e.derivative_error);
    std::cout << fmt::format("h = {:.3f}, K = 4: |y − y*| = {:.3e}, |y' − y'*| = {:.3e}\n", h, e.state_error,
                             e.derivative_error);
  }
  EXPECT_GE(observed_order(steps, value_errors), 5.5) << "4 moments matched: O(h^6) per step";
  // the sub-step points inside a moment-matched step are off by O(h·δ): y' from them is of order 1
  EXPECT_GE(observed_order(steps, derivative_errors), 0.8) << "sub-step samples: y' of order 1 in δ";
  // more sub-steps than moments: the interior moves least from the means, and both errors fall
  const OneStep four = one_step(4, 0.2), sixteen = one_step(16, 0.2);
  EXPECT_LT(sixteen.state_error, four.state_error);
  EXPECT_LT(sixteen.derivative_error, four.derivative_error / 10);
}

TEST(Emulation, DerivativesComeBackWithARestoredSnapshotAndInputsAreTheContractsAtTheEnd) {
  EmulatedSystem system(bare_linear_pair(), kEmulable, {.substeps = 4});
  EXPECT_EQ(system.emulated_capabilities(), kEmulable);
  EXPECT_TRUE(system.has(Capability::interpolate_inputs));
  EXPECT_EQ(system.max_output_derivative_order(), 3);
  system.initialize(0.0);
  system.set_inputs(testing::cubic_input());
  ASSERT_TRUE(system.do_step(0.1).ok());
  Eigen::VectorXd dy_saved(1), dy(1), y(1);
  system.output_derivatives(1, dy_saved);
  const StateId id = system.save_state();
  system.set_inputs(testing::cubic_input() * 3.0);
  ASSERT_TRUE(system.do_step(0.1).ok());
  system.output_derivatives(1, dy);
  EXPECT_NE(dy(0), dy_saved(0));
  system.restore_state(id);
  system.output_derivatives(1, dy);
  EXPECT_EQ(dy(0), dy_saved(0));
  EXPECT_DOUBLE_EQ(system.time(), 0.1);
  system.release_state(id);
  EXPECT_EQ(system.integrations(), 2);  // macro-steps; the wrapped system took 8 sub-steps
  EXPECT_EQ(system.inner().integrations(), 8);
}

TEST(Emulation, SubStepsKeepTheSystemsClockOnTheMasters) {
  // summing the sub-steps' lengths let an autonomous system's clock drift by an ulp of t per
  // sub-step (B3 at δt = 1e-4: 33× the native error); each sub-step now ends where the master's does
  EmulatedSystem system(bare_linear_pair(), kEmulable, {.substeps = 4});
  system.initialize(10.0);
  double t = 10.0;
  for (int n = 0; n < 1000; ++n) {
    system.set_inputs(testing::cubic_input());
    ASSERT_TRUE(system.do_step(1e-4).ok());
    t += 1e-4;
    ASSERT_EQ(system.inner().time(), t) << "after macro-step " << n;
  }
}

TEST(Emulation, ASystemWithoutInputsRunsAheadForRollback) {
  const scenario::SystemSpec spec{.name = "osc", .fmu = kTestFmus / "cosima_test_oscillator.fmu"};
  std::unique_ptr<System> fmu = scenario::build_system(spec);
  fmu->withhold(Capability::rollback);
  const std::unique_ptr<System> system = run_ahead_if_wanted(std::move(fmu), CapabilitySet().add(Capability::rollback));
  ASSERT_TRUE(system->has(Capability::rollback));
  EXPECT_TRUE(system->emulated_capabilities().has(Capability::rollback));
  system->initialize(0.0);
  Eigen::VectorXd y_end(system->output_count()), y(system->output_count());
  const StateId id = system->save_state();
  ASSERT_TRUE(system->do_step(0.1).ok());
  system->outputs(y_end);
  system->restore_state(id);
  EXPECT_EQ(system->time(), 0.0);
  ASSERT_TRUE(system->do_step(0.05).ok());  // inside the stretch taken: interpolated, linear (no y')
  system->outputs(y);
  const int x = 0;  // osc.x_out = cos(2t)
  EXPECT_NEAR(y(x), std::cos(0.1), 0.5 * 0.05 * 0.05 * 4.0);
  EXPECT_GT(std::abs(y(x) - std::cos(0.1)), 1e-9) << "interpolated, not integrated";
  ASSERT_TRUE(system->do_step(0.05).ok());  // back on the wrapped system's point: its own outputs
  system->outputs(y);
  EXPECT_EQ(y, y_end);
  ASSERT_TRUE(system->do_step(0.1).ok());  // beyond it: integrated
  system->outputs(y);
  EXPECT_NEAR(y(x), std::cos(0.4), 1e-12);
  EXPECT_EQ(system->integrations(), 4);  // the master's steps; the wrapped system's:
  EXPECT_EQ(dynamic_cast<const RunAheadSystem&>(*system).inner().integrations(), 2);
  system->release_state(id);
}

TEST(Emulation, OnlyWhatIsUsedIsRequired) {
  // a system without inputs interpolates trivially; what a method reads and it lacks is emulated,
  // and only that
  const scenario::SystemSpec spec{.name = "osc", .fmu = kTestFmus / "cosima_test_oscillator.fmu"};
  const std::unique_ptr<System> fmu = scenario::build_system(spec);
  EXPECT_TRUE(fmu->has(Capability::interpolate_inputs));
  EXPECT_FALSE(fmu->has(Capability::output_derivatives));
  std::vector<std::string> ignored;
  const auto jacobi = methods::make_method(cosima::io::Json{{"type", "jacobi"}}, 0.1, ignored);
  const auto ifosmondi = methods::make_method(cosima::io::Json{{"type", "ifosmondi"}}, 0.1, ignored);
  EXPECT_TRUE(scenario::build_system(spec, *jacobi)->emulated_capabilities().empty()) << "Jacobi reads no derivatives";
  const CapabilitySet emulated = scenario::build_system(spec, *ifosmondi)->emulated_capabilities();
  EXPECT_TRUE(emulated.has(Capability::output_derivatives));
  EXPECT_FALSE(emulated.has(Capability::interpolate_inputs)) << "there are no inputs to interpolate";
}

/// The no-input Co-Simulation FMU alone: x_out = cos(2t) exactly at every communication point.
scenario::ScenarioRun run_oscillator_with(const std::string& method, const std::vector<std::string>& overrides) {
  cosima::io::Json document =
      cosima::io::Json::parse(fmt::format(R"({{
      "name": "a Co-Simulation FMU without inputs", "start": 0, "stop": 3,
      "systems": {{"osc": {{"fmu": "{}"}}}},
      "method": {{"type": "{}", "dt": 0.05}}}})",
                                          (kTestFmus / "cosima_test_oscillator.fmu").string(), method));
  for (const auto& assignment : overrides) scenario::apply_override(document, assignment);
  return scenario::run_scenario(scenario::parse_scenario(document, kExamples / "inline.json"));
}

scenario::ScenarioRun run_oscillator(const std::string& method) { return run_oscillator_with(method, {}); }

TEST(Emulation, ACoSimulationFmuWithoutInputsRunsUnderEveryMethod) {
  for (const char* method : {"jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi"}) {
    // defect-jacobi chooses its steps by the coupling's defect, which a lone system does not have:
    // its communication points are kept at most dt apart, as the other methods' are
    const std::vector<std::string> overrides = std::string(method) == "defect-jacobi"
                                                   ? std::vector<std::string>{"method.h_max=0.05"}
                                                   : std::vector<std::string>{};
    const auto run = run_oscillator_with(method, overrides);
    const auto& times = run.results->times();
    const auto& x = run.results->column("osc.x_out");
    ASSERT_GT(times.size(), 10U) << method;
    EXPECT_DOUBLE_EQ(times.back(), 3.0) << method;
    double worst = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i) worst = std::max(worst, std::abs(x[i] - std::cos(2.0 * times[i])));
    EXPECT_LT(worst, 1e-12) << method;
    const simulation::SystemCapabilities& c = run.stats.capabilities.at(0);
    const bool reads_derivatives = std::string(method).starts_with("ifosmondi") || std::string(method) == "missiles";
    EXPECT_EQ(c.emulated.has(Capability::output_derivatives), reads_derivatives) << method;
    EXPECT_FALSE(c.emulated.has(Capability::interpolate_inputs)) << method << ": there are no inputs";
  }
  // the monolithic reference needs the equations, which a black box does not give: refused, by name
  const std::string what = error_of([&] { run_oscillator("monolithic"); });
  EXPECT_NE(what.find("system 'osc' is a black box"), std::string::npos) << what;
}

TEST(Emulation, TheStatesOfARunAheadSystemAreRecordedUnderEveryMethod) {
  // the oscillator's states x, v (x = cos 2t) are locals, not outputs; with rollback withheld the
  // iterative methods run it ahead, which offers no state access: its states are read as the FMU
  // variables they are, at every communication point exact, between them (rows every dt/2)
  // interpolated — as under Jacobi (a recording error before: "lacks capability state_access")
  for (const char* method : {"jacobi", "ifosmondi", "ifosmondi-jfm", "missiles"}) {
    const auto run = run_oscillator_with(method, {"systems.osc.rollback=false", "output.interval=0.025",
                                                  R"(output.variables=["osc.x", "osc.v", "osc.x_out"])"});
    const auto& times = run.results->times();
    const std::vector<double> x = run.results->column("osc.x"), v = run.results->column("osc.v");
    ASSERT_EQ(times.size(), 121U) << method;
    double at_points = 0.0, between = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const double error =
          std::max(std::abs(x[i] - std::cos(2.0 * times[i])), std::abs(v[i] + 2.0 * std::sin(2.0 * times[i])));
      (i % 2 == 0 ? at_points : between) = std::max(i % 2 == 0 ? at_points : between, error);
    }
    EXPECT_LT(at_points, 1e-12) << method;
    // at most linear interpolation's error h²/8·max|ẍ| over dt = 0.05: 1.25e-3 for x, 2.5e-3 for v
    EXPECT_LE(between, 2.5e-3) << method;
  }
}

struct Row {
  std::string label;
  double error;
  std::int64_t integrations;
};

/// B3 and B4 with every system's interpolate_inputs and output_derivatives withheld: IFOSMONDI-JFM
/// and MISSILES run on emulation and stay below Jacobi at the same δt.
void compare_on(const std::string& example, double dt, const std::string& reference_method) {
  const auto run_at = [&](double step, std::vector<std::string> overrides) {
    scenario::Scenario scenario = scenario::load_scenario(kExamples / example, overrides);
    scenario.run.dt = step;
    return scenario::run_scenario(scenario);
  };
  const auto run = [&](std::vector<std::string> overrides) { return run_at(dt, std::move(overrides)); };
  const auto reference = run_at(dt / 10, {"method.type=" + reference_method});
  std::vector<std::string> withheld;
  for (const auto& system : scenario::load_scenario(kExamples / example).systems) {
    withheld.push_back(fmt::format("systems.{}.interpolate_inputs=false", system.name));
    withheld.push_back(fmt::format("systems.{}.output_derivatives=false", system.name));
  }
  const auto with = [&](std::string method, bool emulate) {
    std::vector<std::string> o = {"method.type=" + method};
    if (emulate) o.insert(o.end(), withheld.begin(), withheld.end());
    return o;
  };
  std::vector<Row> rows;
  const auto add = [&](const std::string& label, const scenario::ScenarioRun& r) {
    // the systems' own integrations: an emulating system takes K sub-steps per macro-step
    std::int64_t integrations = 0;
    for (const simulation::SystemCapabilities& c : r.stats.capabilities)
      integrations += r.stats.integrations / std::ssize(r.stats.capabilities) * c.substeps;
    rows.push_back({label, scenario::mean_nl2(r, reference), integrations});
  };
  add("jacobi", run(with("jacobi", false)));
  for (const char* method : {"ifosmondi-jfm", "missiles"}) {
    add(fmt::format("{} native", method), run(with(method, false)));
    const auto emulated = run(with(method, true));
    EXPECT_TRUE(emulated.stats.capabilities.at(0).emulated.has(Capability::interpolate_inputs)) << method;
    add(fmt::format("{} emulated", method), emulated);
  }
  // a black box with rollback only: MISSILES estimates it by perturbed steps with restore, 1 + 4·inputs
  // probes and the real step per system and macro-step (the states are not recordable: outputs only)
  std::vector<std::string> black_box = with("missiles", true);
  black_box.emplace_back("output.variables=[]");
  for (const auto& system : scenario::load_scenario(kExamples / example).systems) {
    black_box.push_back(fmt::format("systems.{}.state_access=false", system.name));
    black_box.push_back(fmt::format("systems.{}.linearization=false", system.name));
  }
  const auto probed = run(black_box);
  std::int64_t per_step = 0;
  for (const scenario::SystemSpec& spec : scenario::load_scenario(kExamples / example).systems) {
    const System& system = probed.model.system(probed.model.system_index(spec.name));
    per_step += system.input_count() > 0 ? 2 + 4 * system.input_count() : 1;
  }
  EXPECT_EQ(probed.stats.integrations, per_step * probed.stats.macro_steps) << "probes counted as integrations";
  rows.push_back({"missiles probed (outputs)", scenario::mean_nl2(probed, reference),
                  probed.stats.integrations * probed.stats.capabilities.at(0).substeps});
  std::cout << fmt::format("{} δt = {:g}: mean NL2 error against {} at δt/10, integrations of the systems\n", example,
                           dt, reference_method);
  for (const Row& row : rows) std::cout << fmt::format("  {:<26} {:.6e}  {}\n", row.label, row.error, row.integrations);
  const double jacobi = rows.front().error;
  EXPECT_LT(rows[2].error, jacobi) << "ifosmondi-jfm emulated";
  EXPECT_LT(rows[4].error, jacobi) << "missiles emulated";
  EXPECT_LT(rows[5].error, jacobi / 100) << "missiles probing a black box";
}

TEST(Emulation, MissilesIntegratesASystemWithoutInputsFirstInsteadOfEstimatingIt) {
  // the no-input FMU (no states or linearization for COSTARICA) drives the prey: MISSILES takes its
  // real outputs as K_V, K_D and agrees with IFOSMONDI-JFM, which iterates with rollback
  const auto run_mixed = [](const std::string& method) {
    scenario::Scenario scenario = scenario::parse_scenario(
        cosima::io::Json::parse(fmt::format(R"({{
        "start": 0, "stop": 5, "method": {{"type": "{}", "dt": 0.01}},
        "systems": {{"osc": {{"fmu": "{}"}},
                     "prey": {{"model": "b3.prey", "integrator_options": {{"rtol": 1e-10, "atol": 1e-12}}}}}},
        "connections": [["osc.x_out", "prey.q"]]}})",
                                            method, (kTestFmus / "cosima_test_oscillator.fmu").string())),
        kExamples / "inline.json");
    return scenario::run_scenario(scenario);
  };
  const auto missiles = run_mixed("missiles"), jfm = run_mixed("ifosmondi-jfm");
  const double gap = scenario::mean_nl2(missiles, jfm);
  std::cout << fmt::format("MISSILES vs IFOSMONDI-JFM with a no-input FMU: mean NL2 {:.2e}\n", gap);
  EXPECT_LT(gap, 1e-12);
  EXPECT_EQ(missiles.stats.integrations, 2 * missiles.stats.macro_steps) << "each system integrates once per step";
}

TEST(Emulation, B3WithoutInterpolationAndDerivativesIterativeMethodsStayBelowJacobi) {
  compare_on("b3_lotka_volterra.json", 0.01, "monolithic");
}

TEST(Emulation, B4WithoutInterpolationAndDerivativesIterativeMethodsStayBelowJacobi) {
  compare_on("b4_two_mass.json", 1e-3, "monolithic");
}

/// The method "auto" picks on B4 with some capabilities withheld, and why.
methods::MethodChoice auto_on_b4(const std::string& request, const std::vector<std::string>& withheld) {
  std::vector<std::string> overrides = {"method.type=" + request};
  overrides.insert(overrides.end(), withheld.begin(), withheld.end());
  scenario::Scenario scenario = scenario::load_scenario(kExamples / "b4_two_mass.json", overrides);
  EXPECT_TRUE(scenario::resolve_auto_method(scenario));
  return {scenario.method["type"].get<std::string>(), scenario.method_choice};
}

TEST(Emulation, MethodAutoPicksTheMostAccurateMethodTheCapabilitiesAllow) {
  EXPECT_EQ(auto_on_b4("auto", {}).type, "ifosmondi-jfm");
  // input interpolation and output derivatives are emulated: they do not change the choice
  EXPECT_EQ(
      auto_on_b4("auto", {"systems.left.interpolate_inputs=false", "systems.right.output_derivatives=false"}).type,
      "ifosmondi-jfm");
  // without variable steps 'left' cannot iterate; both still have states and a linearization
  const methods::MethodChoice missiles = auto_on_b4("auto", {"systems.left.variable_step=false"});
  EXPECT_EQ(missiles.type, "missiles");
  EXPECT_NE(missiles.reason.find("'left' cannot iterate"), std::string::npos) << missiles.reason;
  const methods::MethodChoice jacobi = auto_on_b4(
      "auto",
      {"systems.left.variable_step=false", "systems.right.rollback=false", "systems.right.linearization=false"});
  EXPECT_EQ(jacobi.type, "jacobi");
  EXPECT_NE(jacobi.reason.find("'right' cannot be estimated"), std::string::npos) << jacobi.reason;
  // the cheaper request
  EXPECT_EQ(auto_on_b4("auto:fast", {}).type, "missiles");
  EXPECT_EQ(auto_on_b4("auto:fast", {"systems.right.state_access=false"}).type, "jacobi");
  // the no-input Co-Simulation FMU alone: nothing couples it to anything, so neither request iterates
  // or estimates, whatever it can do
  for (const char* request : {"auto", "auto:fast"}) {
    const auto run = run_oscillator(request);
    EXPECT_EQ(run.stats.method, "jacobi") << request;
    EXPECT_NE(run.stats.method_choice.find("no continuous signal couples the systems"), std::string::npos)
        << run.stats.method_choice;
    EXPECT_DOUBLE_EQ(run.results->times().back(), 3.0);
  }
  EXPECT_EQ(run_oscillator_with("auto", {"systems.osc.rollback=false"}).stats.method, "jacobi");
  EXPECT_NE(error_of([] { auto_on_b4("auto:best", {}); }).find("\"auto\" (the most accurate method) or \"auto:fast\""),
            std::string::npos);
}

TEST(Emulation, MethodAutoRunsEveryExample) {
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".json") continue;
    for (const char* request : {"auto", "auto:fast"}) {
      scenario::Scenario scenario = scenario::load_scenario(entry.path(), {fmt::format("method.type={}", request)});
      scenario.run.stop = scenario.run.start + std::min(scenario.run.stop - scenario.run.start, 20 * scenario.run.dt);
      const auto run = scenario::run_scenario(scenario);
      EXPECT_FALSE(run.stats.method_choice.empty()) << entry.path();
      EXPECT_DOUBLE_EQ(run.stats.end_time, scenario.run.stop) << entry.path() << " " << request;
    }
  }
}

// --- output derivatives from the interface history (a system that cannot vary its step) -----------

/// LinearPair as a fixed-step black box: no variable steps, input interpolation or derivatives.
std::unique_ptr<System> fixed_step_linear_pair() {
  auto system = bare_linear_pair();
  system->withhold(Capability::variable_step);
  return system;
}

/// u ≡ 1: the closed form holds at every communication point.
InputPolynomials constant_input() {
  InputPolynomials u = InputPolynomials::Zero(1, kInputCoefficients);
  u(0, 0) = 1.0;
  return u;
}

/// y', y'', y''' of LinearPair under u ≡ 1 at t: C A^(d−1) (A x + B u).
Eigen::Vector3d exact_output_derivatives(double t) {
  const LinearPair model;
  Eigen::Vector2d dx = model.A * model.solution(t, constant_input()) + model.B;
  Eigen::Vector3d d;
  for (int k = 0; k < 3; ++k, dx = model.A * dx) d(k) = model.C * dx;
  return d;
}

/// The emulated y', y'', y''' at time().
Eigen::Vector3d emulated_derivatives(const System& system) {
  Eigen::Vector3d d;
  Eigen::VectorXd dy(1);
  for (int k = 1; k <= 3; ++k) {
    system.output_derivatives(k, dy);
    d(k - 1) = dy(0);
  }
  return d;
}

void step_under(System& system, const InputPolynomials& u, double h) {
  system.set_inputs(u);
  ASSERT_TRUE(system.do_step(h).ok());
}

TEST(Emulation, HistoryDerivativesOfAFixedStepSystemConvergeAtTheStatedOrders) {
  // With 4 points y' is third, y'' second, y''' first order in the step, on equal steps and on steps
  // that vary (factors 0.6, 1.4, 1 of h in turn: the same geometry at t = 1 for every h)
  for (const bool varying : {false, true}) {
    std::vector<double> steps;
    std::array<std::vector<double>, 3> errors;
    for (const int n : {24, 48, 96}) {
      const double h = 1.0 / n;
      EmulatedSystem system(fixed_step_linear_pair(), kEmulable, {});
      ASSERT_EQ(system.emulation_substeps(), 1);
      ASSERT_EQ(system.derivative_source(), DerivativeSource::history);
      ASSERT_EQ(system.max_output_derivative_order(), 3);
      system.initialize(0.0);
      for (int k = 0; k < n; ++k) {
        step_under(system, constant_input(), varying ? h * std::array{0.6, 1.4, 1.0}[k % 3] : h);
      }
      ASSERT_NEAR(system.time(), 1.0, 1e-12);
      const Eigen::Vector3d error = (emulated_derivatives(system) - exact_output_derivatives(system.time())).cwiseAbs();
      std::cout << fmt::format("{} steps h = 1/{}: |Δy'| = {:.3e}, |Δy''| = {:.3e}, |Δy'''| = {:.3e}\n",
                               varying ? "varying" : "equal", n, error(0), error(1), error(2));
      steps.push_back(h);
      for (int d = 0; d < 3; ++d) errors[d].push_back(error(d));
    }
    for (int d = 0; d < 3; ++d) {
      const double order = observed_order(steps, errors[d]);
      std::cout << fmt::format("  derivative {}: observed order {:.3f} (stated {})\n", d + 1, order, 3 - d);
      EXPECT_NEAR(order, 3 - d, 0.3) << "derivative " << d + 1 << (varying ? ", varying steps" : "");
    }
  }
  // the sub-step samples of a fixed-step system (K = 1): today's (y₁ − y₀)/h, y' only
  EmulatedSystem difference(fixed_step_linear_pair(), kEmulable, {.derivatives = DerivativeSource::substeps});
  EXPECT_EQ(difference.derivative_source(), DerivativeSource::substeps);
  EXPECT_EQ(difference.max_output_derivative_order(), 1);
  // a system with variable steps keeps its sub-steps unless the history is asked for
  EXPECT_EQ(EmulatedSystem(bare_linear_pair(), kEmulable, {}).derivative_source(), DerivativeSource::substeps);
  EmulatedSystem asked(bare_linear_pair(), kEmulable, {.derivatives = DerivativeSource::history});
  EXPECT_EQ(asked.derivative_source(), DerivativeSource::history);
  EXPECT_EQ(asked.max_output_derivative_order(), 3);
}

TEST(Emulation, HistoryFillsStepByStepAndComesBackWithARestoredSnapshot) {
  const double h = 0.05;
  EmulatedSystem straight(fixed_step_linear_pair(), kEmulable, {}), detour(fixed_step_linear_pair(), kEmulable, {});
  straight.initialize(0.0);
  detour.initialize(0.0);
  EXPECT_EQ(emulated_derivatives(straight), Eigen::Vector3d::Zero()) << "no sample before the first step";
  for (int k = 1; k <= 4; ++k) {
    step_under(straight, constant_input(), h);
    step_under(detour, constant_input(), h);
    // k + 1 points: derivatives up to order k, the higher ones 0 until the history holds enough
    const Eigen::Vector3d d = emulated_derivatives(straight);
    for (int order = 1; order <= 3; ++order) {
      EXPECT_EQ(d(order - 1) != 0.0, order <= k) << k << " steps, order " << order;
    }
  }
  // probes from a snapshot, as MISSILES's black-box estimator takes them, then the real step
  const StateId id = detour.save_state();
  for (const double scale : {3.0, -2.0}) {
    step_under(detour, constant_input() * scale, h);
    EXPECT_NE(emulated_derivatives(detour), emulated_derivatives(straight));
    detour.restore_state(id);
    EXPECT_EQ(emulated_derivatives(detour), emulated_derivatives(straight)) << "restored with the state";
  }
  for (int k = 0; k < 3; ++k) {
    step_under(straight, constant_input(), h);
    step_under(detour, constant_input(), h);
    EXPECT_EQ(emulated_derivatives(detour), emulated_derivatives(straight)) << "bitwise, step " << k;
  }
  detour.release_state(id);
}

/// x' = −x, y = x, x(0) = 1, kicked x += 1 by a time event at t = 1/2: smooth on either side.
class Kicked final : public OdeModel {
 public:
  static constexpr double kKick = 0.5;
  Kicked() : OdeModel("test.kicked", {.states = {"x"}, .outputs = {"y"}}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Ones(1); }
  void derivatives(double /*t*/, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef dx) const override { dx = -x; }
  void outputs(double /*t*/, ConstVectorRef x, ConstVectorRef /*u*/, VectorRef y) const override { y = x; }
  [[nodiscard]] double next_time_event(double t) const override {
    return t < kKick ? kKick : std::numeric_limits<double>::infinity();
  }
  EventOutcome handle_event(double /*t*/, VectorRef x, ConstVectorRef /*u*/, const EventCause& /*cause*/) override {
    x(0) += 1.0;
    return {.states_changed = true};
  }
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<Kicked>(*this); }
  /// y at t, and every derivative of y is ±y.
  static double exact(double t) { return t < kKick ? std::exp(-t) : (std::exp(-kKick) + 1.0) * std::exp(kKick - t); }
};

TEST(Emulation, AfterAnEventTheHistoryRestartsFromTheRightLimits) {
  auto inner = tight_native("kicked", std::make_unique<Kicked>());
  inner->withhold(Capability::variable_step);
  inner->withhold(Capability::output_derivatives);
  EmulatedSystem system(std::move(inner), kEmulable, {});
  const double h = 1.0 / 16;  // the grid lands on the kick
  const InputPolynomials none(0, kInputCoefficients);
  system.initialize(0.0);
  for (int k = 0; k < 8; ++k) step_under(system, none, h);
  ASSERT_TRUE(system.event_pending());
  ASSERT_TRUE(system.handle_pending_events().ok());
  EXPECT_EQ(emulated_derivatives(system), Eigen::Vector3d::Zero()) << "nothing after the jump yet";
  for (int k = 1; k <= 3; ++k) {
    step_under(system, none, h);
    const double t = system.time(), y = Kicked::exact(t);
    const Eigen::Vector3d d = emulated_derivatives(system);
    const Eigen::Vector3d relative = (d - Eigen::Vector3d(-y, y, -y)).cwiseAbs() / y;
    std::cout << fmt::format("{} step(s) after the kick: relative errors {:.2e} {:.2e} {:.2e}\n", k, relative(0),
                             relative(1), relative(2));
    // k + 1 points from the right limit on: order k + 1 − d for d ≤ k, 0 above
    for (int order = k + 1; order <= 3; ++order) EXPECT_EQ(d(order - 1), 0.0) << k << " steps, order " << order;
    if (k == 1) {
      EXPECT_LT(relative(0), h / 2 * 1.1) << "(y₁ − y₀⁺)/h: the jump is not differenced";
    }
    if (k == 3) {
      EXPECT_LT(relative(0), 1e-4);
      EXPECT_LT(relative(1), 1e-2);
      EXPECT_LT(relative(2), 0.15);
    }
  }
}

TEST(Emulation, TheDerivativeSourceIsAScenarioOption) {
  const auto parse = [](const std::string& source) {
    return scenario::parse_scenario(cosima::io::Json::parse(fmt::format(R"({{
        "start": 0, "stop": 1, "method": {{"type": "jacobi", "dt": 0.1}},
        "systems": {{"prey": {{"model": "b3.prey", "emulation_derivatives": {}}}}},
        "inputs": {{"prey.q": 1}}}})",
                                                                        source)),
                                    kExamples / "inline.json");
  };
  EXPECT_EQ(parse(R"("history")").systems.at(0).emulation_derivatives, DerivativeSource::history);
  EXPECT_EQ(parse(R"("substeps")").systems.at(0).emulation_derivatives, DerivativeSource::substeps);
  const std::string what = error_of([&] { parse(R"("cubic")"); });
  EXPECT_NE(what.find("'systems.prey.emulation_derivatives' is \"cubic\": \"substeps\""), std::string::npos) << what;
  EXPECT_NE(error_of([&] { parse("3"); }).find("emulation_derivatives' is 3"), std::string::npos);
}

/// B3 with variable_step, interpolate_inputs and output_derivatives withheld on both systems (fixed-step
/// systems, K = 1): the emulated derivatives from the history against today's (y₁ − y₀)/h, at δt = 0.01,
/// mean NL2 against the monolithic reference at δt/10.
class EmulationB3FixedStep : public ::testing::Test {
 protected:
  static constexpr double kDt = 0.01;
  static scenario::ScenarioRun run(const std::string& source, const std::vector<std::string>& method, bool black_box) {
    std::vector<std::string> o = method;
    o.emplace_back("output.variables=[]");
    for (const char* system : {"prey", "predator"}) {
      std::vector<const char*> withheld = {"variable_step", "interpolate_inputs", "output_derivatives"};
      if (black_box) withheld.insert(withheld.end(), {"state_access", "linearization"});
      for (const char* c : withheld) o.push_back(fmt::format("systems.{}.{}=false", system, c));
      o.push_back(fmt::format("systems.{}.emulation_derivatives={}", system, source));
    }
    scenario::Scenario scenario = scenario::load_scenario(kExamples / "b3_lotka_volterra.json", o);
    scenario.run.dt = kDt;
    return scenario::run_scenario(scenario);
  }
  static double error(const scenario::ScenarioRun& r) {
    static const scenario::ScenarioRun reference = [] {
      scenario::Scenario scenario =
          scenario::load_scenario(kExamples / "b3_lotka_volterra.json", {"method.type=monolithic"});
      scenario.run.dt = kDt / 10;
      return scenario::run_scenario(scenario);
    }();
    return scenario::mean_nl2(r, reference);
  }
  static void print(const std::string& label, const scenario::ScenarioRun& r) {
    std::cout << fmt::format("  {:<34} {:.6e}  {} integrations\n", label, error(r), r.stats.integrations);
  }
};

TEST_F(EmulationB3FixedStep, MissilesProbingWithHistoryDerivativesIsFourTimesMoreAccurate) {
  // states and linearization withheld as well: MISSILES estimates each system by probes with restore,
  // whose ŷ' at t_N + h is the emulated derivative (the history comes back with every restore)
  const std::vector<std::string> missiles = {"method.type=missiles"};
  const scenario::ScenarioRun difference = run("substeps", missiles, true), history = run("history", missiles, true);
  std::cout << fmt::format("B3 δt = {:g}, MISSILES probing fixed-step black boxes:\n", kDt);
  print("(y₁ − y₀)/h", difference);
  print("history (4 points)", history);
  EXPECT_EQ(history.stats.integrations, difference.stats.integrations) << "the history costs no integration";
  // measured 1.556e-7 → 3.736e-8 (×4.16; ×4.10 at δt = 0.02 and ×4.20 at 0.005: both third order)
  EXPECT_LT(error(history), error(difference) / 3);
}

TEST_F(EmulationB3FixedStep, DefectJacobiGetsItsOutputOrderFromTheHistory) {
  // the fixed-step variant reads y^(n) at every communication point for its Taylor inputs (seed 004,
  // eq. 14–15); with (y₁ − y₀)/h only n = 1 is available, and a worse one
  const auto defect = [](int order) {
    return std::vector<std::string>{"method.type=defect-jacobi", "method.fixed=true", fmt::format("method.m={}", order),
                                    fmt::format("method.n={}", order)};
  };
  const scenario::ScenarioRun difference = run("substeps", defect(1), false),
                              history = run("history", defect(1), false), third = run("history", defect(3), false);
  std::cout << fmt::format("B3 δt = {:g}, defect-jacobi (fixed step) on fixed-step systems:\n", kDt);
  print("m = n = 1, (y₁ − y₀)/h", difference);
  print("m = n = 1, history", history);
  print("m = n = 3, history", third);
  // measured 7.364e-5, 3.782e-5, 3.401e-5
  EXPECT_LT(error(history), error(difference) / 1.7);
  EXPECT_LT(error(third), error(history));
  const std::string what = error_of([&] { run("substeps", defect(3), false); });
  EXPECT_NE(what.find("provides output derivatives up to order 1, output order n = 3"), std::string::npos) << what;
}
}  // namespace
}  // namespace cosima
