#include "scenario/oscillator_network.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::scenario {

cosima::io::Json oscillator_network(const OscillatorNetwork& network) {
  const int n = network.size;
  if (n < 2) throw Error(fmt::format("an oscillator network needs at least 2 systems, not {}", n));
  cosima::io::Json doc;
  doc["name"] = fmt::format("{} of {} coupled oscillators", network.ring ? "ring" : "chain", n);
  doc["start"] = 0.0;
  doc["stop"] = network.stop;
  const auto name = [](int i) { return fmt::format("osc{}", i); };
  cosima::io::Json systems = cosima::io::Json::object();
  cosima::io::Json connections = cosima::io::Json::array();
  cosima::io::Json inputs = cosima::io::Json::object();
  for (int i = 0; i < n; ++i) {
    cosima::io::Json system = {{"model", "scaling.oscillator"}, {"integrator", network.integrator}};
    if (i == 0) system["parameters"] = {{"x0", 1.0}};
    if (network.step_cost > 0.0) system["step_cost"] = network.step_cost;
    systems[name(i)] = system;
    const bool first = i == 0, last = i == n - 1;
    if (!first || network.ring) connections.push_back({name((i + n - 1) % n) + ".x", name(i) + ".x_left"});
    if (!last || network.ring) connections.push_back({name((i + 1) % n) + ".x", name(i) + ".x_right"});
    if (first && !network.ring) inputs[name(i) + ".x_left"] = 0.0;
    if (last && !network.ring) inputs[name(i) + ".x_right"] = 0.0;
  }
  doc["systems"] = systems;
  doc["connections"] = connections;
  if (!inputs.empty()) doc["inputs"] = inputs;
  doc["method"] = {{"type", "jacobi"}, {"dt", network.dt}};
  doc["output"] = {{"variables", {name(0) + ".x", name(n - 1) + ".x"}}};
  return doc;
}

}  // namespace cosima::scenario
