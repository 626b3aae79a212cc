#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/error.hpp"
#include "model/modular_model.hpp"
#include "models/registry.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

std::unique_ptr<System> make(const std::string& name, const std::string& model) {
  return std::make_unique<NativeSystem>(name, models::make_model(model),
                                        make_integrator("dopri5", IntegratorOptions{}));
}

model::ModularModel b1() {
  model::ModularModel model;
  model.add_system(make("mass", "b1.mass"));
  model.add_system(make("damper", "b1.damper"));
  return model;
}

using testing::error_of;

TEST(ModularModel, UnconnectedInputsAreNamed) {
  model::ModularModel model = b1();
  model.connect("mass.f_C", "damper.f_C");
  const std::string what = error_of([&] { model.finalize(); });
  EXPECT_NE(what.find("mass.v_C"), std::string::npos) << what;
  EXPECT_NE(what.find("mass.x_C"), std::string::npos) << what;
}

TEST(ModularModel, ConnectionErrorsNameThePort) {
  model::ModularModel model = b1();
  EXPECT_NE(error_of([&] { model.connect("mass.f_C", "damper.v_C"); }).find("output connected to output"),
            std::string::npos);
  EXPECT_NE(error_of([&] { model.connect("damper.f_C", "mass.v_C"); }).find("'damper.f_C' is an input"),
            std::string::npos);
  EXPECT_NE(error_of([&] { model.connect("pump.q", "mass.v_C"); }).find("no system 'pump'"), std::string::npos);
  EXPECT_NE(error_of([&] { model.connect("mass.fc", "damper.f_C"); }).find("no output 'fc'"), std::string::npos);
  EXPECT_NE(error_of([&] { model.connect("mass", "damper.f_C"); }).find("system.port"), std::string::npos);
}

TEST(ModularModel, InputDrivenTwiceIsAnError) {
  model::ModularModel model = b1();
  model.connect("mass.f_C", "damper.f_C");
  model.set_constant_input("damper.f_C", 1.0);
  model.connect("damper.v_C", "mass.v_C");
  model.connect("damper.x_C", "mass.x_C");
  EXPECT_NE(error_of([&] { model.finalize(); }).find("'damper.f_C' is driven twice"), std::string::npos);
}

TEST(ModularModel, ADottedLabelReadsAsEverySystemNameItStartsWith) {
  // "a.b.c.p" reads as system "a.b.c" port "p", "a.b" port "c.p" and "a" port "b.c.p": three
  // readings, more than the splits hold inline; the longest system name under which the port
  // exists is the one connected
  model::ModularModel model;
  model.add_system(make("a", "b3.prey"));
  model.add_system(make("a.b", "b3.predator"));
  model.add_system(make("a.b.c", "b3.prey"));
  const auto splits = model.split_label("a.b.c.p");
  ASSERT_EQ(splits.size(), 3U);
  EXPECT_EQ(model.system(splits.begin()[0].system).name(), "a.b.c");
  EXPECT_EQ(splits.begin()[0].port, "p");
  EXPECT_EQ(model.system(splits.begin()[2].system).name(), "a");
  EXPECT_EQ(splits.begin()[2].port, "b.c.p");
  model.connect("a.b.c.p", "a.b.p");
  model.connect("a.b.q", "a.b.c.q");
  model.connect("a.b.q", "a.q");
  model.finalize();
  ASSERT_EQ(model.input_label(1), "a.b.p");
  EXPECT_EQ(model.output_label(model.input_sources()[1]), "a.b.c.p");
  ASSERT_EQ(model.input_label(0), "a.q");
  EXPECT_EQ(model.output_label(model.input_sources()[0]), "a.b.q");
}

TEST(ModularModel, FanOutAndDispatch) {
  model::ModularModel model;
  model.add_system(make("prey", "b3.prey"));
  model.add_system(make("predator", "b3.predator"));
  model.add_system(make("other", "b3.predator"));
  model.connect("prey.p", "predator.p");
  model.connect("prey.p", "other.p");  // fan-out
  model.connect("predator.q", "prey.q");
  model.finalize();
  Eigen::VectorXd y(3), u;
  y << 1.5, 2.5, 3.5;
  model.dispatch(y, u);
  EXPECT_EQ(u, Eigen::Vector3d(2.5, 1.5, 1.5));
  EXPECT_TRUE(model.find_algebraic_loop().empty());
}

TEST(ModularModel, FindsTheB1AlgebraicLoop) {
  model::ModularModel model = b1();
  model.connect("mass.f_C", "damper.f_C");
  model.connect("damper.v_C", "mass.v_C");
  model.connect("damper.x_C", "mass.x_C");
  model.finalize();
  const auto loop = model.find_algebraic_loop();
  ASSERT_FALSE(loop.empty());
  EXPECT_EQ(loop.front(), loop.back());
  std::string text;
  for (const auto& p : loop) text += p + " ";
  EXPECT_NE(text.find("damper.v_C"), std::string::npos) << text;
  EXPECT_NE(text.find("mass.f_C"), std::string::npos) << text;
  EXPECT_EQ(text.find("x_C"), std::string::npos) << "x_C has no feedthrough: " << text;
}

}  // namespace
}  // namespace cosima
