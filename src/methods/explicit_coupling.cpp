#include "methods/explicit_coupling.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

void ExplicitCoupling::check(const ModularModel& model) const {
  if (options_.scheme != Scheme::gauss_seidel || options_.allow_algebraic_loops) return;
  const std::vector<std::string> loop = model.find_algebraic_loop();
  if (loop.empty()) return;
  std::string cycle;
  for (const auto& port : loop) cycle += (cycle.empty() ? "" : " -> ") + port;
  throw Error(fmt::format(
      "gauss-seidel: algebraic loop through direct feedthrough: {}; no stepping order resolves it "
      "(use jacobi or an iterative method, or set method.allow_algebraic_loops=true)",
      cycle));
}

void ExplicitCoupling::initialize(ModularModel& model, double t_start) {
  sequence_.clear();
  if (options_.scheme == Scheme::gauss_seidel && !options_.order.empty()) {
    for (const auto& name : options_.order) {
      const int s = model.system_index(name);
      if (s < 0) throw Error(fmt::format("gauss-seidel: method.order names no system '{}'", name));
      sequence_.push_back(s);
    }
    if (static_cast<int>(sequence_.size()) != model.system_count()) {
      throw Error(fmt::format("gauss-seidel: method.order must list each of the {} systems once",
                              model.system_count()));
    }
  } else {
    for (int s = 0; s < model.system_count(); ++s) sequence_.push_back(s);
  }
  settle_sweeps_ = model.find_algebraic_loop().empty() ? model.system_count() + 1 : 1;
  initialize_coupled(model, t_start, buffers_);
}

StepReport ExplicitCoupling::step(ModularModel& model, double t, double h_max) {
  StepReport report;
  report.h = h_max;
  settle_communication_point(model, buffers_, settle_sweeps_);  // ỹ(t_N), ũ = Φᵀ ỹ(t_N)
  for (int s : sequence_) {
    System& system = model.system(s);
    if (options_.scheme == Scheme::gauss_seidel) {
      model.dispatch(buffers_.y, buffers_.u);  // outputs of the systems already stepped are at t_N+h
      buffers_.apply_zoh(model, s);
    }
    const StepResult result = system.do_step(h_max);
    throw_if_failed(result, system, t);
    if (result.status == StepResult::Status::terminated) {
      report.terminated = true;
      report.reason = fmt::format("system '{}' terminated at t = {}: {}", system.name(), t, result.reason);
      report.h = 0.0;
      return report;
    }
    if (options_.scheme == Scheme::gauss_seidel) {
      system.outputs(buffers_.y.segment(model.output_offset(s), system.output_count()));
    }
  }
  return report;
}

}  // namespace cosima
