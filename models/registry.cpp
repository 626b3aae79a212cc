#include "models/registry.hpp"

#include <functional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/b_models.hpp"

namespace cosima::models {

namespace {
struct Factory {
  ModelEntry entry;
  std::function<std::unique_ptr<OdeModel>()> make;
};

const std::vector<Factory>& factories() {
  static const std::vector<Factory> list = {
      {{"b1.mass", "B1 S1: mass, spring-damper, applied force f_L (seed 001)"}, make_b1_mass},
      {{"b1.damper", "B1 S2: damper with massless plate, D_D (seed 001)"}, make_b1_damper},
      {{"b2.left", "B2 S1: left body of the two bodies (seed 000)"}, make_b2_left},
      {{"b2.right", "B2 S2: right body, constant force after t_switch (seed 000)"}, make_b2_right},
      {{"b3.prey", "B3 S1: Lotka-Volterra prey (seeds 000, 003)"}, make_b3_prey},
      {{"b3.predator", "B3 S2: Lotka-Volterra predator (seeds 000, 003)"}, make_b3_predator},
      {{"b4.left", "B4 S1: left mass of the two-mass oscillator (seed 003)"}, make_b4_left},
      {{"b4.right", "B4 S2: right mass, coupling spring-damper force (seed 003)"}, make_b4_right},
      {{"b5.body1", "B5 S1: rotational body 1 and coupling (seed 004)"}, make_b5_body1},
      {{"b5.body2", "B5 S2: rotational body 2 (seed 004)"}, make_b5_body2},
      {{"b6.tough", "B6: tough case x' = a(t), y = x + b(t) (seed 000)"}, make_b6_tough},
      {{"b7.zone", "B7: thermal zone with radiator and hysteresis heater (CHOPtrey benchmark)"}, make_b7_zone},
      {{"b7.supply", "B7: hot-water supply loop with hysteresis boiler (CHOPtrey benchmark)"}, make_b7_supply},
      {{"b8.ball", "B8: bouncing ball, state and time events (Model Exchange)"}, make_b8_ball},
      {{"state_space", "x' = A x + B u, y = C x + D u: 2 states, array ports u[2], y[2] (FMI 3.0 arrays)"},
       make_state_space},
      {{"scaling.oscillator", "one mass of a chain or ring of coupled oscillators (scaling runs)"}, make_oscillator},
      {{"sum:2",
        "out = in0 + in1; \"sum:N\" adds N inputs, \"sum:NxD\" N vectors of D (in{i}_{j} → out{j}): OSP's Sum "
        "and VectorSum"},
       [] { return make_sum("sum:2"); }},
  };
  return list;
}
}  // namespace

const std::vector<ModelEntry>& catalog() {
  static const std::vector<ModelEntry> entries = [] {
    std::vector<ModelEntry> out;
    for (const auto& f : factories()) out.push_back(f.entry);
    return out;
  }();
  return entries;
}

std::unique_ptr<OdeModel> make_model(std::string_view name) {
  if (is_sum_model(name)) return make_sum(name);
  for (const auto& f : factories()) {
    if (f.entry.name == name) return f.make();
  }
  std::string known;
  for (const auto& f : factories()) known += (known.empty() ? "" : ", ") + f.entry.name;
  throw Error(fmt::format("unknown model '{}' (built-in models: {})", name, known));
}

}  // namespace cosima::models
