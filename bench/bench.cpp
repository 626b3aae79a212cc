#include "bench/bench.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>

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

}  // namespace cosima::bench
