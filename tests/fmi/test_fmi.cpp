// FMI 2.0 import and export through the project's own FMUs.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/error.hpp"
#include "export/variable_table.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
#include "fmu_fixtures.hpp"
#include "models/registry.hpp"
#include "scenario/run_scenario.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

using testing::kExamples;
using testing::kFmuDir;
using testing::PrivateTemp;

using testing::error_of;

// --- the same scenario natively and through FMUs -----------------------------------------------

struct Case {
  const char* example;
  const char* method;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.example << " with " << c.method; }

class NativeVersusFmu : public ::testing::TestWithParam<Case> {};

TEST_P(NativeVersusFmu, ResultsAgreeWithin1e12) {
  const Case c = GetParam();
  std::vector<std::string> overrides = {std::string("method.type=") + c.method};
  if (std::string(c.example) == "b1_ifosmondi_damper") overrides.emplace_back("method.allow_algebraic_loops=true");
  const PrivateTemp temp;
  {
    const scenario::ScenarioRun native =
        scenario::run_scenario(scenario::load_scenario(kExamples / (std::string(c.example) + ".json"), overrides));
    const scenario::ScenarioRun fmu =
        scenario::run_scenario(scenario::load_scenario(kExamples / (std::string(c.example) + "_fmu.json"), overrides));
    ASSERT_EQ(native.results->labels(), fmu.results->labels());
    ASSERT_EQ(native.results->times().size(), fmu.results->times().size());
    double worst = 0.0;
    for (std::size_t r = 0; r < native.results->times().size(); ++r) {
      for (std::size_t col = 0; col < native.results->labels().size(); ++col) {
        worst = std::max(worst, std::abs(native.results->value(r, col) - fmu.results->value(r, col)));
      }
    }
    EXPECT_LE(worst, 1e-12) << c.example << " " << c.method;
    EXPECT_EQ(native.stats.integrations, fmu.stats.integrations);
  }
  EXPECT_TRUE(temp.empty()) << "unpacked FMUs left in " << temp.path();
}

INSTANTIATE_TEST_SUITE_P(
    Benchmarks, NativeVersusFmu,
    ::testing::Values(Case{"b1_ifosmondi_damper", "jacobi"}, Case{"b1_ifosmondi_damper", "gauss-seidel"},
                      Case{"b2_two_bodies", "jacobi"}, Case{"b2_two_bodies", "gauss-seidel"},
                      Case{"b3_lotka_volterra", "jacobi"}, Case{"b3_lotka_volterra", "gauss-seidel"},
                      Case{"b4_two_mass", "jacobi"}, Case{"b4_two_mass", "gauss-seidel"},
                      Case{"b5_rotational_oscillator", "jacobi"}, Case{"b5_rotational_oscillator", "gauss-seidel"}),
    [](const auto& test) {
      return std::string(test.param.example) + "_" + (test.param.method[0] == 'j' ? "jacobi" : "gs");
    });

// --- every capability through a project FMU ----------------------------------------------------

class FmuCapabilities : public ::testing::Test {
 protected:
  void SetUp() override {
    fmu_ = std::make_unique<fmi::Fmi2CsSystem>("right", kFmuDir / "b4_right.fmu");
    native_ = std::make_unique<NativeSystem>("right", models::make_model("b4.right"), make_integrator("dopri5", {}));
    for (System* s : {static_cast<System*>(fmu_.get()), static_cast<System*>(native_.get())}) {
      s->initialize(0.0);
    }
    inputs_.resize(2, kInputCoefficients);
    inputs_ << 0.5, -1.0, 2.0, 0.3,  // v1(s)
        -1.0, 0.2, 0.1, -0.05;       // x1(s)
  }
  void step_both(double h) {
    for (System* s : {static_cast<System*>(fmu_.get()), static_cast<System*>(native_.get())}) {
      s->set_inputs(inputs_);
      ASSERT_TRUE(s->do_step(h).ok());
    }
  }
  std::unique_ptr<fmi::Fmi2CsSystem> fmu_;
  std::unique_ptr<NativeSystem> native_;
  InputPolynomials inputs_;
};

TEST_F(FmuCapabilities, DeclaresEveryCapability) {
  EXPECT_EQ(fmu_->capabilities().describe(), CapabilitySet::all().describe());
  EXPECT_EQ(fmu_->max_output_derivative_order(), 3);
  EXPECT_EQ(fmu_->state_names(), (std::vector<std::string>{"x2", "v2"}));
  EXPECT_TRUE(fmu_->output_depends_on_input(0, 0));
  EXPECT_TRUE(fmu_->output_depends_on_input(0, 1));
}

TEST_F(FmuCapabilities, InputDerivativesDriveTheStepAsPolynomials) {
  step_both(0.05);
  step_both(0.05);
  Eigen::VectorXd y_fmu(1), y_native(1), x_fmu(2), x_native(2);
  fmu_->outputs(y_fmu);
  native_->outputs(y_native);
  fmu_->states(x_fmu);
  native_->states(x_native);
  EXPECT_NEAR(y_fmu(0), y_native(0), 1e-12 * std::abs(y_native(0)));
  EXPECT_NEAR((x_fmu - x_native).norm(), 0.0, 1e-12);
  // and the polynomial mattered: a ZOH step ends elsewhere
  auto zoh = std::make_unique<fmi::Fmi2CsSystem>("zoh", kFmuDir / "b4_right.fmu");
  zoh->initialize(0.0);
  InputPolynomials constant = InputPolynomials::Zero(2, kInputCoefficients);
  constant.col(0) = inputs_.col(0);
  zoh->set_inputs(constant);
  ASSERT_TRUE(zoh->do_step(0.05).ok());
  Eigen::VectorXd x_zoh(2);
  zoh->states(x_zoh);
  EXPECT_GT(std::abs(x_zoh(1) - x_fmu(1)), 1e-6);
}

TEST_F(FmuCapabilities, OutputDerivativesMatchTheNativeSystem) {
  step_both(0.05);
  for (int order = 1; order <= 3; ++order) {
    Eigen::VectorXd d_fmu(1), d_native(1);
    fmu_->output_derivatives(order, d_fmu);
    native_->output_derivatives(order, d_native);
    EXPECT_NEAR(d_fmu(0), d_native(0), 1e-9 * std::max(1.0, std::abs(d_native(0)))) << "order " << order;
  }
}

TEST_F(FmuCapabilities, RollbackRepeatsAStepBitwise) {
  step_both(0.05);
  const StateId saved = fmu_->save_state();
  inputs_(0, 1) = 4.0;
  fmu_->set_inputs(inputs_);
  ASSERT_TRUE(fmu_->do_step(0.1).ok());
  Eigen::VectorXd first(1), second(1);
  fmu_->outputs(first);
  fmu_->restore_state(saved);
  EXPECT_DOUBLE_EQ(fmu_->time(), 0.05);
  fmu_->set_inputs(inputs_);
  ASSERT_TRUE(fmu_->do_step(0.1).ok());
  fmu_->outputs(second);
  EXPECT_EQ(first(0), second(0));
  fmu_->save_state(saved);  // overwrite in place
  fmu_->release_state(saved);
}

TEST_F(FmuCapabilities, DirectionalDerivativesMatchFiniteDifferences) {
  step_both(0.05);
  const Linearization lin = fmu_->linearize();
  Eigen::VectorXd x(2), u(2);
  fmu_->states(x);
  evaluate_polynomials(inputs_, 0.0, 0, u);  // the inputs at the FMU's time (start of the next step)
  Eigen::VectorXd u_now(2);
  evaluate_polynomials(inputs_, 0.05, 0, u_now);
  Linearization fd;
  finite_difference_jacobians(native_->model(), 0.1, x, u_now, fd);
  for (const auto& [a, b, name] : {std::tuple{&lin.A, &fd.A, "A"}, std::tuple{&lin.B, &fd.B, "B"},
                                   std::tuple{&lin.C, &fd.C, "C"}, std::tuple{&lin.D, &fd.D, "D"}}) {
    ASSERT_EQ(a->rows(), b->rows()) << name;
    ASSERT_EQ(a->cols(), b->cols()) << name;
    EXPECT_LE((*a - *b).lpNorm<Eigen::Infinity>(), 1e-6 * std::max(1.0, b->lpNorm<Eigen::Infinity>())) << name;
  }
  (void)u;
}

TEST_F(FmuCapabilities, StatesAndDerivativesMatchTheNativeSystem) {
  step_both(0.05);
  Eigen::VectorXd a(2), b(2);
  fmu_->state_derivatives(a);
  native_->state_derivatives(b);
  EXPECT_LE((a - b).norm(), 1e-12 * std::max(1.0, b.norm()));
}

TEST_F(FmuCapabilities, WithheldRollbackIsRefused) {
  fmu_->withhold(Capability::rollback);
  const std::string what = [&] {
    try {
      (void)fmu_->save_state();
    } catch (const CapabilityError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(what.find("withheld by the scenario"), std::string::npos) << what;
}

// --- bad input ---------------------------------------------------------------------------------

class BrokenFmu : public ::testing::Test {
 protected:
  void TearDown() override {
    std::filesystem::remove_all(work_);  // the test's own files; what remains was left by cosima
    EXPECT_TRUE(temp_.empty()) << "temporary files left in " << temp_.path();
  }
  /// Loads `fmu` and returns the error message (empty: no error).
  std::string load(const std::filesystem::path& fmu) {
    return error_of([&] { fmi::Fmi2CsSystem system("s", fmu); });
  }
  std::filesystem::path file(const std::string& name) { return work_ / name; }
  std::string good_xml() { return testing::read_zip_entry(kFmuDir / "b3_prey.fmu", "modelDescription.xml"); }
  std::string good_binary() { return testing::read_zip_entry(kFmuDir / "b3_prey.fmu", "binaries/linux64/b3_prey.so"); }
  /// Replaces every occurrence (the project's FMUs name their modelIdentifier in both interfaces).
  static std::string replace(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
  }

  PrivateTemp temp_;
  std::filesystem::path work_ = [] {
    auto dir = std::filesystem::temp_directory_path() / ("cosima-broken-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
  }();
};

TEST_F(BrokenFmu, NotAZip) {
  std::ofstream(file("text.fmu")) << "this is not a zip archive";
  const std::string what = load(file("text.fmu"));
  EXPECT_NE(what.find("not a zip archive"), std::string::npos) << what;
  EXPECT_NE(what.find("text.fmu"), std::string::npos) << what;
}

TEST_F(BrokenFmu, MissingFile) { EXPECT_NE(load(file("nowhere.fmu")).find("no such file"), std::string::npos); }

TEST_F(BrokenFmu, NoModelDescription) {
  testing::write_zip(file("empty.fmu"), {{"readme.txt", "hello"}});
  EXPECT_NE(load(file("empty.fmu")).find("has no modelDescription.xml"), std::string::npos);
}

TEST_F(BrokenFmu, MalformedXml) {
  testing::write_zip(file("malformed.fmu"), {{"modelDescription.xml", "<fmiModelDescription fmiVersion=\"2.0\"><Co"}});
  const std::string what = load(file("malformed.fmu"));
  EXPECT_NE(what.find("malformed XML"), std::string::npos) << what;
}

TEST_F(BrokenFmu, WrongFmiVersion) {
  testing::write_zip(file("v4.fmu"),
                     {{"modelDescription.xml", replace(good_xml(), "fmiVersion=\"2.0\"", "fmiVersion=\"4.0\"")}});
  const std::string what = load(file("v4.fmu"));
  EXPECT_NE(what.find("fmiVersion is '4.0', cosima imports FMI 1.0, 2.0 and 3.0"), std::string::npos) << what;
}

TEST_F(BrokenFmu, NoInterfaceElement) {
  const std::string xml = replace(replace(good_xml(), "<CoSimulation ", "<Unknown "), "<ModelExchange ", "<Unknown ");
  testing::write_zip(file("none.fmu"), {{"modelDescription.xml", xml}});
  const std::string what = load(file("none.fmu"));
  EXPECT_NE(what.find("neither a CoSimulation nor a ModelExchange element"), std::string::npos) << what;
}

TEST_F(BrokenFmu, ModelExchangeOnlyAsCoSimulation) {
  testing::write_zip(file("me.fmu"), {{"modelDescription.xml", replace(good_xml(), "<CoSimulation ", "<Unknown ")}});
  const std::string what = load(file("me.fmu"));
  EXPECT_NE(what.find("provides no Co-Simulation interface"), std::string::npos) << what;
}

TEST_F(BrokenFmu, NoLinux64Binary) {
  testing::write_zip(file("nobinary.fmu"), {{"modelDescription.xml", good_xml()}});
  const std::string what = load(file("nobinary.fmu"));
  EXPECT_NE(what.find("no linux64 binary"), std::string::npos) << what;
}

TEST_F(BrokenFmu, RequiredSymbolMissing) {
  const std::string xml = replace(good_xml(), "modelIdentifier=\"b3_prey\"", "modelIdentifier=\"missing_dostep\"");
  testing::write_zip(file("nodostep.fmu"),
                     {{"modelDescription.xml", xml},
                      {"binaries/linux64/missing_dostep.so", testing::read_file(COSIMA_MISSING_DOSTEP_SO)}});
  const std::string what = load(file("nodostep.fmu"));
  EXPECT_NE(what.find("lacks the required function fmi2"), std::string::npos) << what;
}

TEST_F(BrokenFmu, GuidMismatchIsRefusedByTheFmu) {
  const std::string xml = replace(good_xml(), "guid=\"{cosima-b3.prey-", "guid=\"{other-");
  testing::write_zip(file("guid.fmu"), {{"modelDescription.xml", xml}, {"binaries/linux64/b3_prey.so", good_binary()}});
  const std::string what = load(file("guid.fmu"));
  EXPECT_NE(what.find("fmi2Instantiate failed"), std::string::npos) << what;
  EXPECT_NE(what.find("GUID mismatch"), std::string::npos) << what;
}

TEST_F(BrokenFmu, DoStepErrorEndsTheRunWithTheFmuLog) {
  io::Json doc =
      io::Json::parse(R"({"stop": 1, "systems": {"fragile": {"fmu": "test_breaks.fmu"}}, "inputs": {"fragile.u": 0},
                             "method": {"type": "jacobi", "dt": 0.1}})");
  const std::string what =
      error_of([&] { scenario::run_scenario(scenario::parse_scenario(doc, kExamples / "inline.json")); });
  EXPECT_NE(what.find("fmi2DoStep"), std::string::npos) << what;
  EXPECT_NE(what.find("fmi2Error"), std::string::npos) << what;
  EXPECT_NE(what.find("non-finite"), std::string::npos) << what;  // the FMU's own log
  EXPECT_NE(what.find("'fragile'"), std::string::npos) << what;
}

TEST_F(BrokenFmu, ScenarioNamingAVariableTheFmuLacks) {
  io::Json doc = io::Json::parse(R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu", "parameters": {"gamma": 1}}},
                             "inputs": {"prey.q": 0}})");
  std::string what = error_of([&] { scenario::build_model(scenario::parse_scenario(doc, kExamples / "inline.json")); });
  EXPECT_NE(what.find("has no variable 'gamma'"), std::string::npos) << what;
  doc = io::Json::parse(R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu"}}, "inputs": {"prey.wolves": 0}})");
  what = error_of([&] { scenario::build_model(scenario::parse_scenario(doc, kExamples / "inline.json")); });
  EXPECT_NE(what.find("no input 'wolves'"), std::string::npos) << what;
}

TEST_F(BrokenFmu, OutputConnectedToOutput) {
  io::Json doc = io::Json::parse(
      R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu"}, "predator": {"fmu": "b3_predator.fmu"}},
                             "connections": [["prey.p", "predator.q"]]})");
  const std::string what =
      error_of([&] { scenario::build_model(scenario::parse_scenario(doc, kExamples / "inline.json")); });
  EXPECT_NE(what.find("output connected to output"), std::string::npos) << what;
}

TEST_F(BrokenFmu, ScenarioCannotGiveACoSimulationFmuAnIntegrator) {
  // named Co-Simulation: refused when parsing
  io::Json doc = io::Json::parse(
      R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu", "interface": "cs", "integrator": "cvode"}}})");
  std::string what = error_of([&] { scenario::parse_scenario(doc, kExamples / "inline.json"); });
  EXPECT_NE(what.find("embeds its own solver"), std::string::npos) << what;
  // Co-Simulation by default (the FMU has both): refused when building
  doc = io::Json::parse(R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu", "integrator": "cvode"}}})");
  const scenario::Scenario scenario = scenario::parse_scenario(doc, kExamples / "inline.json");
  what = error_of([&] { scenario::build_system(scenario.systems.front()); });
  EXPECT_NE(what.find("embeds its own solver"), std::string::npos) << what;
  // Model Exchange takes one
  doc = io::Json::parse(
      R"({"stop": 1, "systems": {"prey": {"fmu": "b3_prey.fmu", "interface": "me", "integrator": "dopri5"}}})");
  EXPECT_NO_THROW(scenario::build_system(scenario::parse_scenario(doc, kExamples / "inline.json").systems.front()));
}

TEST(FmuExport, ModelDescriptionReadsBackAsWritten) {
  const auto model = models::make_model("b1.mass");
  const std::string xml = fmu_export::model_description_xml(*model, "b1_mass");
  EXPECT_NE(xml.find(fmu_export::model_guid(*model)), std::string::npos);
  EXPECT_EQ(fmu_export::model_guid(*model), fmu_export::model_guid(*models::make_model("b1.mass")));
  EXPECT_NE(fmu_export::model_guid(*model), fmu_export::model_guid(*models::make_model("b1.damper")));
}

}  // namespace
}  // namespace cosima
