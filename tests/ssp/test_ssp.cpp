// SSP 1.0 import and export: packages written here from SSD text in the shape of the
// standard's examples, around the project's B3 FMUs (prey: input q, output p; predator: input p,
// output q). Every test runs in a private TMPDIR that must be empty again at its end: nothing
// unpacked is left behind, also when the import fails.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fmu_fixtures.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "scenario/ssp_export.hpp"
#include "ssp/ssp_reader.hpp"

namespace cosima {
namespace {

using testing::kExamples;
using testing::kFmuDir;
using testing::PrivateTemp;

const std::string kHeader = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping" version="1.0" name="B3 as SSP">
)";

/// The prey and predator components; `prey_p` and `predator_p` are the type elements of their p connectors.
std::string b3_components(const std::string& prey_p = "<ssc:Real/>", const std::string& predator_p = "<ssc:Real/>",
                          const std::string& predator_bindings = "") {
  return R"(
      <ssd:Component name="prey" type="application/x-fmu-sharedlibrary" source="resources/prey.fmu">
        <ssd:Connectors>
          <ssd:Connector name="q" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="p" kind="output">)" +
         prey_p + R"(</ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="predator" source="resources/predator.fmu">
        <ssd:Connectors>
          <ssd:Connector name="p" kind="input">)" +
         predator_p + R"(</ssd:Connector>
          <ssd:Connector name="q" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>)" +
         predator_bindings + R"(
      </ssd:Component>)";
}

const std::string kB3Connections = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p"/>
      <ssd:Connection startElement="predator" startConnector="q" endElement="prey" endConnector="q"/>
    </ssd:Connections>)";

const std::string kMethod = R"(
    <ssd:Annotations>
      <ssc:Annotation type="org.cosima.scenario"><![CDATA[{"method": {"type": "jacobi", "dt": 0.01}}]]></ssc:Annotation>
    </ssd:Annotations>)";

const std::string kFooter = R"(
  <ssd:DefaultExperiment startTime="0" stopTime="2"/>
</ssd:SystemStructureDescription>
)";

/// A root system of the given parts.
std::string b3_ssd(const std::string& elements = b3_components(), const std::string& connections = kB3Connections,
                   const std::string& root_extras = "", const std::string& top_extras = "") {
  return kHeader + R"(  <ssd:System name="root">)" + root_extras + "\n    <ssd:Elements>" + elements +
         "\n    </ssd:Elements>" + connections + kMethod + "\n  </ssd:System>" + top_extras + kFooter;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

/// An .ssp with SystemStructure.ssd, the B3 FMUs as resources/prey.fmu and resources/predator.fmu, and `extra`.
std::filesystem::path write_ssp(const std::filesystem::path& where, const std::string& ssd, const Entries& extra = {},
                                bool with_ssd = true) {
  Entries entries = {{"resources/prey.fmu", testing::read_file(kFmuDir / "b3_prey.fmu")},
                     {"resources/predator.fmu", testing::read_file(kFmuDir / "b3_predator.fmu")}};
  if (with_ssd) entries.emplace_back("SystemStructure.ssd", ssd);
  entries.insert(entries.end(), extra.begin(), extra.end());
  std::filesystem::path file = where / "model.ssp";
  testing::write_zip(file, entries, false);  // stored: the FMU binaries inside are compressed already
  return file;
}

/// A folder for the test's own files, outside the private TMPDIR (which must end empty).
class SspTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(temp_->empty()) << "something was left in the private TMPDIR";
    temp_.reset();
    std::filesystem::remove_all(dir_);
  }
  static std::filesystem::path make_folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cosima-ssp-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern;
    return pattern;
  }
  std::filesystem::path dir_ = make_folder();  // made before the private TMPDIR below
  std::unique_ptr<PrivateTemp> temp_ = std::make_unique<PrivateTemp>();
};

/// Every column of two runs, compared with ==.
void expect_identical(const scenario::ScenarioRun& a, const scenario::ScenarioRun& b) {
  ASSERT_EQ(a.results->rows(), b.results->rows());
  ASSERT_EQ(a.results->labels().size(), b.results->labels().size());
  ASSERT_GT(a.results->rows(), 10);
  EXPECT_EQ(a.results->times(), b.results->times());
  for (std::size_t c = 0; c < a.results->labels().size(); ++c) {
    for (std::int64_t r = 0; r < a.results->rows(); ++r) {
      ASSERT_EQ(a.results->value(static_cast<std::size_t>(r), c), b.results->value(static_cast<std::size_t>(r), c))
          << a.results->labels()[c] << " row " << r;
    }
  }
}

/// A document part compared without regard to the order of keys.
nlohmann::json unordered(const io::Json& value) { return nlohmann::json::parse(value.dump()); }

/// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// The message of the Error `run` throws (empty when it throws none).
template <class F>
std::string error_of(F&& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(SspTest, AFlatSystemImportsAsTheScenarioItDescribes) {
  const std::filesystem::path ssp = write_ssp(dir_, b3_ssd());
  io::Json document;
  std::filesystem::path unpacked;
  {
    const ssp::SspImport package = ssp::read_ssp(ssp);
    document = package.document;
    unpacked = std::filesystem::path(document["systems"]["prey"]["fmu"].get<std::string>());
    EXPECT_TRUE(std::filesystem::exists(unpacked));
  }
  EXPECT_FALSE(std::filesystem::exists(unpacked)) << "the unpacked package outlives its import";
  EXPECT_EQ(document["name"], "B3 as SSP");
  // (e) DefaultExperiment → start, stop
  EXPECT_EQ(document["start"], 0.0);
  EXPECT_EQ(document["stop"], 2.0);
  EXPECT_EQ(document["method"], io::Json::parse(R"({"type": "jacobi", "dt": 0.01})"));
  EXPECT_EQ(document["connections"],
            io::Json::parse(R"([{"from": "prey.p", "to": "predator.p"}, {"from": "predator.q", "to": "prey.q"}])"));

  // the run equals the same scenario in JSON
  const scenario::Scenario scenario = scenario::load_scenario(ssp);
  EXPECT_EQ(scenario.run.stop, 2.0);
  const scenario::ScenarioRun from_ssp = scenario::run_scenario(scenario);
  const std::filesystem::path json = dir_ / "b3.json";
  std::ofstream(json)
      << R"({"start": 0, "stop": 2, "systems": {"prey": {"fmu": "b3_prey.fmu"}, "predator": {"fmu": "b3_predator.fmu"}},
    "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]], "method": {"type": "jacobi", "dt": 0.01}})";
  expect_identical(from_ssp, scenario::run_scenario(scenario::load_scenario(json)));
}

TEST_F(SspTest, ParameterSetsFromAnSsvFileAndInlineApplyWithPrefixMappingAndPrecedence) {
  // (a) an .ssv bound at the root with prefix "prey." (names as for the component, SSD: ParameterBindings
  // prefix); an inline set on the predator; a root binding of "predator.gamma" wins over the
  // predator's own (a higher level takes precedence); a name no FMU has is ignored.
  const std::string ssv = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" version="1.0" name="prey set">
  <ssv:Parameters>
    <ssv:Parameter name="alpha"><ssv:Real value="0.5"/></ssv:Parameter>
    <ssv:Parameter name="solver_kind"><ssv:Integer value="1"/></ssv:Parameter>
    <ssv:Parameter name="no_such_parameter"><ssv:Real value="7"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>)";
  const std::string predator_inline = R"(
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="predator set">
                <ssv:Parameters>
                  <ssv:Parameter name="gamma"><ssv:Real value="0.8"/></ssv:Parameter>
                  <ssv:Parameter name="delta"><ssv:Real value="1.25"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>)";
  const std::string root_bindings = R"(
    <ssd:ParameterBindings>
      <ssd:ParameterBinding source="resources/prey.ssv" prefix="prey."/>
      <ssd:ParameterBinding>
        <ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="overrides">
            <ssv:Parameters>
              <ssv:Parameter name="predator.gamma"><ssv:Real value="0.9"/></ssv:Parameter>
              <ssv:Parameter name="b"><ssv:Real value="1.5"/></ssv:Parameter>
            </ssv:Parameters>
          </ssv:ParameterSet>
        </ssd:ParameterValues>
        <ssd:ParameterMapping>
          <ssm:ParameterMapping version="1.0">
            <ssm:MappingEntry source="predator.gamma" target="predator.gamma"/>
            <ssm:MappingEntry source="b" target="prey.beta"/>
          </ssm:ParameterMapping>
        </ssd:ParameterMapping>
      </ssd:ParameterBinding>
    </ssd:ParameterBindings>)";
  const std::filesystem::path ssp = write_ssp(
      dir_, b3_ssd(b3_components("<ssc:Real/>", "<ssc:Real/>", predator_inline), kB3Connections, root_bindings),
      {{"resources/prey.ssv", ssv}});
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_EQ(unordered(document["systems"]["prey"]["parameters"]),
            nlohmann::json::parse(R"({"alpha": 0.5, "solver_kind": 1, "beta": 1.5})"));
  EXPECT_EQ(unordered(document["systems"]["predator"]["parameters"]),
            nlohmann::json::parse(R"({"delta": 1.25, "gamma": 0.9})"));
  const scenario::Scenario scenario = scenario::load_scenario(ssp);
  EXPECT_EQ(std::get<double>(scenario.systems[0].parameters.at("alpha")), 0.5);
  (void)scenario::run_scenario(scenario);  // the FMUs take them
}

TEST_F(SspTest, AParameterBindingToAnUnconnectedInputIsItsValue) {
  // SSP 1.0 §5.6: a binding sets a variable's start value; an input nothing connected drives keeps
  // it (the predator's q feeds nothing back here, so prey.q is unconnected and bound)
  const std::string one_way = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p"/>
    </ssd:Connections>)";
  const std::string bindings = R"(
    <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
      <ssv:ParameterSet version="1.0" name="inputs"><ssv:Parameters>
        <ssv:Parameter name="prey.q"><ssv:Real value="0.75"/></ssv:Parameter>
      </ssv:Parameters></ssv:ParameterSet>
    </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>)";
  const std::filesystem::path ssp = write_ssp(dir_, b3_ssd(b3_components(), one_way, bindings));
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_EQ(document["inputs"]["prey.q"], 0.75);
  EXPECT_FALSE(document["systems"]["prey"].contains("parameters"));
  const scenario::ScenarioRun run = scenario::run_scenario(scenario::load_scenario(ssp));
  EXPECT_TRUE(run.stats.inputs_at_start_values.empty());  // driven by the binding, not left at its start
}

TEST_F(SspTest, TheScenarioAnnotationCannotNameAFile) {
  // a merge patch setting a system's file would load whatever it names, outside the package
  for (const char* key : {"fmu", "csv", "model"}) {
    const std::string annotation = fmt::format(R"(
    <ssd:Annotations>
      <ssc:Annotation type="org.cosima.scenario"><![CDATA[{{"systems": {{"prey": {{"{}": "/etc/passwd"}}}}}}]]></ssc:Annotation>
    </ssd:Annotations>)",
                                               key);
    const std::filesystem::path ssp = write_ssp(dir_, b3_ssd(b3_components(), kB3Connections, annotation));
    const std::string error = error_of([&] { (void)ssp::read_ssp(ssp); });
    EXPECT_NE(error.find(fmt::format("sets 'systems.prey.{}'", key)), std::string::npos) << error;
  }
}

TEST_F(SspTest, ALinearTransformationIsTheConnectionsScaleAndOffset) {
  // (b) SSC LinearTransformation: predator.p = 2·prey.p + 1 (composed with no unit conversion)
  const std::string connections = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p">
        <ssc:LinearTransformation factor="2" offset="1"/>
      </ssd:Connection>
      <ssd:Connection startElement="predator" startConnector="q" endElement="prey" endConnector="q"/>
    </ssd:Connections>)";
  const std::filesystem::path ssp = write_ssp(dir_, b3_ssd(b3_components(), connections));
  EXPECT_EQ(ssp::read_ssp(ssp).document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p", "scale": 2.0, "offset": 1.0})"));
  const std::filesystem::path json = dir_ / "scaled.json";
  std::ofstream(json)
      << R"({"start": 0, "stop": 2, "systems": {"prey": {"fmu": "b3_prey.fmu"}, "predator": {"fmu": "b3_predator.fmu"}},
    "connections": [{"from": "prey.p", "to": "predator.p", "scale": 2, "offset": 1}, ["predator.q", "prey.q"]],
    "method": {"type": "jacobi", "dt": 0.01}})";
  const scenario::ScenarioRun scaled = scenario::run_scenario(scenario::load_scenario(json));
  expect_identical(scenario::run_scenario(scenario::load_scenario(ssp)), scaled);
  // and it is not the untransformed run
  const scenario::ScenarioRun plain = scenario::run_scenario(scenario::load_scenario(write_ssp(dir_, b3_ssd())));
  EXPECT_NE(plain.results->column("prey.p").back(), scaled.results->column("prey.p").back());
}

TEST_F(SspTest, NestedSystemsFlattenToDottedNamesThroughTheirConnectors) {
  // (c) prey in sub-system "a", predator in "b"; the root connects a's and b's connectors, each
  // sub-system connects its connectors to its component; a transformation on the way composes.
  const std::string elements = R"(
      <ssd:System name="a">
        <ssd:Connectors>
          <ssd:Connector name="p_out" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="q_in" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="prey" source="resources/prey.fmu">
            <ssd:Connectors>
              <ssd:Connector name="q" kind="input"><ssc:Real/></ssd:Connector>
              <ssd:Connector name="p" kind="output"><ssc:Real/></ssd:Connector>
            </ssd:Connectors>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startElement="prey" startConnector="p" endConnector="p_out">
            <ssc:LinearTransformation factor="4"/>
          </ssd:Connection>
          <ssd:Connection startConnector="q_in" endElement="prey" endConnector="q"/>
        </ssd:Connections>
      </ssd:System>
      <ssd:System name="b">
        <ssd:Connectors>
          <ssd:Connector name="p_in" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="q_out" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="predator" source="resources/predator.fmu">
            <ssd:Connectors>
              <ssd:Connector name="p" kind="input"><ssc:Real/></ssd:Connector>
              <ssd:Connector name="q" kind="output"><ssc:Real/></ssd:Connector>
            </ssd:Connectors>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startConnector="p_in" endElement="predator" endConnector="p">
            <ssc:LinearTransformation factor="0.25" offset="0"/>
          </ssd:Connection>
          <ssd:Connection startElement="predator" startConnector="q" endConnector="q_out"/>
        </ssd:Connections>
      </ssd:System>)";
  const std::string connections = R"(
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="p_out" endElement="b" endConnector="p_in"/>
      <ssd:Connection startElement="b" startConnector="q_out" endElement="a" endConnector="q_in"/>
    </ssd:Connections>)";
  const std::filesystem::path ssp = write_ssp(dir_, b3_ssd(elements, connections));
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_TRUE(document["systems"].contains("a.prey"));
  EXPECT_TRUE(document["systems"].contains("b.predator"));
  // 4 · 0.25 = 1: no transformation is left
  EXPECT_EQ(
      document["connections"],
      io::Json::parse(R"([{"from": "b.predator.q", "to": "a.prey.q"}, {"from": "a.prey.p", "to": "b.predator.p"}])"));
  const scenario::ScenarioRun nested = scenario::run_scenario(scenario::load_scenario(ssp));
  const scenario::ScenarioRun flat = scenario::run_scenario(scenario::load_scenario(write_ssp(dir_, b3_ssd())));
  EXPECT_EQ(nested.results->column("a.prey.p"), flat.results->column("prey.p"));
  EXPECT_EQ(nested.results->column("b.predator.q"), flat.results->column("predator.q"));
}

const std::string kUnits = R"(
  <ssd:Units>
    <ssc:Unit name="km"><ssc:BaseUnit m="1" factor="1000"/></ssc:Unit>
    <ssc:Unit name="m"><ssc:BaseUnit m="1"/></ssc:Unit>
    <ssc:Unit name="s"><ssc:BaseUnit s="1"/></ssc:Unit>
    <ssc:Unit name="degC"><ssc:BaseUnit K="1" offset="273.15"/></ssc:Unit>
    <ssc:Unit name="degF"><ssc:BaseUnit K="1" factor="0.5555555555555556" offset="255.3722222222222"/></ssc:Unit>
  </ssd:Units>)";

TEST_F(SspTest, UnitsConvertWhenTheirBaseUnitsAgreeAndAreRefusedOtherwise) {
  // (d) km → m: ×1000, composed with a LinearTransformation after it (SSC: conversion first)
  const std::string transformed = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p">
        <ssc:LinearTransformation factor="2" offset="3"/>
      </ssd:Connection>
    </ssd:Connections>)";
  io::Json document =
      ssp::read_ssp(write_ssp(dir_, b3_ssd(b3_components(R"(<ssc:Real unit="km"/>)", R"(<ssc:Real unit="m"/>)"),
                                           transformed, "", kUnits)))
          .document;
  EXPECT_EQ(document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p", "scale": 2000.0, "offset": 3.0})"));
  // an offset: °C → °F
  document =
      ssp::read_ssp(write_ssp(dir_, b3_ssd(b3_components(R"(<ssc:Real unit="degC"/>)", R"(<ssc:Real unit="degF"/>)"),
                                           kB3Connections, "", kUnits)))
          .document;
  EXPECT_NEAR(document["connections"][0]["scale"].get<double>(), 1.8, 1e-12);
  EXPECT_NEAR(document["connections"][0]["offset"].get<double>(), 32.0, 1e-9);
  // suppressUnitConversion: no conversion
  const std::string suppressed = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p" suppressUnitConversion="true"/>
    </ssd:Connections>)";
  document = ssp::read_ssp(write_ssp(dir_, b3_ssd(b3_components(R"(<ssc:Real unit="km"/>)", R"(<ssc:Real unit="m"/>)"),
                                                  suppressed, "", kUnits)))
                 .document;
  EXPECT_EQ(document["connections"][0], io::Json::parse(R"({"from": "prey.p", "to": "predator.p"})"));
  // m → s: refused, naming both connectors and both units
  const std::string message = error_of([&] {
    (void)ssp::read_ssp(write_ssp(
        dir_, b3_ssd(b3_components(R"(<ssc:Real unit="m"/>)", R"(<ssc:Real unit="s"/>)"), kB3Connections, "", kUnits)));
  });
  EXPECT_NE(message.find("'prey.p' (unit m)"), std::string::npos) << message;
  EXPECT_NE(message.find("'predator.p' (unit s)"), std::string::npos) << message;
  // a unit no ssc:Unit defines
  EXPECT_NE(error_of([&] {
              (void)ssp::read_ssp(
                  write_ssp(dir_, b3_ssd(b3_components(R"(<ssc:Real unit="mile"/>)", R"(<ssc:Real unit="m"/>)"),
                                         kB3Connections, "", kUnits)));
            }).find("unit 'mile', which no <ssc:Unit> defines"),
            std::string::npos);
}

/// A project FMU whose modelDescription.xml has UnitDefinitions (km = 1000 m, m, s) and gives variable `variable`
/// the unit `unit`: the FMU's bytes, for an entry of the package.
std::string fmu_with_unit(const std::filesystem::path& dir, const std::string& fmu, const std::string& variable,
                          const std::string& unit) {
  const std::filesystem::path original = kFmuDir / fmu;
  int error = 0;
  zip_t* archive = zip_open(original.c_str(), ZIP_RDONLY, &error);
  EXPECT_NE(archive, nullptr) << original;
  if (archive == nullptr) return {};
  Entries entries;
  for (zip_int64_t i = 0; i < zip_get_num_entries(archive, 0); ++i) {
    const std::string name = zip_get_name(archive, static_cast<zip_uint64_t>(i), 0);
    if (!name.ends_with("/")) entries.emplace_back(name, testing::read_zip_entry(original, name));
  }
  zip_discard(archive);
  for (auto& [name, content] : entries) {
    if (name != "modelDescription.xml") continue;
    content = replaced(content, "  <DefaultExperiment", R"(  <UnitDefinitions>
    <Unit name="km"><BaseUnit m="1" factor="1000"/></Unit>
    <Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="s"><BaseUnit s="1"/></Unit>
  </UnitDefinitions>
  <DefaultExperiment)");
    const auto at = content.find("name=\"" + variable + "\"");
    EXPECT_NE(at, std::string::npos) << variable;
    const auto real = content.find("<Real", at);
    if (at != std::string::npos && real != std::string::npos) content.insert(real + 5, " unit=\"" + unit + "\"");
  }
  const std::filesystem::path file = dir / ("units-" + fmu);
  testing::write_zip(file, entries, false);  // stored: repacking the binary is the test's slowest part
  return testing::read_file(file);
}

TEST_F(SspTest, UnitsTheFmusDeclareConvertWithoutAnyUnitInTheSsd) {
  // (a) prey's p in km, predator's p in m, the SSD declares no units: ×1000
  auto package = [&](const std::string& prey_unit, const std::string& predator_unit, const std::string& ssd) {
    return write_ssp(dir_, ssd,
                     {{"resources/prey.fmu", fmu_with_unit(dir_, "b3_prey.fmu", "p", prey_unit)},
                      {"resources/predator.fmu", fmu_with_unit(dir_, "b3_predator.fmu", "p", predator_unit)}});
  };
  EXPECT_EQ(ssp::read_ssp(package("km", "m", b3_ssd())).document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p", "scale": 1000.0})"));
  // run, the other way round (m → km, ×0.001: ×1000 drives the predator off any scale): the same results
  // as the plain FMUs with the factor as a LinearTransformation
  const std::filesystem::path converted = package("m", "km", b3_ssd());
  EXPECT_EQ(ssp::read_ssp(converted).document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p", "scale": 0.001})"));
  // (over [0, 0.5]: with p scaled down the prey grows unchecked, and the FMU's solver with it)
  const std::vector<std::string> shorter = {"stop=0.5"};
  const scenario::ScenarioRun by_units = scenario::run_scenario(scenario::load_scenario(converted, shorter));
  const std::string transformed = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p">
        <ssc:LinearTransformation factor="0.001"/>
      </ssd:Connection>
      <ssd:Connection startElement="predator" startConnector="q" endElement="prey" endConnector="q"/>
    </ssd:Connections>)";
  expect_identical(by_units, scenario::run_scenario(scenario::load_scenario(
                                 write_ssp(dir_, b3_ssd(b3_components(), transformed)), shorter)));
  const scenario::ScenarioRun plain =
      scenario::run_scenario(scenario::load_scenario(write_ssp(dir_, b3_ssd()), shorter));
  EXPECT_NE(plain.results->column("prey.p").back(), by_units.results->column("prey.p").back());
  // the same unit on both ends: no conversion
  EXPECT_EQ(ssp::read_ssp(package("km", "km", b3_ssd())).document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p"})"));
  // suppressUnitConversion still holds
  const std::string suppressed = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p" suppressUnitConversion="true"/>
    </ssd:Connections>)";
  EXPECT_EQ(ssp::read_ssp(package("km", "m", b3_ssd(b3_components(), suppressed))).document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p"})"));

  // (b) m → s from the FMUs: refused, naming both connectors and both units
  std::string message = error_of([&] { (void)ssp::read_ssp(package("m", "s", b3_ssd())); });
  EXPECT_NE(message.find("'prey.p' (unit m)"), std::string::npos) << message;
  EXPECT_NE(message.find("'predator.p' (unit s)"), std::string::npos) << message;
  EXPECT_NE(message.find("not convertible"), std::string::npos) << message;
  // a unit neither the SSD nor the FMU defines
  message = error_of([&] { (void)ssp::read_ssp(package("furlong", "m", b3_ssd())); });
  EXPECT_NE(message.find("'prey.p' (unit furlong)"), std::string::npos) << message;
  EXPECT_NE(message.find("'predator.p' (unit m)"), std::string::npos) << message;
  EXPECT_NE(message.find("unit 'furlong', which no <ssc:Unit> defines nor the FMU of component 'prey'"),
            std::string::npos)
      << message;

  // (c) an SSD connector's unit overrides the FMU's: predator.p declared in km like prey's p, no conversion; and
  // an SSD unit (mm, from ssd:Units) converts from the FMU's km
  EXPECT_EQ(ssp::read_ssp(package("km", "m", b3_ssd(b3_components("<ssc:Real/>", R"(<ssc:Real unit="km"/>)"))))
                .document["connections"][0],
            io::Json::parse(R"({"from": "prey.p", "to": "predator.p"})"));
  const std::string mm = R"(
  <ssd:Units><ssc:Unit name="mm"><ssc:BaseUnit m="1" factor="0.001"/></ssc:Unit></ssd:Units>)";
  EXPECT_EQ(
      ssp::read_ssp(
          package("km", "m", b3_ssd(b3_components("<ssc:Real/>", R"(<ssc:Real unit="mm"/>)"), kB3Connections, "", mm)))
          .document["connections"][0],
      io::Json::parse(R"({"from": "prey.p", "to": "predator.p", "scale": 1000000.0})"));

  // a parameter with a unit, bound to a variable the SSD declares no connector for, converts into the FMU's unit
  const std::string bound = R"(
    <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
      <ssv:ParameterSet version="1.0" name="initial"><ssv:Parameters>
        <ssv:Parameter name="prey.p0"><ssv:Real value="1500" unit="m"/></ssv:Parameter>
      </ssv:Parameters></ssv:ParameterSet>
    </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>)";
  const std::string m = R"(
  <ssd:Units><ssc:Unit name="m"><ssc:BaseUnit m="1"/></ssc:Unit></ssd:Units>)";
  const io::Json document =
      ssp::read_ssp(write_ssp(dir_, b3_ssd(b3_components(), kB3Connections, bound, m),
                              {{"resources/prey.fmu", fmu_with_unit(dir_, "b3_prey.fmu", "p0", "km")}}))
          .document;
  EXPECT_EQ(document["systems"]["prey"]["parameters"]["p0"], 1.5);
}

TEST_F(SspTest, ErrorsNameWhatIsAtFaultAndLeaveNothingBehind) {
  auto expect_error = [&](const std::filesystem::path& ssp, const std::string& expected) {
    const std::string message = error_of([&] { (void)scenario::load_scenario(ssp); });
    EXPECT_NE(message.find(expected), std::string::npos) << "expected '" << expected << "' in: " << message;
    EXPECT_TRUE(temp_->empty()) << expected;
  };
  expect_error(write_ssp(dir_, "", {}, false), "has no SystemStructure.ssd");
  expect_error(write_ssp(dir_, replaced(b3_ssd(), "resources/predator.fmu", "resources/wolf.fmu")),
               "component 'predator': source 'resources/wolf.fmu' is not in the package");
  expect_error(write_ssp(dir_, replaced(b3_ssd(), R"(endElement="predator")", R"(endElement="wolf")")),
               "names element 'wolf', which it does not contain (elements: prey, predator)");
  expect_error(write_ssp(dir_, replaced(b3_ssd(), R"(startConnector="q")", R"(startConnector="x")")),
               "names connector 'x' of component 'predator', which declares no such connector");
  expect_error(write_ssp(dir_, replaced(b3_ssd(), R"(type="application/x-fmu-sharedlibrary")",
                                        R"(type="application/x-ssp-package")")),
               "component 'prey' has type 'application/x-ssp-package'");
  expect_error(write_ssp(dir_, b3_ssd(), {{"../escaped.txt", "x"}}),
               "entry '../escaped.txt' points outside the archive");
  expect_error(write_ssp(dir_, replaced(b3_ssd(), "resources/prey.fmu", "/etc/prey.fmu")),
               "source '/etc/prey.fmu' is not a relative path inside the package");
  {
    // a root input connector feeding the prey, with no value bound to it
    const std::string connections = R"(
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p"/>
      <ssd:Connection startConnector="q0" endElement="prey" endConnector="q"/>
    </ssd:Connections>)";
    const std::string connectors = R"(
    <ssd:Connectors><ssd:Connector name="q0" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>)";
    expect_error(write_ssp(dir_, b3_ssd(b3_components(), connections, connectors)),
                 "connector 'q0' of the root system feeds connector 'prey.q' but nothing feeds it");
    // bound: a constant input
    const std::string bound = connectors + R"(
    <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
      <ssv:ParameterSet version="1.0" name="inputs"><ssv:Parameters>
        <ssv:Parameter name="q0"><ssv:Real value="0.25"/></ssv:Parameter>
      </ssv:Parameters></ssv:ParameterSet>
    </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>)";
    EXPECT_EQ(ssp::read_ssp(write_ssp(dir_, b3_ssd(b3_components(), connections, bound))).document["inputs"],
              io::Json::parse(R"({"prey.q": 0.25})"));
  }
  expect_error(write_ssp(dir_, "<ssd:SystemStructureDescription version=\"1.0\" name=\"x\"><ssd:System"),
               "not well-formed XML");
}

TEST_F(SspTest, TheB3FmuScenarioExportedAndRunBackGivesBitwiseTheSameResults) {
  const std::filesystem::path json = kExamples / "b3_lotka_volterra_fmu.json";
  const std::vector<std::string> shorter = {"stop=2"};
  const std::filesystem::path ssp = dir_ / "b3.ssp";
  scenario::export_ssp(json, ssp, shorter);
  // a second zip implementation (libzip) reads the package: the FMUs stored byte for byte
  EXPECT_EQ(testing::read_zip_entry(ssp, "resources/prey.fmu"), testing::read_file(kFmuDir / "b3_prey.fmu"));
  EXPECT_NE(testing::read_zip_entry(ssp, "SystemStructure.ssd").find("<ssd:SystemStructureDescription"),
            std::string::npos);
  const scenario::ScenarioRun original = scenario::run_scenario(scenario::load_scenario(json, shorter));
  const scenario::Scenario imported = scenario::load_scenario(ssp);
  EXPECT_EQ(imported.method["type"], "jacobi");
  EXPECT_EQ(imported.method["dt"], 0.001);
  EXPECT_EQ(std::get<double>(imported.systems[0].parameters.at("solver_rtol")), 1e-10);
  const scenario::ScenarioRun again = scenario::run_scenario(imported);
  EXPECT_EQ(original.results->labels(), again.results->labels());
  expect_identical(original, again);
}

TEST_F(SspTest, ConstantInputsAndTransformationsSurviveTheRoundTrip) {
  const std::filesystem::path json = dir_ / "prey_alone.json";
  std::ofstream(json) << R"({"name": "prey alone", "start": 0, "stop": 1,
    "systems": {"prey": {"fmu": "b3_prey.fmu", "parameters": {"alpha": 0.75, "solver_kind": 1}},
                "predator": {"fmu": "b3_predator.fmu", "rollback": false}},
    "connections": [{"from": "prey.p", "to": "predator.p", "scale": 0.5, "offset": 0.125}],
    "inputs": {"prey.q": 0.5},
    "method": {"type": "jacobi", "dt": 0.01}, "output": {"interval": 0.1}})";
  const std::filesystem::path ssp = dir_ / "prey_alone.ssp";
  scenario::export_ssp(json, ssp);
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_EQ(document["inputs"], io::Json::parse(R"({"prey.q": 0.5})"));
  EXPECT_EQ(document["connections"],
            io::Json::parse(R"([{"from": "prey.p", "to": "predator.p", "scale": 0.5, "offset": 0.125}])"));
  EXPECT_EQ(document["systems"]["predator"]["rollback"], false);
  EXPECT_EQ(unordered(document["systems"]["prey"]["parameters"]),
            nlohmann::json::parse(R"({"alpha": 0.75, "solver_kind": 1})"));
  EXPECT_EQ(document["output"], io::Json::parse(R"({"interval": 0.1})"));
  expect_identical(scenario::run_scenario(scenario::load_scenario(json)),
                   scenario::run_scenario(scenario::load_scenario(ssp)));
}

TEST_F(SspTest, AScenarioNamingAnSspIsMergedOnTopOfIt) {
  write_ssp(dir_, b3_ssd());  // model.ssp
  const std::filesystem::path json = dir_ / "on_top.json";
  std::ofstream(json) << R"({"ssp": "model.ssp", "stop": 1, "method": {"dt": 0.02},
    "systems": {"prey": {"parameters": {"alpha": 0.5}}}})";
  const scenario::Scenario scenario = scenario::load_scenario(json, {"systems.predator.parameters.gamma=0.75"});
  EXPECT_EQ(scenario.run.stop, 1.0);
  EXPECT_EQ(scenario.run.dt, 0.02);
  EXPECT_EQ(scenario.method["type"], "jacobi");
  EXPECT_EQ(std::get<double>(scenario.systems[0].parameters.at("alpha")), 0.5);
  EXPECT_EQ(std::get<double>(scenario.systems[1].parameters.at("gamma")), 0.75);
  EXPECT_EQ(scenario.connections.size(), 2U);
  EXPECT_TRUE(std::filesystem::exists(scenario.systems[0].fmu));
  (void)scenario::run_scenario(scenario);
}

TEST_F(SspTest, ACsvSourceTravelsAsASignalTableOfThePackage) {
  std::filesystem::copy_file(kExamples / "data" / "prey_measured.csv", dir_ / "measured.csv");
  const std::filesystem::path json = dir_ / "measured.json";
  std::ofstream(json) << fmt::format(R"({{"name": "measured prey", "start": 0, "stop": 2,
    "systems": {{"prey": {{"csv": "measured.csv", "interpolation": "linear"}},
                "predator": {{"fmu": "{}"}}}},
    "connections": [["prey.p", "predator.p"]],
    "method": {{"type": "jacobi", "dt": 0.01}}}})",
                                     (kFmuDir / "b3_predator.fmu").string());
  const std::filesystem::path ssp = dir_ / "measured.ssp";
  scenario::export_ssp(json, ssp);
  EXPECT_EQ(testing::read_zip_entry(ssp, "resources/prey.csv"), testing::read_file(dir_ / "measured.csv"));
  EXPECT_NE(testing::read_zip_entry(ssp, "SystemStructure.ssd").find(R"(type="text/csv" source="resources/prey.csv")"),
            std::string::npos);
  const io::Json document = ssp::read_ssp(ssp).document;
  EXPECT_EQ(document["systems"]["prey"]["interpolation"], "linear");
  EXPECT_TRUE(document["systems"]["prey"].contains("csv"));
  expect_identical(scenario::run_scenario(scenario::load_scenario(json)),
                   scenario::run_scenario(scenario::load_scenario(ssp)));
}

TEST_F(SspTest, ABuiltInModelCannotBeExported) {
  const std::string message =
      error_of([&] { scenario::export_ssp(kExamples / "b3_lotka_volterra.json", dir_ / "x.ssp"); });
  EXPECT_NE(message.find("system 'prey' is the built-in model 'b3.prey'"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.ssp"));
}

}  // namespace
}  // namespace cosima
