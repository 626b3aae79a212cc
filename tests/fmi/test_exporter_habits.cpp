// Habits of real exporters that an importer must live with (label fmi-semantics), each on a C test
// FMU written from the standard (tests/fmus/, whose EXPECTED.md give fmusim's runs): an FMU written
// in C++ with iostreams, next to one bundling a library cosima uses too; parameters restored to
// their defaults in fmi2SetupExperiment (20-sim); a parameter the FMU changes itself; a start time
// other than 0.
#include <gtest/gtest.h>

#include <stdlib.h>  // mkdtemp
#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "exec/process_executor.hpp"
#include "scenario/executors.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "test_support.hpp"

namespace cosima::exporter_habits {

const std::filesystem::path kFmus = COSIMA_C_FMU_DIR;

std::string fmu(const std::string& name) { return (kFmus / (name + ".fmu")).string(); }

io::Json one_fmu(const std::string& name, double start, double stop, double dt) {
  io::Json doc = io::Json::object();
  doc["start"] = start;
  doc["stop"] = stop;
  doc["method"] = {{"type", "jacobi"}, {"dt", dt}};
  doc["systems"]["s"] = {{"fmu", fmu(name)}};
  return doc;
}

scenario::ScenarioRun run(io::Json doc, const std::vector<std::string>& overrides = {}, bool processes = false) {
  for (const auto& o : overrides) scenario::apply_override(doc, o);
  const scenario::Scenario scenario = scenario::parse_scenario(doc, "inline.json");
  if (!processes) return scenario::run_scenario(scenario);
  const exec::SystemCatalog catalog = scenario::system_catalog(scenario);
  exec::ProcessExecutor executor(catalog, exec::ProcessOptions{});
  return scenario::run_scenario(scenario, &executor);
}

bool warned(const std::string& text) {
  for (const std::string& w : logged_warnings()) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

// --- an FMU's own symbols (fmi/common/shared_library.cpp) -----------------------------------------

// FMUs opened with RTLD_DEEPBIND crash here in fmi2Instantiate: this executable writes to std::cout,
// as the cosima command does, so it holds a copy of std::cout (a copy relocation) that the process
// constructs, and a deep-bound FMU would use libstdc++'s own, never constructed one
TEST(OwnSymbols, AnFmuWrittenInCppWithIostreamsRunsInProcessAndAsAProcess) {
  std::cout << "the executable's std::cout\n";
  for (const bool processes : {false, true}) {
    const scenario::ScenarioRun r = run(one_fmu("cosima_test_cpp_streams", 0.0, 1.0, 0.25), {}, processes);
    EXPECT_EQ(r.results->column("s.from_instantiate").back(), 12.25) << processes;  // through a stringstream
    EXPECT_EQ(r.results->column("s.t_parsed").back(), 1.0) << processes;
    EXPECT_EQ(r.results->column("s.y").back(), 1.0) << processes;  // u = 0 + the parsed time
  }
}

// with SUNDIALS in the global scope (linked shared) its N_VNew_Serial comes first: the FMU refuses
TEST(OwnSymbols, AnFmuWithItsOwnCopyOfASundialsSymbolRunsInProcessAndAsAProcess) {
  for (const bool processes : {false, true}) {
    const scenario::ScenarioRun r = run(one_fmu("cosima_test_bundled", 0.0, 0.2, 0.1), {}, processes);
    EXPECT_EQ(r.results->column("s.own_copy").back(), 1.0) << processes;
  }
}

// --- the call order: SetupExperiment, then the values given (fmi/common/fmu_instance.hpp) ---------

/// The reset_params FMU's parameters as set: k = 3, n = 7, flag = true, label = "set", input u = 2.
void expect_kept(const scenario::ScenarioRun& r, const std::string& how) {
  EXPECT_EQ(r.results->column("s.y_k").back(), 3.0) << how;
  EXPECT_EQ(r.results->column("s.y_n").back(), 7.0) << how;
  EXPECT_EQ(r.results->column("s.y_flag").back(), 1.0) << how;
  const auto& labels = r.results->labels();
  const auto label = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), "s.y_label") - labels.begin());
  ASSERT_LT(label, labels.size()) << how;
  EXPECT_EQ(r.results->text(r.results->times().size() - 1, label), "set") << how;
  EXPECT_EQ(r.results->column("s.y_u").back(), 2.0) << how;
  EXPECT_DOUBLE_EQ(r.results->column("s.x").back(), 6.0) << how;  // x' = k u over [0, 1]
}

// FMPy, libcosim and OMSimulator: instantiate → fmi2SetupExperiment → set → enter initialization.
// Setting the values before fmi2SetupExperiment runs this FMU with its defaults (k = 1, n = 2, …).
TEST(CallOrder, ParametersSetInTheScenarioSurviveAnFmuThatResetsThemInSetupExperiment) {
  io::Json doc = one_fmu("cosima_test_reset_params", 0.0, 1.0, 0.1);
  doc["systems"]["s"]["parameters"] = {{"k", 3}, {"n", 7}, {"flag", true}, {"label", "set"}, {"u", 2}};
  expect_kept(run(doc), "scenario");
  expect_kept(run(doc, {}, true), "scenario, processes");
  io::Json bare = one_fmu("cosima_test_reset_params", 0.0, 1.0, 0.1);
  expect_kept(run(bare, {"systems.s.parameters.k=3", "systems.s.parameters.n=7", "systems.s.parameters.flag=true",
                         "systems.s.parameters.label=set", "systems.s.parameters.u=2"}),
              "--set");
}

// the same through an SSP ParameterBinding (a bare SSD beside the FMU)
TEST(CallOrder, ParametersOfAnSspParameterBindingSurviveAnFmuThatResetsThemInSetupExperiment) {
  std::string pattern = (std::filesystem::temp_directory_path() / "cosima-habits-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::filesystem::path folder = pattern;
  std::filesystem::copy_file(fmu("cosima_test_reset_params"), folder / "reset.fmu");
  std::ofstream(folder / "SystemStructure.ssd") << R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" version="1.0" name="reset">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="s" type="application/x-fmu-sharedlibrary" source="reset.fmu">
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="p"><ssv:Parameters>
            <ssv:Parameter name="k"><ssv:Real value="3"/></ssv:Parameter>
            <ssv:Parameter name="n"><ssv:Integer value="7"/></ssv:Parameter>
            <ssv:Parameter name="flag"><ssv:Boolean value="true"/></ssv:Parameter>
            <ssv:Parameter name="label"><ssv:String value="set"/></ssv:Parameter>
            <ssv:Parameter name="u"><ssv:Real value="2"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Annotations>
      <ssc:Annotation type="org.cosima.scenario"><![CDATA[{"method": {"type": "jacobi", "dt": 0.1}}]]></ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
)";
  expect_kept(scenario::run_scenario(scenario::load_scenario(folder / "SystemStructure.ssd")), "SSP binding");
  std::filesystem::remove_all(folder);
}

TEST(CallOrder, AParameterTheFmuChangesInInitializationIsWarnedAboutByNameWithBothValues) {
  io::Json doc = one_fmu("cosima_test_changes_param", 0.0, 1.0, 0.1);
  doc["systems"]["s"]["parameters"] = {{"k", 100}, {"u", 1}};
  const scenario::ScenarioRun r = run(doc);
  EXPECT_DOUBLE_EQ(r.results->column("s.x").back(), 10.0);  // the FMU's value is what ran
  EXPECT_TRUE(warned("parameter 'k' was given 100 but reads 10 after initialization"));
  // and none for the values it kept
  EXPECT_FALSE(warned("parameter 'u'"));
  EXPECT_FALSE(warned("start value of 'u'"));
  // a child process's warning reaches the master's stats (the replies carry it)
  doc["systems"]["s"]["parameters"]["k"] = 50;
  const scenario::ScenarioRun as_process = run(doc, {}, true);
  EXPECT_DOUBLE_EQ(as_process.results->column("s.x").back(), 10.0);
  EXPECT_TRUE(warned("parameter 'k' was given 50 but reads 10 after initialization"));
}

TEST(CallOrder, AParameterTheFmuKeepsIsNotWarnedAbout) {
  io::Json doc = one_fmu("cosima_test_changes_param", 0.0, 1.0, 0.1);
  doc["systems"]["s"]["parameters"] = {{"k", 5.5}};
  const scenario::ScenarioRun r = run(doc);
  EXPECT_DOUBLE_EQ(r.results->column("s.x").back(), 5.5);
  EXPECT_FALSE(warned("parameter 'k' was given 5.5"));
}

// fmi2SetupExperiment gets the scenario's start: the FMU's time starts there (x' = k u from t0)
TEST(CallOrder, ACoSimulationFmuStartsAtTheScenariosStartTime) {
  io::Json doc = one_fmu("cosima_test_cpp_streams", 2.5, 3.0, 0.25);
  const scenario::ScenarioRun r = run(doc);
  EXPECT_EQ(r.results->column("s.t_parsed").front(), 2.5);  // from fmi2SetupExperiment's startTime
  EXPECT_EQ(r.results->column("s.t_parsed").back(), 3.0);
  EXPECT_EQ(r.results->times().front(), 2.5);
}

// an output that changes when its FMU leaves Initialization Mode (here: k clamped from 100 to 10,
// y_k = k) reaches what it feeds at the start: the exchange is settled again after exit
TEST(CallOrder, AnOutputThatChangesOnLeavingInitializationModeReachesWhatItFeedsAtTheStart) {
  io::Json doc = one_fmu("cosima_test_changes_param", 0.0, 0.5, 0.1);
  doc["systems"]["s"]["parameters"] = {{"k", 100}};
  doc["systems"]["g"] = {{"fmu", fmu("cosima_test_gain")}};  // y = 0.5 u + 1, direct feedthrough
  doc["connections"] = io::Json::array({io::Json::array({"s.y_k", "g.u"})});
  const scenario::ScenarioRun r = run(doc);
  EXPECT_EQ(r.results->column("s.y_k").front(), 10.0);
  EXPECT_EQ(r.results->column("g.y").front(), 6.0);  // 0.5 · 10 + 1, not 0.5 · 100 + 1
}

}  // namespace cosima::exporter_habits
