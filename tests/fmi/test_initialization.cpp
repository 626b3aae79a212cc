// Third-party FMUs right by default (label fmi-semantics): the exchange in Initialization Mode,
// unconnected inputs at their start values, an FMU's own copies of libraries, capabilities declared
// but refused. Every FMU here is a C test FMU written from the standard (tests/fmus/).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/log.hpp"
#include "exec/executor.hpp"
#include "exec/process_executor.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "scenario/executors.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;

const std::filesystem::path kFmus = COSIMA_C_FMU_DIR;

std::string fmu(const std::string& name) { return (kFmus / (name + ".fmu")).string(); }

/// The two-mass oscillator of tests/fmus/coupled (mass 2 with or without InitialUnknowns).
io::Json dual_mass(const std::string& mass2, const std::string& interface = "cs") {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 0.1, "method": {"type": "jacobi", "dt": 1e-3},
    "connections": [["m1.s1_out", "m2.s1"], ["m1.v1_out", "m2.v1"], ["m1.a1_out", "m2.a1"], ["m2.F", "m1.F"]]})");
  doc["systems"]["m1"] = {{"fmu", fmu("cosima_test_mass1")}, {"interface", interface}};
  doc["systems"]["m2"] = {{"fmu", fmu(mass2)}, {"interface", interface}};
  return doc;
}

/// The exact solution x = (s1, v1, s2, v2) at t: exp(A t) x0, from the FMUs' parameters (their
/// start values), with s2(0) = s1(0) + offset as mass 2's initial equation says.
Eigen::Vector4d exact_dual_mass(double t) {
  const double m1 = 1, c1 = 10, d1 = 1, m2 = 1, c2 = 100, d2 = 1, c3 = 10, d3 = 1, offset = 0.5;
  Eigen::Matrix4d A;
  A << 0, 1, 0, 0,                                         //
      (-c1 - c2) / m1, (-d1 - d2) / m1, c2 / m1, d2 / m1,  //
      0, 0, 0, 1,                                          //
      c2 / m2, d2 / m2, (-c2 - c3) / m2, (-d2 - d3) / m2;
  const Eigen::Vector4d x0(1.0, 0.0, 1.0 + offset, 0.0);
  const Eigen::Matrix4d flow = (A * t).exp();
  return flow * x0;
}

double force(const Eigen::Vector4d& x) { return 100.0 * (x(2) - x(0)) + 1.0 * (x(3) - x(1)); }

scenario::ScenarioRun run(io::Json doc, const std::vector<std::string>& overrides, exec::Executor* executor = nullptr) {
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  return scenario::run_scenario(scenario::parse_scenario(doc, "inline.json"), executor);
}

struct MethodCase {
  std::string label;
  std::vector<std::string> overrides;
  double bound;  ///< |s1 − exact| at t = 0.1 with δt = 1e-3 (the method's accuracy there)
};

std::vector<MethodCase> every_method() {
  return {
      {"jacobi", {"method.type=jacobi"}, 2e-3},
      {"gauss-seidel", {"method.type=gauss-seidel"}, 2e-3},
      {"ifosmondi", {"method.type=ifosmondi", "method.epsilon=1e-8"}, 2e-4},
      {"ifosmondi-jfm", {"method.type=ifosmondi-jfm", "method.epsilon=1e-8"}, 2e-4},
      {"missiles", {"method.type=missiles"}, 2e-4},
      {"defect-jacobi", {"method.type=defect-jacobi", "method.m=1", "method.n=1", "method.tol=1e-4"}, 5e-4},
      {"choptrey", {"method.type=jacobi", "method.extrapolation=choptrey"}, 2e-3},
      {"auto", {"method.type=auto"}, 2e-3},
  };
}

/// The first row is the consistent initial state, the last within the method's accuracy.
void expect_dual_mass(const scenario::ScenarioRun& run, double bound, const std::string& label) {
  const auto s1 = run.results->column("m1.s1_out"), F = run.results->column("m2.F");
  ASSERT_FALSE(s1.empty()) << label;
  EXPECT_NEAR(s1.front(), 1.0, 1e-12) << label;
  EXPECT_NEAR(F.front(), force(exact_dual_mass(0.0)), 1e-10) << label << ": mass 2 did not start from s1 + offset";
  const Eigen::Vector4d exact = exact_dual_mass(run.results->times().back());
  EXPECT_NEAR(s1.back(), exact(0), bound) << label;
  EXPECT_NEAR(F.back(), force(exact), 1e3 * bound) << label;
  EXPECT_EQ(run.stats.initialization.newton_iterations, 0) << label;
}

TEST(Initialization, MassTwoStartsFromItsInputUnderEveryMethodWithoutInitialUnknowns) {
  // Without the exchange in Initialization Mode mass 2 starts at 0 + offset, not s1 + offset:
  // s1(0.1) is then ≈ 0.18 off, far outside every bound below.
  for (const auto& method : every_method()) {
    expect_dual_mass(run(dual_mass("cosima_test_mass2"), method.overrides), method.bound, method.label);
  }
}

TEST(Initialization, MassTwoStartsFromItsInputUnderEveryMethodWithInitialUnknowns) {
  for (const auto& method : every_method()) {
    expect_dual_mass(run(dual_mass("cosima_test_mass2_iu"), method.overrides), method.bound, method.label);
  }
}

TEST(Initialization, ModelExchangeMassesStartFromTheExchangedInputs) {
  for (const std::string label : {"jacobi", "gauss-seidel"}) {
    expect_dual_mass(run(dual_mass("cosima_test_mass2", "me"), {"method.type=" + label}), 2e-3, label + " (me)");
  }
}

TEST(Initialization, EveryExecutorGivesTheSameStart) {
  const io::Json doc = dual_mass("cosima_test_mass2");
  const scenario::ScenarioRun sequential = run(doc, {});
  exec::ThreadPoolExecutor threads(2, exec::ThreadPoolExecutor::Sharing::always);
  const scenario::ScenarioRun threaded = run(doc, {}, &threads);
  const scenario::Scenario scenario = scenario::parse_scenario(doc, "inline.json");
  const exec::SystemCatalog catalog = scenario::system_catalog(scenario);
  exec::ProcessExecutor processes(catalog, exec::ProcessOptions{});
  const scenario::ScenarioRun forked = run(doc, {}, &processes);
  for (const scenario::ScenarioRun* other : {&threaded, &forked}) {
    EXPECT_EQ(other->results->column("m2.F"), sequential.results->column("m2.F"));
    EXPECT_EQ(other->results->column("m1.s1_out"), sequential.results->column("m1.s1_out"));
  }
  expect_dual_mass(forked, 2e-3, "jacobi, processes");
}

/// Two static blocks y = k u + q u² + b in a loop: u_a = y_b, u_b = y_a.
io::Json gain_loop(double k_a, double k_b, double q = 0.0) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 0.01, "method": {"type": "jacobi", "dt": 0.01},
    "connections": [["a.y", "b.u"], ["b.y", "a.u"]]})");
  doc["systems"]["a"] = {{"fmu", fmu("cosima_test_gain")}, {"parameters", {{"k", k_a}, {"b", 1.0}, {"q", q}}}};
  doc["systems"]["b"] = {{"fmu", fmu("cosima_test_gain")}, {"parameters", {{"k", k_b}, {"b", 2.0}}}};
  return doc;
}

TEST(Initialization, AContractiveInitialLoopConvergesBySweeps) {
  const scenario::ScenarioRun r = run(gain_loop(0.5, 0.5), {});
  // u_a = k_b (k_a u_a + 1) + 2  ⇒  u_a = (k_b + 2) / (1 − k_a k_b)
  const double u_a = (0.5 + 2.0) / (1.0 - 0.25);
  EXPECT_NEAR(r.results->column("b.y").front(), u_a, 1e-11);
  EXPECT_NEAR(r.results->column("a.y").front(), 0.5 * u_a + 1.0, 1e-11);
  EXPECT_GT(r.stats.initialization.sweeps, 2);
  EXPECT_EQ(r.stats.initialization.newton_iterations, 0);
}

TEST(Initialization, ANonContractiveInitialLoopIsSolvedByNewton) {
  const scenario::ScenarioRun r = run(gain_loop(2.0, -1.5), {"stop=0.01"});
  const double u_a = (-1.5 + 2.0) / (1.0 + 3.0);
  EXPECT_NEAR(r.results->column("b.y").front(), u_a, 1e-10);
  EXPECT_GT(r.stats.initialization.newton_iterations, 0);
}

TEST(Initialization, AnInitialLoopWithoutSolutionIsANamedError) {
  // u_a = y_b = 2 u_b + 2 = 2 (u_a² + 1) + 2 has no real solution
  const std::string error = error_of([] { (void)run(gain_loop(0.0, 2.0, 1.0), {}); });
  EXPECT_NE(error.find("do not converge"), std::string::npos) << error;
  EXPECT_NE(error.find("b.y → a.u"), std::string::npos) << error;
  EXPECT_NE(error.find("residual"), std::string::npos) << error;
}

TEST(UnconnectedInputs, KeepTheirStartValuesAndStrictInputsRefusesThem) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 0.1, "method": {"type": "jacobi", "dt": 0.05}})");
  doc["systems"]["t"] = {{"fmu", fmu("cosima_test_types")}};
  const scenario::ScenarioRun r = run(doc, {});
  // u_real 0.5, u_int 7, u_bool true, u_mode 2, u_text "hello" (their start values) through the outputs
  EXPECT_EQ(r.stats.inputs_at_start_values,
            (std::vector<std::string>{"t.u_real", "t.u_int", "t.u_bool", "t.u_mode", "t.u_text"}));
  EXPECT_DOUBLE_EQ(r.results->column("t.y_real").front(), 2.0 * 0.5);
  EXPECT_DOUBLE_EQ(r.results->column("t.y_int").front(), 7.0 + 1.0);
  EXPECT_DOUBLE_EQ(r.results->column("t.y_bool").front(), 0.0);
  EXPECT_DOUBLE_EQ(r.results->column("t.y_mode").back(), 2.0);
  const auto& rec = *r.results;
  std::size_t text_column = 0;
  while (text_column < rec.labels().size() && rec.labels()[text_column] != "t.y_text") ++text_column;
  ASSERT_LT(text_column, rec.labels().size());
  EXPECT_EQ(rec.text(0, text_column), "p:hello");
  const std::string error = error_of([&] { (void)run(doc, {"strict_inputs=true"}); });
  EXPECT_NE(error.find("unconnected input"), std::string::npos) << error;
  EXPECT_NE(error.find("strict inputs"), std::string::npos) << error;
}

TEST(UnconnectedInputs, AParameterNamingAnInputDrivesIt) {
  io::Json doc = gain_loop(0.5, 0.5);
  doc.erase("connections");
  doc["systems"]["a"]["parameters"]["u"] = 3.0;
  const scenario::ScenarioRun r = run(doc, {});
  EXPECT_DOUBLE_EQ(r.results->column("a.y").front(), 0.5 * 3.0 + 1.0);
  EXPECT_DOUBLE_EQ(r.results->column("b.y").front(), 2.0);  // b.u at its start value 0
}

TEST(DeclaredIsNotProven, AnFmuThatRefusesTheEventModeItDeclaresRunsWithoutIt) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 2, "method": {"type": "jacobi", "dt": 0.1}})");
  doc["systems"]["e"] = {{"fmu", fmu("cosima_fmi3_events_refused")}};
  const scenario::ScenarioRun r = run(doc, {});
  EXPECT_GE(r.results->column("e.count").back(), 1.0);  // the FMU handled its time event itself
  bool warned = false;
  for (const auto& w : logged_warnings()) warned = warned || w.find("refused eventModeUsed") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(DeclaredIsNotProven, AnFmuThatRefusesEarlyReturnRunsInEventModeWithoutIt) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 2, "method": {"type": "jacobi", "dt": 0.1}})");
  doc["systems"]["e"] = {{"fmu", fmu("cosima_fmi3_events_no_early_return")}};
  const scenario::ScenarioRun r = run(doc, {});
  EXPECT_EQ(r.results->column("e.count").back(), 1.0);
  bool warned = false;
  for (const auto& w : logged_warnings()) warned = warned || w.find("refused earlyReturnAllowed") != std::string::npos;
  EXPECT_TRUE(warned);
}

/// Van der Pol (mu = 1, x(0) = (2, 0)) by classical Runge–Kutta with h = 1e-4: the reference, at
/// every whole time 1 … 10 (its error is far below 1e-10 there).
std::vector<Eigen::Vector2d> van_der_pol_reference() {
  const auto f = [](const Eigen::Vector2d& x) { return Eigen::Vector2d(x(1), (1.0 - x(0) * x(0)) * x(1) - x(0)); };
  std::vector<Eigen::Vector2d> at_whole_times;
  Eigen::Vector2d x(2.0, 0.0);
  constexpr int kStepsPerUnit = 10000;
  const double h = 1.0 / kStepsPerUnit;
  for (int unit = 1; unit <= 10; ++unit) {
    for (int k = 0; k < kStepsPerUnit; ++k) {
      const Eigen::Vector2d k1 = f(x), k2 = f(x + h / 2 * k1), k3 = f(x + h / 2 * k2), k4 = f(x + h * k3);
      x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    at_whole_times.push_back(x);
  }
  return at_whole_times;
}

TEST(ModelExchangeAccuracy, CvodeAndDopri5KeepTheirToleranceAcrossCommunicationPoints) {
  // At rtol 1e-8 the error must not grow with the number of communication points: CVODE keeps its
  // history across a point where the inputs do not change (a restart at order 1 there cost 4.4e-4).
  const auto reference = van_der_pol_reference();
  EXPECT_NEAR(reference.back()(0), -2.0083407825796757, 1e-9);  // dopri5 at rtol 1e-13 gives this
  for (const std::string integrator : {"cvode", "dopri5"}) {
    for (const double dt : {1e-3, 1e-2}) {
      io::Json doc = io::Json::parse(R"({"start": 0, "stop": 10, "method": {"type": "jacobi"}})");
      doc["method"]["dt"] = dt;
      doc["systems"]["v"] = {{"fmu", fmu("cosima_test_vanderpol")},
                             {"interface", "me"},
                             {"integrator", integrator},
                             {"integrator_options", {{"rtol", 1e-8}}}};
      const scenario::ScenarioRun r = run(doc, {"output.interval=1"});
      const auto times = r.results->times();
      const auto x0 = r.results->column("v.x0"), x1 = r.results->column("v.x1");
      ASSERT_EQ(times.size(), 11U);
      double error = 0.0;
      for (std::size_t k = 1; k < times.size(); ++k) {
        error = std::max({error, std::abs(x0[k] - reference[k - 1](0)), std::abs(x1[k] - reference[k - 1](1))});
      }
      EXPECT_LE(error, 1e-6) << integrator << " at dt = " << dt;
    }
  }
}

/// The largest error of the VanDerPol ME FMU's states at t = 1 … 10 under `method`, cvode at rtol 1e-8
/// and dt = 1e-3, against the reference.
double van_der_pol_error(const std::string& method, const std::vector<Eigen::Vector2d>& reference) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 10, "method": {"dt": 1e-3}})");
  doc["method"]["type"] = method;
  doc["systems"]["v"] = {{"fmu", fmu("cosima_test_vanderpol")},
                         {"interface", "me"},
                         {"integrator", "cvode"},
                         {"integrator_options", {{"rtol", 1e-8}}}};
  const scenario::ScenarioRun r = run(doc, {"output.interval=1"});
  const auto x0 = r.results->column("v.x0"), x1 = r.results->column("v.x1");
  double error = 0.0;
  for (std::size_t k = 1; k < x0.size(); ++k) {
    error = std::max({error, std::abs(x0[k] - reference[k - 1](0)), std::abs(x1[k] - reference[k - 1](1))});
  }
  return error;
}

// The methods that roll back (IFOSMONDI, IFOSMONDI-JFM) or give C¹ inputs (MISSILES) keep the
// integrator's order: with CVODE restarted at every macro-step IFOSMONDI ended 1.37e-4 off (2.5e7×
// Jacobi's error): 10⁴ restarts × rtol
TEST(IntegratorHistory, RollbackAndC1MethodsAreAsAccurateAsJacobiOnVanDerPolThroughModelExchange) {
  const auto reference = van_der_pol_reference();
  const double jacobi = van_der_pol_error("jacobi", reference);
  EXPECT_LE(jacobi, 1e-9);
  for (const std::string method : {"ifosmondi", "ifosmondi-jfm", "missiles"}) {
    const double error = van_der_pol_error(method, reference);
    EXPECT_LE(error, 10.0 * std::max(jacobi, 1e-12)) << method << ": " << error << " against Jacobi's " << jacobi;
  }
}

TEST(MonolithicOverMe, AHybridFmuKeepsItsStateStepAndTimeEvents) {
  // the bouncing ball: state events (bounces), a time event (the kick at 1.5) and step events; the
  // monolithic reference must find them all, as the FMU integrated alone by cvode does
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 3, "method": {"type": "jacobi", "dt": 0.01}})");
  doc["systems"]["b"] = {{"fmu", fmu("cosima_test_me_ball")},
                         {"interface", "me"},
                         {"integrator", "cvode"},
                         {"integrator_options", {{"rtol", 1e-10}, {"atol", 1e-12}}}};
  const scenario::ScenarioRun alone = run(doc, {});
  const scenario::ScenarioRun monolithic = run(doc, {"method.type=monolithic"});
  ASSERT_EQ(alone.results->times().size(), monolithic.results->times().size());
  EXPECT_EQ(monolithic.results->column("b.bounces"), alone.results->column("b.bounces"));
  EXPECT_EQ(monolithic.results->column("b.kick_time").back(), 1.5);
  const auto h_alone = alone.results->column("b.h_out"), h_mono = monolithic.results->column("b.h_out");
  for (std::size_t k = 0; k < h_alone.size(); ++k) EXPECT_NEAR(h_mono[k], h_alone[k], 1e-7) << "row " << k;
  EXPECT_GE(monolithic.results->column("b.bounces").back(), 3.0);
}

TEST(ModelExchangeAccuracy, StateNominalsAreRead) {
  const fmi::ModelDescription md = fmi::read_model_description(fmu("cosima_test_vanderpol"));
  EXPECT_EQ(md.variables[0].nominal, 2.0);
  EXPECT_EQ(md.variables[1].nominal, 3.0);
  EXPECT_FALSE(md.variables[4].nominal.has_value());
}

TEST(ModelExchangeAccuracy, UnderToleranceTheAbsolutePartComesFromTheSourceOutputsNominal) {
  // v.x0 (nominal 2, amplitude 2) feeds a native input: its weight tol·(|nominal| + scale) is twice
  // tol·scale, so the first-order estimate of Jacobi allows steps about twice as long
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 4, "method": {"type": "jacobi", "dt": 1e-2, "tolerance": 1e-4},
                             "systems": {"prey": {"model": "b3.prey"}},
                             "connections": [["v.x0", "prey.q"]]})");
  doc["systems"]["v"] = {{"fmu", fmu("cosima_test_vanderpol")}, {"interface", "me"}};
  const scenario::ScenarioRun nominal = run(doc, {});
  const scenario::ScenarioRun zero = run(doc, {"method.tolerance_atol=0"});
  EXPECT_LT(static_cast<double>(nominal.stats.macro_steps), 0.8 * static_cast<double>(zero.stats.macro_steps));
  EXPECT_GT(static_cast<double>(nominal.stats.macro_steps), 0.3 * static_cast<double>(zero.stats.macro_steps));
}

/// A source without inputs (Van der Pol, ME, tight) feeding b3.prey under `method`; with `rollback`
/// false its rollback and state access are withheld, and it runs ahead (run_ahead_system.hpp).
io::Json source_feeding_prey(bool rollback, const std::string& method) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 10, "systems": {"prey": {"model": "b3.prey"}},
                             "connections": [["v.x0", "prey.q"]], "output": {"variables": ["prey.p"], "interval": 0.1}})");
  doc["method"] = {{"type", method}, {"dt", 1e-2}};
  doc["systems"]["v"] = {{"fmu", fmu("cosima_test_vanderpol")},
                         {"interface", "me"},
                         {"integrator_options", {{"rtol", 1e-11}, {"atol", 1e-13}}},
                         {"rollback", rollback},
                         {"state_access", rollback}};
  return doc;
}

double relative_l2(const scenario::ScenarioRun& run, const scenario::ScenarioRun& reference) {
  const auto a = run.results->column("prey.p"), b = reference.results->column("prey.p");
  EXPECT_EQ(a.size(), b.size());
  double square = 0.0, norm = 0.0;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    square += (a[k] - b[k]) * (a[k] - b[k]);
    norm += b[k] * b[k];
  }
  return std::sqrt(square / norm);
}

TEST(RunAhead, ASourceWithoutInputsOrRollbackIteratesUnderIfosmondiAndRedoesStepsUnderTolerance) {
  const scenario::ScenarioRun reference = run(source_feeding_prey(true, "ifosmondi-jfm"), {"method.dt=1e-3"});
  for (const std::string method : {"ifosmondi-jfm", "ifosmondi"}) {
    const scenario::ScenarioRun native = run(source_feeding_prey(true, method), {});
    const scenario::ScenarioRun ahead = run(source_feeding_prey(false, method), {});
    for (const simulation::SystemCapabilities& c : ahead.stats.capabilities)
      EXPECT_EQ(c.emulated.has(Capability::rollback), c.system == "v") << method << ": " << c.system;
    EXPECT_LT(relative_l2(ahead, native), 1e-6) << method;
  }
  // steps over the tolerance are retried shorter: the retried steps read the source interpolated
  for (const std::string method : {"ifosmondi-jfm", "missiles"}) {
    const scenario::ScenarioRun native = run(source_feeding_prey(true, method), {"method.tolerance=1e-6"});
    const scenario::ScenarioRun ahead = run(source_feeding_prey(false, method), {"method.tolerance=1e-6"});
    EXPECT_GT(ahead.stats.rejected_steps, 0) << method;
    // the retried steps read the source from its cubic interpolant: measured 1.44× (missiles) and
    // 1.50× (ifosmondi-jfm) native rollback's error; the step sequence of the error control moves
    // with rounding, which moved the latter by 0.6 % when the interpolant's arithmetic was regrouped
    EXPECT_LT(relative_l2(ahead, reference), 2.0 * relative_l2(native, reference) + 1e-9) << method;
  }
}

}  // namespace
}  // namespace cosima
