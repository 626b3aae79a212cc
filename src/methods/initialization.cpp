#include "methods/initialization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <Eigen/LU>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "methods/sweep_plan.hpp"

namespace cosima::methods {

namespace {

constexpr double kNoInitialization = std::numeric_limits<double>::quiet_NaN();

bool settled(double before, double after) {
  return std::abs(after - before) <= kInitialTolerance * std::max(1.0, std::abs(after));
}

/// Hands system s its slice of buffers.u as ZOH inputs and asks for its outputs.
exec::Order& exchange_order(const model::ModularModel& model, CouplingBuffers& buffers, int s) {
  buffers.zoh(model, s);
  exec::Order& order = buffers.order_with_inputs(model, s);
  order.read_order = 0;
  return order;
}

/// One Gauss–Seidel sweep along the plan: each stage takes ũ = Φᵀ ỹ from the outputs so far.
/// Returns the largest change of an input relative to the previous sweep (∞ on the first).
double sweep(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers, const SweepPlan& plan,
             bool first) {
  double change = first ? std::numeric_limits<double>::infinity() : 0.0;
  for (const auto& stage : plan.stages) {
    buffers.batch.clear();
    for (const int s : stage) {
      const int begin = model.input_offset(s), count = model.system(s).input_count();
      const Eigen::VectorXd before = buffers.u.segment(begin, count);
      model.dispatch_to(s, buffers.y, buffers.u);
      for (int i = 0; i < count; ++i) {
        if (!settled(before(i), buffers.u(begin + i)))
          change = std::max(change, std::abs(buffers.u(begin + i) - before(i)));
        if (!std::isfinite(buffers.u(begin + i))) change = std::numeric_limits<double>::infinity();
      }
      exchange_order(model, buffers, s);
    }
    executor.execute(buffers.batch);
    buffers.gather_replies(model);
  }
  return change;
}

/// Every system takes buffers.u and reports its outputs (one batch: Newton's evaluations).
void evaluate_all(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers) {
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) exchange_order(model, buffers, s);
  executor.execute(buffers.batch);
  buffers.gather_replies(model);
}

/// The unknowns of Newton's iteration: continuous connected inputs of systems on a cycle.
std::vector<int> loop_unknowns(const model::ModularModel& model, const SweepPlan& plan) {
  std::vector<int> unknowns;
  for (int g = 0; g < model.total_inputs(); ++g) {
    if (model.input_sources()[static_cast<std::size_t>(g)] < 0 || model.input_held(g)) continue;
    if (plan.on_cycle[static_cast<std::size_t>(model.system_of_input(g))] != 0) unknowns.push_back(g);
  }
  return unknowns;
}

/// F(x) = (Φᵀ Y(u))_K − x with u_K = x; the other inputs follow Φᵀ Y(u) (a fixed point on them).
class LoopResidual {
 public:
  LoopResidual(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
               std::vector<int> unknowns)
      : model_(model), executor_(executor), buffers_(buffers), unknowns_(std::move(unknowns)) {}
  [[nodiscard]] Eigen::Index size() const { return static_cast<Eigen::Index>(unknowns_.size()); }
  [[nodiscard]] Eigen::VectorXd current() const {
    Eigen::VectorXd x(size());
    for (Eigen::Index k = 0; k < size(); ++k) x(k) = buffers_.u(unknowns_[static_cast<std::size_t>(k)]);
    return x;
  }
  Eigen::VectorXd operator()(const Eigen::VectorXd& x) {
    for (Eigen::Index k = 0; k < size(); ++k) buffers_.u(unknowns_[static_cast<std::size_t>(k)]) = x(k);
    evaluate_all(model_, executor_, buffers_);
    model_.dispatch(buffers_.y, mapped_);
    for (int g = 0; g < model_.total_inputs(); ++g) {
      if (!std::binary_search(unknowns_.begin(), unknowns_.end(), g)) buffers_.u(g) = mapped_(g);
    }
    Eigen::VectorXd f(size());
    for (Eigen::Index k = 0; k < size(); ++k) f(k) = mapped_(unknowns_[static_cast<std::size_t>(k)]) - x(k);
    return f;
  }
  [[nodiscard]] const std::vector<int>& unknowns() const { return unknowns_; }

 private:
  model::ModularModel& model_;
  exec::Executor& executor_;
  CouplingBuffers& buffers_;
  std::vector<int> unknowns_;
  Eigen::VectorXd mapped_;
};

bool newton_converged(const Eigen::VectorXd& f, const Eigen::VectorXd& x) {
  return f.allFinite() && f.lpNorm<Eigen::Infinity>() <= kInitialTolerance * std::max(1.0, x.lpNorm<Eigen::Infinity>());
}

/// J(x) by forward differences, one evaluation per column.
Eigen::MatrixXd jacobian(LoopResidual& residual, const Eigen::VectorXd& x, const Eigen::VectorXd& f) {
  Eigen::MatrixXd J(residual.size(), residual.size());
  for (Eigen::Index j = 0; j < residual.size(); ++j) {
    Eigen::VectorXd probe = x;
    const double delta = 1e-7 * std::max(1.0, std::abs(x(j)));
    probe(j) += delta;
    J.col(j) = (residual(probe) - f) / delta;
  }
  return J;
}

std::string residual_text(const model::ModularModel& model, const std::vector<int>& inputs, const Eigen::VectorXd& f) {
  std::string text;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const double r = f(static_cast<Eigen::Index>(k));
    if (std::isfinite(r) && std::abs(r) <= kInitialTolerance) continue;
    const int g = inputs[k];
    if (!text.empty()) text += ", ";
    text +=
        fmt::format("{} → {} (residual {:.3g})", model.output_label(model.input_sources()[static_cast<std::size_t>(g)]),
                    model.input_label(g), r);
  }
  return text;
}

/// Damped Newton on the loop's unknowns (see the header, 2.). Returns the iterations spent; throws
/// Error naming the connections whose residuals remain.
int solve_loop_by_newton(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                         const SweepPlan& plan, double& residual_norm) {
  LoopResidual residual(model, executor, buffers, loop_unknowns(model, plan));
  if (residual.size() > kMaxNewtonUnknowns) {
    throw Error(
        fmt::format("the initial values do not settle by sweeps, and the loop has {} continuous inputs (more "
                    "than the {} a Newton iteration is tried on)",
                    residual.size(), kMaxNewtonUnknowns));
  }
  Eigen::VectorXd x = residual.current(), f = residual(x);
  for (int iteration = 0; iteration < kMaxInitialNewton; ++iteration) {
    if (newton_converged(f, x)) {
      residual_norm = f.lpNorm<Eigen::Infinity>();
      return iteration;
    }
    if (stop_requested() != 0) break;
    const Eigen::VectorXd step = Eigen::FullPivLU<Eigen::MatrixXd>(jacobian(residual, x, f)).solve(f);
    double lambda = 1.0;
    Eigen::VectorXd x_next = x - step, f_next = residual(x_next);
    while (!(f_next.allFinite() && f_next.lpNorm<Eigen::Infinity>() < f.lpNorm<Eigen::Infinity>()) && lambda > 1e-4) {
      lambda /= 2.0;
      x_next = x - lambda * step;
      f_next = residual(x_next);
    }
    if (!step.allFinite() || lambda <= 1e-4) break;
    x = x_next;
    f = f_next;
  }
  if (!f.allFinite() || !newton_converged(f, x)) {
    throw Error(
        fmt::format("the initial values of an algebraic loop do not converge (fixed point and damped Newton "
                    "in Initialization Mode): {}",
                    residual_text(model, residual.unknowns(), f)));
  }
  residual_norm = f.lpNorm<Eigen::Infinity>();
  return kMaxInitialNewton;
}

/// Sweeps until ũ settles, then Newton when they do not contract, from the inputs of the sweep
/// that changed them least (a diverging sweep is stopped after it grew the change kDivergingSweeps
/// times in a row). Returns (sweeps, Newton iterations).
std::pair<int, int> settle_exchange(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                                    const SweepPlan& plan, double& residual) {
  constexpr int kDivergingSweeps = 3;
  double change = sweep(model, executor, buffers, plan, true);
  int sweeps = 1;
  residual = 0.0;
  if (!plan.cyclic) return {sweeps, 0};  // exact: every system saw its sources' final outputs
  Eigen::VectorXd best_u = buffers.u;
  double best_change = change;
  for (int growing = 0; sweeps < kMaxInitialSweeps && change > 0.0 && growing < kDivergingSweeps;) {
    if (stop_requested() != 0) break;
    const double previous = change;
    change = sweep(model, executor, buffers, plan, false);
    ++sweeps;
    growing = std::isfinite(change) && change < previous ? 0 : growing + 1;
    if (change < best_change) {
      best_change = change;
      best_u = buffers.u;
    }
  }
  if (change == 0.0) return {sweeps, 0};
  buffers.u = best_u;
  return {sweeps, solve_loop_by_newton(model, executor, buffers, plan, residual)};
}

/// Leaves Initialization Mode: every system with its inputs, exit, outputs at t_start.
void exit_initialization(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers) {
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) exchange_order(model, buffers, s).exit_initialization = true;
  executor.execute(buffers.batch);
  buffers.gather_replies(model);
}

}  // namespace

InitializationReport initialize_coupled(model::ModularModel& model, exec::Executor& executor, double t_start,
                                        CouplingBuffers& buffers) {
  buffers.resize(model);
  const SweepPlan plan = plan_sweeps(model);
  // Initialization Mode: outputs under the inputs' start values first
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    exec::Order& order = buffers.batch.order(s);
    order.initialize = t_start;
    order.read_order = 0;
    for (int i = 0; i < model.system(s).input_count(); ++i) {
      buffers.u(model.input_offset(s) + i) = model.system(s).input_info(i).start.value_or(0.0);
    }
  }
  executor.execute(buffers.batch);
  buffers.gather_replies(model);
  model.exchange_at_communication_point();  // exact 64-bit values before any input is set
  InitializationReport report;
  std::tie(report.sweeps, report.newton_iterations) = settle_exchange(model, executor, buffers, plan, report.residual);
  model.exchange_at_communication_point();  // String and exact 64-bit inputs, too, are set before leaving
  exit_initialization(model, executor, buffers);
  // an initial event iteration may have moved some outputs: the same exchange, now at t_start
  Eigen::VectorXd mapped;
  model.dispatch(buffers.y, mapped);
  bool moved = false;
  for (int g = 0; g < model.total_inputs() && !moved; ++g) moved = !settled(buffers.u(g), mapped(g));
  if (moved) {
    double residual = 0.0;
    const auto [sweeps, newton] = settle_exchange(model, executor, buffers, plan, residual);
    report.settling_sweeps = sweeps;
    report.newton_iterations += newton;
  }
  model.dispatch(buffers.y, buffers.u);
  return report;
}

}  // namespace cosima::methods
