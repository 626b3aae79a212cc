#include "methods/sweep_plan.hpp"

#include <algorithm>
#include <utility>

namespace cosima::methods {

namespace {

/// feeds[a]: the members b ≠ a that a's outputs drive, each once (a member too, else empty);
/// self_fed[a]: a member drives an input of its own.
std::vector<std::vector<int>> feeding_graph(const model::ModularModel& model, const std::vector<char>& member,
                                            std::vector<char>& self_fed) {
  std::vector<std::vector<int>> feeds(static_cast<std::size_t>(model.system_count()));
  self_fed.assign(feeds.size(), 0);
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source < 0) continue;
    const int from = model.system_of_output(source), to = model.system_of_input(g);
    if (member[static_cast<std::size_t>(from)] == 0 || member[static_cast<std::size_t>(to)] == 0) continue;
    if (from == to)
      self_fed[static_cast<std::size_t>(from)] = 1;
    else
      feeds[static_cast<std::size_t>(from)].push_back(to);
  }
  for (auto& targets : feeds) {
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  }
  return feeds;
}

/// Tarjan's strongly connected components, iteratively (no recursion: 10⁵ systems in a chain).
/// Components come out in reverse topological order.
std::vector<std::vector<int>> strong_components(const std::vector<std::vector<int>>& feeds,
                                                const std::vector<char>& member) {
  const int n = static_cast<int>(feeds.size());
  std::vector<int> index(static_cast<std::size_t>(n), -1), low(static_cast<std::size_t>(n), 0), stack;
  std::vector<char> on_stack(static_cast<std::size_t>(n), 0);
  std::vector<std::pair<int, std::size_t>> frames;  // (node, next edge)
  std::vector<std::vector<int>> components;
  int counter = 0;
  for (int root = 0; root < n; ++root) {
    if (index[static_cast<std::size_t>(root)] >= 0 || member[static_cast<std::size_t>(root)] == 0) continue;
    frames.emplace_back(root, 0);
    while (!frames.empty()) {
      auto& [v, edge] = frames.back();
      const auto sv = static_cast<std::size_t>(v);
      if (edge == 0 && index[sv] < 0) {
        index[sv] = low[sv] = counter++;
        stack.push_back(v);
        on_stack[sv] = 1;
      }
      if (edge < feeds[sv].size()) {
        const int w = feeds[sv][edge++];
        const auto sw = static_cast<std::size_t>(w);
        if (index[sw] < 0)
          frames.emplace_back(w, 0);
        else if (on_stack[sw] != 0)
          low[sv] = std::min(low[sv], index[sw]);
        continue;
      }
      if (low[sv] == index[sv]) {
        std::vector<int>& component = components.emplace_back();
        int w = -1;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[static_cast<std::size_t>(w)] = 0;
          component.push_back(w);
        } while (w != v);
        std::sort(component.begin(), component.end());
      }
      const int finished_low = low[sv];
      frames.pop_back();
      if (!frames.empty()) {
        const auto parent = static_cast<std::size_t>(frames.back().first);
        low[parent] = std::min(low[parent], finished_low);
      }
    }
  }
  return components;
}

}  // namespace

SweepPlan plan_sweeps(const model::ModularModel& model, const std::vector<char>* members) {
  const std::vector<char> all(static_cast<std::size_t>(model.system_count()), 1);
  const std::vector<char>& member = members != nullptr ? *members : all;
  std::vector<char> self_fed;
  const auto feeds = feeding_graph(model, member, self_fed);
  auto components = strong_components(feeds, member);
  std::reverse(components.begin(), components.end());  // topological order
  SweepPlan plan;
  plan.on_cycle.assign(static_cast<std::size_t>(model.system_count()), 0);
  // level of a component: 1 + the highest level of a component feeding it
  std::vector<int> level_of_system(static_cast<std::size_t>(model.system_count()), 0);
  std::vector<int> component_of(static_cast<std::size_t>(model.system_count()), -1);
  for (std::size_t c = 0; c < components.size(); ++c) {
    for (const int s : components[c]) component_of[static_cast<std::size_t>(s)] = static_cast<int>(c);
  }
  std::vector<std::vector<std::size_t>> by_level;
  for (std::size_t c = 0; c < components.size(); ++c) {
    int level = 0;
    for (const int s : components[c]) level = std::max(level, level_of_system[static_cast<std::size_t>(s)]);
    for (const int s : components[c]) {
      for (const int t : feeds[static_cast<std::size_t>(s)]) {
        auto& next = level_of_system[static_cast<std::size_t>(t)];
        if (component_of[static_cast<std::size_t>(t)] != static_cast<int>(c)) next = std::max(next, level + 1);
      }
    }
    if (by_level.size() <= static_cast<std::size_t>(level)) by_level.resize(static_cast<std::size_t>(level) + 1);
    by_level[static_cast<std::size_t>(level)].push_back(c);
  }
  const auto cyclic = [&](const std::vector<int>& component) {
    return component.size() > 1 || self_fed[static_cast<std::size_t>(component.front())] != 0;
  };
  for (const auto& level : by_level) {
    std::vector<int> acyclic;
    for (const std::size_t c : level) {
      if (!cyclic(components[c])) acyclic.push_back(components[c].front());
    }
    if (!acyclic.empty()) plan.stages.push_back(std::move(acyclic));
    for (const std::size_t c : level) {
      if (!cyclic(components[c])) continue;
      plan.cyclic = true;
      for (const int s : components[c]) {
        plan.on_cycle[static_cast<std::size_t>(s)] = 1;
        plan.stages.push_back({s});
      }
    }
  }
  return plan;
}

}  // namespace cosima::methods
