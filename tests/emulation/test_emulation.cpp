// Capability emulation (issue: every method on every FMU): a system lacking input interpolation or
// output derivatives takes part in every method through system/emulation/, at a stated cost.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/test_models.hpp"
#include "test_support.hpp"

#include "core/metrics.hpp"
#include "methods/method_choice.hpp"
#include "methods/method_factory.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "system/emulation/emulated_system.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;
const std::filesystem::path kTestFmus = COSIMA_C_FMU_DIR;
using testing::error_of;
using testing::LinearPair;

/// LinearPair (closed form) integrated tightly, without interpolation and output derivatives of its own.
std::unique_ptr<System> bare_linear_pair() {
  IntegratorOptions tight;
  tight.rtol = 1e-13;
  tight.atol = 1e-15;
  auto system = std::make_unique<NativeSystem>("pair", std::make_unique<LinearPair>(), make_integrator("dopri5", tight));
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

TEST(Emulation, SubStepMeansAreSecondOrderAndDerivativesFollowTheClosedForm) {
  const double h = 0.2;
  std::vector<double> deltas, value_errors, derivative_errors;
  for (int k : {2, 4, 8, 16}) {
    const OneStep e = one_step(k, h);
    deltas.push_back(h / k);
    value_errors.push_back(e.state_error);
    derivative_errors.push_back(e.derivative_error);
    std::cout << fmt::format("K = {:2}: |y − y*| = {:.3e}, |y' − y'*| = {:.3e}\n", k, e.state_error, e.derivative_error);
  }
  EXPECT_NEAR(observed_order(deltas, value_errors), 2.0, 0.25) << "the mean per sub-step is a midpoint rule";
  EXPECT_GE(observed_order(deltas, derivative_errors), 1.8);
  EXPECT_LT(derivative_errors.back(), 1e-4);
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

TEST(Emulation, OnlyWhatIsUsedIsRequired) {
  // a system without inputs interpolates trivially; what a method reads and it lacks is emulated,
  // and only that
  const SystemSpec spec{.name = "osc", .fmu = kTestFmus / "cosima_test_oscillator.fmu"};
  const std::unique_ptr<System> fmu = build_system(spec);
  EXPECT_TRUE(fmu->has(Capability::interpolate_inputs));
  EXPECT_FALSE(fmu->has(Capability::output_derivatives));
  std::vector<std::string> ignored;
  const auto jacobi = make_method(nlohmann::ordered_json{{"type", "jacobi"}}, 0.1, ignored);
  const auto ifosmondi = make_method(nlohmann::ordered_json{{"type", "ifosmondi"}}, 0.1, ignored);
  EXPECT_TRUE(build_system(spec, *jacobi)->emulated_capabilities().empty()) << "Jacobi reads no derivatives";
  const CapabilitySet emulated = build_system(spec, *ifosmondi)->emulated_capabilities();
  EXPECT_TRUE(emulated.has(Capability::output_derivatives));
  EXPECT_FALSE(emulated.has(Capability::interpolate_inputs)) << "there are no inputs to interpolate";
}

/// The no-input Co-Simulation FMU alone: x_out = cos(2t) exactly at every communication point.
ScenarioRun run_oscillator_with(const std::string& method, const std::vector<std::string>& overrides) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(fmt::format(R"({{
      "name": "a Co-Simulation FMU without inputs", "start": 0, "stop": 3,
      "systems": {{"osc": {{"fmu": "{}"}}}},
      "method": {{"type": "{}", "dt": 0.05}}}})",
                                                                             (kTestFmus / "cosima_test_oscillator.fmu").string(), method));
  for (const auto& assignment : overrides) apply_override(document, assignment);
  return run_scenario(parse_scenario(document, kExamples / "inline.json"));
}

ScenarioRun run_oscillator(const std::string& method) { return run_oscillator_with(method, {}); }

TEST(Emulation, ACoSimulationFmuWithoutInputsRunsUnderEveryMethod) {
  for (const char* method : {"jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi"}) {
    const auto run = run_oscillator(method);
    const auto& times = run.results->times();
    const auto& x = run.results->column("osc.x_out");
    ASSERT_GT(times.size(), 10U) << method;
    EXPECT_DOUBLE_EQ(times.back(), 3.0) << method;
    double worst = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i) worst = std::max(worst, std::abs(x[i] - std::cos(2.0 * times[i])));
    EXPECT_LT(worst, 1e-12) << method;
    const SystemCapabilities& c = run.stats.capabilities.at(0);
    const bool reads_derivatives = std::string(method).starts_with("ifosmondi") || std::string(method) == "missiles";
    EXPECT_EQ(c.emulated.has(Capability::output_derivatives), reads_derivatives) << method;
    EXPECT_FALSE(c.emulated.has(Capability::interpolate_inputs)) << method << ": there are no inputs";
  }
  // the monolithic reference needs the equations, which a black box does not give: refused, by name
  const std::string what = error_of([&] { run_oscillator("monolithic"); });
  EXPECT_NE(what.find("system 'osc' is a black box"), std::string::npos) << what;
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
    Scenario scenario = load_scenario(kExamples / example, overrides);
    scenario.run.dt = step;
    return run_scenario(scenario);
  };
  const auto run = [&](std::vector<std::string> overrides) { return run_at(dt, std::move(overrides)); };
  const auto reference = run_at(dt / 10, {"method.type=" + reference_method});
  std::vector<std::string> withheld;
  for (const auto& system : load_scenario(kExamples / example).systems) {
    withheld.push_back(fmt::format("systems.{}.interpolate_inputs=false", system.name));
    withheld.push_back(fmt::format("systems.{}.output_derivatives=false", system.name));
  }
  const auto with = [&](std::string method, bool emulate) {
    std::vector<std::string> o = {"method.type=" + method};
    if (emulate) o.insert(o.end(), withheld.begin(), withheld.end());
    return o;
  };
  std::vector<Row> rows;
  const auto add = [&](const std::string& label, const ScenarioRun& r) {
    // the systems' own integrations: an emulating system takes K sub-steps per macro-step
    std::int64_t integrations = 0;
    for (const SystemCapabilities& c : r.stats.capabilities) integrations += r.stats.integrations / std::ssize(r.stats.capabilities) * c.substeps;
    rows.push_back({label, mean_nl2(r, reference), integrations});
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
  for (const auto& system : load_scenario(kExamples / example).systems) {
    black_box.push_back(fmt::format("systems.{}.state_access=false", system.name));
    black_box.push_back(fmt::format("systems.{}.linearization=false", system.name));
  }
  const auto probed = run(black_box);
  std::int64_t per_step = 0;
  for (const SystemSpec& spec : load_scenario(kExamples / example).systems) {
    const System& system = probed.model.system(probed.model.system_index(spec.name));
    per_step += system.input_count() > 0 ? 2 + 4 * system.input_count() : 1;
  }
  EXPECT_EQ(probed.stats.integrations, per_step * probed.stats.macro_steps) << "probes counted as integrations";
  rows.push_back({"missiles probed (outputs)", mean_nl2(probed, reference),
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
    Scenario scenario = parse_scenario(nlohmann::ordered_json::parse(fmt::format(R"({{
        "start": 0, "stop": 5, "method": {{"type": "{}", "dt": 0.01}},
        "systems": {{"osc": {{"fmu": "{}"}},
                     "prey": {{"model": "b3.prey", "integrator_options": {{"rtol": 1e-10, "atol": 1e-12}}}}}},
        "connections": [["osc.x_out", "prey.q"]]}})",
                                                                           method, (kTestFmus / "cosima_test_oscillator.fmu").string())),
                                       kExamples / "inline.json");
    return run_scenario(scenario);
  };
  const auto missiles = run_mixed("missiles"), jfm = run_mixed("ifosmondi-jfm");
  const double gap = mean_nl2(missiles, jfm);
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
MethodChoice auto_on_b4(const std::string& request, const std::vector<std::string>& withheld) {
  std::vector<std::string> overrides = {"method.type=" + request};
  overrides.insert(overrides.end(), withheld.begin(), withheld.end());
  Scenario scenario = load_scenario(kExamples / "b4_two_mass.json", overrides);
  EXPECT_TRUE(resolve_auto_method(scenario));
  return {scenario.method["type"].get<std::string>(), scenario.method_choice};
}

TEST(Emulation, MethodAutoPicksTheMostAccurateMethodTheCapabilitiesAllow) {
  EXPECT_EQ(auto_on_b4("auto", {}).type, "ifosmondi-jfm");
  // input interpolation and output derivatives are emulated: they do not change the choice
  EXPECT_EQ(auto_on_b4("auto", {"systems.left.interpolate_inputs=false", "systems.right.output_derivatives=false"}).type,
            "ifosmondi-jfm");
  // without variable steps 'left' cannot iterate; both still have states and a linearization
  const MethodChoice missiles = auto_on_b4("auto", {"systems.left.variable_step=false"});
  EXPECT_EQ(missiles.type, "missiles");
  EXPECT_NE(missiles.reason.find("'left' cannot iterate"), std::string::npos) << missiles.reason;
  const MethodChoice jacobi =
      auto_on_b4("auto", {"systems.left.variable_step=false", "systems.right.rollback=false", "systems.right.linearization=false"});
  EXPECT_EQ(jacobi.type, "jacobi");
  EXPECT_NE(jacobi.reason.find("'right' cannot be estimated"), std::string::npos) << jacobi.reason;
  // the cheaper request
  EXPECT_EQ(auto_on_b4("auto:fast", {}).type, "missiles");
  EXPECT_EQ(auto_on_b4("auto:fast", {"systems.right.state_access=false"}).type, "jacobi");
  // the no-input Co-Simulation FMU: rollback and variable steps; MISSILES integrates it without estimate
  for (const auto& [request, expected] : {std::pair{"auto", "ifosmondi-jfm"}, std::pair{"auto:fast", "missiles"}}) {
    const auto run = run_oscillator(request);
    EXPECT_EQ(run.stats.method, expected) << request;
    EXPECT_NE(run.stats.method_choice.find(expected), std::string::npos) << run.stats.method_choice;
    EXPECT_DOUBLE_EQ(run.results->times().back(), 3.0);
  }
  // without rollback the no-input FMU cannot iterate (no states and linearization for COSTARICA), but
  // MISSILES takes it
  EXPECT_EQ(run_oscillator_with("auto", {"systems.osc.rollback=false"}).stats.method, "missiles");
  EXPECT_NE(error_of([] { auto_on_b4("auto:best", {}); }).find("\"auto\" (the most accurate method) or \"auto:fast\""),
            std::string::npos);
}

TEST(Emulation, MethodAutoRunsEveryExample) {
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".json") continue;
    for (const char* request : {"auto", "auto:fast"}) {
      Scenario scenario = load_scenario(entry.path(), {fmt::format("method.type={}", request)});
      scenario.run.stop = scenario.run.start + std::min(scenario.run.stop - scenario.run.start, 20 * scenario.run.dt);
      const auto run = run_scenario(scenario);
      EXPECT_FALSE(run.stats.method_choice.empty()) << entry.path();
      EXPECT_DOUBLE_EQ(run.stats.end_time, scenario.run.stop) << entry.path() << " " << request;
    }
  }
}

}  // namespace
}  // namespace cosima
