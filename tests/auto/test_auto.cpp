// `auto` on FMUs written the way exporters write them (label auto), each a C test FMU of
// tests/fmus: a dual-interface pair whose Co-Simulation side has neither rollback nor variable
// steps, stiffly coupled; an FMU declaring output derivatives whose call fails; ports all discrete.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/error.hpp"
#include "core/log.hpp"
#include "methods/method_choice.hpp"
#include "methods/method_registry.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

const std::filesystem::path kFmus = COSIMA_C_FMU_DIR;

std::string fmu(const std::string& name) { return (kFmus / (name + ".fmu")).string(); }

/// The two-mass oscillator of tests/fmus/coupled with a stiff damper between the masses (d2 = 1000:
/// a mode decaying at ≈ 2000/s, which explicit coupling at δt = 1e-2 cannot follow).
io::Json stiff_pair(const std::string& method) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 1, "method": {"dt": 1e-2},
    "connections": [["m1.s1_out", "m2.s1"], ["m1.v1_out", "m2.v1"], ["m1.a1_out", "m2.a1"], ["m2.F", "m1.F"]]})");
  doc["method"]["type"] = method;
  doc["systems"]["m1"] = {{"fmu", fmu("cosima_test_mass1_cs_fixed")}};
  doc["systems"]["m2"] = {{"fmu", fmu("cosima_test_mass2_cs_fixed")}, {"parameters", {{"d2", 1000.0}}}};
  return doc;
}

/// s1(t) of the coupled equations (tests/fmus/coupled/dual_mass.h): exp(A t) x0, s2(0) = s1(0) + 0.5.
double exact_s1(double t) {
  const double m1 = 1, c1 = 10, d1 = 1, m2 = 1, c2 = 100, d2 = 1000, c3 = 10, d3 = 1;
  Eigen::Matrix4d A;
  A << 0, 1, 0, 0,                                         //
      (-c1 - c2) / m1, (-d1 - d2) / m1, c2 / m1, d2 / m1,  //
      0, 0, 0, 1,                                          //
      c2 / m2, d2 / m2, (-c2 - c3) / m2, (-d2 - d3) / m2;
  return ((A * t).exp() * Eigen::Vector4d(1.0, 0.0, 1.5, 0.0))(0);
}

double worst_error(const scenario::ScenarioRun& run) {
  const std::vector<double> s1 = run.results->column("m1.s1_out");
  double worst = 0.0;
  for (std::size_t k = 0; k < s1.size(); ++k) {
    const double error = std::abs(s1[k] - exact_s1(run.results->times()[k]));
    worst = std::isfinite(error) ? std::max(worst, error) : INFINITY;
  }
  return worst;
}

TEST(Auto, StifflyCoupledDualInterfacePairRunsThroughModelExchange) {
  // what `auto` chose before: Jacobi on the Co-Simulation interfaces, which diverges: a named error
  const std::string diverged =
      testing::error_of([] { (void)scenario::run_scenario(scenario::parse_scenario(stiff_pair("jacobi"), "s.json")); });
  EXPECT_NE(diverged.find("the coupling diverges: the connection m2.F → m1.F"), std::string::npos) << diverged;
  io::Json allowed = stiff_pair("jacobi");  // unless the scenario lets it run on, warned about
  allowed["allow_divergence"] = true;
  const scenario::ScenarioRun jacobi = scenario::run_scenario(scenario::parse_scenario(allowed, "stiff.json"));
  EXPECT_GT(worst_error(jacobi), 1e3);
  EXPECT_TRUE(jacobi.stats.coupling_error.accuracy_warning);
  scenario::Scenario scenario = scenario::parse_scenario(stiff_pair("auto"), "stiff.json");
  ASSERT_TRUE(scenario::resolve_auto_method(scenario));
  EXPECT_EQ(scenario.method["type"], "monolithic") << scenario.method_choice;
  EXPECT_NE(scenario.method_choice.find("Model Exchange interface"), std::string::npos) << scenario.method_choice;
  for (const scenario::SystemSpec& spec : scenario.systems)
    EXPECT_EQ(spec.interface, fmi::FmiInterface::model_exchange);
  const scenario::ScenarioRun chosen = scenario::run_scenario(scenario);
  EXPECT_LT(worst_error(chosen), 1e-6);
  EXPECT_FALSE(chosen.stats.coupling_error.accuracy_warning);
  EXPECT_EQ(chosen.results->times().size(), 101U);
}

/// Whether a warning logged after the first `before` names the FMU file and the call, and says the
/// capability is emulated.
bool warned_emulated(std::size_t before, const std::string& fmu_file, const std::string& call) {
  const std::vector<std::string> warnings = logged_warnings();
  return std::any_of(warnings.begin() + static_cast<std::ptrdiff_t>(before), warnings.end(), [&](const std::string& w) {
    return w.find(fmu_file) != std::string::npos && w.find(call) != std::string::npos &&
           w.find("emulated") != std::string::npos;
  });
}

TEST(Auto, DeclaredInputInterpolationThatFailsIsWithheldWithAWarning) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 3, "method": {"type": "auto", "dt": 0.05},
    "connections": [["osc.x_out", "g.u"]]})");
  doc["systems"]["osc"] = {{"fmu", fmu("cosima_test_oscillator")}};
  doc["systems"]["g"] = {{"fmu", fmu("cosima_test_gain_interpolates")}};
  scenario::Scenario scenario = scenario::parse_scenario(doc, "interpolates.json");
  const std::size_t warnings_before = logged_warnings().size();
  ASSERT_TRUE(scenario::resolve_auto_method(scenario));
  EXPECT_TRUE(scenario.systems[1].withheld.has(Capability::interpolate_inputs));
  EXPECT_TRUE(warned_emulated(warnings_before, "cosima_test_gain_interpolates.fmu", "fmi2SetRealInputDerivatives"))
      << "no warning names the FMU and the call";
  const scenario::ScenarioRun run = scenario::run_scenario(scenario);
  EXPECT_DOUBLE_EQ(run.results->times().back(), 3.0);
}

TEST(Auto, DeclaredOutputDerivativesThatFailAreEmulatedWithAWarning) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 3, "method": {"type": "auto", "dt": 0.05},
    "connections": [["osc.x_out", "g.u"]]})");
  doc["systems"]["osc"] = {{"fmu", fmu("cosima_test_oscillator_derivatives")}};
  doc["systems"]["g"] = {{"fmu", fmu("cosima_test_gain")}};
  scenario::Scenario scenario = scenario::parse_scenario(doc, "derivatives.json");
  const std::size_t warnings_before = logged_warnings().size();
  ASSERT_TRUE(scenario::resolve_auto_method(scenario));
  EXPECT_TRUE(scenario.systems[0].withheld.has(Capability::output_derivatives));
  EXPECT_TRUE(
      warned_emulated(warnings_before, "cosima_test_oscillator_derivatives.fmu", "fmi2GetRealOutputDerivatives"))
      << "no warning names the FMU and the call";
  // the method auto chose reads output derivatives: without the probe this run fails in the call
  EXPECT_EQ(scenario.method["type"], "ifosmondi-jfm") << scenario.method_choice;
  const scenario::ScenarioRun run = scenario::run_scenario(scenario);
  EXPECT_DOUBLE_EQ(run.results->times().back(), 3.0);
  const auto& osc = run.stats.capabilities.front();
  EXPECT_TRUE(osc.emulated.has(Capability::output_derivatives));
}

/// Every method, not only `auto`, tries what it reads of an FMU before the run: a declared
/// capability whose call fails (output derivatives; input interpolation) is withheld and emulated,
/// with a warning naming the system, FMU and call, or the method is refused by name before it starts.
TEST(Auto, EveryMethodProvesTheCapabilitiesItReads) {
  for (const auto& [file, call] : {std::pair{"cosima_test_oscillator_derivatives", "fmi2GetRealOutputDerivatives"},
                                   std::pair{"cosima_test_gain_interpolates", "fmi2SetRealInputDerivatives"}}) {
    const bool oscillator = std::string(file).find("oscillator") != std::string::npos;
    for (const methods::MethodEntry& entry : methods::registered_methods()) {
      if (methods::is_auto_method(io::Json{{"type", entry.name}}) || entry.name == "monolithic") continue;
      SCOPED_TRACE(entry.name + " on " + file);
      // systems named after the method: each run's warnings are its own (a warning is said once a process)
      std::string tag = entry.name;
      std::replace(tag.begin(), tag.end(), '-', '_');
      const std::string osc = "osc_" + tag, g = "g_" + tag;
      io::Json doc = io::Json::parse(R"({"start": 0, "stop": 1, "method": {"dt": 0.05}})");
      doc["connections"] = io::Json::array({io::Json::array({osc + ".x_out", g + ".u"})});
      doc["method"]["type"] = entry.name;
      doc["systems"][osc] = {{"fmu", fmu(oscillator ? file : "cosima_test_oscillator")}};
      doc["systems"][g] = {{"fmu", fmu(oscillator ? "cosima_test_gain" : file)}};
      const scenario::Scenario scenario = scenario::parse_scenario(doc, "pinned.json");
      std::vector<std::string> ignored;
      const auto method = methods::make_method(scenario.method, scenario.run.dt, ignored);
      const auto spec = std::find_if(scenario.systems.begin(), scenario.systems.end(),
                                     [&](const auto& s) { return s.name == (oscillator ? osc : g); });
      // what the method reads, and the results of a method that chooses its steps (Hermite rows)
      const bool reads = method->wanted(*scenario::build_system(*spec))
                             .has(oscillator ? Capability::output_derivatives : Capability::interpolate_inputs) ||
                         (oscillator && method->chooses_step());
      const std::size_t warnings_before = logged_warnings().size();
      std::string error;
      try {
        const scenario::ScenarioRun run = scenario::run_scenario(scenario);
        EXPECT_DOUBLE_EQ(run.results->times().back(), 1.0);
      } catch (const Error& e) {
        error = e.what();
      }
      if (error.empty()) {  // ran: the capability it reads was tried, withheld, warned about; no other
        const std::vector<std::string> warnings = logged_warnings();
        const bool warned = std::any_of(warnings.begin() + static_cast<std::ptrdiff_t>(warnings_before), warnings.end(),
                                        [&](const std::string& w) { return w.find(call) != w.npos; });
        EXPECT_EQ(warned, reads);
        if (reads) {
          EXPECT_TRUE(warned_emulated(warnings_before, std::string(file) + ".fmu", call));
        }
      } else {  // refused before the start, naming the method and the system; never the failing call
        EXPECT_EQ(error.find(call + std::string(" returned")), std::string::npos) << error;
        EXPECT_NE(error.find("method '" + entry.name + "' cannot run"), std::string::npos) << error;
      }
    }
  }
}

TEST(Auto, ModelWhosePortsAreAllDiscreteIsNotIterated) {
  io::Json doc = io::Json::parse(R"({"start": 0, "stop": 1, "method": {"type": "auto", "dt": 0.1},
    "inputs": {"a.u": 2}, "connections": [["a.y", "b.u"]]})");
  doc["systems"]["a"] = {{"fmu", fmu("cosima_test_gain_discrete")}};
  doc["systems"]["b"] = {{"fmu", fmu("cosima_test_gain_discrete")}};
  scenario::Scenario scenario = scenario::parse_scenario(doc, "discrete.json");
  ASSERT_TRUE(scenario::resolve_auto_method(scenario));
  EXPECT_EQ(scenario.method["type"], "jacobi");
  EXPECT_NE(scenario.method_choice.find("no continuous signal couples the systems"), std::string::npos);
  const scenario::ScenarioRun run = scenario::run_scenario(scenario);
  EXPECT_EQ(run.stats.iterations, 0);
  EXPECT_EQ(run.stats.rejected_steps, 0);
  EXPECT_DOUBLE_EQ(run.results->column("b.y").back(), 0.5 * (0.5 * 2 + 1) + 1);
}

}  // namespace
}  // namespace cosima
