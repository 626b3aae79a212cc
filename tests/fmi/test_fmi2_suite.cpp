// FMI 2.0 import, checked against strict test FMUs written from the standard in C (tests/fmus/),
// not by cosima's export kit: every variable type, the call sequences, and every failure.
#include <array>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/error.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/common/model_description.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
#include "fmu_fixtures.hpp"
#include "io/csv.hpp"
#include "scenario/run_scenario.hpp"

namespace cosima {
namespace {

using testing::error_of;
using testing::PrivateTemp;

const std::filesystem::path kCFmus = COSIMA_C_FMU_DIR;
const std::filesystem::path kCFmuSources = COSIMA_C_FMU_SOURCES;

std::string fmu(const char* name) { return (kCFmus / (std::string("cosima_test_") + name + ".fmu")).string(); }

/// A scenario document with the test FMUs' absolute paths substituted for {types}, {counter}, ...
io::Json document(std::string text) {
  for (const char* name : {"types", "counter", "resource", "nan", "misbehave"}) {
    const std::string key = std::string("{") + name + "}";
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key))
      text.replace(at, key.size(), fmu(name));
  }
  return io::Json::parse(text);
}

scenario::ScenarioRun run(const io::Json& doc, const std::vector<std::string>& overrides = {}) {
  io::Json copy = doc;
  for (const auto& o : overrides) scenario::apply_override(copy, o);
  return scenario::run_scenario(scenario::parse_scenario(copy, "suite.json"));
}

double at(const scenario::ScenarioRun& r, const std::string& label, std::size_t row) {
  return r.results->column(label).at(row);
}

/// Two instances of the types FMU: a's inputs are constants, b's come from a's outputs.
const char* kTwoTypes = R"({
  "stop": 1, "method": {"type": "jacobi", "dt": 0.25},
  "systems": {"a": {"fmu": "{types}"}, "b": {"fmu": "{types}"}},
  "inputs": {"a.u_real": 1.5, "a.u_int": 5, "a.u_bool": false, "a.u_mode": 3, "a.u_text": "x"},
  "connections": [["a.y_real", "b.u_real"], ["a.y_int", "b.u_int"], ["a.y_bool", "b.u_bool"],
                  ["a.y_mode", "b.u_mode"], ["a.y_text", "b.u_text"]]
})";

// --- 1, 4: every type in and out, no invented 0 -----------------------------------------------------

TEST(Fmi2Types, EveryTypeCrossesAConnectionExactly) {
  const PrivateTemp temp;
  for (const char* method : {"jacobi", "gauss-seidel"}) {
    const scenario::ScenarioRun r = run(document(kTwoTypes), {std::string("method.type=") + method});
    const auto& labels = r.results->labels();
    ASSERT_EQ(r.results->times().size(), 5U) << method;
    for (std::size_t row = 0; row < 5; ++row) {
      EXPECT_EQ(at(r, "a.y_real", row), 3.0);  // gain 2 · 1.5
      EXPECT_EQ(at(r, "a.y_int", row), 6.0);   // 5 + offset 1
      EXPECT_EQ(at(r, "a.y_bool", row), 1.0);  // invert: !false
      EXPECT_EQ(at(r, "a.y_mode", row), 3.0);
      EXPECT_EQ(at(r, "b.y_real", row), 6.0);
      EXPECT_EQ(at(r, "b.y_int", row), 7.0);
      EXPECT_EQ(at(r, "b.y_bool", row), 0.0);
      EXPECT_EQ(at(r, "b.y_mode", row), 3.0);
      EXPECT_EQ(at(r, "b.level", row), 1.0);
      const auto text_of = [&](const std::string& label) {
        const auto c = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
        EXPECT_TRUE(r.results->is_text(c));
        return r.results->text(row, c);
      };
      EXPECT_EQ(text_of("a.y_text"), "p:x");
      EXPECT_EQ(text_of("b.y_text"), "p:p:x");
    }
    EXPECT_EQ(at(r, "b.steps", 4), 4.0);
  }
}

TEST(Fmi2Types, ThePlainStepTakesTypedPortsAsTheOrdersDo) {
  // typed ports leave the fused FMI path for the typed batches: same numbers, same texts
  const PrivateTemp temp;
  for (const char* method : {"jacobi", "gauss-seidel"}) {
    const scenario::ScenarioRun plain = run(document(kTwoTypes), {std::string("method.type=") + method});
    const scenario::ScenarioRun orders =
        run(document(kTwoTypes), {std::string("method.type=") + method, "method.plain_steps=false"});
    ASSERT_EQ(plain.results->times().size(), orders.results->times().size()) << method;
    const auto& labels = plain.results->labels();
    for (std::size_t c = 0; c < labels.size(); ++c) {
      for (std::size_t row = 0; row < plain.results->times().size(); ++row) {
        if (plain.results->is_text(c)) {
          EXPECT_EQ(plain.results->text(row, c), orders.results->text(row, c)) << method << " " << labels[c];
        } else {
          EXPECT_EQ(at(plain, labels[c], row), at(orders, labels[c], row)) << method << " " << labels[c];
        }
      }
    }
    EXPECT_EQ(plain.stats.integrations, orders.stats.integrations) << method;
  }
}

TEST(Fmi2Types, StringColumnsAreQuotedInTheCsv) {
  const PrivateTemp temp;
  io::Json doc = document(kTwoTypes);
  doc["systems"]["a"]["parameters"] = io::Json::parse(R"({"prefix": "say \"hi\", "})");
  const scenario::ScenarioRun r = run(doc);
  const auto csv = temp.path() / "out.csv";
  r.results->write_csv(csv);
  const std::string text = testing::read_file(csv);
  EXPECT_NE(text.find(R"("say ""hi"", x")"), std::string::npos) << text;
  const io::Table table = io::read_csv(csv);
  ASSERT_FALSE(table.texts.empty());
  EXPECT_EQ(table.texts.front().first, "a.y_text");
  EXPECT_EQ(table.texts.front().second.front(), R"(say "hi", x)");
}

TEST(Fmi2Types, InputsStartFromDeclaredStartValuesNeverZero) {
  // b.u_mode (Mode: 1..3) is driven by a's output; a value 0 written at instantiation would be
  // refused by the FMU ("0 is not a legal value"). An unconnected start is never invented either.
  const PrivateTemp temp;
  const scenario::ScenarioRun r = run(document(kTwoTypes), {"inputs.a.u_mode=1"});
  EXPECT_EQ(at(r, "b.y_mode", 0), 1.0);
}

// --- 2: connections are type-checked ------------------------------------------------------------

TEST(Fmi2Types, MismatchedConnectionsNameBothPortsAndTypes) {
  const PrivateTemp temp;
  io::Json doc = document(kTwoTypes);
  doc["connections"][1] = io::Json::parse(R"(["a.y_real", "b.u_int"])");
  std::string what = error_of([&] { run(doc); });
  EXPECT_NE(what.find("a.y_real (Real) -> b.u_int (Integer [-5, 100])"), std::string::npos) << what;
  EXPECT_NE(what.find("\"convert\": true"), std::string::npos) << what;
  doc = document(kTwoTypes);
  doc["connections"][3] = io::Json::parse(R"(["a.level", "b.u_mode"])");
  what = error_of([&] { run(doc); });
  EXPECT_NE(what.find("a.level (Enumeration Level"), std::string::npos) << what;
  EXPECT_NE(what.find("b.u_mode (Enumeration Mode"), std::string::npos) << what;
  doc = document(kTwoTypes);
  doc["connections"][4] = io::Json::parse(R"(["a.y_real", "b.u_text"])");
  what = error_of([&] { run(doc); });
  EXPECT_NE(what.find("no conversion exists"), std::string::npos) << what;
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi2Types, AnExplicitConversionRoundsAndChecksTheRange) {
  const PrivateTemp temp;
  io::Json doc = document(kTwoTypes);
  doc["connections"][1] = io::Json::parse(R"({"from": "a.y_real", "to": "b.u_int", "convert": true})");
  doc["connections"][2] = io::Json::parse(R"({"from": "a.y_real", "to": "b.u_bool", "convert": true})");
  scenario::ScenarioRun r = run(doc, {"inputs.a.u_real=1.3"});  // y_real = 2.6 → 3
  EXPECT_EQ(at(r, "b.y_int", 2), 4.0);
  EXPECT_EQ(at(r, "b.y_bool", 2), 0.0);                                          // 2.6 ≠ 0 → true, inverted
  const std::string what = error_of([&] { run(doc, {"inputs.a.u_real=60"}); });  // 120 > max 100
  EXPECT_NE(what.find("input 'u_int'"), std::string::npos) << what;
  EXPECT_NE(what.find("outside the allowed range [-5, 100]"), std::string::npos) << what;
}

// --- 3: ranges, integrality, no wrap ------------------------------------------------------------

TEST(Fmi2Types, IntegerParametersAndConstantsAreChecked) {
  const PrivateTemp temp;
  const io::Json doc = document(kTwoTypes);
  struct Bad {
    const char* set;
    const char* says;
  };
  for (const Bad& bad : {Bad{"systems.a.parameters.offset=3e9", "3000000000 is outside the allowed range [-10, 10]"},
                         Bad{"systems.a.parameters.offset=11", "11 is outside the allowed range [-10, 10]"},
                         Bad{"systems.a.parameters.offset=1.5", "1.5 is not an integer"},
                         Bad{"systems.a.parameters.base_mode=0", "0 is not a legal value (allowed: 1, 2, 3)"},
                         Bad{"systems.a.parameters.invert=2", "2 is not a Boolean"},
                         Bad{"systems.a.parameters.gain=1e300", "outside the allowed range [-100, 100]"},
                         Bad{"systems.a.parameters.prefix=3", "parameter 'prefix' is a String"},
                         Bad{"systems.a.parameters.gain=\"x\"", "\"x\" is a String"},
                         Bad{"inputs.a.u_int=1e20", "constant input 'a.u_int' (Integer [-5, 100]): 1e+20 is outside"},
                         Bad{"inputs.a.u_mode=0", "constant input 'a.u_mode' (Enumeration Mode): 0 is not a legal"},
                         Bad{"inputs.a.u_text=4", "'a.u_text' (String)"}}) {
    const std::string what = error_of([&] { run(doc, {bad.set}); });
    EXPECT_NE(what.find(bad.says), std::string::npos) << bad.set << ": " << what;
    if (std::string(bad.set).starts_with("systems")) {
      EXPECT_NE(what.find("cosima_test_types.fmu"), std::string::npos) << what;
      EXPECT_NE(what.find("system 'a'"), std::string::npos) << what;
    }
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi2Types, IntegerOptionsAreCheckedNotCast) {
  const PrivateTemp temp;
  const io::Json doc = document(kTwoTypes);
  for (const char* set : {"method.memory=1e20", "method.max_iterations=1e20", "method.stehfest_terms=-1e20",
                          "method.sparse_above=nan", "method.rates={\"a\": 1e20}"}) {
    io::Json copy = doc;
    scenario::apply_override(copy, set);
    const std::string option = std::string(set).substr(0, std::string(set).find('='));
    const std::string method = option == "method.sparse_above" || option == "method.stehfest_terms" ? "missiles"
                               : option == "method.max_iterations"                                  ? "ifosmondi-jfm"
                                                                                                    : "jacobi";
    scenario::apply_override(copy, "method.type=" + method);
    const std::string what = error_of([&] { run(copy); });
    EXPECT_NE(what.find("must be an integer"), std::string::npos) << set << ": " << what;
  }
  io::Json native = io::Json::parse(R"({"stop": 1, "systems": {"p": {"model": "b3.prey", "integrator": "euler",
      "integrator_options": {"steps_per_call": 1e20}}}, "inputs": {"p.q": 1}})");
  EXPECT_NE(error_of([&] { scenario::parse_scenario(native, "x.json"); }).find("steps_per_call' must be an integer"),
            std::string::npos);
}

// --- 5: discrete inputs are held ------------------------------------------------------------------

TEST(Fmi2Types, DiscreteInputsAreHeldNotExtrapolated) {
  const PrivateTemp temp;
  for (const char* extrapolation : {"zoh", "poly:1,2,0", "poly:2,3,0", "choptrey"}) {
    const scenario::ScenarioRun r = run(document(R"({
      "stop": 2, "method": {"type": "jacobi", "dt": 0.1},
      "systems": {"c": {"fmu": "{counter}"}, "t": {"fmu": "{types}", "parameters": {"offset": 0}}},
      "inputs": {"t.u_real": 0, "t.u_bool": true, "t.u_mode": 1, "t.u_text": ""},
      "connections": [["c.count", "t.u_int"]]})"),
                                        {std::string("method.extrapolation=") + extrapolation});
    const auto count = r.results->column("c.count");
    const auto held = r.results->column("t.y_int");
    for (std::size_t k = 1; k < count.size(); ++k) {
      // over [t_{k-1}, t_k] the input held the counter's value at t_{k-1}
      EXPECT_EQ(held[k], count[k - 1]) << extrapolation << " at row " << k;
    }
  }
}

// --- 6: termination and error call sequences -------------------------------------------------------

TEST(Fmi2Terminate, ACompletedStepBeforeTerminationIsKept) {
  const PrivateTemp temp;
  const io::Json doc = document(R"({"stop": 10, "method": {"type": "jacobi", "dt": 0.2},
                                "systems": {"c": {"fmu": "{counter}", "parameters": {"terminate_at": 9}}}})");
  for (const char* method : {"jacobi", "gauss-seidel", "jacobi-orders"}) {
    const bool orders = std::string(method) == "jacobi-orders";
    const scenario::ScenarioRun r =
        run(doc, {orders ? "method.plain_steps=false" : std::string("method.type=") + method});
    EXPECT_TRUE(r.stats.terminated_early);
    EXPECT_NE(r.stats.termination_reason.find("terminate at t = 9"), std::string::npos) << r.stats.termination_reason;
    EXPECT_EQ(r.stats.termination_reason.find("8.8"), std::string::npos) << r.stats.termination_reason;
    ASSERT_EQ(r.results->times().size(), 46U);
    EXPECT_DOUBLE_EQ(r.results->times().back(), 9.0);
    EXPECT_EQ(r.results->column("c.count").back(), 45.0);
    EXPECT_DOUBLE_EQ(r.stats.end_time, 9.0);
  }
  {  // terminating inside a step: the FMU alone ends where it stopped (fmi2LastSuccessfulTime 8.9), the
     // step it did not complete uncounted, as fmusim and FMPy end it
    const scenario::ScenarioRun r = run(doc, {"systems.c.parameters.terminate_at=8.9"});
    EXPECT_TRUE(r.stats.terminated_early);
    EXPECT_DOUBLE_EQ(r.results->times().back(), 8.9);
    EXPECT_EQ(r.results->column("c.count").back(), 44.0);
    EXPECT_DOUBLE_EQ(r.results->column("c.time_out").back(), 8.9);
  }
  {  // with another system beside it, which completed the step: the last point both reached, 8.8
    io::Json two = doc;
    two["systems"]["d"] = two["systems"]["c"];
    two["systems"]["d"]["parameters"]["terminate_at"] = 100;
    const scenario::ScenarioRun r = run(two, {"systems.c.parameters.terminate_at=8.9"});
    EXPECT_DOUBLE_EQ(r.results->times().back(), 8.8);
    EXPECT_EQ(r.results->column("c.count").back(), 44.0);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi2Terminate, AfterErrorOnlyFreeInstanceAfterFatalNothing) {
  const PrivateTemp temp;
  for (const auto& [failure, status] : {std::pair{"fail_at", "fmi2Error"}, std::pair{"fatal_at", "fmi2Fatal"}}) {
    ::testing::internal::CaptureStderr();
    const std::string what = error_of([&, failure = failure] {
      run(document(kTwoTypes), {std::string("systems.b.parameters.") + failure + "=0.5"});
    });
    const std::string stderr_text = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(what.find(std::string("returned ") + status), std::string::npos) << what;
    EXPECT_NE(what.find("system 'b'"), std::string::npos) << what;
    EXPECT_NE(what.find("fmi2DoStep(t = 0.5"), std::string::npos) << what;
    // the strict FMU writes "Illegal call sequence" to stderr on any call the standard forbids
    EXPECT_EQ(stderr_text.find("Illegal call sequence"), std::string::npos) << failure << ":\n" << stderr_text;
    EXPECT_EQ(what.find("Illegal call sequence"), std::string::npos) << what;
  }
  EXPECT_TRUE(temp.empty());
}

// --- 7: resourceLocation is a valid file:// URI ---------------------------------------------------

TEST(Fmi2Resources, AResourceIsFoundFromATemporaryDirectoryWithPercentAndSpace) {
  const PrivateTemp temp;
  const auto odd = temp.path() / "50% off é";
  std::filesystem::create_directories(odd);
  setenv("TMPDIR", odd.c_str(), 1);
  {
    const scenario::ScenarioRun r =
        run(document(R"({"stop": 0.5, "method": {"dt": 0.25}, "systems": {"r": {"fmu": "{resource}"}}})"));
    EXPECT_EQ(at(r, "r.value", 2), 42.5);
  }
  EXPECT_TRUE(std::filesystem::is_empty(odd));
  EXPECT_EQ(fmi::file_uri("/tmp/a b/50%/é"), "file:///tmp/a%20b/50%25/%C3%A9");
  setenv("TMPDIR", temp.path().c_str(), 1);
}

// --- 8: DefaultExperiment ---------------------------------------------------------------------------

TEST(Fmi2Experiment, OmittedStartStopAndStepComeFromTheFmus) {
  const PrivateTemp temp;
  io::Json doc = document(kTwoTypes);
  doc.erase("stop");
  doc["method"].erase("dt");
  const scenario::Scenario s = scenario::parse_scenario(doc, "suite.json");
  EXPECT_EQ(s.run.start, 0.0);
  EXPECT_EQ(s.run.stop, 3.0);
  EXPECT_EQ(s.run.dt, 0.25);
  const scenario::ScenarioRun r = run(doc);
  EXPECT_EQ(r.results->times().size(), 13U);
  // an FMU declaring no stop, and none given
  const io::Json counter = document(R"({"systems": {"c": {"fmu": "{counter}"}}})");
  EXPECT_NE(error_of([&] { scenario::parse_scenario(counter, "c.json"); }).find("'stop' is required"),
            std::string::npos);
}

TEST(Fmi2Experiment, DisagreeingFmusAreNamed) {
  const PrivateTemp temp;
  // a copy of the types FMU with another stopTime
  std::string xml = testing::read_zip_entry(fmu("types"), "modelDescription.xml");
  xml.replace(xml.find("stopTime=\"3\""), 12, "stopTime=\"5\"");
  const auto other = temp.path() / "types5.fmu";
  testing::write_zip(other, {{"modelDescription.xml", xml},
                             {"binaries/linux64/cosima_test_types.so",
                              testing::read_zip_entry(fmu("types"), "binaries/linux64/cosima_test_types.so")}});
  io::Json doc = document(kTwoTypes);
  doc.erase("stop");
  doc["systems"]["b"]["fmu"] = other.string();
  const std::string what = error_of([&] { scenario::parse_scenario(doc, "suite.json"); });
  EXPECT_NE(what.find("system 'a' declares stopTime=3, system 'b' stopTime=5"), std::string::npos) << what;
  std::filesystem::remove(other);
}

// --- 9: modelDescription validation -----------------------------------------------------------------

struct Defect {
  const char* name;
  const char* find;
  const char* replace;
  const char* says;
};

class Fmi2Validation : public ::testing::TestWithParam<Defect> {};

TEST_P(Fmi2Validation, EachDefectIsNamed) {
  const Defect d = GetParam();
  const PrivateTemp temp;
  std::string xml = testing::read_file(kCFmuSources / "types" / "modelDescription.xml");
  const auto at = xml.find(d.find);
  ASSERT_NE(at, std::string::npos) << d.find;
  xml.replace(at, std::string(d.find).size(), d.replace);
  const auto broken = temp.path() / "broken.fmu";
  testing::write_zip(broken, {{"modelDescription.xml", xml},
                              {"binaries/linux64/cosima_test_types.so",
                               testing::read_zip_entry(fmu("types"), "binaries/linux64/cosima_test_types.so")}});
  const std::string what = error_of([&] { fmi::Fmi2CsSystem("s", broken); });
  EXPECT_NE(what.find("broken.fmu"), std::string::npos) << what;
  EXPECT_NE(what.find(d.says), std::string::npos) << what;
  std::filesystem::remove(broken);
  EXPECT_TRUE(temp.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Defects, Fmi2Validation,
    ::testing::Values(Defect{"non_numeric_vr", "valueReference=\"20\"", "valueReference=\"twenty\"",
                             "variable 'y_real': valueReference=\"twenty\""},
                      Defect{"negative_vr", "valueReference=\"20\"", "valueReference=\"-20\"",
                             "valueReference=\"-20\" is not a non-negative"},
                      Defect{"input_aliases_output", "valueReference=\"21\"", "valueReference=\"11\"",
                             "input 'u_int' and output 'y_int' share"},
                      Defect{"duplicate_name", "name=\"y_bool\"", "name=\"y_int\"", "two variables are named 'y_int'"},
                      Defect{"bad_dependency", "dependencies=\"", "dependencies=\"x ", "dependency \"x\""},
                      Defect{"dependency_out_of_range", "dependencies=\"", "dependencies=\"999 ", "dependency \"999\""},
                      Defect{"path_in_identifier", "modelIdentifier=\"cosima_test_types\"",
                             "modelIdentifier=\"../../cosima_test_types\"", "is not a C identifier"},
                      Defect{"unknown_enumeration_type", "declaredType=\"Mode\"", "declaredType=\"Moods\"",
                             "declaredType \"Moods\""},
                      Defect{"bad_start", "start=\"7\"", "start=\"seven\"", "start=\"seven\" is not a Integer"}),
    [](const ::testing::TestParamInfo<Defect>& param_info) { return std::string(param_info.param.name); });

TEST(Fmi2Validation, TheExportKitsFmusHaveUniqueNames) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::kFmuDir)) {
    if (entry.path().extension() != ".fmu") continue;
    EXPECT_NO_THROW((void)fmi::read_model_description(entry.path())) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 2);  // b3_prey and b3_predator at least (dependencies of this test)
}

// --- units: UnitDefinitions and the unit of each Real/Float variable -----------------------------------

/// A description with UnitDefinitions `units`, a Real type "Distance" in km and three variables.
std::string unit_description(const std::string& version, const std::string& units) {
  const bool v3 = version == "3.0";
  return "<fmiModelDescription fmiVersion=\"" + version +
         "\" modelName=\"u\" guid=\"{u}\" instantiationToken=\"{u}\">" +
         R"(<CoSimulation modelIdentifier="u"/><UnitDefinitions>)" + units + "</UnitDefinitions>" +
         (v3 ? R"(<TypeDefinitions><Float64Type name="Distance" unit="km"/></TypeDefinitions><ModelVariables>
               <Float64 name="d" valueReference="0" causality="output" declaredType="Distance"/>
               <Float64 name="t" valueReference="1" causality="output" declaredType="Distance" unit="degC"/>
               <Int32 name="n" valueReference="2" causality="output"/></ModelVariables>)"
             : R"(<TypeDefinitions><SimpleType name="Distance"><Real unit="km"/></SimpleType></TypeDefinitions>
               <ModelVariables>
               <ScalarVariable name="d" valueReference="0" causality="output"><Real declaredType="Distance"/></ScalarVariable>
               <ScalarVariable name="t" valueReference="1" causality="output"><Real declaredType="Distance" unit="degC"/></ScalarVariable>
               <ScalarVariable name="n" valueReference="2" causality="output"><Integer/></ScalarVariable></ModelVariables>)") +
         "</fmiModelDescription>";
}

const char* kUnitDefinitions = R"(<Unit name="km"><BaseUnit m="1" factor="1000"/></Unit>
    <Unit name="degC"><BaseUnit K="1" offset="273.15"/></Unit><Unit name="N"><BaseUnit kg="1" m="1" s="-2"/></Unit>
    <Unit name="1"/>)";

TEST(ModelDescriptionUnits, AVariableHasItsOwnUnitElseItsDeclaredTypesAndTheUnitsAreDefined) {
  for (const std::string version : {"2.0", "3.0"}) {
    const fmi::ModelDescription md = fmi::parse_model_description(unit_description(version, kUnitDefinitions), "u.fmu");
    EXPECT_EQ(md.variables.at(0).unit, "km") << version << ": inherited from its declared type";
    EXPECT_EQ(md.variables.at(1).unit, "degC") << version << ": its own wins over the type's";
    EXPECT_EQ(md.variables.at(2).unit, "") << version << ": an integer has none";
    ASSERT_EQ(md.units.size(), 4U) << version;
    const fmi::UnitDefinition* km = md.unit_named("km");
    ASSERT_NE(km, nullptr);
    EXPECT_TRUE(km->has_base_unit);
    EXPECT_EQ(km->factor, 1000.0);
    EXPECT_EQ(km->offset, 0.0);
    EXPECT_EQ(km->exponents, (std::array<int, 8>{0, 1, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(md.unit_named("degC")->offset, 273.15);
    EXPECT_EQ(md.unit_named("N")->exponents, (std::array<int, 8>{1, 1, -2, 0, 0, 0, 0, 0}));
    EXPECT_FALSE(md.unit_named("1")->has_base_unit) << "BaseUnit is optional";
    EXPECT_EQ(md.unit_named("mile"), nullptr);
  }
}

TEST(ModelDescriptionUnits, ABaseUnitWithABadNumberIsRefusedNamingTheUnit) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"(<Unit name="km"><BaseUnit m="1.5" factor="1000"/></Unit>)",
       R"(unit 'km': BaseUnit m="1.5" is not an integer)"},
      {R"(<Unit name="big"><BaseUnit s="99999999999"/></Unit>)", R"(unit 'big': BaseUnit s="99999999999")"},
      {R"(<Unit name="km"><BaseUnit m="1" factor="thousand"/></Unit>)", R"(unit 'km': BaseUnit factor="thousand")"},
      {R"(<Unit name="km"><BaseUnit m="1" factor="0"/></Unit>)",
       R"(unit 'km': BaseUnit factor="0" is not a finite, non-zero)"},
      {R"(<Unit name="km"><BaseUnit m="1" factor="inf"/></Unit>)", R"(unit 'km': BaseUnit factor="inf")"},
      {R"(<Unit name="degC"><BaseUnit K="1" offset="nan"/></Unit>)", R"(unit 'degC': BaseUnit offset="nan")"},
      {R"(<Unit name="m"/><Unit name="m"/>)", "unit 'm' is defined twice"},
      {R"(<Unit><BaseUnit m="1"/></Unit>)", "a Unit has no name"}};
  for (const std::string version : {"2.0", "3.0"}) {
    for (const auto& defect : cases) {
      const std::string xml = unit_description(version, defect.first);
      const std::string what = error_of([&] { (void)fmi::parse_model_description(xml, "u.fmu"); });
      EXPECT_NE(what.find("u.fmu: modelDescription.xml: UnitDefinitions: "), std::string::npos) << what;
      EXPECT_NE(what.find(defect.second), std::string::npos) << version << ": " << what;
    }
  }
}

// --- 10: NaN at the source ----------------------------------------------------------------------------

TEST(Fmi2Nan, ANonFiniteOutputIsBlamedOnItsProducer) {
  const PrivateTemp temp;
  const io::Json doc = document(R"({"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
      "systems": {"n": {"fmu": "{nan}"}, "t": {"fmu": "{types}"}},
      "inputs": {"n.u": 0, "t.u_int": 1, "t.u_bool": true, "t.u_mode": 1, "t.u_text": ""},
      "connections": [["n.y", "t.u_real"]]})");
  for (const char* method : {"jacobi", "gauss-seidel"}) {
    for (const char* use_inf : {"false", "true"}) {
      const std::string what = error_of([&] {
        run(doc, {std::string("method.type=") + method, std::string("systems.n.parameters.use_inf=") + use_inf});
      });
      const std::string by_orders = error_of([&] {
        run(doc, {std::string("method.type=") + method, std::string("systems.n.parameters.use_inf=") + use_inf,
                  "method.plain_steps=false"});
      });
      EXPECT_EQ(what, by_orders);
      EXPECT_NE(what.find("system 'n'"), std::string::npos) << method << ": " << what;
      EXPECT_NE(what.find(std::string("output 'y' is ") + (use_inf[0] == 't' ? "inf" : "nan") + " at t = 0.5"),
                std::string::npos)
          << method << ": " << what;
      EXPECT_EQ(what.find("system 't'"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace cosima
