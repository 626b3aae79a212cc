#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/error.hpp"
#include "methods/method_registry.hpp"
#include "scenario/scenario.hpp"

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

using testing::error_of;

io::Json b3() {
  return io::Json::parse(R"({"stop": 1, "systems": {"prey": {"model": "b3.prey"}, "predator": {"model": "b3.predator"}},
                         "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"]]})");
}

TEST(Scenario, OverridesSetAnyValueByDotPath) {
  io::Json doc = b3();
  scenario::apply_override(doc, "systems.prey.parameters.alpha=0.5");
  scenario::apply_override(doc, "method.type=gauss-seidel");
  scenario::apply_override(doc, "method.allow_algebraic_loops=true");
  scenario::apply_override(doc, "systems.predator.rollback=false");
  scenario::apply_override(doc, "stop=2.5");
  const scenario::Scenario s = scenario::parse_scenario(doc, "inline.json");
  EXPECT_DOUBLE_EQ(std::get<double>(s.systems[0].parameters.at("alpha")), 0.5);
  EXPECT_EQ(s.method["type"], "gauss-seidel");
  EXPECT_EQ(s.method["allow_algebraic_loops"], true);
  EXPECT_TRUE(s.systems[1].withheld.has(Capability::rollback));
  EXPECT_FALSE(s.systems[0].withheld.has(Capability::rollback));
  EXPECT_DOUBLE_EQ(s.run.stop, 2.5);
  EXPECT_NE(error_of([&] { scenario::apply_override(doc, "nonsense"); }).find("PATH=VALUE"), std::string::npos);
}

TEST(Scenario, SystemsKeepTheirFileOrder) {
  const scenario::Scenario s = scenario::parse_scenario(b3(), "inline.json");
  ASSERT_EQ(s.systems.size(), 2U);
  EXPECT_EQ(s.systems[0].name, "prey");
  EXPECT_EQ(s.systems[1].name, "predator");
}

TEST(Scenario, UnknownKeysAreNamedByTheirPath) {
  io::Json doc = b3();
  scenario::apply_override(doc, "systems.prey.paramters.alpha=1");
  const std::string what = error_of([&] { scenario::parse_scenario(doc, "inline.json"); });
  EXPECT_NE(what.find("systems.prey.paramters"), std::string::npos) << what;
  EXPECT_NE(what.find("inline.json"), std::string::npos) << what;
  io::Json top = b3();
  top["stpo"] = 3;
  EXPECT_NE(error_of([&] { scenario::parse_scenario(top, "inline.json"); }).find("'stpo'"), std::string::npos);
}

TEST(Scenario, UnknownModelParameterAndIntegratorAreNamed) {
  io::Json doc = b3();
  scenario::apply_override(doc, "systems.prey.model=b3.wolf");
  EXPECT_NE(error_of([&] { scenario::build_model(scenario::parse_scenario(doc, "x.json")); }).find("b3.wolf"),
            std::string::npos);
  doc = b3();
  scenario::apply_override(doc, "systems.prey.parameters.alfa=1");
  const std::string what = error_of([&] { scenario::build_model(scenario::parse_scenario(doc, "x.json")); });
  EXPECT_NE(what.find("system 'prey'"), std::string::npos) << what;
  EXPECT_NE(what.find("'alfa'"), std::string::npos) << what;
  doc = b3();
  scenario::apply_override(doc, "systems.prey.integrator=rk99");
  EXPECT_NE(error_of([&] { scenario::build_model(scenario::parse_scenario(doc, "x.json")); }).find("rk99"),
            std::string::npos);
}

TEST(Scenario, MethodOptionsAreCheckedAgainstTheMethod) {
  std::vector<std::string> ignored;
  EXPECT_NE(error_of([&] {
              methods::make_method(io::Json{{"type", "jacobi"}, {"epsilonn", 1}}, 0.1, ignored);
            }).find("method.epsilonn"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              methods::make_method(io::Json{{"type", "newton"}}, 0.1, ignored);
            }).find("unknown method 'newton'"),
            std::string::npos);
  ignored.clear();
  methods::make_method(io::Json{{"type", "jacobi"}, {"rtol", 1e-9}}, 0.1, ignored);  // a monolithic option
  ASSERT_EQ(ignored.size(), 1U);
  EXPECT_NE(ignored[0].find("method.rtol"), std::string::npos);
}

TEST(Scenario, EveryExampleParsesAndBuilds) {
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".json" || entry.path().stem().string().ends_with("_fmu")) continue;
    EXPECT_NO_THROW(scenario::build_model(scenario::load_scenario(entry.path()))) << entry.path();
  }
}

}  // namespace
}  // namespace cosima
