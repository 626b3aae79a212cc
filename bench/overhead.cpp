// `cosima bench overhead`: what the master adds to the systems' own work per
// macro-step, how long a process takes to start, and when threads pay.
//
// Every case runs as a child process (`cosima run`, the product's own path: results streamed to
// a CSV every 0.1 s, stats JSON), so process wall time and peak RSS are measured too. With
// --baseline OLD_COSIMA the same cases also run under another build, in the same run.
//   ns per macro-step   the run's wall time (stats wall_time_s, the stepping loop) / macro-steps
//   ns in systems       the systems' do_step time (stats integration_time_s) / macro-steps
//   floor               the two FMUs driven by a bare loop of fmi2SetReal, fmi2DoStep, fmi2GetReal:
//                       what any master must pay; cosima's overhead is ns per macro-step − floor
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

#include "bench/bench.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"
#include "exec/shm_mailbox.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/v2/fmi2_instance.hpp"
#include "scenario/oscillator_network.hpp"

namespace cosima::bench {

namespace {

constexpr double kDt = 1e-4;  // the h: 2·10⁵ steps over [0, 20]
const std::filesystem::path kFmus = COSIMA_DEFAULT_FMU_DIR;

/// B3 through the project's FMUs (solver_kind 3: the exact flow, one exp per step) or natively
/// (integrator 'exact'), non-iterative.
cosima::io::Json b3_document(bool fmu, const std::string& scheme) {
  cosima::io::Json systems;
  for (const char* name : {"prey", "predator"}) {
    if (fmu) {
      systems[name] = {{"fmu", (kFmus / fmt::format("b3_{}.fmu", name)).string()},
                       {"parameters", {{"solver_kind", 3}}}};
    } else {
      systems[name] = {{"model", fmt::format("b3.{}", name)}, {"integrator", "exact"}};
    }
  }
  return {{"start", 0.0},
          {"stop", 20.0},
          {"systems", systems},
          {"connections", cosima::io::Json::array({cosima::io::Json::array({"prey.p", "predator.p"}),
                                                   cosima::io::Json::array({"predator.q", "prey.q"})})},
          {"method", {{"type", scheme}, {"dt", kDt}}},
          {"output", {{"interval", 0.1}}}};
}

/// The test FMUs written as peer masters' example FMUs are (tests/fmus/lotka): one Lotka–Volterra
/// species each, exact per step, the output declared to depend on the input (`cosima_test_lotka`) or
/// on every input by default (`cosima_test_lotka_all`). Built with the tests.
const std::filesystem::path kTestFmus = COSIMA_TEST_FMU_DIR;
constexpr std::array<double, 2> kLotkaA = {1.5, -3.0}, kLotkaB = {-1.0, 1.0};  // prey, predator

cosima::io::Json lotka_document(const std::string& fmu) {
  cosima::io::Json systems;
  const std::array<const char*, 2> names = {"prey", "predator"};
  for (std::size_t k = 0; k < 2; ++k) {
    systems[names[k]] = {{"fmu", (kTestFmus / (fmu + ".fmu")).string()},
                         {"parameters", {{"a", kLotkaA[k]}, {"b", kLotkaB[k]}}}};
  }
  return {{"start", 0.0},
          {"stop", 20.0},
          {"systems", systems},
          {"connections", cosima::io::Json::array({cosima::io::Json::array({"prey.x", "predator.u"}),
                                                   cosima::io::Json::array({"predator.x", "prey.u"})})},
          {"method", {{"type", "jacobi"}, {"dt", kDt}}},
          {"output", {{"interval", 0.1}}}};
}

std::filesystem::path write_document(const std::filesystem::path& dir, const std::string& name,
                                     const cosima::io::Json& doc) {
  std::filesystem::path path = dir / name;
  std::ofstream(path) << doc.dump(2) << '\n';
  return path;
}

struct Measured {
  bool ok = false;
  double ns_per_step = 0.0, ns_in_systems = 0.0, process_s = 0.0, peak_rss_mb = 0.0, loop_s = 0.0;
  long long steps = 0;
  long long iterations = 0;  ///< stats' iterations: for IFOSMONDI-JFM, > 0 when SNES (and PETSc) ran
};

/// Which of several runs is the least disturbed by the machine: the fastest loop, or (start-up, where
/// the loop is a single step) the fastest process.
enum class Fastest : std::uint8_t { loop, process };

/// The fastest of several runs (`by`).
Measured fastest(const std::vector<Measured>& runs, Fastest by) {
  return *std::min_element(runs.begin(), runs.end(), [by](const Measured& a, const Measured& b) {
    return by == Fastest::loop ? a.loop_s < b.loop_s : a.process_s < b.process_s;
  });
}

/// One child run of `cosima run SCENARIO ARGS…`.
Measured measure_once(const std::filesystem::path& program, const std::filesystem::path& scenario,
                      const std::vector<std::string>& extra, const std::filesystem::path& scratch) {
  std::vector<std::string> args = {"run",     scenario.string(),
                                   "--out",   (scratch / "out.csv").string(),
                                   "--stats", (scratch / "stats.json").string(),
                                   "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::filesystem::remove(scratch / "stats.json");
  const ChildRun child = run_child(args, scratch / "log.txt", program);
  if (child.status != 0) {
    std::ifstream log(scratch / "log.txt");
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    throw Error(fmt::format("bench overhead: '{}' run {} failed ({}): {}", program.string(),
                            scenario.filename().string(), child.status, text));
  }
  const auto stats = nlohmann::json::parse(std::ifstream(scratch / "stats.json"));
  Measured m;
  m.ok = true;
  m.steps = stats.at("macro_steps").get<long long>();
  m.iterations = stats.value("iterations", 0LL);
  m.loop_s = stats.at("wall_time_s").get<double>();
  m.ns_per_step = 1e9 * m.loop_s / static_cast<double>(std::max(1LL, m.steps));
  m.ns_in_systems = 1e9 * stats.at("integration_time_s").get<double>() / static_cast<double>(std::max(1LL, m.steps));
  m.process_s = child.wall_s;
  m.peak_rss_mb = child.peak_rss_mb;
  return m;
}

/// The fastest of `repeats` child runs of `cosima run SCENARIO ARGS…`.
Measured measure(const std::filesystem::path& program, const std::filesystem::path& scenario,
                 const std::vector<std::string>& extra, int repeats, const std::filesystem::path& scratch,
                 Fastest by = Fastest::loop) {
  std::vector<Measured> runs;
  runs.reserve(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) runs.push_back(measure_once(program, scenario, extra, scratch));
  return fastest(runs, by);
}

/// The baseline build may not run every case (it predates the closed-form B3 flow): "-" there.
Measured measure_baseline(const BenchOptions& options, const std::filesystem::path& scenario,
                          const std::vector<std::string>& extra, int repeats, const std::filesystem::path& scratch,
                          Fastest by = Fastest::loop) {
  if (options.baseline.empty()) return {};
  try {
    return measure(options.baseline, scenario, extra, repeats, scratch, by);
  } catch (const Error&) {
    return {};
  }
}

/// The floor: the two B3 FMUs in a bare Jacobi loop of fmi2SetReal, fmi2DoStep, fmi2GetReal; the
/// fastest of `repeats` loops of at least 2·10⁵ steps.
double floor_ns_per_step(long long steps, int repeats, const std::string& lotka = {}) {
  steps = std::max(steps, 200000LL);
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    const bool b3 = lotka.empty();
    fmi::Fmi2Instance prey("prey", b3 ? kFmus / "b3_prey.fmu" : kTestFmus / (lotka + ".fmu"),
                           fmi::FmiInterface::co_simulation);
    fmi::Fmi2Instance predator("predator", b3 ? kFmus / "b3_predator.fmu" : kTestFmus / (lotka + ".fmu"),
                               fmi::FmiInterface::co_simulation);
    fmi::Fmi2Instance* fmus[2] = {&prey, &predator};
    std::array<unsigned int, 2> in{}, out{};
    std::array<double, 2> y{};
    for (int k = 0; k < 2; ++k) {
      if (b3) {
        fmus[k]->set_parameter("solver_kind", 3, 0.0);
      } else {
        fmus[k]->set_parameter("a", kLotkaA[static_cast<std::size_t>(k)], 0.0);
        fmus[k]->set_parameter("b", kLotkaB[static_cast<std::size_t>(k)], 0.0);
      }
      fmus[k]->initialize(0.0, std::nullopt);
      in[k] = fmus[k]->inputs().at(0).vr;
      out[k] = fmus[k]->outputs().at(0).vr;
      fmus[k]->f().get_real(fmus[k]->component(), &out[k], 1, &y[k]);
    }
    const auto start = std::chrono::steady_clock::now();
    double t = 0.0;
    for (long long n = 0; n < steps; ++n, t += kDt) {
      const std::array<double, 2> u = {y[1], y[0]};  // prey.q ← predator.q, predator.p ← prey.p
      for (int k = 0; k < 2; ++k) {
        const auto& f = fmus[k]->f();
        fmi2Component c = fmus[k]->component();
        if (f.set_real(c, &in[k], 1, &u[k]) > fmi2Warning || f.do_step(c, t, kDt, fmi2False) > fmi2Warning ||
            f.get_real(c, &out[k], 1, &y[k]) > fmi2Warning) {
          throw Error("cosima bench overhead: the floor loop's FMU call failed");
        }
      }
    }
    samples.push_back(1e9 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                      static_cast<double>(steps));
  }
  return *std::min_element(samples.begin(), samples.end());
}

/// The columns of a table: `now`, then `before` when a baseline is measured.
std::vector<std::string> columns(std::vector<std::string> now, const std::vector<std::string>& before, bool compare) {
  if (compare) now.insert(now.end(), before.begin(), before.end());
  return now;
}

/// One section of the report, and its data in the JSON under `key`.
void add_section(Report& report, cosima::io::Json& json, const std::string& key, cosima::io::Json data,
                 const std::string& text, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  json[key] = std::move(data);
  report.add(text + markdown_table(header, rows));
}

std::string ns(double value) { return fmt::format("{:.0f}", value); }

/// A cell of a run that may have failed to run (the baseline).
std::string cell(const Measured& m, double value, const char* format = "{:.0f}") {
  return m.ok ? fmt::format(fmt::runtime(format), value) : std::string("-");
}

/// A bare round trip through the process executor's transport (exec/shm_mailbox.hpp) between this
/// process and a forked one that answers each 64-byte frame at once, in µs: what the transport
/// costs without any order to carry out.
double mailbox_round_trip_us(int round_trips) {
  const std::unique_ptr<exec::ShmMailbox, void (*)(exec::ShmMailbox*)> mailbox(exec::ShmMailbox::create(),
                                                                               &exec::ShmMailbox::destroy);
  const auto always = [] { return true; };
  const pid_t pid = fork();
  if (pid < 0) throw Error("bench overhead: fork failed");
  if (pid == 0) {
    std::vector<char> in;
    exec::ShmMailbox::Cursor requests;
    while (mailbox->wait_request(requests, in, std::chrono::milliseconds(100), always) ==
               exec::ShmMailbox::Waited::frame &&
           !in.empty()) {
      (void)mailbox->post_reply(in);
    }
    std::_Exit(0);
  }
  const std::vector<char> ping(64, 'x');
  std::vector<char> pong;
  exec::ShmMailbox::Cursor replies;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < round_trips; ++r) {
    (void)mailbox->post_request(ping);
    (void)mailbox->wait_reply(replies, pong, std::chrono::milliseconds(100), always);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  (void)mailbox->post_request({});
  int status = 0;
  waitpid(pid, &status, 0);
  return 1e6 * seconds / round_trips;
}

/// `--executor processes:2` against sequential, per macro-step and system: the cost of isolating the
/// systems in worker processes (a round trip through shared memory per process and batch), beside a
/// bare round trip of the transport.
void add_processes_section(Report& report, cosima::io::Json& json, const BenchOptions& options,
                           const std::filesystem::path& self, const std::filesystem::path& scratch, int repeats) {
  const bool quick = options.quick, compare = !options.baseline.empty();
  std::vector<std::vector<std::string>> rows;
  cosima::io::Json data = cosima::io::Json::array();
  const auto cheap = write_document(scratch, "b3_processes.json", b3_document(true, "jacobi"));
  const auto costly =
      write_document(scratch, "network_processes.json",
                     scenario::oscillator_network({.size = 8, .step_cost = 1e-3, .stop = quick ? 0.1 : 0.5}));
  const std::vector<std::tuple<std::string, std::filesystem::path, int, std::vector<std::string>>> cases = {
      {fmt::format("B3 FMUs (cheap), {} steps", quick ? "2·10³" : "2·10⁴"), cheap, 2, {"--stop", quick ? "0.2" : "2"}},
      {"8 oscillators of 1 ms per step", costly, 8, {}},
  };
  for (const auto& [label, scenario, system_count, extra_base] : cases) {
    const int systems = system_count;  // a lambda below reads it (clang before 16 captures no structured binding)
    std::vector<std::string> sequential = extra_base, processes = extra_base;
    sequential.insert(sequential.end(), {"--executor", "sequential"});
    processes.insert(processes.end(), {"--executor", "processes:2"});
    const Measured seq = measure(self, scenario, sequential, repeats, scratch);
    const Measured iso = measure(self, scenario, processes, repeats, scratch);
    const Measured old = measure_baseline(options, scenario, processes, repeats, scratch);
    const auto per = [&](const Measured& m) {
      return 1e6 * m.loop_s / static_cast<double>(std::max(m.steps, 1LL)) / systems;
    };
    rows.push_back(columns({label, fmt::format("{:.2f}", per(seq)), fmt::format("{:.2f}", per(iso)),
                            fmt::format("{:.1f}", per(iso) / per(seq))},
                           {cell(old, per(old), "{:.2f}")}, compare));
    data.push_back(
        {{"case", label}, {"sequential_us_per_system_step", per(seq)}, {"processes_us_per_system_step", per(iso)}});
  }
  const double round_trip = mailbox_round_trip_us(quick ? 2000 : 20000);
  rows.push_back(columns(
      {"bare round trip of the transport, one process (no orders)", "-", fmt::format("{:.2f}", round_trip), "-"}, {"-"},
      compare));
  data.push_back({{"case", "bare round trip"}, {"round_trip_us", round_trip}});
  add_section(report, json, "processes", data,
              "\n## Processes\n\nThe stepping loop's wall time per macro-step and system under `--executor "
              "processes:2` (the systems dealt to two worker processes, orders through a mailbox in shared memory "
              "woken by futexes) against sequential, and a bare round trip of that mailbox between two processes. "
              "The goal is ≤ 5 µs per system and macro-step, or within 1.5× of the bare round trip.\n\n",
              columns({"case", "sequential [µs]", "processes [µs]", "ratio"}, {"before: processes [µs]"}, compare),
              rows);
}

}  // namespace

cosima::io::Json bench_overhead(const BenchOptions& options) {
  const fmi::TemporaryDirectory scratch;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const bool compare = !options.baseline.empty();
  if (compare && !std::filesystem::exists(options.baseline)) {
    throw Error(fmt::format("--baseline '{}': no such program", options.baseline.string()));
  }
  const int repeats = options.quick ? 1 : 3;
  const int step_rounds = options.quick ? 1 : 5;  // of the per-step cases, interleaved with the floor
  const std::vector<long long> step_counts =
      options.quick ? std::vector<long long>{20000} : std::vector<long long>{20000, 200000, 2000000};
  cosima::io::Json json{{"benchmark", "overhead"}, {"dt", kDt}};
  Report report;
  report.text = fmt::format(
      "# Per-step cost of the master\n\nGenerated by `cosima bench overhead{}`. B3 (Lotka–Volterra) "
      "prey and predator, h = {:g}, output every 0.1 s to a CSV; each case is a child process `cosima run` (the "
      "fastest of "
      "{}, in rounds with the floor below). *ns / step* is the stepping loop's wall time per macro-step, *in systems* "
      "the systems' own do_step time "
      "per macro-step (both from the run's stats; the latter sampled, every 8th integration timed), *floor* the same "
      "two FMUs driven by a bare loop of fmi2SetReal, "
      "fmi2DoStep and fmi2GetReal, and *overhead* = ns / step − floor.{}\n\n",
      compare ? " --baseline OLD" : "", kDt, step_rounds,
      compare ? " *before* is the build named by --baseline, measured in the same run" : "");

  // 1. ns per macro-step
  {
    std::vector<std::vector<std::string>> rows;
    cosima::io::Json data = cosima::io::Json::array();
    for (const long long steps : step_counts) {
      // rounds of every case and of the floor in turn, so that a machine whose speed drifts (a shared
      // host) disturbs them alike; the fastest of each
      struct Case {
        bool fmu;
        const char* scheme;
        std::filesystem::path scenario;
        std::string lotka;  ///< the test FMUs with declared feedthrough (empty: B3's)
        std::vector<Measured> after, before;
      };
      std::vector<Case> cases;
      for (const bool fmu : {true, false}) {
        for (const char* scheme : {"jacobi", "gauss-seidel"}) {
          cases.push_back({fmu,
                           scheme,
                           write_document(scratch.path(), fmt::format("b3_{}_{}.json", fmu ? "fmu" : "native", scheme),
                                          b3_document(fmu, scheme)),
                           {},
                           {},
                           {}});
        }
      }
      for (const std::string lotka : {"cosima_test_lotka", "cosima_test_lotka_all"}) {
        if (!std::filesystem::exists(kTestFmus / (lotka + ".fmu"))) continue;  // built with the tests
        cases.push_back(
            {true, "jacobi", write_document(scratch.path(), lotka + ".json", lotka_document(lotka)), lotka, {}, {}});
      }
      const std::vector<std::string> extra = {"--stop", fmt::format("{}", static_cast<double>(steps) * kDt)};
      std::map<std::string, double> floors;  // by Case::lotka: the bare loop over the same FMUs
      for (const Case& c : cases) {
        if (c.fmu) floors[c.lotka] = std::numeric_limits<double>::infinity();
      }
      for (int round = 0; round < step_rounds; ++round) {
        for (auto& [lotka, floor] : floors) floor = std::min(floor, floor_ns_per_step(steps, 1, lotka));
        for (Case& c : cases) {
          c.after.push_back(measure_once(self, c.scenario, extra, scratch.path()));
          if (const Measured old = measure_baseline(options, c.scenario, extra, 1, scratch.path()); old.ok) {
            c.before.push_back(old);
          }
        }
      }
      for (const Case& c : cases) {
        const bool fmu = c.fmu;
        const char* scheme = c.scheme;
        const double floor = fmu ? floors.at(c.lotka) : kNaN;
        const Measured after = fastest(c.after, Fastest::loop);
        const Measured before = c.before.empty() ? Measured{} : fastest(c.before, Fastest::loop);
        std::vector<std::string> row = {c.lotka.empty()                  ? (fmu ? "FMU" : "native")
                                        : c.lotka == "cosima_test_lotka" ? "FMU, feedthrough declared"
                                                                         : "FMU, no dependencies listed",
                                        scheme,
                                        fmt::format("{}", after.steps),
                                        ns(after.ns_per_step),
                                        ns(after.ns_in_systems),
                                        fmu ? ns(floor) : "-",
                                        fmu ? ns(after.ns_per_step - floor) : "-"};
        if (compare) {
          row.push_back(cell(before, before.ns_per_step));
          row.push_back(fmu ? cell(before, before.ns_per_step - floor) : "-");
        }
        row.push_back(fmt::format("{:.3f}", after.process_s));
        row.push_back(fmt::format("{:.1f}", after.peak_rss_mb));
        if (compare) {
          row.push_back(cell(before, before.process_s, "{:.3f}"));
          row.push_back(cell(before, before.peak_rss_mb, "{:.1f}"));
        }
        rows.push_back(row);
        cosima::io::Json entry{{"systems", c.lotka.empty() ? (fmu ? "fmu" : "native") : c.lotka},
                               {"scheme", scheme},
                               {"macro_steps", after.steps},
                               {"ns_per_step", after.ns_per_step},
                               {"ns_in_systems", after.ns_in_systems},
                               {"process_s", after.process_s},
                               {"peak_rss_mb", after.peak_rss_mb}};
        if (fmu) {
          entry["floor_ns_per_step"] = floor;
          entry["overhead_ns_per_step"] = after.ns_per_step - floor;
        }
        if (before.ok) {
          entry["before"] = {{"ns_per_step", before.ns_per_step},
                             {"ns_in_systems", before.ns_in_systems},
                             {"process_s", before.process_s},
                             {"peak_rss_mb", before.peak_rss_mb}};
        }
        data.push_back(entry);
      }
    }
    std::vector<std::string> header =
        columns({"systems", "scheme", "macro-steps", "ns / step", "in systems", "floor", "overhead"},
                {"before: ns / step", "before: overhead"}, compare);
    header.insert(header.end(), {"process [s]", "peak RSS [MB]"});
    header = columns(header, {"before: process [s]", "before: peak RSS [MB]"}, compare);
    add_section(report, json, "per_step", data,
                "## Per macro-step\n\nThe goal is an overhead ≤ 100 ns per macro-step on the FMUs.\n\n", header, rows);
  }

  // 2. start-up: a run of one macro-step, the whole process
  {
    std::vector<std::vector<std::string>> rows;
    cosima::io::Json data = cosima::io::Json::array();
    const auto fmu_scenario = write_document(scratch.path(), "b3_fmu.json", b3_document(true, "jacobi"));
    const auto native_scenario = write_document(scratch.path(), "b3_native.json", b3_document(false, "jacobi"));
    const std::vector<std::tuple<std::string, std::filesystem::path, std::vector<std::string>>> cases = {
        {"B3 FMUs, jacobi", fmu_scenario, {}},
        {"B3 native, jacobi", native_scenario, {}},
        {"B3 FMUs, ifosmondi-jfm", fmu_scenario, {"--method", "ifosmondi-jfm"}},
        // a user's petsc_options open PETSc when the solver is made, to check them (nonlinear_solver.hpp)
        {"B3 FMUs, ifosmondi-jfm, PETSc opened (petsc_options given)",
         fmu_scenario,
         {"--method", "ifosmondi-jfm", "--set", "method.petsc_options=-snes_anderson_restart_it 2"}},
        {"B3 FMUs, missiles", fmu_scenario, {"--method", "missiles"}},
    };
    for (const auto& [label, scenario, method] : cases) {
      std::vector<std::string> extra = {"--stop", fmt::format("{}", kDt)};
      extra.insert(extra.end(), method.begin(), method.end());
      const int samples = options.quick ? 3 : 7;
      const Measured after = measure(self, scenario, extra, samples, scratch.path(), Fastest::process);
      const Measured before = measure_baseline(options, scenario, extra, samples, scratch.path(), Fastest::process);
      std::vector<std::string> row = {label, fmt::format("{:.1f}", 1e3 * after.process_s)};
      if (compare) row.push_back(cell(before, 1e3 * before.process_s, "{:.1f}"));
      rows.push_back(row);
      cosima::io::Json entry{{"case", label}, {"process_ms", 1e3 * after.process_s}};
      if (before.ok) entry["before_process_ms"] = 1e3 * before.process_s;
      data.push_back(entry);
    }
    add_section(report, json, "startup", data,
                "\n## Start-up\n\nThe whole process (fork to exit; the fastest of the samples) of a run of one "
                "macro-step: loading, parsing, "
                "unpacking and instantiating the FMUs, the step, writing results and stats. The goal is ≤ 15 ms for a "
                "run that needs neither PETSc nor MPI.\n\n",
                columns({"one macro-step of", "process [ms]"}, {"before [ms]"}, compare), rows);
  }

  // 3. threads: never slower than sequential; ≥ 1.95× on 8 systems of 1 ms
  {
    std::vector<std::vector<std::string>> rows;
    cosima::io::Json data = cosima::io::Json::array();
    const auto cheap = write_document(scratch.path(), "b3_cheap.json", b3_document(true, "jacobi"));
    const auto costly =
        write_document(scratch.path(), "network.json",
                       scenario::oscillator_network({.size = 8, .step_cost = 1e-3, .stop = options.quick ? 0.2 : 1.0}));
    const std::vector<std::tuple<std::string, std::filesystem::path, std::vector<std::string>>> cases = {
        {"B3 FMUs (cheap), 2·10⁵ steps", cheap, {}},
        {"8 oscillators of 1 ms per step", costly, {}},
    };
    for (const auto& [label, scenario, extra_base] : cases) {
      std::vector<std::string> sequential = extra_base, threads = extra_base;
      sequential.insert(sequential.end(), {"--executor", "sequential"});
      threads.insert(threads.end(), {"--executor", "threads:2"});
      const Measured seq = measure(self, scenario, sequential, repeats, scratch.path());
      const Measured par = measure(self, scenario, threads, repeats, scratch.path());
      const double speedup = seq.loop_s / par.loop_s;
      std::vector<std::string> row = {label, fmt::format("{:.4f}", seq.loop_s), fmt::format("{:.4f}", par.loop_s),
                                      fmt::format("{:.2f}", speedup)};
      if (compare) {
        const Measured old_seq = measure_baseline(options, scenario, sequential, repeats, scratch.path());
        const Measured old_par = measure_baseline(options, scenario, threads, repeats, scratch.path());
        row.push_back(cell(old_par, old_seq.loop_s / old_par.loop_s, "{:.2f}"));
      }
      rows.push_back(row);
      data.push_back({{"case", label}, {"sequential_s", seq.loop_s}, {"threads2_s", par.loop_s}, {"speedup", speedup}});
    }
    add_section(report, json, "threads", data,
                "\n## Threads\n\nThe stepping loop's wall time under `--executor threads:2` against sequential. The "
                "pool times the batches it runs and runs them in the calling thread while a hand-off would cost more "
                "than the work it shares (exec/executor.cpp).\n\n",
                columns({"case", "sequential [s]", "threads:2 [s]", "speed-up"}, {"before: speed-up"}, compare), rows);
  }
  add_processes_section(report, json, options, self, scratch.path(), repeats);
  // 4. the iterative methods against Jacobi on B3 (native DOPRI5, rtol 1e-10), start-up included
  {
    std::vector<std::vector<std::string>> rows;
    cosima::io::Json data = cosima::io::Json::array();
    const auto scenario = options.examples / "b3_lotka_volterra.json";
    for (const double dt : options.quick ? std::vector<double>{1e-3} : std::vector<double>{1e-3, 1e-4}) {
      std::map<std::string, Measured> after, before;
      for (const char* method : {"jacobi", "ifosmondi-jfm", "missiles"}) {
        const std::vector<std::string> extra = {"--method", method, "--dt", fmt::format("{}", dt)};
        after[method] = measure(self, scenario, extra, repeats, scratch.path());
        before[method] = measure_baseline(options, scenario, extra, repeats, scratch.path());
      }
      for (const char* method : {"ifosmondi-jfm", "missiles"}) {
        const double process = after[method].process_s / after["jacobi"].process_s;
        const double loop = after[method].loop_s / after["jacobi"].loop_s;
        std::vector<std::string> row = {method, fmt::format("{:g}", dt), fmt::format("{:.2f}", process),
                                        fmt::format("{:.2f}", loop), fmt::format("{}", after[method].iterations)};
        if (compare) {
          const bool ok = before[method].ok && before["jacobi"].ok;
          row.push_back(ok ? fmt::format("{:.2f}", before[method].process_s / before["jacobi"].process_s) : "-");
          row.push_back(ok ? fmt::format("{:.2f}", before[method].loop_s / before["jacobi"].loop_s) : "-");
        }
        rows.push_back(row);
        data.push_back({{"method", method}, {"dt", dt}, {"process_ratio", process}, {"loop_ratio", loop}});
      }
    }
    const std::vector<std::string> header =
        columns({"method", "δt", "process / Jacobi's", "run / Jacobi's", "iterations"},
                {"before: process", "before: run"}, compare);
    add_section(report, json, "ratios_to_jacobi", data,
                "\n## IFOSMONDI-JFM and MISSILES against Jacobi on B3\n\n`examples/b3_lotka_volterra.json` (native "
                "DOPRI5, rtol 1e-10) over [0, 20], every communication point written. *process* is the whole process, "
                "*run* the stats' wall time (the method's initialization and the stepping). IFOSMONDI-JFM opens PETSc "
                "(and MPI as a singleton, ≈ 0.1 s) at the first step whose initial guess fails the convergence test, "
                "so only where *iterations* (SNES iterations) is not 0 do both include it. The goals are ≤ 2 "
                "(IFOSMONDI-JFM) and ≤ 1.5 (MISSILES), start-up included.\n\n",
                header, rows);
  }
  // 5. the progress line: the same run with and without --progress, alternated round by round
  {
    const double dt = options.quick ? 1e-4 : 1e-5;
    const int rounds = options.quick ? 3 : 5;
    const auto scenario = options.examples / "b3_lotka_volterra.json";
    const std::vector<std::string> without = {"--method", "jacobi", "--dt",  fmt::format("{}", dt),
                                              "--stop",   "20",     "--set", "output.interval=0.1"};
    std::vector<std::string> with = without;
    with.push_back("--progress");    // stderr goes to the log file: not a terminal, a line per second
    std::array<Measured, 2> best{};  // [0] without, [1] with: the minimum loop and process times over the rounds
    long long lines = 0;             // the fewest progress lines a with-run drew
    for (int r = 0; r < rounds; ++r) {
      for (const bool progress : r % 2 == 0 ? std::array{false, true} : std::array{true, false}) {
        const Measured m = measure(self, scenario, progress ? with : without, 1, scratch.path());
        Measured& b = best[progress ? 1 : 0];
        if (!b.ok) {
          b = m;
        } else {
          b.loop_s = std::min(b.loop_s, m.loop_s);
          b.process_s = std::min(b.process_s, m.process_s);
        }
        if (progress) {
          std::ifstream log(scratch.path() / "log.txt");
          long long drawn = 0;
          for (std::string line; std::getline(log, line);) drawn += line.find("steps/s") != std::string::npos ? 1 : 0;
          lines = r == 0 ? drawn : std::min(lines, drawn);
        }
      }
    }
    const double loop_ratio = best[1].loop_s / best[0].loop_s;
    const double process_ratio = best[1].process_s / best[0].process_s;
    const bool within = loop_ratio <= 1.02;
    std::vector<std::vector<std::string>> rows = {
        {"without", fmt::format("{}", best[0].steps), fmt::format("{:.3f}", best[0].loop_s),
         fmt::format("{:.3f}", best[0].process_s), "-"},
        {"--progress", fmt::format("{}", best[1].steps), fmt::format("{:.3f}", best[1].loop_s),
         fmt::format("{:.3f}", best[1].process_s), fmt::format("{}", lines)},
        {"ratio", "", fmt::format("{:.4f}", loop_ratio), fmt::format("{:.4f}", process_ratio),
         within ? "within 2 %" : "over 2 %"}};
    add_section(report, json, "progress_line",
                {{"dt", dt},
                 {"rounds", rounds},
                 {"macro_steps", best[0].steps},
                 {"without_s", best[0].loop_s},
                 {"with_s", best[1].loop_s},
                 {"ratio", loop_ratio},
                 {"process_without_s", best[0].process_s},
                 {"process_with_s", best[1].process_s},
                 {"process_ratio", process_ratio},
                 {"lines_drawn", lines},
                 {"within_2_percent", within}},
                fmt::format("\n## Progress line\n\n`examples/b3_lotka_volterra.json` (native DOPRI5), Jacobi, "
                            "δt = {:g} over [0, 20], output every 0.1 s, with and without `--progress` (stderr to a "
                            "file: a line per second), alternated in each of {} rounds, the minimum of each. *run* is "
                            "the stats' wall time, *process* the whole process, *lines* the fewest progress lines a "
                            "run drew (a run shorter than a second draws none, but pays the per-step check all the "
                            "same). The goal is a run's wall time with the progress line within 2 % of "
                            "without.\n\n",
                            dt, rounds),
                {"", "macro-steps", "run [s]", "process [s]", "lines"}, rows);
  }
  report.write(options, "overhead.md");
  return json;
}

}  // namespace cosima::bench
