// The stepping loop allocates nothing: the co-simulation methods on B3, native and as FMUs, with results
// streamed to a file, counted between the 200th and the 1200th macro-step. The process's malloc is
// replaced by a counting one that forwards to glibc's (glibc supports replacing malloc, free, calloc
// and realloc together); operator new and Eigen's dynamic matrices both come through it. Not in the
// sanitized build, whose runtime owns malloc. Not the monolithic reference either: CVODE's
// difference-quotient Jacobian allocates a vector header at every evaluation (N_VCloneEmpty in
// cvLsDenseDQJac, SUNDIALS 6).
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "fmi/common/fmu_archive.hpp"
#include "observer/observer.hpp"
#include "scenario/oscillator_network.hpp"
#include "scenario/run_scenario.hpp"

#ifndef COSIMA_SANITIZED
namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
std::atomic<long long> allocated_bytes{0};  ///< requested while counting (frees not subtracted)
}  // namespace

// NOLINTBEGIN(bugprone-reserved-identifier): glibc's own allocator, under its own names
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void __libc_free(void* pointer);

void* malloc(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    allocated_bytes.fetch_add(static_cast<long long>(size), std::memory_order_relaxed);
  }
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    allocated_bytes.fetch_add(static_cast<long long>(count) * static_cast<long long>(size), std::memory_order_relaxed);
  }
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    allocated_bytes.fetch_add(static_cast<long long>(size), std::memory_order_relaxed);
  }
  return __libc_realloc(pointer, size);
}
void free(void* pointer) { __libc_free(pointer); }
}
// NOLINTEND(bugprone-reserved-identifier)
#endif

namespace cosima {
namespace {

const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

/// Counts the allocations of macro-steps first + 1 … last (those before warm the workspaces up).
class AllocationWindow final : public observer::Observer {
 public:
  AllocationWindow(long first, long last) : first_(first), last_(last) {}
  void on_step(const model::ModularModel& /*model*/, double /*t*/, const methods::StepReport& /*report*/) override {
#ifndef COSIMA_SANITIZED
    ++steps_;
    if (steps_ == first_) {
      allocations = 0;
      counting = true;
    } else if (steps_ == last_) {
      counting = false;
      counted_ = allocations;
    }
#endif
  }
  [[nodiscard]] long counted() const { return counted_; }
  [[nodiscard]] long steps() const { return steps_; }

 private:
  long first_, last_, steps_ = 0, counted_ = -1;
};

struct Case {
  const char* method;
  const char* example;
  const char* option = nullptr;  ///< a method option, e.g. a fixed step for an adaptive method
};

class HotLoop : public ::testing::TestWithParam<Case> {};

#ifndef COSIMA_SANITIZED
/// Runs `scenario` to a CSV, counting the allocations of macro-steps 200 to 1200.
AllocationWindow run_counting(const scenario::Scenario& scenario) {
  const fmi::TemporaryDirectory directory("cosima-test");
  AllocationWindow window(200, 1200);
  scenario::RunOutputs outputs;
  outputs.results_csv = directory.path() / "results.csv";
  outputs.keep_in_memory = false;
  outputs.observers = {&window};
  scenario::run_scenario(scenario, nullptr, outputs);
  return window;
}
#endif

TEST_P(HotLoop, AllocatesNothingPerMacroStep) {
#ifdef COSIMA_SANITIZED
  GTEST_SKIP() << "the sanitizer's runtime owns malloc";
#else
  const Case& c = GetParam();
  std::vector<std::string> overrides{std::string("method.type=") + c.method};
  if (c.option != nullptr) overrides.emplace_back(c.option);
  scenario::Scenario scenario = scenario::load_scenario(kExamples / c.example, overrides);
  scenario.run.dt = 1e-3;
  scenario.run.stop = 2.0;  // 2000 macro-steps
  const AllocationWindow window = run_counting(scenario);
  ASSERT_GE(window.steps(), 1200) << c.method;
  EXPECT_EQ(window.counted(), 0) << c.method << " on " << c.example << ": allocations in 1000 macro-steps";
#endif
}

TEST(HotLoop, DeclaredFeedthroughAllocatesNothingPerMacroStep) {
#ifdef COSIMA_SANITIZED
  GTEST_SKIP() << "the sanitizer's runtime owns malloc";
#else
  // two Lotka–Volterra FMUs whose outputs declare a dependency on their inputs: every communication
  // point is settled (an algebraic loop of declared feedthrough), on the compiled path
  const std::string dir = COSIMA_C_FMU_DIR;
  io::Json doc = io::Json::parse(R"({"stop": 2, "method": {"type": "jacobi", "dt": 1e-3},
    "connections": [["prey.x", "predator.u"], ["predator.x", "prey.u"]]})");
  doc["systems"]["prey"] = {{"fmu", dir + "/cosima_test_lotka.fmu"}, {"parameters", {{"a", 1.5}, {"b", -1.0}}}};
  doc["systems"]["predator"] = {{"fmu", dir + "/cosima_test_lotka.fmu"}, {"parameters", {{"a", -3.0}, {"b", 1.0}}}};
  const AllocationWindow window = run_counting(scenario::parse_scenario(doc, "feedthrough.json"));
  ASSERT_GE(window.steps(), 1200);
  EXPECT_EQ(window.counted(), 0) << "allocations in 1000 macro-steps";
#endif
}

INSTANTIATE_TEST_SUITE_P(
    B3, HotLoop,
    ::testing::Values(Case{"jacobi", "b3_lotka_volterra.json"}, Case{"gauss-seidel", "b3_lotka_volterra.json"},
                      Case{"missiles", "b3_lotka_volterra.json"}, Case{"ifosmondi", "b3_lotka_volterra.json"},
                      Case{"ifosmondi-jfm", "b3_lotka_volterra.json"},
                      Case{"defect-jacobi", "b3_lotka_volterra.json", "method.fixed=true"},
                      Case{"jacobi", "b3_lotka_volterra_fmu.json"}, Case{"gauss-seidel", "b3_lotka_volterra_fmu.json"},
                      Case{"missiles", "b3_lotka_volterra_fmu.json"},
                      Case{"ifosmondi-jfm", "b3_lotka_volterra_fmu.json"}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      std::string name = param_info.param.method;
      if (std::string(param_info.param.example).find("fmu") != std::string::npos) name += "_fmu";
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

TEST(HotLoop, ARunsMemoryIsLinearInItsSystems) {
  // A Gauss–Seidel sweep steps a batch of one entry per system; sized by the systems, those batches
  // took memory quadratic in their number (40 000 oscillators: > 24 GB). Everything the run asks of
  // malloc, for a chain of 2000: with the quadratic batches ≈ 2000² orders and replies, > 1 GB.
#ifdef COSIMA_SANITIZED
  GTEST_SKIP() << "the sanitizer's runtime owns malloc";
#else
  constexpr int kSystems = 2000;
  for (const char* method : {"jacobi", "gauss-seidel"}) {
    cosima::io::Json doc = scenario::oscillator_network({.size = kSystems, .stop = 0.05, .dt = 1e-2});
    scenario::apply_override(doc, std::string("method.type=") + method);
    scenario::apply_override(doc, "output.variables=[\"osc0.x\"]");
    const scenario::Scenario scenario = scenario::parse_scenario(doc, kExamples / "chain.json");
    allocated_bytes = 0;
    counting = true;
    scenario::run_scenario(scenario, nullptr, scenario::RunOutputs{.keep_in_memory = false});
    counting = false;
    const double per_system = static_cast<double>(allocated_bytes.load()) / kSystems;
    EXPECT_LT(per_system, 64.0 * 1024) << method << ": bytes asked of malloc per system";
  }
#endif
}

}  // namespace
}  // namespace cosima
