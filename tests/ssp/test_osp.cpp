// The Open Simulation Platform's configurations (libcosim, cosim-cli): an OspSystemStructure.xml written
// here around the project's test FMUs (cosima_test_mass1: input F, outputs s1_out, v1_out, a1_out;
// cosima_test_mass2: inputs s1, v1, a1, output F; cosima_test_gain: input u, output y), with variable
// groups in *_OspModelDescription.xml files; SSP packages in the OSP layout (osp:FixedStepAlgorithm,
// osp:StepSizeHint); --ssd; a bare .ssd whose FMUs lie outside its folder. Every test runs in a
// private TMPDIR that must be empty again at its end.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "fmu_fixtures.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "ssp/osp_reader.hpp"
#include "ssp/ssp_reader.hpp"

namespace cosima {
namespace {

using testing::kFmuDir;
using testing::PrivateTemp;

const std::filesystem::path kCFmuDir = COSIMA_C_FMU_DIR;

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

/// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

template <class F>
std::string error_of(F&& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// A document part compared without regard to the order of keys.
nlohmann::json unordered(const io::Json& value) { return nlohmann::json::parse(value.dump()); }

/// Every column of two runs, compared with ==.
void expect_identical(const scenario::ScenarioRun& a, const scenario::ScenarioRun& b) {
  ASSERT_EQ(a.results->rows(), b.results->rows());
  ASSERT_EQ(a.results->labels(), b.results->labels());
  ASSERT_GT(a.results->rows(), 10);
  EXPECT_EQ(a.results->times(), b.results->times());
  for (std::size_t c = 0; c < a.results->labels().size(); ++c) {
    for (std::int64_t r = 0; r < a.results->rows(); ++r) {
      ASSERT_EQ(a.results->value(static_cast<std::size_t>(r), c), b.results->value(static_cast<std::size_t>(r), c))
          << a.results->labels()[c] << " row " << r;
    }
  }
}

const std::string kOspHeader = R"(<?xml version="1.0" encoding="utf-8" ?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
)";

/// mass1 (every base step), mass2 (every second one) and gain, with initial values.
const std::string kSimulators = R"(
  <Simulators>
    <Simulator name="mass1" source="../fmus/mass1.fmu" stepSize="0.01">
      <InitialValues>
        <InitialValue variable="c1"><Real value="20"/></InitialValue>
      </InitialValues>
    </Simulator>
    <Simulator name="mass2" source="../fmus/mass2.fmu" stepSize="0.02"/>
    <Simulator name="gain" source="../fmus/gain.fmu">
      <InitialValues>
        <InitialValue variable="k"><Real value="0.25"/></InitialValue>
      </InitialValues>
    </Simulator>
  </Simulators>)";

/// The two masses' LinearMechanicalPorts joined as groups, s1 by a variable, s1_out → 2·s1_out + 0.1
/// → gain.u, and a1_out + gain.y → mass2.a1 through a Sum.
const std::string kFunctionsAndConnections = R"(
  <Functions>
    <LinearTransformation name="scale" factor="2" offset="0.1"/>
    <Sum name="acc" inputCount="2"/>
  </Functions>
  <Connections>
    <VariableGroupConnection>
      <VariableGroup simulator="mass1" name="port"/>
      <VariableGroup simulator="mass2" name="port"/>
    </VariableGroupConnection>
    <VariableConnection>
      <Variable simulator="mass2" name="s1"/>
      <Variable simulator="mass1" name="s1_out"/>
    </VariableConnection>
    <SignalConnection>
      <Variable simulator="mass1" name="s1_out"/>
      <Signal function="scale" name="in"/>
    </SignalConnection>
    <SignalConnection>
      <Signal function="scale" name="out"/>
      <Variable simulator="gain" name="u"/>
    </SignalConnection>
    <SignalConnection>
      <Variable simulator="mass1" name="a1_out"/>
      <Signal function="acc" name="in[0]"/>
    </SignalConnection>
    <SignalConnection>
      <Variable simulator="gain" name="y"/>
      <Signal function="acc" name="in[1]"/>
    </SignalConnection>
    <SignalConnection>
      <Signal function="acc" name="out"/>
      <Variable simulator="mass2" name="a1"/>
    </SignalConnection>
  </Connections>)";

std::string osp_configuration(const std::string& simulators = kSimulators,
                              const std::string& rest = kFunctionsAndConnections, const std::string& experiment = R"(
  <StartTime>0.0</StartTime>
  <EndTime>2.0</EndTime>
  <BaseStepSize>0.01</BaseStepSize>
  <Algorithm>fixedStep</Algorithm>)") {
  return kOspHeader + experiment + simulators + rest + "\n</OspSystemStructure>\n";
}

/// mass1's groups, found by its modelName (cosima_test_mass1_OspModelDescription.xml, as libcosim).
const std::string kMass1Groups = R"(<?xml version="1.0" encoding="utf-8" ?>
<OspModelDescription xmlns="https://open-simulation-platform.com/OspModelDescription/1.0.0" version="1.0">
  <VariableGroups>
    <LinearMechanicalPort name="port">
      <Force name="force"><Variable ref="F"/></Force>
      <LinearVelocity name="velocity"><Variable ref="v1_out"/></LinearVelocity>
    </LinearMechanicalPort>
    <Generic name="kinematics"><Variable ref="s1_out"/><Variable ref="v1_out"/></Generic>
  </VariableGroups>
</OspModelDescription>
)";

/// mass2's groups, found by the FMU file's stem (mass2_OspModelDescription.xml).
const std::string kMass2Groups = R"(<?xml version="1.0" encoding="utf-8" ?>
<OspModelDescription xmlns="https://open-simulation-platform.com/OspModelDescription/1.0.0" version="1.0">
  <VariableGroups>
    <LinearMechanicalPort name="port">
      <Force name="force"><Variable ref="F"/></Force>
      <LinearVelocity name="velocity"><Variable ref="v1"/></LinearVelocity>
    </LinearMechanicalPort>
    <Generic name="kinematics_in"><Variable ref="s1"/><Variable ref="v1"/></Generic>
  </VariableGroups>
</OspModelDescription>
)";

class OspTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "fmus");
    for (const char* name : {"mass1", "mass2", "gain"}) {
      std::filesystem::copy_file(kCFmuDir / fmt::format("cosima_test_{}.fmu", name), fmu(name));
    }
    write(dir_ / "fmus" / "cosima_test_mass1_OspModelDescription.xml", kMass1Groups);
    write(dir_ / "fmus" / "mass2_OspModelDescription.xml", kMass2Groups);
  }
  void TearDown() override {
    EXPECT_TRUE(temp_->empty()) << "something was left in the private TMPDIR";
    temp_.reset();
    std::filesystem::remove_all(dir_);
  }
  static std::filesystem::path make_folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cosima-osp-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern;
    return pattern;
  }
  [[nodiscard]] std::filesystem::path fmu(const std::string& name) const { return dir_ / "fmus" / (name + ".fmu"); }
  /// The configuration written as config/OspSystemStructure.xml (its FMUs in ../fmus).
  [[nodiscard]] std::filesystem::path configuration(const std::string& text) const {
    const std::filesystem::path file = dir_ / "config" / "OspSystemStructure.xml";
    write(file, text);
    return file;
  }
  std::filesystem::path dir_ = make_folder();  // made before the private TMPDIR below
  std::unique_ptr<PrivateTemp> temp_ = std::make_unique<PrivateTemp>();
};

TEST_F(OspTest, AConfigurationWithGroupsASumAndTwoStepSizesRunsAsItsJsonScenario) {
  const std::filesystem::path xml = configuration(osp_configuration());
  EXPECT_TRUE(ssp::is_osp_configuration(xml));
  EXPECT_TRUE(ssp::is_osp_configuration(xml.parent_path()));  // a folder, as libcosim takes one
  EXPECT_FALSE(ssp::is_osp_configuration(fmu("gain")));

  // the scenario it is, written by hand: the group connection paired Force with Force (mass2 → mass1)
  // and LinearVelocity with LinearVelocity (mass1 → mass2); the LinearTransformation became a scale
  // and an offset; the Sum a system; mass2's stepSize of two base steps a rate
  const std::string json_text = fmt::format(R"({{
    "start": 0.0, "stop": 2.0,
    "systems": {{
      "mass1": {{"fmu": "{}", "parameters": {{"c1": 20.0}}}},
      "mass2": {{"fmu": "{}"}},
      "gain": {{"fmu": "{}", "parameters": {{"k": 0.25}}}},
      "acc": {{"model": "sum:2"}}
    }},
    "connections": [
      {{"from": "mass2.F", "to": "mass1.F"}},
      {{"from": "mass1.v1_out", "to": "mass2.v1"}},
      {{"from": "mass1.s1_out", "to": "mass2.s1"}},
      {{"from": "mass1.s1_out", "to": "gain.u", "scale": 2.0, "offset": 0.1}},
      {{"from": "mass1.a1_out", "to": "acc.in0"}},
      {{"from": "gain.y", "to": "acc.in1"}},
      {{"from": "acc.out", "to": "mass2.a1"}}
    ],
    "method": {{"type": "jacobi", "dt": 0.01, "rates": {{"mass2": 2}}}}
  }})",
                                            fmu("mass1").string(), fmu("mass2").string(), fmu("gain").string());
  const std::filesystem::path json = dir_ / "equivalent.json";
  write(json, json_text);
  const io::Json document = ssp::read_osp(xml).document;
  EXPECT_EQ(unordered(document), unordered(io::Json::parse(json_text)));
  EXPECT_EQ(document["connections"], io::Json::parse(json_text)["connections"]);  // in this order

  const scenario::ScenarioRun from_osp = scenario::run_scenario(scenario::load_scenario(xml));
  const scenario::ScenarioRun from_json = scenario::run_scenario(scenario::load_scenario(json));
  expect_identical(from_osp, from_json);
  EXPECT_EQ(from_osp.stats.macro_steps, 200);
  const std::vector<std::string>& labels = from_osp.results->labels();
  EXPECT_NE(std::find(labels.begin(), labels.end(), "acc.out"), labels.end());
  // and the folder runs the same
  expect_identical(scenario::run_scenario(scenario::load_scenario(xml.parent_path())), from_json);
}

TEST_F(OspTest, AVectorSumAddsVariableGroupsElementByElement) {
  const std::string rest = R"(
  <Functions>
    <VectorSum name="twice" inputCount="2" dimension="2"/>
  </Functions>
  <Connections>
    <SignalGroupConnection>
      <VariableGroup simulator="mass1" name="kinematics"/>
      <SignalGroup function="twice" name="in[0]"/>
    </SignalGroupConnection>
    <SignalGroupConnection>
      <SignalGroup function="twice" name="in[1]"/>
      <VariableGroup simulator="mass1" name="kinematics"/>
    </SignalGroupConnection>
    <SignalGroupConnection>
      <SignalGroup function="twice" name="out"/>
      <VariableGroup simulator="mass2" name="kinematics_in"/>
    </SignalGroupConnection>
    <VariableConnection>
      <Variable simulator="mass1" name="F"/>
      <Variable simulator="mass2" name="F"/>
    </VariableConnection>
  </Connections>)";
  const std::filesystem::path xml = configuration(osp_configuration(kSimulators, rest));
  const io::Json document = ssp::read_osp(xml).document;
  EXPECT_EQ(document["systems"]["twice"], io::Json::parse(R"({"model": "sum:2x2"})"));
  EXPECT_EQ(document["connections"], io::Json::parse(R"([
      {"from": "mass1.s1_out", "to": "twice.in0_0"}, {"from": "mass1.v1_out", "to": "twice.in0_1"},
      {"from": "mass1.s1_out", "to": "twice.in1_0"}, {"from": "mass1.v1_out", "to": "twice.in1_1"},
      {"from": "twice.out0", "to": "mass2.s1"}, {"from": "twice.out1", "to": "mass2.v1"},
      {"from": "mass2.F", "to": "mass1.F"}])"));
  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(xml));
  const std::vector<double>& s = run.results->column("mass1.s1_out");
  const std::vector<double>& sum = run.results->column("twice.out0");
  ASSERT_GT(s.size(), 10U);
  EXPECT_EQ(sum[0], s[0] + s[0]);
  // each step of the sum holds its inputs of the step's start (s1_out has no feedthrough: its row is
  // the value the sum took), so its output at a row is twice s1_out of the row before
  for (std::size_t r = 1; r < s.size(); ++r) EXPECT_EQ(sum[r], s[r - 1] + s[r - 1]) << "row " << r;
}

TEST_F(OspTest, WhatCosimaCannotHonourIsRefusedByName) {
  auto expect_error = [&](const std::string& text, const std::string& expected) {
    const std::filesystem::path xml = configuration(text);
    const std::string message = error_of([&] { (void)scenario::load_scenario(xml); });
    EXPECT_NE(message.find(expected), std::string::npos) << "expected '" << expected << "' in: " << message;
    EXPECT_NE(message.find("OspSystemStructure.xml"), std::string::npos) << message;
  };
  const std::string osp = osp_configuration();
  expect_error(replaced(osp, R"(stepSize="0.02")", R"(stepSize="0.015")"),
               "simulator 'mass2': stepSize 0.015 is not a whole multiple of BaseStepSize 0.01");
  expect_error(replaced(osp, "<Algorithm>fixedStep</Algorithm>", "<Algorithm>ecco</Algorithm>"),
               "<Algorithm>ecco</Algorithm>: cosima runs OSP's fixedStep algorithm");
  expect_error(
      replaced(osp, R"(<Sum name="acc" inputCount="2"/>)", R"(<Sum name="acc" inputCount="2"/><Product name="p"/>)"),
      "function 'p' is a <Product>");
  expect_error(replaced(osp, "<StartTime>", "<Description>x</Description><StartTime>"),
               "<Description> is not an element of <OspSystemStructure> that cosima knows");
  expect_error(replaced(osp, R"(inputCount="2")", R"(inputCount="3")"),
               "input acc.in2 of Sum 'acc' (inputCount 3) is fed by no connection");
  expect_error(replaced(osp, R"(<VariableGroup simulator="mass2" name="port"/>)",
                        R"(<VariableGroup simulator="mass2" name="force"/>)"),
               "joins variable groups 'mass1.port' (LinearMechanicalPort: 2 groups, 0 variables) and 'mass2.force' "
               "(Force: 0 groups, 1 variables): they differ in size");
  expect_error(replaced(osp, R"(<VariableGroup simulator="mass2" name="port"/>)",
                        R"(<VariableGroup simulator="mass2" name="flange"/>)"),
               "names variable group 'flange' of simulator 'mass2', which '" +
                   (dir_ / "fmus" / "mass2_OspModelDescription.xml").string() +
                   "' does not define (groups: port, force, velocity, kinematics_in)");
  expect_error(
      replaced(osp, R"(<Variable simulator="mass2" name="s1"/>)", R"(<Variable simulator="mass2" name="s9"/>)"),
      "names variable 's9' of simulator 'mass2', which its FMU");
  expect_error(replaced(osp, R"(<Variable simulator="mass2" name="s1"/>)", R"(<Variable simulator="wolf" name="s1"/>)"),
               "names simulator 'wolf', which is not declared (simulators: mass1, mass2, gain)");
  expect_error(replaced(osp, R"(<Variable simulator="gain" name="u"/>)", R"(<Variable simulator="mass2" name="s1"/>)"),
               "feeds 'mass2.s1', which another connection feeds already");
  expect_error(
      replaced(osp, R"(<Variable simulator="mass2" name="s1"/>)", R"(<Variable simulator="mass2" name="m2"/>)"),
      "joins 'mass2.m2' (parameter) and 'mass1.s1_out' (output): a connection joins an output and an input");
  expect_error(replaced(osp, R"(source="../fmus/gain.fmu")", R"(source="proxyfmu://localhost?file=gain.fmu")"),
               "simulator 'gain': source 'proxyfmu://localhost?file=gain.fmu' has the scheme 'proxyfmu'");
  expect_error(replaced(osp, R"(source="../fmus/gain.fmu")", R"(source="../fmus/wolf.fmu")"),
               "simulator 'gain': source '../fmus/wolf.fmu' is not a file");
  expect_error(replaced(osp, R"(<Real value="0.25"/>)", R"(<Boolean value="true"/>)"),
               "an InitialValue of simulator 'gain' for 'k' is a Boolean, and the variable is Real");
  expect_error(replaced(osp, R"(<Signal function="acc" name="in[1]"/>)", R"(<Signal function="acc" name="in[2]"/>)"),
               "names signal 'in[2]' of Sum 'acc' (inputCount 2), which has none such (signals: in[0] … in[1], out)");
  // a simulator whose FMU has no OspModelDescription beside it or the configuration
  std::filesystem::remove(dir_ / "fmus" / "mass2_OspModelDescription.xml");
  expect_error(osp, "simulator 'mass2' has no variable groups: no OspModelDescription ('" +
                        (dir_ / "fmus" / "cosima_test_mass2_OspModelDescription.xml").string());
  // found in the configuration's folder instead, as libcosim looks there too
  write(dir_ / "config" / "cosima_test_mass2_OspModelDescription.xml", kMass2Groups);
  const std::filesystem::path xml = configuration(osp);
  EXPECT_EQ(ssp::read_osp(xml).document["connections"][0], io::Json::parse(R"({"from": "mass2.F", "to": "mass1.F"})"));
  EXPECT_TRUE(temp_->empty());
}

// --- SSP packages made for libcosim -----------------------------------------------------------------

const std::string kB3Components = R"(
      <ssd:Component name="prey" source="prey.fmu">
        <ssd:Connectors>
          <ssd:Connector name="q" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="p" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="predator" source="predator.fmu">
        <ssd:Connectors>
          <ssd:Connector name="p" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="q" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>PREDATOR_ANNOTATIONS
      </ssd:Component>)";

/// The B3 system as libcosim's SSP packages are written: FMUs beside the SSD, the algorithm in an
/// osp annotation of the DefaultExperiment.
std::string b3_osp_ssd(const std::string& stop = "1", const std::string& predator_annotations = "",
                       const std::string& experiment_annotations = R"(
    <ssd:Annotations>
      <ssc:Annotation type="com.opensimulationplatform">
        <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="0.004"/></osp:Algorithm>
      </ssc:Annotation>
    </ssd:Annotations>)") {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations" version="1.0" name="B3 for libcosim">
  <ssd:System name="root">
    <ssd:Elements>)" +
         replaced(kB3Components, "PREDATOR_ANNOTATIONS", predator_annotations) + R"(
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p"/>
      <ssd:Connection startElement="predator" startConnector="q" endElement="prey" endConnector="q"/>
    </ssd:Connections>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime=")" +
         stop + R"(">)" + experiment_annotations + R"(
  </ssd:DefaultExperiment>
</ssd:SystemStructureDescription>
)";
}

const std::string kStepSizeHint = R"(
        <ssd:Annotations>
          <ssc:Annotation type="com.opensimulationplatform">
            <osp:StepSizeHint value="0.008"/>
            <osp:Colour value="red"/>
          </ssc:Annotation>
        </ssd:Annotations>)";

std::filesystem::path write_package(const std::filesystem::path& file,
                                    const std::vector<std::pair<std::string, std::string>>& ssds) {
  std::vector<std::pair<std::string, std::string>> entries = {
      {"prey.fmu", testing::read_file(kFmuDir / "b3_prey.fmu")},
      {"predator.fmu", testing::read_file(kFmuDir / "b3_predator.fmu")}};
  entries.insert(entries.end(), ssds.begin(), ssds.end());
  testing::write_zip(file, entries, false);
  return file;
}

TEST_F(OspTest, AnSspPackageForLibcosimRunsAtItsBaseStepWithItsStepSizeHints) {
  const std::filesystem::path ssp =
      write_package(dir_ / "b3.ssp", {{"SystemStructure.ssd", b3_osp_ssd("1", kStepSizeHint)}});
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_EQ(document["method"], io::Json::parse(R"({"dt": 0.004, "rates": {"predator": 2}})"));
  const std::vector<std::string> warnings = logged_warnings();
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("component 'predator' holds <osp:Colour>, which cosima does not read") != std::string::npos;
  })) << "the unknown OSP annotation is warned about";

  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(ssp));
  EXPECT_EQ(run.stats.macro_steps, 250);  // 1 s at 0.004
  // --dt overrides it (the command line's --dt is this override)
  const scenario::ScenarioRun shorter = scenario::run_scenario(scenario::load_scenario(ssp, {"method.dt=0.01"}));
  EXPECT_EQ(shorter.stats.macro_steps, 100);

  // without hints: one rate, and the same as the JSON scenario at 0.004
  const std::filesystem::path plain = write_package(dir_ / "plain.ssp", {{"SystemStructure.ssd", b3_osp_ssd()}});
  const std::filesystem::path json = dir_ / "b3.json";
  write(json,
        R"({"start": 0, "stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu"}, "predator": {"fmu": "b3_predator.fmu"}},
    "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]], "method": {"type": "jacobi", "dt": 0.004}})");
  expect_identical(scenario::run_scenario(scenario::load_scenario(plain)),
                   scenario::run_scenario(scenario::load_scenario(json)));

  // another algorithm is refused; a hint that is no whole multiple too
  const std::string message = error_of([&] {
    (void)ssp::read_ssp(write_package(
        dir_ / "bad.ssp",
        {{"SystemStructure.ssd",
          replaced(b3_osp_ssd(), R"(<osp:FixedStepAlgorithm baseStepSize="0.004"/>)", R"(<osp:EccoAlgorithm/>)")}}));
  });
  EXPECT_NE(message.find("names algorithm <osp:EccoAlgorithm>"), std::string::npos) << message;
  const std::string hint = error_of([&] {
    (void)ssp::read_ssp(write_package(
        dir_ / "bad.ssp", {{"SystemStructure.ssd", b3_osp_ssd("1", replaced(kStepSizeHint, "0.008", "0.005"))}}));
  });
  EXPECT_NE(hint.find("component 'predator': osp:StepSizeHint 0.005 is not a whole multiple of the baseStepSize 0.004"),
            std::string::npos)
      << hint;
}

TEST_F(OspTest, TheSsdOptionPicksAnotherSsdOfAPackageOrFolder) {
  const std::filesystem::path ssp =
      write_package(dir_ / "two.ssp", {{"SystemStructure.ssd", b3_osp_ssd("2")}, {"Short.ssd", b3_osp_ssd("0.5")}});
  EXPECT_EQ(scenario::load_scenario(ssp).run.stop, 2.0);
  EXPECT_EQ(scenario::load_scenario(ssp, {}, {}, "Short").run.stop, 0.5);
  EXPECT_EQ(scenario::load_scenario(ssp, {}, {}, "Short.ssd").run.stop, 0.5);
  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(ssp, {}, {}, "Short"));
  EXPECT_EQ(run.stats.macro_steps, 125);
  std::string message = error_of([&] { (void)scenario::load_scenario(ssp, {}, {}, "Long"); });
  EXPECT_NE(message.find("has no SSD 'Long' (SSDs: Short.ssd, SystemStructure.ssd)"), std::string::npos) << message;
  // a folder (an unpacked package)
  const std::filesystem::path folder = dir_ / "unpacked";
  write(folder / "Short.ssd", b3_osp_ssd("0.5"));
  std::filesystem::copy_file(kFmuDir / "b3_prey.fmu", folder / "prey.fmu");
  std::filesystem::copy_file(kFmuDir / "b3_predator.fmu", folder / "predator.fmu");
  EXPECT_EQ(scenario::load_scenario(folder, {}, {}, "Short").run.stop, 0.5);
  // it is for packages and folders
  message = error_of([&] { (void)scenario::load_scenario(folder / "Short.ssd", {}, {}, "Short"); });
  EXPECT_NE(message.find("picks an SSD of an SSP package or folder"), std::string::npos) << message;
  const std::filesystem::path xml = configuration(osp_configuration());
  message = error_of([&] { (void)scenario::load_scenario(xml, {}, {}, "Short"); });
  EXPECT_NE(message.find("--ssd 'Short' picks an SSD of an SSP package (.ssp) or folder"), std::string::npos)
      << message;
}

TEST_F(OspTest, ABareSsdFindsItsFmusOutsideItsFolderAndAPackageStillMayNot) {
  std::filesystem::copy_file(kFmuDir / "b3_prey.fmu", dir_ / "fmus" / "prey.fmu");
  std::filesystem::copy_file(kFmuDir / "b3_predator.fmu", dir_ / "fmus" / "predator.fmu");
  std::string ssd = replaced(b3_osp_ssd(), R"(source="prey.fmu")", R"(source="../fmus/prey.fmu")");
  ssd = replaced(ssd, R"(source="predator.fmu")", R"(source="../fmus/predator.fmu")");
  write(dir_ / "model" / "b3.ssd", ssd);
  const scenario::ScenarioRun bare = scenario::run_scenario(scenario::load_scenario(dir_ / "model" / "b3.ssd"));
  EXPECT_EQ(bare.stats.macro_steps, 250);
  expect_identical(bare, scenario::run_scenario(scenario::load_scenario(
                             write_package(dir_ / "b3.ssp", {{"SystemStructure.ssd", b3_osp_ssd()}}))));
  // the same SSD inside a package is confined to it
  std::string message = error_of([&] {
    (void)ssp::read_ssp(write_package(dir_ / "escape.ssp", {{"SystemStructure.ssd", ssd}}));
  });
  EXPECT_NE(message.find("source '../fmus/prey.fmu' is not a relative path inside the package"), std::string::npos)
      << message;
  // and in a folder (an unpacked package)
  write(dir_ / "model" / "SystemStructure.ssd", ssd);
  message = error_of([&] { (void)scenario::load_scenario(dir_ / "model"); });
  EXPECT_NE(message.find("is not a relative path inside the package"), std::string::npos) << message;
}

}  // namespace
}  // namespace cosima
