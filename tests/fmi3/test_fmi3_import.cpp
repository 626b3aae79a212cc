// FMI 3.0 import, checked against strict test FMUs written from the standard in C
// (tests/fmus/fmi3/), not by cosima's export kit: every type, arrays, Co-Simulation event mode and
// early return, Discard, terminate, Model Exchange, clocks refused, and the bad-input matrix.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/fmu_info.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
#include "fmi/v3/cs/fmi3_cs_system.hpp"
#include "fmu_fixtures.hpp"
#include "scenario/run_scenario.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;
using testing::PrivateTemp;

const std::filesystem::path kFmi3Fmus = COSIMA_C_FMU_DIR;
const std::filesystem::path kFmi2Fmus = COSIMA_C_FMU_DIR;

std::string fmu(const char* name) { return (kFmi3Fmus / (std::string("cosima_fmi3_") + name + ".fmu")).string(); }

/// A scenario document with the test FMUs' absolute paths substituted for {types}, {events}, ...
io::Json document(std::string text) {
  for (const char* name : {"types", "events", "me", "misbehave", "clocked"}) {
    const std::string key = std::string("{") + name + "}";
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key))
      text.replace(at, key.size(), fmu(name));
  }
  return io::Json::parse(text);
}

scenario::ScenarioRun run(const io::Json& doc, const std::vector<std::string>& overrides = {}) {
  io::Json copy = doc;
  for (const auto& o : overrides) scenario::apply_override(copy, o);
  return scenario::run_scenario(scenario::parse_scenario(copy, "fmi3.json"));
}

double at(const scenario::ScenarioRun& r, const std::string& label, std::size_t row) {
  return r.results->column(label).at(row);
}

std::string text_at(const scenario::ScenarioRun& r, const std::string& label, std::size_t row) {
  const auto& labels = r.results->labels();
  const auto c = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
  EXPECT_LT(c, labels.size()) << label;
  EXPECT_TRUE(r.results->is_text(c)) << label;
  return r.results->text(row, c);
}

/// Two instances of the types FMU: a's inputs are constants, b's come from a's outputs; the array
/// ya → ua is connected whole.
const char* kTwoTypes = R"({
  "stop": 0.3, "method": {"type": "jacobi", "dt": 0.1},
  "systems": {"a": {"fmu": "{types}"}, "b": {"fmu": "{types}"}},
  "inputs": {"a.u_Float32": 0.25, "a.u_Float64": 1, "a.u_Int8": -8, "a.u_UInt8": 200, "a.u_Int16": -1000,
             "a.u_UInt16": 60000, "a.u_Int32": -100000, "a.u_UInt32": 4000000000, "a.u_Int64": -5000000000,
             "a.u_UInt64": 1000000000000, "a.u_Boolean": false, "a.u_String": "hi", "a.u_Binary": "00ff10",
             "a.u_Enumeration": 2, "a.ua[1]": 1, "a.ua[2]": 2, "a.ua[3]": 3},
  "connections": [["a.ya", "b.ua"], ["a.y_Float32", "b.u_Float32"], ["a.y_Float64", "b.u_Float64"],
                  ["a.y_Int8", "b.u_Int8"], ["a.y_UInt8", "b.u_UInt8"], ["a.y_Int16", "b.u_Int16"],
                  ["a.y_UInt16", "b.u_UInt16"], ["a.y_Int32", "b.u_Int32"], ["a.y_UInt32", "b.u_UInt32"],
                  ["a.y_Int64", "b.u_Int64"], ["a.y_UInt64", "b.u_UInt64"], ["a.y_Boolean", "b.u_Boolean"],
                  ["a.y_String", "b.u_String"], ["a.y_Binary", "b.u_Binary"], ["a.y_Enumeration", "b.u_Enumeration"]]
})";

// --- types and arrays --------------------------------------------------------------------------------

TEST(Fmi3Types, AnArrayInputIsGivenAsAJsonArray) {
  const PrivateTemp temp;
  {
    io::Json doc = document(kTwoTypes);
    for (const char* element : {"a.ua[1]", "a.ua[2]", "a.ua[3]"}) doc["inputs"].erase(element);
    doc["inputs"]["a.ua"] = io::Json::parse("[1, 2, 3]");
    const scenario::ScenarioRun by_array = run(doc);
    const scenario::ScenarioRun by_element = run(document(kTwoTypes));
    for (int i = 1; i <= 3; ++i) {
      const std::string label = fmt::format("b.ya[{}]", i);
      EXPECT_EQ(by_array.results->column(label), by_element.results->column(label)) << label;
    }
    doc["inputs"]["a.ua"] = io::Json::parse("[1, 2]");
    const std::string fewer = error_of([&] { (void)run(doc); });
    EXPECT_NE(fewer.find("input 'a.ua' has 3 elements; the scenario gives 2"), std::string::npos) << fewer;
    doc["inputs"]["a.ua"] = io::Json::parse("[1, 2, 3, 4]");
    const std::string more = error_of([&] { (void)run(doc); });
    EXPECT_NE(more.find("ua[4]"), std::string::npos) << more;
  }
  EXPECT_TRUE(temp.empty());
}

/// The exact value of a 64-bit integer column at a row, as text ("" when none was recorded).
std::string exact_at(const scenario::ScenarioRun& r, const std::string& label, std::size_t row) {
  const auto& labels = r.results->labels();
  const auto c = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
  EXPECT_LT(c, labels.size()) << label;
  EXPECT_TRUE(r.results->is_wide(c)) << label;
  const std::optional<WideInteger> value = r.results->wide(row, c);
  return value ? value->text() : std::string();
}

int warnings_about(const std::string& what) {
  int count = 0;
  for (const auto& w : logged_warnings()) count += w.find(what) != std::string::npos ? 1 : 0;
  return count;
}

/// a counts its steps from 2^64 − 101 (count = u_UInt64 + steps); b takes a's count: values no
/// double tells apart (near 2^64 a double's spacing is 4096).
const char* kCount = R"({
  "stop": 0.5, "method": {"type": "jacobi", "dt": 0.1},
  "systems": {"a": {"fmu": "{types}", "parameters": {"ubig": 18446744073709551614, "big": -9223372036854775807}},
              "b": {"fmu": "{types}"}},
  "inputs": {"a.u_UInt64": 18446744073709551515, "a.u_Int64": -9223372036854775807},
  "connections": [["a.count", "b.u_UInt64"], ["a.y_Int64", "b.u_Int64"]],
  "output": {"variables": ["a.count", "b.u_UInt64", "b.count", "b.y_Int64", "a.ubig", "a.big"]}
})";

TEST(Fmi3Types, SixtyFourBitIntegersCrossExactlyUnderEveryMethod) {
  const PrivateTemp temp;
  const WideInteger start = WideInteger::of(std::uint64_t{18446744073709551515U});
  const auto plus = [](const std::string& a, const std::string& b) {  // exact, as the FMU adds (no wrap here)
    return std::to_string(WideInteger::parse(a)->as_uint64().value() + WideInteger::parse(b)->as_uint64().value());
  };
  for (const char* method : {"jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi"}) {
    {
      io::Json doc = document(kCount);
      doc["output"]["variables"].push_back("a.steps");
      doc["output"]["variables"].push_back("b.steps");
      const scenario::ScenarioRun r = run(doc, {std::string("method.type=") + method});
      const std::size_t rows = r.results->times().size();
      ASSERT_GE(rows, 3U) << method;
      EXPECT_EQ(exact_at(r, "b.u_UInt64", 0), start.text()) << method;
      for (std::size_t k = 0; k < rows; ++k) {
        // a counts from the start (an emulated interpolation steps several times per macro-step); b's
        // input is a's count at the previous communication point, and b counts on from it
        EXPECT_EQ(exact_at(r, "a.count", k), plus(start.text(), exact_at(r, "a.steps", k))) << method << " " << k;
        if (k > 0) {  // Gauss–Seidel steps b after a: a's count at the step's end
          const std::size_t from = std::string(method) == "gauss-seidel" ? k : k - 1;
          EXPECT_EQ(exact_at(r, "b.u_UInt64", k), exact_at(r, "a.count", from)) << method << " " << k;
        }
        EXPECT_EQ(exact_at(r, "b.count", k), plus(exact_at(r, "b.u_UInt64", k), exact_at(r, "b.steps", k))) << method;
        EXPECT_EQ(exact_at(r, "b.y_Int64", k), "-9223372036854775805") << method;  // −2^63 + 1, + 1 in a and in b
      }
      EXPECT_NE(exact_at(r, "a.count", rows - 1), start.text()) << method;
      EXPECT_EQ(exact_at(r, "a.ubig", rows - 1), "18446744073709551614") << method;  // parameters, exactly
      EXPECT_EQ(exact_at(r, "a.big", rows - 1), "-9223372036854775807") << method;
      EXPECT_EQ(at(r, "a.ubig", rows - 1), 18446744073709551616.0) << method;  // the numbers: the nearest doubles
    }
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, SixtyFourBitIntegersCrossExactlyThroughModelExchange) {
  const PrivateTemp temp;
  io::Json doc = document(kCount);
  for (const char* s : {"a", "b"}) doc["systems"][s]["interface"] = "me";
  for (const char* method : {"jacobi", "monolithic"}) {
    const scenario::ScenarioRun r = run(doc, {std::string("method.type=") + method});  // freed at the loop's end
    // no fmi3DoStep in Model Exchange: the count is the input
    EXPECT_EQ(exact_at(r, "a.count", 5), "18446744073709551515") << method;
    EXPECT_EQ(exact_at(r, "b.count", 5), "18446744073709551515") << method;
    EXPECT_EQ(exact_at(r, "b.y_Int64", 5), "-9223372036854775805") << method;
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, GaussSeidelGivesEachStageTheExactValuesOfTheSystemsSteppedBeforeIt) {
  const PrivateTemp temp;
  {
    // 2^60 + 126 + k: a's counts at the ends of the steps, which b takes under Gauss–Seidel, round to
    // other doubles than the counts at the steps' starts (2^60 + 128 → 2^60, 2^60 + 129 → 2^60 + 256)
    const scenario::ScenarioRun r =
        run(document(kCount), {"method.type=gauss-seidel", "inputs.a.u_UInt64=1152921504606847102"});
    for (std::size_t k = 0; k < r.results->times().size(); ++k) {
      EXPECT_EQ(exact_at(r, "b.u_UInt64", k), exact_at(r, "a.count", k)) << k;
    }
    EXPECT_EQ(exact_at(r, "b.u_UInt64", 3), "1152921504606847105");
    EXPECT_EQ(warnings_about("not the double of the exact value"), 0);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, ASixtyFourBitInputGivenAnotherDoubleThanItsExactValuesIsWarnedAboutOnce) {
  const PrivateTemp temp;
  {
    fmi::Fmi3CsSystem system("s", fmu("types"));
    const int u = system.input_index("u_UInt64");
    const int y = system.output_index("y_UInt64");
    Eigen::VectorXd inputs(system.input_count()), outputs(system.output_count());
    for (int i = 0; i < system.input_count(); ++i) inputs(i) = system.input_info(i).start.value_or(0.0);
    system.initialize(0.0);
    const WideInteger exact = WideInteger::of(std::uint64_t{1152921504606847104U});  // 2^60 + 128
    system.set_wide_input(u, exact);
    inputs(u) = exact.to_double();  // its nearest double, 2^60: the exact value is taken
    ASSERT_TRUE(system.step_constant(inputs, 0.1, outputs).ok());
    EXPECT_EQ(system.wide_value("y_UInt64")->text(), "1152921504606847105");
    EXPECT_EQ(outputs(y), 1152921504606847232.0);  // the nearest double of 2^60 + 129
    inputs(u) = 1152921504606847232.0;             // another double: taken as it is, warned about once
    ASSERT_TRUE(system.step_constant(inputs, 0.1, outputs).ok());
    ASSERT_TRUE(system.step_constant(inputs, 0.1, outputs).ok());
    EXPECT_EQ(system.wide_value("y_UInt64")->text(), "1152921504606847233");
    EXPECT_EQ(warnings_about("(system 's'): UInt64 input 'u_UInt64' is given 1.1529215046068472e+18, not the double "
                             "of the exact value it was given last (1152921504606847104)"),
              1);
    EXPECT_FALSE(system.wide_value("y_Float64").has_value());  // not a 64-bit integer
  }
  {
    // a linear transformation on a 64-bit connection is computed in doubles: said
    io::Json doc = document(kCount);
    doc["connections"][0] = io::Json::parse(R"({"from": "a.count", "to": "b.u_UInt64", "offset": 1})");
    doc["inputs"]["a.u_UInt64"] = 1000;
    const scenario::ScenarioRun r = run(doc);
    EXPECT_EQ(exact_at(r, "b.u_UInt64", 1), "1001");
    EXPECT_EQ(warnings_about("connection a.count -> b.u_UInt64: its linear transformation is computed in doubles"), 1);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, SixtyFourBitValuesOutsideTheirTypeAreRefusedByName) {
  const PrivateTemp temp;
  std::string what = error_of([] { run(document(kCount), {"systems.a.parameters.big=9223372036854775808"}); });
  EXPECT_NE(what.find("'big' (Int64): 9223372036854775808 is outside the range of its type "
                      "[-9223372036854775808, 9223372036854775807]"),
            std::string::npos)
      << what;
  what = error_of([] { run(document(kCount), {"systems.a.parameters.ubig=-1"}); });
  EXPECT_NE(what.find("'ubig'"), std::string::npos) << what;
  what = error_of([] { run(document(kCount), {"inputs.a.u_Int64=18446744073709551615"}); });
  EXPECT_NE(what.find("constant input 'a.u_Int64' (Integer): 18446744073709551615 is outside the range of its "
                      "type [-9223372036854775808, 9223372036854775807]"),
            std::string::npos)
      << what;
  // a Float64 parameter cannot hold 2^64 − 1 exactly
  what = error_of([] { run(document(kCount), {"systems.a.parameters.k=18446744073709551615"}); });
  EXPECT_NE(what.find("parameter 'k' is given 18446744073709551615, which only a 64-bit integer variable"),
            std::string::npos)
      << what;
  // beyond both types, whatever the spelling: -2^63 − 1 reads as -2^63 in a double, 2^64 as 2^64
  for (const std::string below : {"-9223372036854775809", "-9.223372036854775809e18", "-9223372036854776000"}) {
    for (const std::string path : {"systems.a.parameters.big", "inputs.a.u_Int64"}) {
      what = error_of([&] { run(document(kCount), {path + "=" + below}); });
      EXPECT_NE(what.find("is below -9223372036854775808 (-2^63) but reads as it in a double"), std::string::npos)
          << path << '=' << below << ": " << what;
      EXPECT_NE(what.find(path), std::string::npos) << what;  // the --set that gave it
    }
  }
  what = error_of([] { run(document(kCount), {"systems.a.parameters.ubig=18446744073709551616"}); });
  EXPECT_NE(what.find("'ubig' (UInt64)"), std::string::npos) << what;
  EXPECT_NE(what.find("outside the range of its type"), std::string::npos) << what;
  what = error_of([] { run(document(kCount), {"inputs.a.u_UInt64=18446744073709551616"}); });
  EXPECT_NE(what.find("(system 'a'): input 'u_UInt64' (UInt64)"), std::string::npos) << what;
  EXPECT_NE(what.find("outside the range of its type"), std::string::npos) << what;
  EXPECT_TRUE(temp.empty());
}

// a value of the wrong kind is refused by name: true for a number, 1.5 for an integer, 1e400 (out of
// a double's range, not a text)
TEST(Fmi3Types, ValuesOfTheWrongKindAreRefusedByName) {
  const PrivateTemp temp;
  std::string what = error_of([] { run(document(kCount), {"systems.a.parameters.k=true"}); });
  EXPECT_NE(what.find("parameter 'k' (Float64) is given true, a Boolean value"), std::string::npos) << what;
  what = error_of([] { run(document(kCount), {"inputs.a.u_Int32=true"}); });
  EXPECT_NE(what.find("constant input 'a.u_Int32'"), std::string::npos) << what;
  EXPECT_NE(what.find("is given true, a Boolean value"), std::string::npos) << what;
  what = error_of([] { run(document(kCount), {"inputs.a.u_Int32=1.5"}); });
  EXPECT_NE(what.find("1.5 is not an integer"), std::string::npos) << what;
  what = error_of([] { run(document(kCount), {"systems.a.parameters.k=1e400"}); });
  EXPECT_NE(what.find("number overflow parsing '1e400' (beyond the range of a double)"), std::string::npos) << what;
  EXPECT_EQ(what.find("String"), std::string::npos) << what;
  EXPECT_NO_THROW(run(document(kCount), {"inputs.a.u_Boolean=true"}));  // the one kind true is for
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, EveryTypeCrossesAConnectionExactly) {
  const PrivateTemp temp;
  for (const char* method : {"jacobi", "gauss-seidel"}) {
    const scenario::ScenarioRun r = run(document(kTwoTypes), {std::string("method.type=") + method});
    ASSERT_EQ(r.results->times().size(), 4U) << method;
    const std::size_t last = 3;
    // numbers: y = u + 1 (floats + 0.5), through a and then b
    EXPECT_EQ(at(r, "a.y_Float32", last), 0.75);
    EXPECT_EQ(at(r, "b.y_Float32", last), 1.25);
    EXPECT_EQ(at(r, "a.y_Float64", last), 1.5);
    EXPECT_EQ(at(r, "b.y_Float64", last), 2.0);
    EXPECT_EQ(at(r, "a.y_Int8", last), -7.0);
    EXPECT_EQ(at(r, "b.y_Int8", last), -6.0);
    EXPECT_EQ(at(r, "b.y_UInt8", last), 202.0);
    EXPECT_EQ(at(r, "b.y_Int16", last), -998.0);
    EXPECT_EQ(at(r, "b.y_UInt16", last), 60002.0);
    EXPECT_EQ(at(r, "b.y_Int32", last), -99998.0);
    EXPECT_EQ(at(r, "b.y_UInt32", last), 4000000002.0);
    EXPECT_EQ(at(r, "b.y_Int64", last), -4999999998.0);
    EXPECT_EQ(at(r, "b.y_UInt64", last), 1000000000002.0);
    EXPECT_EQ(at(r, "a.y_Boolean", last), 1.0);
    EXPECT_EQ(at(r, "b.y_Boolean", last), 0.0);
    EXPECT_EQ(at(r, "b.y_Enumeration", last), 2.0);
    EXPECT_EQ(text_at(r, "a.y_String", last), "hi!");
    EXPECT_EQ(text_at(r, "b.y_String", last), "hi!!");
    EXPECT_EQ(text_at(r, "a.y_Binary", last), "10ff00");  // bytes reversed, as hexadecimal text
    EXPECT_EQ(text_at(r, "b.y_Binary", last), "00ff10");
    // arrays: ya = 2·ua element by element, the whole array connected; M = P row-major
    for (int i = 1; i <= 3; ++i) {
      EXPECT_EQ(at(r, fmt::format("a.ya[{}]", i), last), 2.0 * i);
      EXPECT_EQ(at(r, fmt::format("b.ya[{}]", i), last), 4.0 * i);
    }
    EXPECT_EQ(at(r, "a.M[1,1]", last), 1.0);
    EXPECT_EQ(at(r, "a.M[1,3]", last), 3.0);
    EXPECT_EQ(at(r, "a.M[2,1]", last), 4.0);
    EXPECT_EQ(at(r, "a.M[2,3]", last), 6.0);
    // the state x' = u_Float64 (a: 1, b: 1.5), integrated exactly by the FMU
    EXPECT_NEAR(at(r, "a.x", last), 0.3, 1e-15);
    EXPECT_NEAR(at(r, "b.x", last), 0.45, 1e-15);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, RangesAndShapesAreChecked) {
  const PrivateTemp temp;
  // u_Int8 declares [-100, 100]: 120 is refused naming the input and the range
  std::string what = error_of([] { run(document(kTwoTypes), {"inputs.a.u_Int8=120"}); });
  EXPECT_NE(what.find("u_Int8"), std::string::npos) << what;
  EXPECT_NE(what.find("[-100, 100]"), std::string::npos) << what;
  // a UInt8 cannot take 300 (its type's range)
  what = error_of([] { run(document(kTwoTypes), {"inputs.a.u_UInt8=300"}); });
  EXPECT_NE(what.find("u_UInt8"), std::string::npos) << what;
  EXPECT_NE(what.find("[0, 255]"), std::string::npos) << what;
  // arrays are laid out at the structural parameters' start values: n cannot be changed
  what = error_of([] { run(document(kTwoTypes), {"systems.a.parameters.n=4"}); });
  EXPECT_NE(what.find("'n' is a structural parameter"), std::string::npos) << what;
  // an element of an array parameter: P[2,3] (→ M[2,3]); a whole array or an element outside is refused
  {
    const scenario::ScenarioRun r =
        run(document(kTwoTypes), {"systems.a.parameters.P[2,3]=-1.5", "systems.a.parameters.P[1,1]=7"});
    EXPECT_EQ(at(r, "a.M[2,3]", 3), -1.5);
    EXPECT_EQ(at(r, "a.M[1,1]", 3), 7.0);
    EXPECT_EQ(at(r, "a.M[1,2]", 3), 2.0);
  }
  what = error_of([] { run(document(kTwoTypes), {"systems.a.parameters.P=1"}); });
  EXPECT_NE(what.find("'P' is an array; set its elements, e.g. 'P[1,1]'"), std::string::npos) << what;
  what = error_of([] { run(document(kTwoTypes), {"systems.a.parameters.P[3,1]=1"}); });
  EXPECT_NE(what.find("'P[3,1]' is not an element of 'P' (P[1,1] to P[2,3])"), std::string::npos) << what;
  // a 2×3 matrix does not connect to a vector of 3
  io::Json doc = document(kTwoTypes);
  doc["connections"][0] = io::Json::array({"a.M", "b.ua"});
  what = error_of([&] { run(doc); });
  EXPECT_NE(what.find("differ in shape"), std::string::npos) << what;
  // single elements connect
  doc["connections"][0] = io::Json::array({"a.M[2,3]", "b.ua[1]"});
  doc["connections"].push_back(io::Json::array({"a.M[1,1]", "b.ua[2]"}));
  doc["connections"].push_back(io::Json::array({"a.x", "b.ua[3]"}));
  {
    const scenario::ScenarioRun r = run(doc);
    EXPECT_EQ(at(r, "b.ya[1]", 3), 12.0);
    EXPECT_EQ(at(r, "b.ya[2]", 3), 2.0);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3Types, InfoShowsTypesDimensionsAndBothInterfaces) {
  const std::string types = fmi::describe_fmu(fmu("types"));
  EXPECT_NE(types.find("FMI 3.0"), std::string::npos) << types;
  EXPECT_NE(types.find("Float64 [3]"), std::string::npos) << types;
  EXPECT_NE(types.find("Float64 [2,3]"), std::string::npos) << types;
  EXPECT_NE(types.find("UInt64"), std::string::npos) << types;
  EXPECT_NE(types.find("Binary"), std::string::npos) << types;
  EXPECT_NE(types.find("structuralParameter"), std::string::npos) << types;
  const std::string me = fmi::describe_fmu(fmu("me"));
  EXPECT_NE(me.find("Co-Simulation"), std::string::npos) << me;
  EXPECT_NE(me.find("Model Exchange"), std::string::npos) << me;
  EXPECT_NE(me.find("fmi3GetDirectionalDerivative"), std::string::npos) << me;
  const std::string events = fmi::describe_fmu(fmu("events"));
  EXPECT_NE(events.find("hasEventMode=true"), std::string::npos) << events;
  const std::string clocked = fmi::describe_fmu(fmu("clocked"));
  EXPECT_NE(clocked.find("Clocks (tick)"), std::string::npos) << clocked;
}

// --- Co-Simulation: event mode, early return, Discard, terminate -------------------------------------

const char* kEvents = R"({
  "stop": 1, "method": {"type": "jacobi", "dt": 0.1},
  "systems": {"e": {"fmu": "{events}"}}, "connections": []
})";

TEST(Fmi3CoSimulation, AnEventInsideAStepIsHandledWhereItHappens) {
  const PrivateTemp temp;
  {
    // x' = 1, reset to 0 at t_event = 0.35 (inside the step 0.3 → 0.4): x(0.4) = 0.05, not 0 or 0.1
    const scenario::ScenarioRun r = run(document(kEvents));
    EXPECT_NEAR(at(r, "e.x", 3), 0.3, 1e-15);
    EXPECT_EQ(at(r, "e.count", 3), 0.0);
    EXPECT_NEAR(at(r, "e.x", 4), 0.05, 1e-12);
    EXPECT_EQ(at(r, "e.count", 4), 1.0);
    EXPECT_NEAR(at(r, "e.x", 10), 0.65, 1e-12);
  }
  {
    // through the System contract: the FMU stopped for one event, cosima handled it in Event Mode
    fmi::Fmi3CsSystem system("e", fmu("events"));
    system.initialize(0.0);
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(system.do_step(0.1).ok());
    EXPECT_EQ(system.events_handled(), 1);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3CoSimulation, RollbackThroughFmuStateUndoesAnEvent) {
  fmi::Fmi3CsSystem system("e", fmu("events"));
  ASSERT_TRUE(system.has(Capability::rollback));
  system.initialize(0.0);
  ASSERT_TRUE(system.do_step(0.3).ok());
  const StateId saved = system.save_state();
  ASSERT_TRUE(system.do_step(0.2).ok());
  Eigen::VectorXd y(2);
  system.outputs(y);
  EXPECT_EQ(y(1), 1.0);
  system.restore_state(saved);
  EXPECT_DOUBLE_EQ(system.time(), 0.3);
  system.outputs(y);
  EXPECT_EQ(y(1), 0.0);
  EXPECT_NEAR(y(0), 0.3, 1e-15);
  ASSERT_TRUE(system.do_step(0.2).ok());
  system.outputs(y);
  EXPECT_NEAR(y(0), 0.15, 1e-12);
  EXPECT_EQ(system.events_handled(), 1);
}

TEST(Fmi3CoSimulation, DiscardAndTerminateAreReasonsNotCrashes) {
  const PrivateTemp temp;
  std::string what = error_of([] { run(document(kEvents), {"systems.e.parameters.discard_after=0.55"}); });
  EXPECT_NE(what.find("fmi3DoStep"), std::string::npos) << what;
  EXPECT_NE(what.find("fmi3Discard"), std::string::npos) << what;
  {
    const scenario::ScenarioRun r = run(document(kEvents), {"systems.e.parameters.terminate_at=0.5"});
    EXPECT_TRUE(r.stats.terminated_early);
    EXPECT_NEAR(r.stats.end_time, 0.5, 1e-12);
    EXPECT_NE(r.stats.termination_reason.find("terminate"), std::string::npos) << r.stats.termination_reason;
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3CoSimulation, MisbehavingFmusAreNamedErrors) {
  const PrivateTemp temp;
  const char* doc = R"({"stop": 1, "method": {"type": "jacobi", "dt": 0.1},
                        "systems": {"m": {"fmu": "{misbehave}", "parameters": {"mode": 1}}}, "connections": []})";
  std::string what = error_of([&] { run(document(doc)); });
  EXPECT_NE(what.find("fmi3Error"), std::string::npos) << what;
  EXPECT_NE(what.find("cosima_fmi3_misbehave.fmu"), std::string::npos) << what;
  what = error_of([&] { run(document(doc), {"systems.m.parameters.mode=5"}); });
  EXPECT_NE(what.find("fmi3Fatal"), std::string::npos) << what;
  what = error_of([&] { run(document(doc), {"systems.m.parameters.mode=3"}); });
  EXPECT_NE(what.find("system 'm': output 'y' is nan"), std::string::npos) << what;
  EXPECT_TRUE(temp.empty());
}

// --- Model Exchange -------------------------------------------------------------------------------------

TEST(Fmi3ModelExchange, TheBallBouncesAsItsCoSimulationTwin) {
  const PrivateTemp temp;
  // the same FMU through both interfaces: Model Exchange integrated by CVODE with state and time
  // events, and Co-Simulation (exact inside the FMU)
  const char* doc = R"({"stop": 2, "method": {"type": "jacobi", "dt": 0.01},
    "systems": {"me": {"fmu": "{me}", "interface": "me", "integrator": "cvode",
                       "integrator_options": {"rtol": 1e-10, "atol": 1e-12}},
                "cs": {"fmu": "{me}", "interface": "cs"}},
    "inputs": {"me.u": 0, "cs.u": 0}, "connections": []})";
  {
    const scenario::ScenarioRun r = run(document(doc));
    const std::size_t rows = r.results->times().size();
    ASSERT_EQ(rows, 201U);
    EXPECT_GE(at(r, "cs.bounces", rows - 1), 2.0);
    double worst = 0.0;
    for (std::size_t row = 0; row < rows; ++row) {
      EXPECT_EQ(at(r, "me.bounces", row), at(r, "cs.bounces", row)) << row;
      worst = std::max(worst, std::abs(at(r, "me.h", row) - at(r, "cs.h", row)));
    }
    EXPECT_LT(worst, 1e-6);
  }
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3ModelExchange, EveryMethodRunsOnFmi3Systems) {
  const PrivateTemp temp;
  // the ME ball fed by the CS event FMU's ramp: linearization from fmi3GetDirectionalDerivative,
  // interpolated inputs emulated for the CS FMU where a method needs them
  const char* doc = R"({"stop": 0.3, "method": {"type": "jacobi", "dt": 0.01},
    "systems": {"ball": {"fmu": "{me}", "interface": "me", "integrator": "cvode"},
                "ramp": {"fmu": "{events}"}},
    "connections": [["ramp.x", "ball.u"]]})";
  const double reference = run(document(doc), {"method.dt=0.001"}).results->column("ball.h").back();
  // (ifosmondi-jfm starts PETSc, whose Open MPI session directory stays until the process ends:
  // this test watches the FMUs' unpacked archives)
  for (const char* method : {"jacobi", "gauss-seidel", "ifosmondi", "missiles", "defect-jacobi", "ifosmondi-jfm"}) {
    {
      const scenario::ScenarioRun r = run(document(doc), {std::string("method.type=") + method});
      EXPECT_NEAR(r.stats.end_time, 0.3, 1e-12) << method;
      EXPECT_NEAR(r.results->column("ball.h").back(), reference, 1e-3) << method;
    }
    EXPECT_TRUE(temp.no_fmu_left()) << method;
  }
}

// --- refused: clocks, bad archives --------------------------------------------------------------------

TEST(Fmi3BadInput, ClocksAreRefusedByName) {
  const PrivateTemp temp;
  const std::string what = error_of([] { fmi::Fmi3CsSystem system("c", fmu("clocked")); });
  EXPECT_NE(what.find("Clocks"), std::string::npos) << what;
  EXPECT_NE(what.find("tick"), std::string::npos) << what;
  EXPECT_TRUE(temp.empty());
}

TEST(Fmi3BadInput, EachDefectIsAClearErrorAndLeavesNoTempFile) {
  const PrivateTemp temp;
  const std::string xml = testing::read_zip_entry(fmu("events"), "modelDescription.xml");
  const std::string so = testing::read_zip_entry(fmu("events"), "binaries/x86_64-linux/cosima_fmi3_events.so");
  ASSERT_FALSE(xml.empty());
  ASSERT_FALSE(so.empty());
  const std::filesystem::path dir = std::filesystem::path(temp.path()).parent_path() / "cosima-fmi3-bad";
  std::filesystem::create_directories(dir);
  auto expect = [&](const std::string& name, const std::vector<std::pair<std::string, std::string>>& entries,
                    const std::vector<std::string>& parts) {
    const std::filesystem::path file = dir / name;
    testing::write_zip(file, entries);
    const std::string what = error_of([&] { fmi::Fmi3CsSystem system("s", file); });
    EXPECT_FALSE(what.empty()) << name;
    for (const std::string& part : parts) EXPECT_NE(what.find(part), std::string::npos) << name << ": " << what;
    EXPECT_TRUE(temp.empty()) << name;
  };
  auto replaced = [&](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  };
  const std::string binary = "binaries/x86_64-linux/cosima_fmi3_events.so";
  // a wrong instantiationToken: the FMU refuses to instantiate, and says why
  expect("token.fmu", {{"modelDescription.xml", replaced(xml, "{2f0b7d9e", "{00000000")}, {binary, so}},
         {"fmi3InstantiateCoSimulation failed", "token.fmu"});
  // the binary of FMI 2.0's platform directory only
  expect("linux64.fmu", {{"modelDescription.xml", xml}, {"binaries/linux64/cosima_fmi3_events.so", so}},
         {"no x86_64-linux binary", "binaries/x86_64-linux/cosima_fmi3_events.so"});
  // a binary without the fmi3 functions (an FMI 2.0 one)
  const std::string fmi2_so =
      testing::read_zip_entry(kFmi2Fmus / "cosima_test_counter.fmu", "binaries/linux64/cosima_test_counter.so");
  ASSERT_FALSE(fmi2_so.empty());
  expect("fmi2binary.fmu", {{"modelDescription.xml", xml}, {binary, fmi2_so}}, {"lacks the required function fmi3"});
  // description defects of FMI 3.0's own
  expect("dimension.fmu",
         {{"modelDescription.xml",
           replaced(xml, "reset to 0 at t_event\"/>", "reset to 0 at t_event\"><Dimension/></Float64>")},
          {binary, so}},
         {"Dimension"});
  expect("huge.fmu",
         {{"modelDescription.xml",
           replaced(xml, "reset to 0 at t_event\"/>",
                    "reset to 0 at t_event\"><Dimension start=\"4000000\"/><Dimension start=\"4000000\"/></Float64>")},
          {binary, so}},
         {"variable 'x' has more than 1000000 elements"});
  expect("element.fmu",
         {{"modelDescription.xml",
           replaced(xml, "<Float64 name=\"x\"", "<Real name=\"r\" valueReference=\"99\"/><Float64 name=\"x\"")},
          {binary, so}},
         {"unknown element <Real>"});
  expect("version.fmu",
         {{"modelDescription.xml", replaced(xml, "fmiVersion=\"3.0\"", "fmiVersion=\"4.0\"")}, {binary, so}},
         {"fmiVersion is '4.0'"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cosima
