#include "exec/order.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/small_matrix.hpp"

namespace cosima::exec {

void Order::clear() {
  active = false;
  restore = false;
  save = false;
  initialize = std::numeric_limits<double>::quiet_NaN();
  exit_initialization = false;
  configure_estimator.reset();
  set_inputs = false;
  step = 0.0;
  handle_events = false;
  read_order = -1;
  read_states = false;
  read_state_derivatives = false;
  estimate_begin = false;
  estimate_h = 0.0;
  watch.clear();
  read_variables = false;
  wide_inputs.clear();
  read_wide.clear();
  string_inputs.clear();
  read_strings.clear();
}

void Batch::resize(int systems) {
  orders_.resize(static_cast<std::size_t>(systems));
  replies_.resize(static_cast<std::size_t>(systems));
  for (Order& o : orders_) o.clear();
  active_.clear();
  active_.reserve(orders_.size());
}

Order& Batch::order(int s) {
  Order& o = orders_[static_cast<std::size_t>(s)];
  if (!o.active) {
    sorted_ = sorted_ && (active_.empty() || active_.back() < s);
    active_.push_back(s);
  }
  o.clear();
  o.active = true;
  return o;
}

void Batch::clear() {  // order() clears an order when it is made active again
  for (int s : active_) orders_[static_cast<std::size_t>(s)].active = false;
  active_.clear();
  sorted_ = true;
}

const std::vector<int>& Batch::active() const {
  if (!sorted_) {
    std::sort(active_.begin(), active_.end());
    sorted_ = true;
  }
  return active_;
}

void PlainBatch::resize(std::size_t entries, int systems) {
  entries_.resize(entries);
  count_ = 0;
  systems_ = systems;
}

void PlainBatch::to_orders(Batch& orders) const {
  if (orders.orders().size() != static_cast<std::size_t>(systems_)) orders.resize(systems_);
  orders.clear();
  for (std::size_t i = 0; i < count_; ++i) {
    const Entry& entry = entries_[i];
    Order& order = orders.order(entry.system);
    if (entry.estimate != nullptr) {
      order.estimate_begin = entry.estimate_u_now != nullptr;
      if (order.estimate_begin)
        order.estimate_u_now = Eigen::Map<const Eigen::VectorXd>(entry.estimate_u_now, entry.inputs);
      order.estimate_h = entry.estimate_h;
      continue;
    }
    order.set_inputs = true;
    if (entry.polynomials != nullptr) {
      order.restore = entry.restore;
      order.inputs = *entry.polynomials;
    } else {
      order.inputs.setZero(entry.inputs, kInputCoefficients);
      order.inputs.col(0) = Eigen::Map<const Eigen::VectorXd>(entry.u, entry.inputs);
    }
    order.step = entry.h;
    order.read_order = entry.dy != nullptr ? 1 : 0;
  }
}

void PlainBatch::take_replies(const Batch& orders) {
  for (std::size_t i = 0; i < count_; ++i) {
    Entry& entry = entries_[i];
    const Reply& reply = orders.reply(entry.system);
    entry.result = reply.result;
    if (entry.estimate != nullptr) {
      take_estimate(reply, *entry.estimate);
      continue;
    }
    if (!entry.result.reached_end()) continue;
    Eigen::Map<Eigen::VectorXd>(entry.y, entry.outputs) = reply.outputs.col(0);
    if (entry.dy != nullptr) Eigen::Map<Eigen::VectorXd>(entry.dy, entry.outputs) = reply.outputs.col(1);
  }
}

namespace {

/// Reads d^order y / dt^order (order 0: the outputs) into out; a non-finite entry fails `result`,
/// naming it — a non-finite output is the producing system's fault: said here, not where it is read.
template <class Vector>  // a Map or a column, read in place
[[gnu::always_inline]] inline bool read_checked(const System& system, int order, Vector&& out, StepResult& result) {
  if (order == 0) {
    system.outputs(out);
  } else {
    system.output_derivatives(order, out);
  }
  if (!all_finite(out)) result = system.non_finite_output(out, order);
  return result.reached_end();
}

/// G_V, G_D (what update 3 reads, and what the protocol carries; P and R are in K_V, K_D), K_V, K_D
/// into a reply.
void assign_operators(Reply& into, const estimator::LinearResponse& response, const Eigen::VectorXd& constant_value,
                      const Eigen::VectorXd& constant_derivative) {
  assign(into.response.GV, response.GV);
  assign(into.response.GD, response.GD);
  assign(into.constant_value, constant_value);
  assign(into.constant_derivative, constant_derivative);
}

}  // namespace

void carry_out_c1(SystemHost& host, PlainBatch::Entry& entry) {
  if (entry.estimate != nullptr) {
    Reply& reply = *entry.estimate;
    reply.result.reset();
    estimator_updates(host, entry.estimate_u_now, entry.inputs, entry.estimate_h, reply);
    if (!reply.result.ok() || !entry.result.ok()) entry.result = reply.result;
    return;
  }
  System& system = *host.system;
  if (entry.restore) system.restore_state(host.snapshot);
  system.set_inputs(*entry.polynomials);
  StepResult result = entry.h > 0.0 ? system.do_step(entry.h) : StepResult{};  // h = 0: no step, as an order's
  if (result.reached_end() && read_checked(system, 0, Eigen::Map<Eigen::VectorXd>(entry.y, entry.outputs), result) &&
      entry.dy != nullptr) {
    read_checked(system, 1, Eigen::Map<Eigen::VectorXd>(entry.dy, entry.outputs), result);
  }
  if (!result.ok() || !entry.result.ok()) entry.result = std::move(result);  // (a success holds no reason)
}

namespace {

/// The reads of an order after its step: outputs and their derivatives, states, watched variables.
/// False when an output is not finite (reply.result says which).
bool read_back(SystemHost& host, const Order& order, Reply& reply) {
  System& system = *host.system;
  if (order.read_order >= 0) {
    reply.outputs.resize(system.output_count(), order.read_order + 1);
    for (int k = 0; k <= order.read_order; ++k) {
      if (!read_checked(system, k, reply.outputs.col(k), reply.result)) return false;
    }
  }
  if (order.read_states) {
    reply.states.resize(system.state_count());
    system.states(reply.states);
  }
  if (order.read_state_derivatives) {
    reply.state_derivatives.resize(system.state_count());
    system.state_derivatives(reply.state_derivatives);
  }
  if (!order.watch.empty()) {
    system.watch_variables(order.watch);
    host.watched = static_cast<Eigen::Index>(order.watch.size());
  }
  if (order.read_variables) {
    reply.variables.resize(host.watched);
    system.read_variables(reply.variables);
  }
  reply.wide_values.clear();
  for (const std::string& name : order.read_wide) reply.wide_values.push_back(system.wide_value(name));
  reply.strings.clear();
  for (const int output : order.read_strings) reply.strings.push_back(system.string_output(output));
  return true;
}

}  // namespace

void carry_out(SystemHost& host, const Order& order, Reply& reply) {
  System& system = *host.system;
  reply.result.reset();
  reply.estimate_ok = true;
  if (order.restore) system.restore_state(host.snapshot);
  if (order.save) {
    if (host.snapshot < 0) {
      host.snapshot = system.save_state();
    } else {
      system.save_state(host.snapshot);
    }
  }
  if (!std::isnan(order.initialize)) {
    system.enter_initialization(order.initialize);
    host.snapshot = -1;
    host.estimator.reset();
  }
  if (order.configure_estimator) {
    host.estimator = estimator::make_output_estimator(system, *order.configure_estimator);
    host.estimator->reset(system);
  }
  for (const auto& [input, value] : order.wide_inputs) system.set_wide_input(input, value);
  for (const auto& [input, text] : order.string_inputs) system.set_string_input(input, text);
  if (order.set_inputs) system.set_inputs(order.inputs);
  if (order.exit_initialization) system.exit_initialization();
  if (order.step > 0.0) {
    reply.result = system.do_step(order.step);
    reply.time = system.time();
    if (!reply.result.reached_end()) return;
  }
  if (order.handle_events) {  // a discontinuity: an event pending here, or a jump the method detected
    reply.result = system.handle_pending_events();
    if (!reply.result.reached_end()) {
      reply.time = system.time();
      return;
    }
    // COSTARICA's control part extrapolates the output history: a jump is not part of it
    if (host.estimator) host.estimator->reset(system);
  }
  reply.time = system.time();
  reply.next_event = system.next_event_time();
  reply.event_pending = system.event_pending();
  if (!read_back(host, order, reply)) return;
  if (order.estimate_begin || order.estimate_h > 0.0) {
    estimator_updates(host, order.estimate_begin ? order.estimate_u_now.data() : nullptr, order.estimate_u_now.size(),
                      order.estimate_h, reply);
  }
}

void estimator_updates(SystemHost& host, const double* u_now, Eigen::Index inputs, double h, Reply& reply) {
  System& system = *host.system;
  reply.estimate_ok = true;
  if (!host.estimator) throw Error(fmt::format("system '{}': no estimator configured", system.name()));
  if (u_now != nullptr) host.estimator->begin_step(system, ConstVectorView(u_now, inputs));
  if (!(h > 0.0)) return;  // as an order of estimate_h ≤ 0 or NaN
  reply.estimate_ok = host.estimator->prepare(system, h);
  if (!reply.estimate_ok) {
    reply.result = StepResult::failure(host.estimator->reason());
    return;
  }
  assign_operators(reply, host.estimator->response(), host.estimator->constant_value(),
                   host.estimator->constant_derivative());
}

void take_estimate(const Reply& from, Reply& into) {
  into.result = from.result;
  into.estimate_ok = from.estimate_ok;
  if (from.estimate_ok) assign_operators(into, from.response, from.constant_value, from.constant_derivative);
}

void estimate_from(const Reply& reply, const InputPolynomials& inputs, Eigen::Ref<Eigen::VectorXd> y,
                   Eigen::Ref<Eigen::VectorXd> dy) {
  estimator::estimate_outputs(reply.response, reply.constant_value, reply.constant_derivative, inputs, y, dy);
}

}  // namespace cosima::exec
