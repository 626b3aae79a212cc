// Connections with a linear transformation (scale, offset) and systems with dotted names (SSP's
// nested systems, flattened): the model's dispatch, and every method against an equivalent model.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/modular_model.hpp"
#include "models/registry.hpp"
#include "scenario/run_scenario.hpp"
#include "system/native/native_system.hpp"
#include "test_support.hpp"

namespace cosima {
namespace {

using testing::error_of;

std::unique_ptr<System> make(const std::string& name, const std::string& model) {
  return std::make_unique<NativeSystem>(name, models::make_model(model),
                                        make_integrator("dopri5", IntegratorOptions{}));
}

TEST(Connections, ScaleAndOffsetTransformValuesAndScaleDerivatives) {
  model::ModularModel model;
  model.add_system(make("prey", "b3.prey"));
  model.add_system(make("predator", "b3.predator"));
  model.connect("prey.p", "predator.p", false, {.scale = 2.0, .offset = 0.5});
  model.connect("predator.q", "prey.q");
  model.finalize();
  Eigen::VectorXd y(2), u, dy(2), du;
  y << 1.5, 2.5;  // prey.p, predator.q
  dy << -3.0, 4.0;
  model.dispatch(y, u);
  model.dispatch_derivatives(dy, du);
  EXPECT_EQ(u, Eigen::Vector2d(2.5, 2.0 * 1.5 + 0.5));  // prey.q, predator.p
  EXPECT_EQ(du, Eigen::Vector2d(4.0, 2.0 * -3.0));
  Eigen::VectorXd slice = Eigen::VectorXd::Zero(2);
  model.dispatch_to(1, y, slice);
  EXPECT_EQ(slice(1), 3.5);
  EXPECT_EQ(model.input_transform(1).scale, 2.0);
  EXPECT_TRUE(model.input_transform(0).identity());
}

TEST(Connections, ATransformMustBeFinite) {
  model::ModularModel model;
  model.add_system(make("prey", "b3.prey"));
  model.add_system(make("predator", "b3.predator"));
  const std::string what = error_of([&] { model.connect("prey.p", "predator.p", false, {.scale = NAN, .offset = 0}); });
  EXPECT_NE(what.find("prey.p -> predator.p"), std::string::npos) << what;
  EXPECT_NE(what.find("finite"), std::string::npos) << what;
}

TEST(Connections, DottedSystemNamesResolveToTheLongestSystemWithThePort) {
  model::ModularModel model;
  model.add_system(make("zoo.prey", "b3.prey"));
  model.add_system(make("zoo", "b3.predator"));  // "zoo.p" is its input; "zoo.prey.p" is the other's output
  model.connect("zoo.prey.p", "zoo.p");
  model.connect("zoo.q", "zoo.prey.q");
  model.finalize();
  EXPECT_EQ(model.input_label(0), "zoo.prey.q");
  EXPECT_EQ(model.input_sources()[1], 0);  // zoo.p ← zoo.prey.p
  EXPECT_NE(error_of([&] { model.add_system(make("bad..name", "b3.prey")); }).find("bad..name"), std::string::npos);
  EXPECT_NE(error_of([&] { model.add_system(make("trailing.", "b3.prey")); }).find("trailing."), std::string::npos);
  EXPECT_NE(error_of([&] { model.connect("zoo.prey.x", "zoo.p"); }).find("no output 'x'"), std::string::npos);
}

TEST(Connections, OverridesReachSystemsWithDottedNames) {
  io::Json document =
      io::Json::parse(R"({"stop": 1, "systems": {"sub.prey": {"model": "b3.prey"}, "sub": {"model": "b3.predator"}},
                                  "connections": [["sub.prey.p", "sub.p"], ["sub.q", "sub.prey.q"]]})");
  scenario::apply_override(document, "systems.sub.prey.parameters.alpha=0.5");
  scenario::apply_override(document, "systems.sub.parameters.gamma=0.25");
  const scenario::Scenario scenario = scenario::parse_scenario(document, "inline.json");
  EXPECT_DOUBLE_EQ(std::get<double>(scenario.systems[0].parameters.at("alpha")), 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(scenario.systems[1].parameters.at("gamma")), 0.25);
  const scenario::ScenarioRun run = scenario::run_scenario(scenario);
  EXPECT_EQ(run.results->labels(), (std::vector<std::string>{"sub.prey.p", "sub.q"}));
}

/// B3 with the predator's input p transformed, u = a p + b, is B3 with δ' = aδ and γ' = γ − bδ
/// (q' = δ (a p + b) q − γ q). Every method must see the transformation the same way.
TEST(Connections, EveryMethodAppliesTheTransformation) {
  const double a = 2.0, b = 0.1, delta = 1.0, gamma = 1.0;
  const auto scenario = [&](bool transformed, const std::string& method) {
    io::Json document = io::Json::parse(R"({"stop": 2, "systems": {
        "prey": {"model": "b3.prey", "integrator_options": {"rtol": 1e-11, "atol": 1e-13}},
        "predator": {"model": "b3.predator", "integrator_options": {"rtol": 1e-11, "atol": 1e-13}}},
        "connections": [["predator.q", "prey.q"]]})");
    io::Json connection = {{"from", "prey.p"}, {"to", "predator.p"}};
    if (transformed) {
      connection["scale"] = a;
      connection["offset"] = b;
    } else {
      document["systems"]["predator"]["parameters"] = {{"delta", a * delta}, {"gamma", gamma - b * delta}};
    }
    document["connections"].push_back(connection);
    document["method"] = {{"type", method}, {"dt", 0.02}};
    // the iterative methods' unknowns are the (transformed) inputs: converge them fully, so that
    // their tolerance does not weigh the two models differently
    if (method.starts_with("ifosmondi")) document["method"]["epsilon"] = 1e-13;
    // (a defect-controlled step sees the defect in the input's units: compare on one grid)
    if (method == "defect-jacobi") document["method"]["fixed"] = true;
    return scenario::parse_scenario(document, "inline.json");
  };
  for (const std::string method :
       {"jacobi", "gauss-seidel", "ifosmondi", "ifosmondi-jfm", "missiles", "defect-jacobi", "monolithic"}) {
    SCOPED_TRACE(method);
    const scenario::ScenarioRun transformed = scenario::run_scenario(scenario(true, method));
    const scenario::ScenarioRun equivalent = scenario::run_scenario(scenario(false, method));
    ASSERT_EQ(transformed.results->times().size(), equivalent.results->times().size());
    for (const std::string label : {"prey.p", "predator.q"}) {
      const auto& x = transformed.results->column(label);
      const auto& y = equivalent.results->column(label);
      for (std::size_t k = 0; k < x.size(); ++k)
        ASSERT_NEAR(x[k], y[k], 1e-8 * std::abs(y[k])) << label << " row " << k;
    }
    EXPECT_EQ(transformed.stats.macro_steps, equivalent.stats.macro_steps);
  }
}

}  // namespace
}  // namespace cosima
