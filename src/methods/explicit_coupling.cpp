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
  initialize_coupled(model, executor(), t_start, buffers_);
}

StepReport ExplicitCoupling::step(ModularModel& model, double t, double h_max) {
  StepReport report;
  report.h = h_max;
  settle_communication_point(model, executor(), buffers_, settle_sweeps_);  // ỹ(t_N), ũ = Φᵀ ỹ(t_N)
  // Jacobi: every system in one batch (concurrently where the executor can); Gauss–Seidel: one
  // system per batch, each seeing the outputs at t_N + h of those stepped before it.
  const bool jacobi = options_.scheme == Scheme::jacobi;
  for (std::size_t first = 0; first < sequence_.size(); first += jacobi ? sequence_.size() : 1) {
    buffers_.batch.clear();
    if (!jacobi) model.dispatch(buffers_.y, buffers_.u);
    for (std::size_t k = first; k < (jacobi ? sequence_.size() : first + 1); ++k) {
      const int s = sequence_[k];
      buffers_.zoh(model, s);
      Order& order = buffers_.order_with_inputs(s);
      order.step = h_max;
      order.read_order = 0;
    }
    executor().execute(buffers_.batch);
    for (int s = 0; s < model.system_count(); ++s) {
      if (!buffers_.batch.orders()[static_cast<std::size_t>(s)].active) continue;
      const StepResult& result = buffers_.batch.reply(s).result;
      throw_if_failed(result, model.system(s), t);
      if (result.status == StepResult::Status::terminated) {
        report.terminated = true;
        report.reason = fmt::format("system '{}' terminated at t = {}: {}", model.system(s).name(), t, result.reason);
        report.h = 0.0;
        return report;
      }
    }
    buffers_.gather_replies(model);
  }
  return report;
}

}  // namespace cosima
