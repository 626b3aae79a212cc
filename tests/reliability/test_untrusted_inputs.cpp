// What the readers accepted and should refuse, or crashed on:
// deep nesting, duplicate keys and columns, numbers beyond double, devices as
// tables, a BOM, a dt too small for the run, FMI 3.0 array declarations that
// contradict themselves. Each refusal names the file and the culprit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/array_element.hpp"
#include "core/error.hpp"
#include "core/position_index.hpp"
#include "fmi/common/model_description.hpp"
#include "io/csv.hpp"
#include "io/json.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "ssp/ssp_reader.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;

class Untrusted : public ::testing::Test {
 protected:
  Untrusted() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cosima-untrusted-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp";
    dir_ = pattern;
  }
  ~Untrusted() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  std::filesystem::path dir_;
};

TEST_F(Untrusted, DeeplyNestedJsonIsRefusedByNameNotByACrash) {
  const std::string deep = R"({"start": 0, "stop": 1, "systems": {"a": {"model": "b3.prey", "parameters": {"x": )" +
                           std::string(100000, '[') + std::string(100000, ']') + "}}}}";
  const std::string error = error_of([&] { (void)scenario::load_scenario(write("deep.json", deep)); });
  EXPECT_NE(error.find("deep.json"), std::string::npos) << error;
  EXPECT_NE(error.find("nested deeper than"), std::string::npos) << error;
}

TEST_F(Untrusted, ADuplicateKeyIsRefusedNotGuessed) {
  const std::string error = error_of([&] {
    (void)scenario::load_scenario(
        write("twice.json", R"({"start": 0, "stop": 2, "stop": 1e9, "systems": {"a": {"model": "b3.prey"}}})"));
  });
  EXPECT_NE(error.find("twice.json"), std::string::npos) << error;
  EXPECT_NE(error.find("'stop' appears twice"), std::string::npos) << error;
  // the same key in two objects is no duplicate
  EXPECT_NO_THROW((void)io::parse_json(R"({"a": {"x": 1}, "b": {"x": 2}})", "two objects"));
}

TEST(JsonObjects, KeepTheirOrderAndFindKeysInConstantTime) {
  // 200 000 keys: with a linear search per insertion (nlohmann's ordered_map)
  // this is 2·10¹⁰ string compares; the index makes it a fraction of a second
  std::string text = "{";
  constexpr int kKeys = 200000;
  for (int k = 0; k < kKeys; ++k)
    text += (k > 0 ? ",\"k" : "\"k") + std::to_string(kKeys - k) + "\": " + std::to_string(k);
  text += "}";
  io::Json doc = io::parse_json(text, "wide");
  ASSERT_EQ(doc.size(), static_cast<std::size_t>(kKeys));
  EXPECT_EQ(doc.begin().key(), "k200000");  // the order written, not sorted
  EXPECT_EQ(doc["k1"], kKeys - 1);
  EXPECT_EQ(doc.at("k100000"), kKeys - 100000);
  EXPECT_EQ(doc.erase("k200000"), 1U);
  EXPECT_EQ(doc.begin().key(), "k199999");
  EXPECT_EQ(doc["k5"], kKeys - 5);  // the index follows the shift
  EXPECT_FALSE(doc.contains("k200000"));
  doc["new"] = 1;
  EXPECT_EQ((--doc.end()).key(), "new");
  EXPECT_EQ(doc.size(), static_cast<std::size_t>(kKeys));
  EXPECT_EQ(io::Json::parse(R"({"b": 1, "a": 2})").dump(), R"({"b":1,"a":2})");
}

/// A value that counts its copies.
struct Counted {
  static inline int copies = 0;
  Counted() = default;
  Counted(const Counted& /*other*/) { ++copies; }
  Counted(Counted&&) noexcept = default;
  Counted& operator=(const Counted& /*other*/) {
    ++copies;
    return *this;
  }
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() = default;
};

TEST(JsonObjects, GrowWithoutCopyingTheirValues) {
  // std::vector grows by copying a pair with a const key, value included: a scenario's systems object
  // copied every system's subtree at every doubling
  io::IndexedMap<std::string, Counted> map;
  Counted::copies = 0;
  for (int k = 0; k < 5000; ++k) map.emplace(fmt::format("key{}", k), Counted{});
  EXPECT_EQ(Counted::copies, 0);
  ASSERT_EQ(map.size(), 5000U);
  EXPECT_EQ(map.find(std::string("key4321")) - map.begin(), 4321);
  EXPECT_EQ(map.find(std::string("key5000")), map.end());
}

TEST(PositionIndex, FindsEveryNameAndNothingElse) {
  std::vector<std::string> names;
  PositionIndex index;
  const auto name_at = [&names](std::size_t k) -> const std::string& { return names[k]; };
  for (int k = 0; k < 3000; ++k) {
    names.push_back(fmt::format("s{}", k));
    index.append(names.size(), name_at);
  }
  for (std::size_t k = 0; k < names.size(); ++k) ASSERT_EQ(index.find(names[k], name_at), k) << names[k];
  EXPECT_EQ(index.find("s3000", name_at), PositionIndex::npos);
  EXPECT_EQ(index.find("", name_at), PositionIndex::npos);
  names.erase(names.begin());  // positions shift: the owner rebuilds
  index.clear();
  index.rebuild(names.size(), name_at);
  EXPECT_EQ(index.find("s1", name_at), 0U);
  EXPECT_EQ(index.find("s0", name_at), PositionIndex::npos);
}

TEST(ArrayElement, NamesOfElementsAndTheirIndices) {
  EXPECT_EQ(element_suffix("A[2,1]", "A"), "[2,1]");
  EXPECT_EQ(element_suffix("A[3]", "A"), "[3]");
  EXPECT_FALSE(element_suffix("A[]", "A"));     // no index
  EXPECT_FALSE(element_suffix("AB[1]", "A"));   // another array
  EXPECT_FALSE(element_suffix("A[1].x", "A"));  // a field of an element, not an element
  EXPECT_FALSE(element_suffix("A", "A"));
  EXPECT_EQ(element_indices("[2,1]"), (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(element_indices("[1, 12]"), (std::vector<std::size_t>{1, 12}));  // as FMI 2.0 exporters write them
  EXPECT_EQ(element_indices("[x]"), (std::vector<std::size_t>{0}));
  EXPECT_EQ(element_count({"A[1]", "A[2]", "A", "B[1]", "A[3]"}, "A"), 3U);
}

TEST_F(Untrusted, ANumberBeyondDoubleIsNamedAsSuch) {
  const std::string error = error_of([&] { (void)scenario::load_scenario(write("big.json", R"({"stop": 1e400})")); });
  EXPECT_NE(error.find("big.json"), std::string::npos) << error;
  EXPECT_NE(error.find("beyond the range of a double"), std::string::npos) << error;
  EXPECT_EQ(error.find("internal error"), std::string::npos) << error;
}

TEST_F(Untrusted, TablesAreRegularFilesWithDistinctColumnsAndMayStartWithABom) {
  EXPECT_NE(error_of([&] { (void)io::read_csv(dir_); }).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)io::read_csv("/dev/zero"); }).find("not a regular file"), std::string::npos);
  const std::string twice = error_of([&] { (void)io::read_csv(write("twice.csv", "time,u,u\n0,1,2\n")); });
  EXPECT_NE(twice.find("two columns are named 'u' (columns 2 and 3)"), std::string::npos) << twice;
  const io::Table table = io::read_csv(write("bom.csv", "\xEF\xBB\xBFtime,u\n0,1\n1,2\n"));
  ASSERT_EQ(table.columns.size(), 1U);
  EXPECT_EQ(table.columns[0], "u");
}

TEST_F(Untrusted, AStepTooSmallForTheRunIsRefused) {
  const std::filesystem::path file = write(
      "tiny.json",
      R"({"start": 0, "stop": 1, "systems": {"a": {"model": "b3.prey"}}, "method": {"type": "jacobi", "dt": 1e-300}})");
  const std::string error =
      error_of([&] { (void)scenario::run_scenario(scenario::load_scenario(file, {"inputs.a.q=1"})); });
  EXPECT_NE(error.find("dt = 1e-300 is below"), std::string::npos) << error;
}

std::string nested_ssd(int levels) {
  std::string ssd = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" version="1.0" name="deep">)";
  for (int level = 0; level < levels; ++level)
    ssd += "<ssd:System name=\"s" + std::to_string(level) + "\"><ssd:Elements>";
  for (int level = 0; level < levels; ++level) ssd += "</ssd:Elements></ssd:System>";
  return ssd + "</ssd:SystemStructureDescription>";
}

TEST(SsdNesting, SystemsNestedWithinTheBoundAreReadWithoutRecursion) {
  // 200 levels ran the recursive reader 200 frames deep; the iterative one
  // reads them flat
  const std::string error = error_of([&] { (void)ssp::parse_ssd(nested_ssd(200), {}, "SSP 'deep.ssp'"); });
  EXPECT_EQ(error.find("nests systems"), std::string::npos) << error;
}

TEST(SsdNesting, SystemsNestedTooDeeplyAreRefusedByNameNotByACrash) {
  const std::string ssd = nested_ssd(20000);
  const std::string error = error_of([&] { (void)ssp::parse_ssd(ssd, {}, "SSP 'deep.ssp'"); });
  EXPECT_NE(error.find("deep.ssp"), std::string::npos) << error;
  EXPECT_NE(error.find("nests systems deeper than"), std::string::npos) << error;
}

std::string fmi3_description(const std::string& variables) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{t}">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
)" + variables +
         R"(
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>)";
}

TEST(Fmi3Description, ArraysThatContradictThemselvesAreRefused) {
  const std::string n =
      R"(<UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="7" max="5"/>)";
  std::string error = error_of([&] {
    (void)fmi::parse_model_description(
        fmi3_description(
            n +
            R"(<Float64 name="A" valueReference="2" causality="parameter" variability="fixed" start="1 2 3 4 5 6 7 8 9">
      <Dimension valueReference="1"/><Dimension valueReference="1"/></Float64>)"),
        "m.fmu");
  });
  EXPECT_NE(error.find("Dimension 'n' = 7 is outside [0, 5]"), std::string::npos) << error;
  error = error_of([&] {
    (void)fmi::parse_model_description(
        fmi3_description(
            R"(<Float64 name="A" valueReference="2" causality="parameter" variability="fixed" start="1 2 3 4 5">
      <Dimension start="3"/><Dimension start="3"/></Float64>)"),
        "m.fmu");
  });
  EXPECT_NE(error.find("'A' has 5 start values for its 9 elements"), std::string::npos) << error;
  error = error_of([&] {
    (void)fmi::parse_model_description(
        fmi3_description(
            R"(<Float64 name="A" valueReference="2" causality="parameter" variability="fixed" start="1">
      <Dimension start="3" valueReference="0"/></Float64>)"),
        "m.fmu");
  });
  EXPECT_NE(error.find("start or valueReference, not both"), std::string::npos) << error;
}

}  // namespace
}  // namespace cosima
