#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::bench {

namespace {
const std::map<std::string, std::function<cosima::io::Json(const BenchOptions&)>>& registry() {
  // clang-format off: one benchmark per line
  static const std::map<std::string, std::function<cosima::io::Json(const BenchOptions&)>> benches = {
      {"accuracy", bench_accuracy},       {"jacobi", bench_jacobi},
      {"ifosmondi", bench_ifosmondi},     {"costarica", bench_costarica},
      {"missiles", bench_missiles},       {"defect", bench_defect},
      {"scaling", bench_scaling},         {"choptrey", bench_choptrey},
      {"reliability", bench_reliability}, {"me", bench_me},
      {"overhead", bench_overhead},       {"tolerance", bench_tolerance},
      {"emulation", bench_emulation},     {"history", bench_history},
  };
  // clang-format on
  return benches;
}
}  // namespace

std::string names() {
  std::string text;
  for (const auto& [name, fn] : registry()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

int run(const std::string& name, const BenchOptions& options) {
  const auto it = registry().find(name);
  if (it == registry().end()) throw Error(fmt::format("unknown benchmark '{}' (benchmarks: {})", name, names()));
  write_json(options, it->second(options));
  return 0;
}

double median(std::vector<double> sample) {
  std::sort(sample.begin(), sample.end());
  const std::size_t n = sample.size();
  return n % 2 == 1 ? sample[n / 2] : 0.5 * (sample[n / 2 - 1] + sample[n / 2]);
}

AlternatedRuns run_alternated(const std::vector<scenario::Scenario>& scenarios, int rounds) {
  AlternatedRuns runs;
  runs.last.resize(scenarios.size());
  std::vector<std::vector<double>> walls(scenarios.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t c = 0; c < scenarios.size(); ++c) {
      runs.last[c] = scenario::run_scenario(scenarios[c], nullptr, kTimedOutputs);
      walls[c].push_back(runs.last[c].stats.wall_time_s);
    }
  }
  for (const auto& sample : walls) runs.medians.push_back(median(sample));
  return runs;
}

void write_json(const BenchOptions& options, const cosima::io::Json& document) {
  if (options.json_file.empty()) return;
  std::ofstream out(options.json_file);
  out << document.dump(2) << '\n';
  if (!out) throw Error(fmt::format("cannot write '{}'", options.json_file.string()));
}

ChildRun run_child(const std::vector<std::string>& args, const std::filesystem::path& log,
                   const std::filesystem::path& program) {
  const std::filesystem::path self = program.empty() ? std::filesystem::read_symlink("/proc/self/exe") : program;
  std::vector<std::string> storage = {self.string()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // posix_spawn (vfork-like): the parent's page tables are not copied, so the time is the child's own
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ChildRun result;
  if (spawned != 0) {
    result.status = 127;  // as a shell reports a program it cannot run
    return result;
  }
  rusage usage{};
  int status = 0;
  wait4(pid, &status, 0, &usage);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  result.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  return result;
}

}  // namespace cosima::bench
