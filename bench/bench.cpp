#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::bench {

namespace {
const std::map<std::string, std::function<nlohmann::ordered_json(const BenchOptions&)>>& registry() {
  static const std::map<std::string, std::function<nlohmann::ordered_json(const BenchOptions&)>> benches = {
      {"jacobi", bench_jacobi},
      {"ifosmondi", bench_ifosmondi},
      {"costarica", bench_costarica},
      {"missiles", bench_missiles},
      {"defect", bench_defect},
      {"scaling", bench_scaling},
      {"choptrey", bench_choptrey},
      {"reliability", bench_reliability},
      {"me", bench_me},
      {"overhead", bench_overhead},
  };
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

void write_json(const BenchOptions& options, const nlohmann::ordered_json& document) {
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
  std::cout.flush();  // else the child's copy of the buffer would be written twice
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out != nullptr) dup2(fileno(out), STDERR_FILENO);
    execv(argv[0], argv.data());
    std::_Exit(127);
  }
  ChildRun result;
  if (pid < 0) return result;
  rusage usage{};
  int status = 0;
  wait4(pid, &status, 0, &usage);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  return result;
}

}  // namespace cosima::bench
