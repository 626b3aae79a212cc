#include "methods/coupling_buffers.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace cosima::methods {

void CouplingBuffers::resize(const model::ModularModel& model) {
  y.setZero(model.total_outputs());
  u.setZero(model.total_inputs());
  if (model.has_feedthrough()) {  // the order of settle_communication_point: systems whose outputs read inputs
    std::vector<char> feedthrough(static_cast<std::size_t>(model.system_count()), 0);
    for (int s = 0; s < model.system_count(); ++s) {
      const System& system = model.system(s);
      for (int o = 0; o < system.output_count() && feedthrough[static_cast<std::size_t>(s)] == 0; ++o) {
        for (int i = 0; i < system.input_count(); ++i) {
          if (system.output_depends_on_input(o, i)) {
            feedthrough[static_cast<std::size_t>(s)] = 1;
            break;
          }
        }
      }
    }
    settle_plan = plan_sweeps(model, &feedthrough);
  }
  batch.resize(model.system_count());
  polynomials_.resize(static_cast<std::size_t>(model.system_count()));
  for (int s = 0; s < model.system_count(); ++s) {
    polynomials(s).setZero(model.system(s).input_count(), kInputCoefficients);
  }
}

const InputPolynomials& CouplingBuffers::zoh(const model::ModularModel& model, int s) {
  InputPolynomials& p = polynomials(s);
  p.setZero();
  p.col(0) = u.segment(model.input_offset(s), p.rows());
  return p;
}

const InputPolynomials& CouplingBuffers::hermite(const model::ModularModel& model, int s, HermiteKind kind, double h,
                                                 ConstVectorView v1, ConstVectorView d1, ConstVectorView v2,
                                                 ConstVectorView d2) {
  InputPolynomials& p = polynomials(s);
  const Eigen::Matrix4d& map = hermite_map_of(kind, h);
  const int offset = model.input_offset(s);
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const Eigen::Index g = offset + i;
    p.row(i) = (map * Eigen::Vector4d(v1(g), d1(g), v2(g), d2(g))).transpose();
  }
  return p;
}

exec::Order& CouplingBuffers::order_with_inputs(const model::ModularModel& model, int s) {
  exec::Order& order = batch.order(s);
  order.set_inputs = true;
  order.inputs = polynomials(s);
  hold_discrete_inputs(model, s, order.inputs);
  return order;
}

void hold_discrete_inputs(const model::ModularModel& model, int s, InputPolynomials& polynomials) {
  for (const int j : model.held_inputs(s)) polynomials.row(j).tail<kMaxInputDegree>().setZero();
}

void CouplingBuffers::input_ends(const model::ModularModel& model, int s, double h, Eigen::VectorXd& u_start,
                                 Eigen::VectorXd& u_end) {
  const InputPolynomials& p = polynomials(s);
  const int offset = model.input_offset(s);
  for (Eigen::Index j = 0; j < p.rows(); ++j) {
    double end = 0.0;  // Horner
    for (int k = kMaxInputDegree; k >= 0; --k) end = end * h + p(j, k);
    u_start(offset + j) = p(j, 0);
    u_end(offset + j) = end;
  }
}

void CouplingBuffers::gather_replies(const model::ModularModel& model, Eigen::VectorXd* dy) {
  for (const int s : batch.active()) {  // O(active orders): a stage of one system costs O(1)
    const exec::Order& order = batch.orders()[static_cast<std::size_t>(s)];
    if (order.read_order < 0) continue;
    const exec::Reply& reply = batch.reply(s);
    if (reply.result.status == StepResult::Status::failed) {
      throw Error(fmt::format("system '{}' at t = {}: {}", model.system(s).name(), reply.time, reply.result.reason));
    }
    const int offset = model.output_offset(s), count = model.system(s).output_count();
    y.segment(offset, count) = reply.outputs.col(0);
    if (dy != nullptr && order.read_order >= 1) dy->segment(offset, count) = reply.outputs.col(1);
  }
}

namespace {

/// One sweep: every system (or those `due`) gets its ZOH inputs from ũ and reports its outputs.
void zoh_sweep(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
               const std::vector<char>* due) {
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (due != nullptr && (*due)[static_cast<std::size_t>(s)] == 0) continue;
    buffers.zoh(model, s);
    buffers.order_with_inputs(model, s).read_order = 0;
  }
  executor.execute(buffers.batch);
  buffers.gather_replies(model);
}

}  // namespace

namespace {

/// The settling pass over the systems with direct feedthrough in topological order (their plan has
/// no cycle): each stage takes ũ = Φᵀ ỹ from the outputs so far and reports its outputs — exact in
/// one pass, one batch per stage.
void settle_in_order(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                     const std::vector<char>* due) {
  for (const auto& stage : buffers.settle_plan.stages) {
    buffers.batch.clear();
    for (const int s : stage) {
      if (due != nullptr && (*due)[static_cast<std::size_t>(s)] == 0) continue;
      model.dispatch_to(s, buffers.y, buffers.u);
      buffers.zoh(model, s);
      buffers.order_with_inputs(model, s).read_order = 0;
    }
    if (buffers.batch.active().empty()) continue;
    executor.execute(buffers.batch);
    buffers.gather_replies(model);
  }
  model.dispatch(buffers.y, buffers.u);
}

}  // namespace

bool inputs_lag_outputs(const model::ModularModel& model, const CouplingBuffers& buffers) {
  for (int i = 0; i < model.total_inputs(); ++i) {
    const int source = model.input_sources()[static_cast<std::size_t>(i)];
    if (source >= 0 && model.input_transform(i).apply(buffers.y(source)) != buffers.u(i)) return true;
  }
  return false;
}

int settle_communication_point(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                               int max_sweeps, const std::vector<char>* due) {
  model.dispatch(buffers.y, buffers.u);
  if (!model.has_feedthrough()) return 0;
  if (!buffers.settle_plan.cyclic) {
    settle_in_order(model, executor, buffers, due);
    return 1;
  }
  int sweeps = 1;
  for (; sweeps <= max_sweeps && stop_requested() == 0; ++sweeps) {
    zoh_sweep(model, executor, buffers, due);
    if (!inputs_lag_outputs(model, buffers)) break;
    model.dispatch(buffers.y, buffers.u);
  }
  return sweeps;
}

EventRestart restart_at_discontinuity(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                                      Eigen::VectorXd& u, Eigen::VectorXd* du, double t,
                                      const std::vector<char>* jumped) {
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    if (!system.event_pending() && (jumped == nullptr || (*jumped)[static_cast<std::size_t>(s)] == 0)) continue;
    exec::Order& order = buffers.batch.order(s);
    order.handle_events = true;
    order.read_order = du != nullptr && system.max_output_derivative_order() >= 1 ? 1 : 0;
  }
  executor.execute(buffers.batch);
  std::vector<char> restarted(static_cast<std::size_t>(model.system_count()), 0);
  Eigen::VectorXd dy = Eigen::VectorXd::Zero(model.total_outputs());
  EventRestart restart;
  for (const int s : buffers.batch.active()) {
    const exec::Reply& reply = buffers.batch.reply(s);
    throw_if_failed(reply.result, model.system(s), t);
    if (reply.result.status == StepResult::Status::terminated) {
      restart.terminated = reply.result.reason;
      return restart;
    }
    const int offset = model.output_offset(s), count = model.system(s).output_count();
    buffers.y.segment(offset, count) = reply.outputs.col(0);
    if (reply.outputs.cols() > 1)
      dy.segment(offset, count) = reply.outputs.col(1);
    else
      restart.derivatives_known = restart.derivatives_known && (du == nullptr || count == 0);
    restarted[static_cast<std::size_t>(s)] = 1;
  }
  Eigen::VectorXd all_u(model.total_inputs()), all_du(model.total_inputs());
  model.dispatch(buffers.y, all_u);
  model.dispatch_derivatives(dy, all_du);
  std::vector<char> fed(static_cast<std::size_t>(model.system_count()), 0);
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source < 0 || restarted[static_cast<std::size_t>(model.system_of_output(source))] == 0) continue;
    u(g) = all_u(g);
    if (du != nullptr) (*du)(g) = all_du(g);
    fed[static_cast<std::size_t>(model.system_of_input(g))] = 1;
  }
  // the systems they feed get the right limits as their inputs at t (what the next step's
  // snapshot, linearization and estimator start from); their output derivatives jump with them
  // (v' = F/m for a mass pushed by a force that jumped): re-read, they restart what they feed
  buffers.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (fed[static_cast<std::size_t>(s)] == 0) continue;
    InputPolynomials& p = buffers.polynomials(s);
    p.setZero();
    p.col(0) = u.segment(model.input_offset(s), p.rows());
    exec::Order& order = buffers.batch.order(s);
    order.set_inputs = true;
    order.inputs = p;
    // a discrete input that jumped is an event of this system now (FMI Event Mode at t): its outputs
    // are then the right limits, as those of the systems whose events fed it
    order.handle_events = true;
    const bool reread = du != nullptr && restarted[static_cast<std::size_t>(s)] == 0 &&
                        model.system(s).max_output_derivative_order() >= 1 && model.system(s).output_count() > 0;
    if (reread) order.read_order = 1;
  }
  executor.execute(buffers.batch);
  if (du == nullptr) return restart;
  std::vector<char> reread(static_cast<std::size_t>(model.system_count()), 0);
  for (const int s : buffers.batch.active()) {
    const exec::Reply& reply = buffers.batch.reply(s);
    throw_if_failed(reply.result, model.system(s), t);
    if (reply.outputs.cols() < 2) continue;
    dy.segment(model.output_offset(s), model.system(s).output_count()) = reply.outputs.col(1);
    reread[static_cast<std::size_t>(s)] = 1;
  }
  model.dispatch_derivatives(dy, all_du);
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source >= 0 && reread[static_cast<std::size_t>(model.system_of_output(source))] != 0) (*du)(g) = all_du(g);
  }
  return restart;
}

std::string restart_c1_interface(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                                 Eigen::VectorXd& u, Eigen::VectorXd& du, double t, bool& drop_derivatives,
                                 const std::vector<char>* jumped) {
  EventRestart restart = restart_at_discontinuity(model, executor, buffers, u, &du, t, jumped);
  if (!restart.derivatives_known) drop_derivatives = true;
  buffers.u = u;
  return std::move(restart.terminated);
}

void throw_step_failure(const StepResult& result, const System& system, double t) {
  throw Error(fmt::format("step from t = {} failed in system '{}': {}", t, system.name(), result.reason));
}

}  // namespace cosima::methods
