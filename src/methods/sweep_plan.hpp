#pragma once
// The order in which a sweep visits the systems so that each sees its sources' newest outputs: the
// initial exchange (methods/initialization.hpp) and the settling of a communication point
// (coupling_buffers.hpp) hand each system its inputs and read its outputs stage by stage.
#include <vector>

#include "model/modular_model.hpp"

namespace cosima::methods {

/// The systems in the order a sweep visits them, as stages: the systems of one stage do not feed
/// each other and run as one batch. Stages follow the topological order of the strongly connected
/// components of the graph "a feeds b" (Tarjan, iterative); the members of a cyclic component are
/// stages of one system each (Gauss–Seidel inside the loop). Without a cycle one sweep is exact.
struct SweepPlan {
  std::vector<std::vector<int>> stages;
  std::vector<char> on_cycle;  ///< per system: a member of a cyclic component
  bool cyclic = false;
};

/// The plan over the systems marked in `members` (every system when nullptr); connections from or
/// to other systems do not order them.
SweepPlan plan_sweeps(const model::ModularModel& model, const std::vector<char>* members = nullptr);

}  // namespace cosima::methods
