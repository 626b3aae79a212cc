// FMI 1.0 import (label ecosystem): the two-mass oscillator and a bouncing ball as FMI 1.0 Model
// Exchange and Co-Simulation FMUs written from the FMI 1.0 documents (tests/fmus/fmi1), run against
// the same models as FMI 2.0 FMUs (tests/fmus/coupled) under every method.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "exec/process_executor.hpp"
#include "fmi/common/model_description.hpp"
#include "fmi/fmu_info.hpp"
#include "scenario/executors.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;

const std::filesystem::path kFmus = COSIMA_C_FMU_DIR;

std::string fmu(const std::string& name) { return (kFmus / (name + ".fmu")).string(); }

/// The two-mass oscillator, FMI 1.0 ("fmi1") or FMI 2.0 ("fmi2"), through `interface` (cs, me).
io::Json dual_mass(const std::string& version, const std::string& interface) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 0.1, "method": {"type": "jacobi", "dt": 1e-3},
    "connections": [["m1.s1_out", "m2.s1"], ["m1.v1_out", "m2.v1"], ["m1.a1_out", "m2.a1"], ["m2.F", "m1.F"]],
    "output": {"variables": ["m1.s1_out", "m2.F"]}})");
  for (const std::string mass : {"mass1", "mass2"}) {
    const std::string name =
        version == "fmi1" ? fmt::format("cosima_test_fmi1_{}_{}", mass, interface) : "cosima_test_" + mass;
    doc["systems"][mass == "mass1" ? "m1" : "m2"] = {{"fmu", fmu(name)}, {"interface", interface}};
  }
  return doc;
}

scenario::ScenarioRun run(io::Json doc, const std::vector<std::string>& overrides, exec::Executor* executor = nullptr) {
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  return scenario::run_scenario(scenario::parse_scenario(doc, "inline.json"), executor);
}

/// F(0) = c2 (s2 − s1) + d2 (v2 − v1) = 100 · 0.5 when mass 2 started from the exchanged s1 (its
/// initial equation s2 = s1 + offset); 100 · (0.5 − 1) had it seen s1's start value 0.
void expect_exchanged_start(const scenario::ScenarioRun& r, const std::string& label) {
  ASSERT_FALSE(r.results->column("m2.F").empty()) << label;
  EXPECT_NEAR(r.results->column("m2.F").front(), 50.0, 1e-12) << label;
}

// --- the description -----------------------------------------------------------------------------

const char* kDescription = R"(<?xml version="1.0"?>
<fmiModelDescription fmiVersion="1.0" modelName="m" modelIdentifier="m" guid="{1}" numberOfContinuousStates="1"
                     numberOfEventIndicators="2">
  <TypeDefinitions>
    <Type name="Mode"><EnumerationType><Item name="off"/><Item name="on"/></EnumerationType></Type>
    <Type name="Length"><RealType unit="m" nominal="10"/></Type>
  </TypeDefinitions>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="0"><Real declaredType="Length" start="1" fixed="false"/></ScalarVariable>
    <ScalarVariable name="k" valueReference="1" variability="parameter"><Real start="2"/></ScalarVariable>
    <ScalarVariable name="u" valueReference="2" causality="input"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="w" valueReference="3" causality="input"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="4" causality="output"><Real/><DirectDependency><Name>u</Name></DirectDependency></ScalarVariable>
    <ScalarVariable name="minus_y" valueReference="4" causality="output" alias="negatedAlias"><Real/></ScalarVariable>
    <ScalarVariable name="mode" valueReference="0" causality="output" variability="discrete"><Enumeration declaredType="Mode"/></ScalarVariable>
  </ModelVariables>
  %IMPLEMENTATION%
</fmiModelDescription>)";

std::string description(const std::string& implementation) {
  std::string xml = kDescription;
  xml.replace(xml.find("%IMPLEMENTATION%"), 16, implementation);
  return xml;
}

TEST(Fmi1Description, RolesAliasesDependenciesAndTheInterfaceMapOntoTheNeutralForm) {
  const fmi::ModelDescription md = fmi::parse_model_description(description(""), "m.fmu");
  EXPECT_TRUE(md.is_fmi1());
  ASSERT_TRUE(md.model_exchange.has_value());
  EXPECT_FALSE(md.co_simulation.has_value());
  EXPECT_EQ(md.model_exchange->model_identifier, "m");
  EXPECT_EQ(md.continuous_state_count, 1);
  EXPECT_EQ(md.event_indicator_count, 2);
  const auto& v = md.variables;
  EXPECT_EQ(v[0].causality, "local");
  EXPECT_EQ(v[0].initial, "approx") << "fixed=\"false\"";
  EXPECT_EQ(v[0].unit, "m") << "from its declared type";
  EXPECT_EQ(v[0].nominal, 10.0);
  EXPECT_EQ(v[1].causality, "parameter");
  EXPECT_EQ(v[1].variability, "fixed");
  EXPECT_EQ(v[1].initial, "exact");
  EXPECT_TRUE(v[5].negated_alias);
  EXPECT_FALSE(v[4].negated_alias);
  const fmi::SimpleType* mode = md.type_of(v[6]);
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(mode->items, (std::vector<std::pair<std::string, int>>{{"off", 1}, {"on", 2}})) << "numbered from 1";
  ASSERT_EQ(md.outputs.size(), 3U);
  EXPECT_EQ(md.outputs[0].dependencies, std::vector<int>{3}) << "y's DirectDependency: u only";
  EXPECT_FALSE(md.outputs[1].dependencies.has_value()) << "none listed: every input";

  const fmi::ModelDescription cs = fmi::parse_model_description(
      description(
          R"(<Implementation><CoSimulation_StandAlone><Capabilities canHandleVariableCommunicationStepSize="true"
          canInterpolateInputs="true" maxOutputDerivativeOrder="2"/></CoSimulation_StandAlone></Implementation>)"),
      "m.fmu");
  ASSERT_TRUE(cs.co_simulation.has_value());
  EXPECT_FALSE(cs.model_exchange.has_value());
  EXPECT_TRUE(cs.co_simulation->can_handle_variable_step);
  EXPECT_TRUE(cs.co_simulation->can_interpolate_inputs);
  EXPECT_EQ(cs.co_simulation->max_output_derivative_order, 2);
  EXPECT_FALSE(cs.co_simulation->needs_execution_tool);
  const fmi::ModelDescription tool =
      fmi::parse_model_description(description("<Implementation><CoSimulation_Tool/></Implementation>"), "m.fmu");
  EXPECT_TRUE(tool.co_simulation->needs_execution_tool);
}

TEST(Fmi1Description, EachDefectNamesTheFmuAndTheElement) {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{R"(alias="negatedAlias")", R"(alias="negated")"}, "alias=\"negated\" is none of"},
      {{"<Name>u</Name>", "<Name>k</Name>"}, "DirectDependency names 'k', which is not an input"},
      {{R"(variability="parameter")", R"(variability="fixed")"}, "unknown variability \"fixed\""},
      {{R"(causality="input")", R"(causality="parameter")"}, "unknown causality \"parameter\""},
      {{R"(modelIdentifier="m")", R"(modelIdentifier="1m")"}, "modelIdentifier=\"1m\" is not a C identifier"},
      {{R"(numberOfContinuousStates="1")", R"(numberOfContinuousStates="-1")"}, "numberOfContinuousStates"},
  };
  for (const auto& [edit, expected] : cases) {
    std::string xml = description("");
    xml.replace(xml.find(edit.first), edit.first.size(), edit.second);
    const std::string what = error_of([&] { (void)fmi::parse_model_description(xml, "m.fmu"); });
    EXPECT_NE(what.find("m.fmu: modelDescription.xml: "), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

TEST(Fmi1Description, InfoShowsTheVersionAndTheNegatedAliases) {
  const std::string info = fmi::describe_fmu(fmu("cosima_test_fmi1_mass1_me"));
  EXPECT_NE(info.find("(FMI 1.0, "), std::string::npos) << info;
  EXPECT_NE(info.find("states      2"), std::string::npos) << info;
  EXPECT_NE(info.find("(negated alias of "), std::string::npos) << info;
}

// --- Co-Simulation -------------------------------------------------------------------------------

TEST(Fmi1, CoSimulationPairEqualsTheFmi2PairBitwiseUnderTheExplicitMethods) {
  const std::vector<std::vector<std::string>> methods = {{"method.type=jacobi"},
                                                         {"method.type=gauss-seidel"},
                                                         {"method.type=jacobi", "method.extrapolation=choptrey"},
                                                         {"method.type=defect-jacobi", "method.tol=1e-4"}};
  for (const auto& method : methods) {
    const scenario::ScenarioRun v1 = run(dual_mass("fmi1", "cs"), method);
    const scenario::ScenarioRun v2 = run(dual_mass("fmi2", "cs"), method);
    const std::string& label = method.back();
    expect_exchanged_start(v1, label);
    EXPECT_EQ(v1.results->column("m1.s1_out"), v2.results->column("m1.s1_out")) << label;
    EXPECT_EQ(v1.results->column("m2.F"), v2.results->column("m2.F")) << label;
  }
}

TEST(Fmi1, CoSimulationWithoutRollbackOrStatesIsRefusedByTheIterativeMethodsNamingWhatLacks) {
  for (const std::string method : {"ifosmondi", "ifosmondi-jfm", "missiles"}) {
    const std::string what = error_of([&] { (void)run(dual_mass("fmi1", "cs"), {"method.type=" + method}); });
    EXPECT_NE(what.find("system 'm1' lacks state_access"), std::string::npos) << method << ": " << what;
  }
  const scenario::ScenarioRun chosen = run(dual_mass("fmi1", "cs"), {"method.type=auto"});
  expect_exchanged_start(chosen, "auto");
  EXPECT_EQ(chosen.stats.method, "jacobi");
}

TEST(Fmi1, EveryExecutorGivesTheSameRun) {
  const io::Json doc = dual_mass("fmi1", "cs");
  const scenario::ScenarioRun sequential = run(doc, {});
  exec::ThreadPoolExecutor threads(2, exec::ThreadPoolExecutor::Sharing::always);
  const scenario::ScenarioRun threaded = run(doc, {}, &threads);
  const scenario::Scenario scenario = scenario::parse_scenario(doc, "inline.json");  // the catalog refers to it
  const exec::SystemCatalog catalog = scenario::system_catalog(scenario);
  exec::ProcessExecutor processes(catalog, exec::ProcessOptions{});
  const scenario::ScenarioRun forked = run(doc, {}, &processes);
  for (const scenario::ScenarioRun* other : {&threaded, &forked}) {
    EXPECT_EQ(other->results->column("m2.F"), sequential.results->column("m2.F"));
    EXPECT_EQ(other->results->column("m1.s1_out"), sequential.results->column("m1.s1_out"));
  }
}

// --- Model Exchange ------------------------------------------------------------------------------

TEST(Fmi1, ModelExchangePairMatchesTheFmi2PairUnderEveryMethod) {
  // bitwise where neither pair rolls back; the FMI 2.0 masses roll back by their FMU state, the FMI 1.0
  // ones have none (COSTARICA estimates them): the same solution to the methods' tolerances. MISSILES
  // linearizes the FMI 1.0 masses by finite differences, the FMI 2.0 ones by their directional
  // derivatives: its estimates differ by that, and each run is 1.4e-9 / 3.1e-9 off the exact solution
  // (CVODE keeping its history across the C¹ interface, at the masses' rtol 1e-8)
  const std::vector<std::pair<std::string, double>> methods = {
      {"jacobi", 0.0},     {"gauss-seidel", 0.0},   {"defect-jacobi", 0.0}, {"monolithic", 0.0},
      {"ifosmondi", 1e-8}, {"ifosmondi-jfm", 1e-8}, {"missiles", 5e-9},     {"auto", 0.0}};
  for (const auto& [method, bound] : methods) {
    const scenario::ScenarioRun v1 = run(dual_mass("fmi1", "me"), {"method.type=" + method});
    const scenario::ScenarioRun v2 = run(dual_mass("fmi2", "me"), {"method.type=" + method});
    expect_exchanged_start(v1, method);
    const auto s1 = v1.results->column("m1.s1_out"), s1_v2 = v2.results->column("m1.s1_out");
    ASSERT_EQ(s1.size(), s1_v2.size()) << method;
    if (bound == 0.0) {
      EXPECT_EQ(s1, s1_v2) << method;
      EXPECT_EQ(v1.results->column("m2.F"), v2.results->column("m2.F")) << method;
    }
    for (std::size_t k = 0; k < s1.size(); ++k) EXPECT_NEAR(s1[k], s1_v2[k], bound) << method << " row " << k;
  }
}

TEST(Fmi1, NegatedAliasesAndAliasesAreReadThroughTheirValueReference) {
  for (const std::string interface : {"cs", "me"}) {
    io::Json doc = dual_mass("fmi1", interface);
    doc["output"]["variables"] = {"m1.s1_out", "m1.minus_s1_out", "m1.s1", "m1.x1", "m2.minus_s2_out", "m2.s2_out"};
    const scenario::ScenarioRun r = run(doc, {});
    const auto s1 = r.results->column("m1.s1_out"), minus_s1 = r.results->column("m1.minus_s1_out");
    const auto state = r.results->column("m1.s1"), alias = r.results->column("m1.x1");
    ASSERT_EQ(s1.size(), 101U) << interface;
    for (std::size_t k = 0; k < s1.size(); ++k) {
      EXPECT_EQ(minus_s1[k], -s1[k]) << interface << " row " << k;
      EXPECT_EQ(alias[k], state[k]) << interface << " row " << k;
    }
    EXPECT_EQ(r.results->column("m2.minus_s2_out").front(), -1.5) << interface << ": s2(0) = s1(0) + offset";
  }
}

TEST(Fmi1, TheBallBouncesAtItsStateEventAndMeetsItsTimeEvent) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 1, "method": {"type": "jacobi", "dt": 1e-3},
      "output": {"variables": ["ball.h", "ball.v", "ball.bounces", "ball.phase"]}})");
  doc["systems"]["ball"] = {{"fmu", fmu("cosima_test_fmi1_ball_me")}};
  const scenario::ScenarioRun r = run(doc, {});
  const double g = 9.81, e = 0.7, t1 = std::sqrt(2.0 / g), v1 = e * g * t1;
  const auto times = r.results->times();
  const auto h = r.results->column("ball.h"), bounces = r.results->column("ball.bounces");
  const auto phase = r.results->column("ball.phase");
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    const double exact = t < t1 ? 1.0 - g * t * t / 2 : v1 * (t - t1) - g * (t - t1) * (t - t1) / 2;
    EXPECT_NEAR(h[k], exact, 1e-5) << "t = " << t;
    EXPECT_EQ(bounces[k], t < t1 ? 0.0 : 1.0) << "t = " << t;
    EXPECT_EQ(phase[k], t < 0.5 ? 0.0 : 1.0) << "t = " << t;
  }
}

// --- exporters' FMI 1.0 event models (tests/fmus/event_counter, event_values, duplicate, stop) -----

/// One FMU alone over [0, stop] at dt, through `interface`, every output recorded.
scenario::ScenarioRun run_alone(const std::string& name, const std::string& interface, double stop, double dt,
                                exec::Executor* executor = nullptr) {
  io::Json doc = io::Json::object();
  doc["start"] = 0.0;
  doc["stop"] = stop;
  doc["method"] = {{"type", "jacobi"}, {"dt", dt}};
  doc["systems"]["s"] = {{"fmu", fmu(name)}, {"interface", interface}};
  return run(doc, {}, executor);
}

/// Every column and row of two runs equal (numbers and texts).
void expect_same_rows(const scenario::ScenarioRun& a, const scenario::ScenarioRun& b, const std::string& what) {
  ASSERT_EQ(a.results->labels(), b.results->labels()) << what;
  ASSERT_EQ(a.results->times(), b.results->times()) << what;
  for (std::size_t c = 0; c < a.results->labels().size(); ++c) {
    for (std::size_t r = 0; r < a.results->times().size(); ++r) {
      if (a.results->is_text(c)) {
        EXPECT_EQ(a.results->text(r, c), b.results->text(r, c))
            << what << ' ' << a.results->labels()[c] << " row " << r;
      } else {
        EXPECT_EQ(a.results->value(r, c), b.results->value(r, c))
            << what << ' ' << a.results->labels()[c] << " row " << r;
      }
    }
  }
}

// ME §2.6: fmiInitialize's eventInfo says the initial event iteration converged, so no fmiEventUpdate
// follows it (one would add 1: the counter read 2 at t = 0 and the run ended at t = 11)
TEST(Fmi1Events, TheCounterCountsOnlyItsTimeEventsAndEndsTheRunAt12AsItsFmi2BuildDoes) {
  const scenario::ScenarioRun me1 = run_alone("cosima_test_fmi1_counter_me", "me", 15.0, 1.0);
  const scenario::ScenarioRun me2 = run_alone("cosima_test_event_counter", "me", 15.0, 1.0);
  const std::vector<double> counter = me1.results->column("s.counter");
  ASSERT_EQ(counter.size(), 13u);  // t = 0 … 12
  for (std::size_t k = 0; k < counter.size(); ++k) EXPECT_EQ(counter[k], std::min(k + 1, std::size_t{12})) << k;
  EXPECT_TRUE(me1.stats.terminated_early);
  expect_same_rows(me1, me2, "FMI 1.0 ME vs FMI 2.0 ME");
  // Co-Simulation: FMI 1.0 has no fmiTerminated; a slave that discards the step ends the run at
  // fmiLastSuccessfulTime (it failed the run before)
  const scenario::ScenarioRun cs1 = run_alone("cosima_test_fmi1_counter_cs", "cs", 15.0, 1.0);
  const scenario::ScenarioRun cs2 = run_alone("cosima_test_event_counter", "cs", 15.0, 1.0);
  expect_same_rows(cs1, cs2, "FMI 1.0 CS vs FMI 2.0 CS");
  EXPECT_EQ(cs1.results->column("s.counter"), counter);
  EXPECT_NE(cs1.stats.termination_reason.find("fmiDiscard"), std::string::npos) << cs1.stats.termination_reason;
}

// discrete states of every type and discrete inputs: an event update only at the time events
// (event_updates counts them), aliases and negated aliases read as their variables
TEST(Fmi1Events, DiscreteStatesOfEveryTypeAndAliasesOfInputsMatchTheFmi2Build) {
  for (const std::string interface : {"me", "cs"}) {
    const scenario::ScenarioRun v1 = run_alone("cosima_test_fmi1_values_" + interface, interface, 4.0, 0.5);
    const scenario::ScenarioRun v2 = run_alone("cosima_test_event_values", interface, 4.0, 0.5);
    expect_same_rows(v1, v2, "values, FMI 1.0 vs FMI 2.0, " + interface);
    const std::vector<double> updates = v1.results->column("s.event_updates");
    for (std::size_t r = 0; r < updates.size(); ++r) EXPECT_EQ(updates[r], std::floor(0.5 * r)) << interface << r;
    EXPECT_EQ(v1.results->column("s.real_out").back(), 2.5);  // the output alias of the input real_in
  }
  const std::string info = fmi::describe_fmu(fmu("cosima_test_fmi1_values_me"));
  EXPECT_NE(info.find("(alias of 'real_in')"), std::string::npos) << info;
  EXPECT_NE(info.find("(negated alias of 'x')"), std::string::npos) << info;
  EXPECT_NE(info.find("(alias of 'p')"), std::string::npos) << info;
}

// a name declared twice (a hand-written FMI 1.0 controller of a peer's demo): run with a warning,
// the first declaration used; a scenario that sets that name is refused
TEST(Fmi1Events, AnFmuDeclaringANameTwiceRunsWithAWarningAndRefusesToBeSetByIt) {
  const scenario::ScenarioRun r = run_alone("cosima_test_fmi1_duplicate_me", "me", 3.0, 1.0);
  EXPECT_EQ(r.results->times().size(), 4u);
  bool warned = false;
  for (const auto& w : logged_warnings())
    warned = warned || w.find("'p_part' is declared twice (variables 7 and 10") != std::string::npos;
  EXPECT_TRUE(warned);
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 1, "method": {"type": "jacobi", "dt": 0.5}})");
  doc["systems"]["s"] = {{"fmu", fmu("cosima_test_fmi1_duplicate_me")}, {"parameters", {{"i_part", 1.0}}}};
  const std::string error = error_of([&] { (void)run(doc, {}); });
  EXPECT_NE(error.find("'i_part' is declared twice"), std::string::npos) << error;
  // a port declared twice stays refused: which one a connection means would be a guess
  const std::string xml = R"(<?xml version="1.0"?>
<fmiModelDescription fmiVersion="1.0" modelName="m" modelIdentifier="m" guid="{1}" numberOfContinuousStates="0">
  <ModelVariables>
    <ScalarVariable name="y" valueReference="0" causality="output"><Real/></ScalarVariable>
    <ScalarVariable name="y" valueReference="1" causality="internal"><Real/></ScalarVariable>
  </ModelVariables>
</fmiModelDescription>)";
  const std::string twice = error_of([&] { (void)fmi::parse_model_description(xml, "m.fmu"); });
  EXPECT_NE(twice.find("two variables are named 'y'"), std::string::npos) << twice;
}

// the last rows of a run an FMU ends are the same under every executor
TEST(Fmi1Events, RunsAnFmuEndsAreTheSameUnderEveryExecutor) {
  for (const auto& [name, interface] :
       std::vector<std::pair<std::string, std::string>>{{"cosima_test_fmi1_counter_me", "me"},
                                                        {"cosima_test_fmi1_counter_cs", "cs"},
                                                        {"cosima_test_event_counter", "me"},
                                                        {"cosima_test_event_counter", "cs"},
                                                        {"cosima_test_stop", "me"},
                                                        {"cosima_test_fmi1_stop_cs", "cs"}}) {
    const scenario::ScenarioRun sequential = run_alone(name, interface, 15.0, 1.0);
    io::Json doc = io::Json::object();
    doc["systems"]["s"] = {{"fmu", fmu(name)}, {"interface", interface}};
    const scenario::Scenario scenario = scenario::parse_scenario(doc, "inline.json");
    const exec::SystemCatalog catalog = scenario::system_catalog(scenario);
    exec::ProcessExecutor processes(catalog, exec::ProcessOptions{});
    const scenario::ScenarioRun apart = run_alone(name, interface, 15.0, 1.0, &processes);
    expect_same_rows(sequential, apart, name + " " + interface + ": sequential vs processes");
    EXPECT_EQ(sequential.stats.termination_reason, apart.stats.termination_reason);
    // the FMU alone: its last row is where it stopped (12.5: between the communication points 12 and
    // 13 — fmiLastSuccessfulTime, terminateSimulation at its time event), as fmusim and FMPy write it
    EXPECT_EQ(sequential.results->times().back(), name.find("stop") != std::string::npos ? 12.5 : 12.0) << name;
  }
}

}  // namespace
}  // namespace cosima
