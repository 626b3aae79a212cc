// FMI 3.0 export: every project FMU also as fmus/fmi3/<name>.fmu, the same shared library exporting the
// fmi3 functions. Loaded through cosima's FMI 3.0 importer (Fmi3CsSystem, make_me_system) and checked
// against the FMI 2.0 FMU of the same model: the same outputs, states and derivatives after the same
// steps, bitwise (both run the same slave core with the same arithmetic). The C API itself is called
// directly where the importer would not: arrays row-major, unknown value references, the other types.
#include <dlfcn.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "export/variable_table.hpp"
#include "fmi/fmu_factory.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
#include "fmi/v3/cs/fmi3_cs_system.hpp"
#include "fmi/v3/fmi3_api.hpp"
#include "fmu_fixtures.hpp"
#include "models/registry.hpp"
#include "system/native/integrator.hpp"
#include "test_export_fmi3_arrays.hpp"

namespace cosima {
namespace {

using testing::kFmuDir;
using testing::PrivateTemp;

std::filesystem::path fmi2_fmu(const std::string& name) { return kFmuDir / (name + ".fmu"); }
std::filesystem::path fmi3_fmu(const std::string& name) { return kFmuDir / "fmi3" / (name + ".fmu"); }

bool has_entry(const std::filesystem::path& zip_path, const std::string& entry) {
  int error = 0;
  zip_t* archive = zip_open(zip_path.c_str(), ZIP_RDONLY, &error);
  if (archive == nullptr) return false;
  const bool found = zip_name_locate(archive, entry.c_str(), 0) >= 0;
  zip_discard(archive);
  return found;
}

/// The project's FMUs (models/CMakeLists.txt; state_space has arrays) and the arrays test FMU.
const std::vector<std::string> kModels = {
    "b1_mass",  "b1_damper", "b2_left",  "b2_right", "b3_prey", "b3_predator", "b4_left",
    "b4_right", "b5_body1",  "b5_body2", "b6_tough", "b8_ball", "state_space", "test_export_fmi3_arrays"};

/// Zero-order-hold inputs, different at every step (FMI 3.0 has no input derivatives).
InputPolynomials inputs_at(int inputs, int step) {
  InputPolynomials u = InputPolynomials::Zero(inputs, kInputCoefficients);
  for (int i = 0; i < inputs; ++i) u(i, 0) = 0.3 + 0.1 * std::sin(step + i);
  return u;
}

void expect_bitwise(const Eigen::VectorXd& fmi3, const Eigen::VectorXd& fmi2, const std::string& what) {
  ASSERT_EQ(fmi3.size(), fmi2.size()) << what;
  for (Eigen::Index i = 0; i < fmi2.size(); ++i) EXPECT_EQ(fmi3(i), fmi2(i)) << what << " [" << i << "]";
}

// --- the archives --------------------------------------------------------------------------------

TEST(Fmi3Export, OneLibraryInBothLayouts) {
  for (const std::string& name : kModels) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(has_entry(fmi3_fmu(name), "binaries/x86_64-linux/" + name + ".so"));
    EXPECT_FALSE(has_entry(fmi3_fmu(name), "binaries/linux64/" + name + ".so"));
    EXPECT_FALSE(has_entry(fmi2_fmu(name), "binaries/x86_64-linux/" + name + ".so"));
    EXPECT_EQ(testing::read_zip_entry(fmi3_fmu(name), "binaries/x86_64-linux/" + name + ".so"),
              testing::read_zip_entry(fmi2_fmu(name), "binaries/linux64/" + name + ".so"));
    const std::string xml3 = testing::read_zip_entry(fmi3_fmu(name), "modelDescription.xml");
    EXPECT_NE(xml3.find("fmiVersion=\"3.0\""), std::string::npos);
    EXPECT_NE(xml3.find("hasEventMode=\"false\""), std::string::npos);
    EXPECT_NE(testing::read_zip_entry(fmi2_fmu(name), "modelDescription.xml").find("fmiVersion=\"2.0\""),
              std::string::npos);
  }
}

TEST(Fmi3Export, DescriptionReadsBackLikeTheFmi2One) {
  const PrivateTemp temp;
  for (const std::string& name : kModels) {
    SCOPED_TRACE(name);
    const fmi::Fmi3CsSystem fmu3("s", fmi3_fmu(name));
    const fmi::Fmi2CsSystem fmu2("s", fmi2_fmu(name));
    EXPECT_EQ(fmu3.input_names(), fmu2.input_names());
    EXPECT_EQ(fmu3.output_names(), fmu2.output_names());
    EXPECT_EQ(fmu3.state_names(), fmu2.state_names());
    // FMI 3.0 dependencies are by variable: an array output depends on a whole array input (coarser,
    // never missing one); scalars keep the FMI 2.0 feedthrough exactly
    const bool arrays = name == "test_export_fmi3_arrays" || name == "state_space";
    for (int o = 0; o < fmu2.output_count(); ++o) {
      for (int i = 0; i < fmu2.input_count(); ++i) {
        if (fmu2.output_depends_on_input(o, i) || !arrays) {
          EXPECT_EQ(fmu3.output_depends_on_input(o, i), fmu2.output_depends_on_input(o, i)) << o << " " << i;
        }
      }
    }
    const fmi::ModelDescription& md = fmu3.description();
    EXPECT_EQ(md.guid, fmu2.description().guid);
    ASSERT_TRUE(md.model_exchange.has_value());
    ASSERT_TRUE(md.co_simulation.has_value());
    EXPECT_FALSE(md.co_simulation->has_event_mode);
    EXPECT_EQ(md.event_indicator_count, fmu2.description().event_indicator_count);
    // the solver's Int32 variables have references of their own, above every FMI 2.0 Real one
    const int kind = md.find("solver_kind"), steps = md.find("solver_steps_per_call");
    ASSERT_GE(kind, 0);
    ASSERT_GE(steps, 0);
    EXPECT_EQ(md.variables[static_cast<std::size_t>(kind)].type, fmi::VariableType::integer);
    for (const fmi::ScalarVariable& v : fmu2.description().variables) {
      if (v.type != fmi::VariableType::real) continue;
      const int same = md.find(v.name);
      if (same < 0) continue;  // an element of an FMI 3.0 array
      EXPECT_EQ(md.variables[static_cast<std::size_t>(same)].value_reference, v.value_reference) << v.name;
      EXPECT_NE(md.variables[static_cast<std::size_t>(kind)].value_reference, v.value_reference);
      EXPECT_NE(md.variables[static_cast<std::size_t>(steps)].value_reference, v.value_reference);
    }
  }
  EXPECT_TRUE(temp.empty()) << "unpacked FMUs left in " << temp.path();
}

TEST(Fmi3Export, NoRollbackIsDeclaredAndRefused) {
  const fmi::Fmi3CsSystem fmu("s", fmi3_fmu("b3_prey_norollback"));
  EXPECT_FALSE(fmu.description().co_simulation->can_get_and_set_state);
  EXPECT_FALSE(fmu.capabilities().has(Capability::rollback));
  EXPECT_TRUE(fmi::Fmi3CsSystem("s", fmi3_fmu("b3_prey")).capabilities().has(Capability::rollback));
}

// --- Co-Simulation and Model Exchange against the FMI 2.0 FMU ---------------------------------------

class SameModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SameModel, CoSimulationIsBitwiseTheFmi2Fmu) {
  const std::string name = GetParam();
  fmi::Fmi3CsSystem fmu3("s", fmi3_fmu(name));
  fmi::Fmi2CsSystem fmu2("s", fmi2_fmu(name));
  fmu3.initialize(0.0);
  fmu2.initialize(0.0);
  // dyadic steps: t + h is exact, so both importers hand the FMU the same communicationStepSize
  const double h = 1.0 / 16.0;
  Eigen::VectorXd y3(fmu2.output_count()), y2(fmu2.output_count()), x3(fmu2.state_count()), x2(fmu2.state_count());
  auto compare = [&](const std::string& when) {
    fmu3.outputs(y3);
    fmu2.outputs(y2);
    expect_bitwise(y3, y2, "outputs " + when);
    fmu3.states(x3);
    fmu2.states(x2);
    expect_bitwise(x3, x2, "states " + when);
    fmu3.state_derivatives(x3);
    fmu2.state_derivatives(x2);
    expect_bitwise(x3, x2, "state derivatives " + when);
  };
  compare("at the start");
  StateId saved3 = -1, saved2 = -1;
  constexpr int kSteps = 32;  // to t = 2: b8_ball bounces (state events) and is kicked (a time event)
  for (int k = 0; k < kSteps; ++k) {
    if (k == kSteps / 2) {
      saved3 = fmu3.save_state();
      saved2 = fmu2.save_state();
    }
    fmu3.set_inputs(inputs_at(fmu2.input_count(), k));
    fmu2.set_inputs(inputs_at(fmu2.input_count(), k));
    ASSERT_TRUE(fmu3.do_step(h).ok());
    ASSERT_TRUE(fmu2.do_step(h).ok());
    compare("after step " + std::to_string(k));
  }
  EXPECT_EQ(fmu3.time(), fmu2.time());
  // output derivatives and the linearization through the same slave
  for (int order = 1; order <= fmu2.max_output_derivative_order() && order <= fmu3.max_output_derivative_order();
       ++order) {
    fmu3.output_derivatives(order, y3);
    fmu2.output_derivatives(order, y2);
    expect_bitwise(y3, y2, "output derivatives of order " + std::to_string(order));
  }
  if (fmu2.state_count() > 0) {
    const Linearization lin3 = fmu3.linearize(), lin2 = fmu2.linearize();
    EXPECT_EQ(lin3.A, lin2.A);
    EXPECT_EQ(lin3.B, lin2.B);
    EXPECT_EQ(lin3.C, lin2.C);
    EXPECT_EQ(lin3.D, lin2.D);
  }
  // rollback: back to the middle, the same steps again end on the same values
  fmu3.restore_state(saved3);
  constexpr int kHalf = kSteps / 2;  // kSteps is even
  EXPECT_EQ(fmu3.time(), kHalf * h);
  for (int k = kSteps / 2; k < kSteps; ++k) {
    fmu3.set_inputs(inputs_at(fmu2.input_count(), k));
    ASSERT_TRUE(fmu3.do_step(h).ok());
  }
  fmu3.outputs(y3);
  fmu2.outputs(y2);
  expect_bitwise(y3, y2, "outputs after the rollback");
  fmu3.release_state(saved3);
  fmu2.release_state(saved2);
}

TEST_P(SameModel, ModelExchangeIsBitwiseTheFmi2Fmu) {
  const std::string name = GetParam();
  IntegratorOptions options;
  auto me3 = fmi::make_me_system("s", fmi3_fmu(name), make_integrator("dopri5", options), options);
  auto me2 = fmi::make_me_system("s", fmi2_fmu(name), make_integrator("dopri5", options), options);
  me3->initialize(0.0);
  me2->initialize(0.0);
  Eigen::VectorXd y3(me2->output_count()), y2(me2->output_count()), x3(me2->state_count()), x2(me2->state_count());
  for (int k = 0; k < 20; ++k) {  // to t = 2, through b8_ball's events
    me3->set_inputs(inputs_at(me2->input_count(), k));
    me2->set_inputs(inputs_at(me2->input_count(), k));
    ASSERT_TRUE(me3->do_step(0.1).ok());
    ASSERT_TRUE(me2->do_step(0.1).ok());
    me3->outputs(y3);
    me2->outputs(y2);
    expect_bitwise(y3, y2, "outputs after step " + std::to_string(k));
    me3->states(x3);
    me2->states(x2);
    expect_bitwise(x3, x2, "states after step " + std::to_string(k));
  }
  if (me2->state_count() > 0) {
    const Linearization lin3 = me3->linearize(), lin2 = me2->linearize();
    EXPECT_EQ(lin3.A, lin2.A);
    EXPECT_EQ(lin3.D, lin2.D);
  }
}

INSTANTIATE_TEST_SUITE_P(ProjectFmus, SameModel, ::testing::ValuesIn(kModels),
                         [](const auto& test) { return test.param; });

TEST(Fmi3Export, CoSimulationWithAnyStepSizeAgreesWithTheFmi2Fmu) {
  // 0.1 is not dyadic: the results agree to rounding (see the dyadic test for bitwise equality)
  fmi::Fmi3CsSystem fmu3("s", fmi3_fmu("b4_right"));
  fmi::Fmi2CsSystem fmu2("s", fmi2_fmu("b4_right"));
  fmu3.initialize(0.0);
  fmu2.initialize(0.0);
  Eigen::VectorXd y3(1), y2(1);
  for (int k = 0; k < 10; ++k) {
    fmu3.set_inputs(inputs_at(2, k));
    fmu2.set_inputs(inputs_at(2, k));
    ASSERT_TRUE(fmu3.do_step(0.1).ok());
    ASSERT_TRUE(fmu2.do_step(0.1).ok());
    fmu3.outputs(y3);
    fmu2.outputs(y2);
    EXPECT_NEAR(y3(0), y2(0), 1e-12 * std::max(1.0, std::abs(y2(0)))) << "step " << k;
  }
}

TEST(Fmi3Export, BouncingBallEventsUnderModelExchange) {
  IntegratorOptions options;
  auto ball = fmi::make_me_system("ball", fmi3_fmu("b8_ball"), make_integrator("dopri5", options), options);
  ball->initialize(0.0);
  for (int k = 0; k < 30; ++k) ASSERT_TRUE(ball->do_step(0.1).ok());
  Eigen::VectorXd x(ball->state_count());
  ball->states(x);
  EXPECT_GE(x(0), -1e-6);  // it bounced instead of falling through the floor
}

// --- arrays ------------------------------------------------------------------------------------------

TEST(Fmi3Export, ArrayNamesBecomeArrayVariables) {
  const auto model = testing::make_export_arrays();
  const std::string xml = fmu_export::model_description_xml_fmi3(*model, "test_export_fmi3_arrays");
  // C was declared column by column; its start values are row-major
  EXPECT_NE(xml.find("name=\"C\" valueReference=\"8\" description=\"output matrix\" causality=\"parameter\" "
                     "variability=\"fixed\" initial=\"exact\" start=\"1 0 0 1 1 1\">\n"
                     "      <Dimension start=\"3\"/>\n      <Dimension start=\"2\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<Float64 name=\"u\" valueReference=\"27\" causality=\"input\" variability=\"continuous\" "
                     "start=\"0 0\">\n      <Dimension start=\"2\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<Float64 name=\"y\" valueReference=\"29\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Float64 name=\"x0\" valueReference=\"22\""), std::string::npos) << xml;
  // incomplete: scalars
  EXPECT_NE(xml.find("<Float64 name=\"k[1]\" valueReference=\"20\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Float64 name=\"k[3]\" valueReference=\"21\""), std::string::npos) << xml;
  // y depends on u (D ≠ 0) and on the states
  EXPECT_NE(xml.find("<Output valueReference=\"29\" dependencies=\"27 32 33\"/>"), std::string::npos) << xml;
  // the FMI 2.0 description is not affected
  const std::string xml2 = fmu_export::model_description_xml(*model, "test_export_fmi3_arrays");
  EXPECT_NE(xml2.find("name=\"C[3,2]\""), std::string::npos);
  EXPECT_EQ(xml2.find("Dimension"), std::string::npos);
}

TEST(Fmi3Export, ModelsWithoutArrayNamesKeepTheirVariables) {
  for (const char* name : {"b3.prey", "b4.right", "b8.ball"}) {
    const auto model = models::make_model(name);
    const fmu_export::Fmi3Table table = fmu_export::make_fmi3_table(*model, {});
    const fmu_export::VariableTable table2 = fmu_export::make_variable_table(*model, {});
    ASSERT_EQ(table.variables.size(),
              table2.variables.size() + static_cast<std::size_t>(model->event_indicator_count()));
    for (std::size_t i = 0; i < table2.variables.size(); ++i) {
      EXPECT_EQ(table.variables[i].name, table2.variables[i].name);
      EXPECT_TRUE(table.variables[i].dimensions.empty());
      const unsigned int offset = table2.variables[i].is_real ? 0U : static_cast<unsigned int>(table2.real_count);
      EXPECT_EQ(table.variables[i].vr, table2.variables[i].vr + offset);
    }
  }
}

// --- the C API directly ------------------------------------------------------------------------------

/// fmi3GetNumberOfContinuousStates, fmi3GetNumberOfEventIndicators (FMI 3.0 §3.2.1; not in fmi/v3/fmi3_api.hpp)
using CountTYPE = fmi3Status (*)(fmi3Instance, std::size_t*);

/// The FMU's shared library, copied out of the FMI 3.0 archive and loaded, with an instance.
class Fmi3Api : public ::testing::Test {
 protected:
  void open(const std::string& name, bool model_exchange = false) {
    library_path_ = temp_.path() / (name + ".so");
    std::ofstream(library_path_, std::ios::binary)
        << testing::read_zip_entry(fmi3_fmu(name), "binaries/x86_64-linux/" + name + ".so");
    library_ = dlopen(library_path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    const fmi::Fmi3CsSystem reader("s", fmi3_fmu(name));
    md_ = reader.description();
    if (model_exchange) {
      instance_ = symbol<fmi3InstantiateModelExchangeTYPE>("fmi3InstantiateModelExchange")(
          "api", md_.guid.c_str(), "", false, false, this, &Fmi3Api::log);
    } else {
      instance_ = symbol<fmi3InstantiateCoSimulationTYPE>("fmi3InstantiateCoSimulation")(
          "api", md_.guid.c_str(), "", false, false, false, false, nullptr, 0, this, &Fmi3Api::log, nullptr);
    }
    ASSERT_NE(instance_, nullptr);
  }
  void TearDown() override {
    if (instance_ != nullptr) symbol<fmi3FreeInstanceTYPE>("fmi3FreeInstance")(instance_);
    if (library_ != nullptr) dlclose(library_);
  }
  template <class F>
  F symbol(const char* name) {
    auto f = reinterpret_cast<F>(dlsym(library_, name));
    EXPECT_NE(f, nullptr) << name;
    return f;
  }
  unsigned int vr(const std::string& name) const {
    const int index = md_.find(name);
    EXPECT_GE(index, 0) << name;
    return md_.variables.at(static_cast<std::size_t>(index)).value_reference;
  }
  static void log(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category, fmi3String message) {
    auto* self = static_cast<Fmi3Api*>(environment);
    self->log_.push_back(std::string(category) + ": " + message);
    self->statuses_.push_back(status);
  }
  [[nodiscard]] std::string last_log() const { return log_.empty() ? std::string() : log_.back(); }

  PrivateTemp temp_;
  std::filesystem::path library_path_;
  void* library_ = nullptr;
  fmi3Instance instance_ = nullptr;
  fmi::ModelDescription md_;
  std::vector<std::string> log_;
  std::vector<fmi3Status> statuses_;
};

TEST_F(Fmi3Api, ArraysTravelRowMajor) {
  open("test_export_fmi3_arrays");
  auto get = symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64");
  auto set = symbol<fmi3SetTYPE<fmi3Float64>>("fmi3SetFloat64");
  const fmi3ValueReference c = vr("C"), x0 = vr("x0");
  std::vector<double> values(8, -7.0);
  ASSERT_EQ(get(instance_, &c, 1, values.data(), 6), fmi3OK);
  EXPECT_EQ(std::vector<double>(values.begin(), values.begin() + 6), (std::vector<double>{1, 0, 0, 1, 1, 1}));
  // two references, their elements in turn
  const fmi3ValueReference both[] = {x0, c};
  ASSERT_EQ(get(instance_, both, 2, values.data(), 8), fmi3OK);
  EXPECT_EQ(values, (std::vector<double>{1, -0.5, 1, 0, 0, 1, 1, 1}));
  // set row-major, read back
  const double new_c[] = {1, 2, 3, 4, 5, 6};
  ASSERT_EQ(set(instance_, &c, 1, new_c, 6), fmi3OK);
  ASSERT_EQ(get(instance_, &c, 1, values.data(), 6), fmi3OK);
  EXPECT_EQ(std::vector<double>(values.begin(), values.begin() + 6), (std::vector<double>(new_c, new_c + 6)));
  // nValues must match the elements
  EXPECT_EQ(get(instance_, &c, 1, values.data(), 5), fmi3Error);
  EXPECT_NE(last_log().find("fmi3GetFloat64: nValues = 5"), std::string::npos) << last_log();
  EXPECT_EQ(set(instance_, &c, 1, new_c, 7), fmi3Error);
  EXPECT_NE(last_log().find("fmi3SetFloat64: nValues = 7, but the value references have 6 values"), std::string::npos)
      << last_log();
}

TEST_F(Fmi3Api, ArrayElementsReachTheModel) {
  open("test_export_fmi3_arrays");
  auto get = symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64");
  auto set = symbol<fmi3SetTYPE<fmi3Float64>>("fmi3SetFloat64");
  // C = [[0,0],[1,0],[0,0]] (row-major): y[2] = x1, the others 0 (D = 0, u = 0)
  const fmi3ValueReference c = vr("C"), d = vr("D"), y = vr("y");
  const double new_c[] = {0, 0, 1, 0, 0, 0}, zero[] = {0, 0, 0, 0, 0, 0};
  ASSERT_EQ(set(instance_, &c, 1, new_c, 6), fmi3OK);
  ASSERT_EQ(set(instance_, &d, 1, zero, 6), fmi3OK);
  ASSERT_EQ(symbol<fmi3EnterInitializationModeTYPE>("fmi3EnterInitializationMode")(instance_, false, 0, 0, false, 0),
            fmi3OK);
  ASSERT_EQ(symbol<fmi3ExitInitializationModeTYPE>("fmi3ExitInitializationMode")(instance_), fmi3OK);
  double outputs[3] = {-1, -1, -1};
  ASSERT_EQ(get(instance_, &y, 1, outputs, 3), fmi3OK);
  EXPECT_EQ(outputs[0], 0.0);
  EXPECT_EQ(outputs[1], 1.0);  // x1(0) = x0[1]
  EXPECT_EQ(outputs[2], 0.0);
  // parameters are fixed now
  EXPECT_EQ(set(instance_, &c, 1, zero, 6), fmi3Error);
  EXPECT_NE(last_log().find("is fixed after initialization"), std::string::npos) << last_log();
}

TEST_F(Fmi3Api, UnknownReferencesAndOtherTypesAreErrorsWithALogLine) {
  open("b3_prey");
  const fmi3ValueReference unknown = 4711;
  double real = 0;
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64")(instance_, &unknown, 1, &real, 1), fmi3Error);
  EXPECT_EQ(last_log(), "logStatusError: fmi3GetFloat64: no Float64 variable with value reference 4711");
  // an Int32 reference is no Float64 one, and the other way round
  const fmi3ValueReference kind = vr("solver_kind"), alpha = vr("alpha");
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64")(instance_, &kind, 1, &real, 1), fmi3Error);
  fmi3Int32 integer = -1;
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3Int32>>("fmi3GetInt32")(instance_, &alpha, 1, &integer, 1), fmi3Error);
  EXPECT_EQ(last_log(),
            "logStatusError: fmi3GetInt32: no Int32 variable with value reference " + std::to_string(alpha));
  ASSERT_EQ(symbol<fmi3GetTYPE<fmi3Int32>>("fmi3GetInt32")(instance_, &kind, 1, &integer, 1), fmi3OK);
  EXPECT_EQ(integer, 0);  // dopri5
  const fmi3Int32 euler = 2;
  ASSERT_EQ(symbol<fmi3SetTYPE<fmi3Int32>>("fmi3SetInt32")(instance_, &kind, 1, &euler, 1), fmi3OK);
  ASSERT_EQ(symbol<fmi3GetTYPE<fmi3Int32>>("fmi3GetInt32")(instance_, &kind, 1, &integer, 1), fmi3OK);
  EXPECT_EQ(integer, 2);
  // the FMU has no variables of the other types: no reference is fine, any reference an error
  bool boolean = false;
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3Boolean>>("fmi3GetBoolean")(instance_, &alpha, 0, &boolean, 0), fmi3OK);
  const std::size_t before = log_.size();
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3Boolean>>("fmi3GetBoolean")(instance_, &alpha, 1, &boolean, 1), fmi3Error);
  EXPECT_EQ(symbol<fmi3SetTYPE<fmi3UInt8>>("fmi3SetUInt8")(instance_, &unknown, 1, nullptr, 1), fmi3Error);
  EXPECT_EQ(symbol<fmi3GetTYPE<fmi3String>>("fmi3GetString")(instance_, &unknown, 1, nullptr, 1), fmi3Error);
  EXPECT_EQ(symbol<fmi3GetBinaryTYPE>("fmi3GetBinary")(instance_, &unknown, 1, nullptr, nullptr, 1), fmi3Error);
  ASSERT_EQ(log_.size(), before + 4);
  EXPECT_EQ(log_[before], "logStatusError: fmi3GetBoolean: no Boolean variable with value reference " +
                              std::to_string(alpha) + " (this FMU has no Boolean variables)");
  for (const fmi3Status status : statuses_) EXPECT_EQ(status, fmi3Error);
}

TEST_F(Fmi3Api, CallsOutsideTheirStateAreRefused) {
  open("b3_prey");
  auto do_step = symbol<fmi3DoStepTYPE>("fmi3DoStep");
  fmi3Boolean event = true, terminate = true, early = true;
  fmi3Float64 last = -1;
  EXPECT_EQ(do_step(instance_, 0, 0.1, false, &event, &terminate, &early, &last), fmi3Error);
  EXPECT_NE(last_log().find("fmi3DoStep is not allowed in the current state"), std::string::npos) << last_log();
  ASSERT_EQ(symbol<fmi3EnterInitializationModeTYPE>("fmi3EnterInitializationMode")(instance_, true, 1e-9, 0, false, 0),
            fmi3OK);
  ASSERT_EQ(symbol<fmi3ExitInitializationModeTYPE>("fmi3ExitInitializationMode")(instance_), fmi3OK);
  // Co-Simulation without Event Mode
  EXPECT_EQ(symbol<fmi3EnterEventModeTYPE>("fmi3EnterEventMode")(instance_), fmi3Error);
  EXPECT_EQ(symbol<fmi3EnterStepModeTYPE>("fmi3EnterStepMode")(instance_), fmi3Error);
  ASSERT_EQ(do_step(instance_, 0, 0.1, false, &event, &terminate, &early, &last), fmi3OK);
  EXPECT_FALSE(event);
  EXPECT_FALSE(terminate);
  EXPECT_FALSE(early);
  EXPECT_EQ(last, 0.1);
  EXPECT_EQ(symbol<fmi3TerminateTYPE>("fmi3Terminate")(instance_), fmi3OK);
  // the relative tolerance reached the solver
  const fmi3ValueReference rtol = vr("solver_rtol");
  double value = 0;
  ASSERT_EQ(symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64")(instance_, &rtol, 1, &value, 1), fmi3OK);
  EXPECT_EQ(value, 1e-9);
}

TEST_F(Fmi3Api, InstantiationChecksTokenAndEventMode) {
  open("b3_prey");
  auto instantiate = symbol<fmi3InstantiateCoSimulationTYPE>("fmi3InstantiateCoSimulation");
  EXPECT_EQ(
      instantiate("x", "{not-the-token}", "", false, false, false, false, nullptr, 0, this, &Fmi3Api::log, nullptr),
      nullptr);
  EXPECT_NE(last_log().find("instantiationToken mismatch"), std::string::npos) << last_log();
  EXPECT_EQ(instantiate("x", md_.guid.c_str(), "", false, false, true, false, nullptr, 0, this, &Fmi3Api::log, nullptr),
            nullptr);
  EXPECT_NE(last_log().find("hasEventMode"), std::string::npos) << last_log();
}

TEST_F(Fmi3Api, ModelExchangeCountsAndEvents) {
  open("b8_ball", true);
  std::size_t states = 0, indicators = 0;
  ASSERT_EQ(symbol<CountTYPE>("fmi3GetNumberOfContinuousStates")(instance_, &states), fmi3OK);
  ASSERT_EQ(symbol<CountTYPE>("fmi3GetNumberOfEventIndicators")(instance_, &indicators), fmi3OK);
  EXPECT_EQ(states, models::make_model("b8.ball")->structure().states.size());
  EXPECT_EQ(static_cast<int>(indicators), models::make_model("b8.ball")->event_indicator_count());
  EXPECT_EQ(static_cast<int>(indicators), md_.event_indicator_count);
  ASSERT_EQ(symbol<fmi3EnterInitializationModeTYPE>("fmi3EnterInitializationMode")(instance_, false, 0, 0, false, 0),
            fmi3OK);
  ASSERT_EQ(symbol<fmi3ExitInitializationModeTYPE>("fmi3ExitInitializationMode")(instance_), fmi3OK);
  fmi3Boolean needs = true, terminate = true, nominals = true, values = true, defined = true;
  fmi3Float64 next = -1;
  ASSERT_EQ(symbol<fmi3UpdateDiscreteStatesTYPE>("fmi3UpdateDiscreteStates")(instance_, &needs, &terminate, &nominals,
                                                                             &values, &defined, &next),
            fmi3OK);
  EXPECT_FALSE(needs);
  EXPECT_FALSE(terminate);
  EXPECT_FALSE(nominals);
  ASSERT_EQ(symbol<fmi3EnterContinuousTimeModeTYPE>("fmi3EnterContinuousTimeMode")(instance_), fmi3OK);
  // the event indicators by fmi3GetEventIndicators and as the <EventIndicator> variables
  std::vector<double> z(indicators), z_variables(indicators);
  ASSERT_EQ(symbol<fmi3GetEventIndicatorsTYPE>("fmi3GetEventIndicators")(instance_, z.data(), z.size()), fmi3OK);
  std::vector<fmi3ValueReference> refs;
  for (std::size_t k = 0; k < indicators; ++k) refs.push_back(vr("event_indicator_" + std::to_string(k + 1)));
  ASSERT_EQ(symbol<fmi3GetTYPE<fmi3Float64>>("fmi3GetFloat64")(instance_, refs.data(), refs.size(), z_variables.data(),
                                                               z_variables.size()),
            fmi3OK);
  EXPECT_EQ(z, z_variables);
}

}  // namespace
}  // namespace cosima
