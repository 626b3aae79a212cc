#pragma once
// The scaling scenario: a chain or a ring of N `scaling.oscillator` systems, each coupled to its
// neighbours through their positions (the ends of a chain see a fixed wall, x = 0), the first one
// displaced by 1 m. Every system may carry an artificial cost per step.
#include <nlohmann/json.hpp>

#include "io/json.hpp"

namespace cosima::scenario {

struct OscillatorNetwork {
  int size = 8;
  bool ring = false;
  double step_cost = 0.0;  ///< seconds of busy work per step and system
  double stop = 1.0;
  double dt = 1e-2;
  std::string integrator = "exact";
};

/// The scenario document (parse it with parse_scenario).
cosima::io::Json oscillator_network(const OscillatorNetwork& network);

}  // namespace cosima::scenario
