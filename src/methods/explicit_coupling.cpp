#include "methods/explicit_coupling.hpp"
#include "methods/method_registry.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace cosima::methods {

void ExplicitCoupling::check(const model::ModularModel& model) const {
  for (const auto& [system, rate] : options_.rates) {
    if (model.system_index(system) < 0) throw Error(fmt::format("method.rates names no system '{}'", system));
    if (rate < 1)
      throw Error(fmt::format("method.rates.{} = {}: a rate is a positive multiple of the base step", system, rate));
    if (rate > 1 && options_.scheme != Scheme::jacobi) throw Error("multi-rate stepping (method.rates) needs jacobi");
  }
  if (options_.control.enabled() && !options_.rates.empty()) {
    throw Error(fmt::format("{}: method.tolerance needs one rate (method.rates is given)", name()));
  }
  if (options_.scheme != Scheme::gauss_seidel || options_.allow_algebraic_loops) return;
  const std::vector<std::string> loop = model.find_algebraic_loop();
  if (loop.empty()) return;
  std::string cycle;
  for (const auto& port : loop) cycle += (cycle.empty() ? "" : " -> ") + port;
  throw Error(
      fmt::format("gauss-seidel: algebraic loop through direct feedthrough: {}; no stepping order resolves it "
                  "(use jacobi or an iterative method, or set method.allow_algebraic_loops=true)",
                  cycle));
}

void ExplicitCoupling::initialize(model::ModularModel& model, double t_start) {
  sequence_.clear();
  if (options_.scheme == Scheme::gauss_seidel && !options_.order.empty()) {
    for (const auto& name : options_.order) {
      const int s = model.system_index(name);
      if (s < 0) throw Error(fmt::format("gauss-seidel: method.order names no system '{}'", name));
      sequence_.push_back(s);
    }
    if (static_cast<int>(sequence_.size()) != model.system_count()) {
      throw Error(
          fmt::format("gauss-seidel: method.order must list each of the {} systems once", model.system_count()));
    }
  } else {
    for (int s = 0; s < model.system_count(); ++s) sequence_.push_back(s);
  }
  // one extrapolator per input
  for (const auto& [label, spec] : options_.extrapolation_of) {
    bool found = false;
    for (int g = 0; g < model.total_inputs() && !found; ++g) found = model.input_label(g) == label;
    if (!found) throw Error(fmt::format("method.extrapolation names no input '{}'", label));
  }
  extrapolators_.clear();
  for (int g = 0; g < model.total_inputs(); ++g) {
    const auto it = options_.extrapolation_of.find(model.input_label(g));
    extrapolation::ExtrapolationSpec spec =
        extrapolation::parse_extrapolation(it != options_.extrapolation_of.end() ? it->second : options_.extrapolation);
    spec.cliff = options_.cliff;
    spec.memory = options_.memory;
    extrapolators_.emplace_back(spec, chopoly_);
  }
  rate_.assign(static_cast<std::size_t>(model.system_count()), 1);
  for (const auto& [system, rate] : options_.rates) rate_[static_cast<std::size_t>(model.system_index(system))] = rate;
  due_.assign(rate_.size(), 1);
  fresh_.assign(rate_.size(), 0);
  interpolates_.assign(rate_.size(), 0);
  for (int s = 0; s < model.system_count(); ++s) {
    interpolates_[static_cast<std::size_t>(s)] = model.system(s).has(Capability::interpolate_inputs) ? 1 : 0;
  }
  pending_.assign(rate_.size(), Eigen::VectorXd());
  publish_at_.assign(rate_.size(), std::numeric_limits<double>::infinity());
  base_step_ = 0;
  settle_sweeps_ = model.find_algebraic_loop().empty() ? model.system_count() + 1 : 1;
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  u_start_.setZero(model.total_inputs());
  u_end_.setZero(model.total_inputs());
  if (!options_.rates.empty()) coupling_error_.disable();  // a step's ends differ by system: not estimated
  const bool signals = find_signal_inputs(model);
  bool plain = options_.plain_steps && options_.rates.empty() && !signals;
  for (const extrapolation::SignalExtrapolator& extrapolator : extrapolators_) plain = plain && extrapolator.holds();
  configure_control(model);
  plain_batches_.clear();
  settle_batches_.clear();
  if (!plain) return;
  compile_settling(model);
  compile_steps(model);
}

bool ExplicitCoupling::find_signal_inputs(const model::ModularModel& model) {
  signal_input_.assign(static_cast<std::size_t>(model.total_inputs()), 0);
  signal_sources_.clear();
  signal_slopes_.setZero(model.total_inputs());
  std::vector<char> source_of_signal(static_cast<std::size_t>(model.system_count()), 0);
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source < 0 || model.input_held(g) || interpolates_[static_cast<std::size_t>(model.system_of_input(g))] == 0)
      continue;
    const int from = model.system_of_output(source);
    if (!model.system(from).output_info(source - model.output_offset(from)).signal ||
        model.system(from).max_output_derivative_order() < 1) {
      continue;
    }
    signal_input_[static_cast<std::size_t>(g)] = 1;
    if (source_of_signal[static_cast<std::size_t>(from)] == 0) signal_sources_.push_back(from);
    source_of_signal[static_cast<std::size_t>(from)] = 1;
  }
  return !signal_sources_.empty();
}

void ExplicitCoupling::read_signal_slopes(const model::ModularModel& model, double t) {
  buffers_.batch.clear();
  for (const int s : signal_sources_) buffers_.batch.order(s).read_order = 1;
  executor().execute(buffers_.batch);
  Eigen::VectorXd dy = Eigen::VectorXd::Zero(model.total_outputs());
  for (const int s : signal_sources_) {
    const exec::Reply& reply = buffers_.batch.reply(s);
    throw_if_failed(reply.result, model.system(s), t);
    dy.segment(model.output_offset(s), model.system(s).output_count()) = reply.outputs.col(1);
  }
  model.dispatch_derivatives(dy, signal_slopes_);
  signal_values_ = buffers_.u;  // ũ(t_N), before Gauss–Seidel dispatches outputs at t_N + h
}

void ExplicitCoupling::compile_steps(const model::ModularModel& model) {
  const bool jacobi = options_.scheme == Scheme::jacobi;
  plain_batches_.resize(jacobi ? 1 : sequence_.size());
  for (std::size_t k = 0; k < sequence_.size(); ++k) {
    exec::PlainBatch& batch = plain_batches_[jacobi ? 0 : k];
    if (batch.size() == 0) batch.resize(jacobi ? sequence_.size() : 1, model.system_count());
    add_entry(batch, model, sequence_[k]);
  }
  held_in_batch_ = false;                  // as add() leaves the entries
  if (plain_batches_.size() != 1) return;  // step_plain's test: Jacobi, or Gauss–Seidel of one system
  std::vector<char> settled_system(static_cast<std::size_t>(model.system_count()), 0);
  for (const exec::PlainBatch& settle : settle_batches_) {
    for (std::size_t i = 0; i < settle.size(); ++i) settled_system[static_cast<std::size_t>(settle[i].system)] = 1;
  }
  settles_.resize(plain_batches_[0].size());
  for (std::size_t k = 0; k < settles_.size(); ++k)
    settles_[k] = settled_system[static_cast<std::size_t>(plain_batches_[0][k].system)];
}

void ExplicitCoupling::configure_control(const model::ModularModel& model) {
  control_.configure(options_.control, 1.0, options_.dt);  // held inputs: the defect is O(h)
  if (!control_.enabled()) return;
  for (int g = 0; g < model.total_inputs(); ++g) {
    if (!extrapolators_[static_cast<std::size_t>(g)].holds()) {
      throw Error(
          fmt::format("{}: method.tolerance needs held inputs (extrapolation zoh), not the extrapolation of '{}'",
                      name(), model.input_label(g)));
    }
  }
  can_redo_ = true;
  for (int s = 0; s < model.system_count(); ++s) can_redo_ = can_redo_ && model.system(s).has(Capability::rollback);
  y_saved_ = buffers_.y;
  u_saved_ = buffers_.u;
}

void ExplicitCoupling::compile_settling(const model::ModularModel& model) {
  settled_ = false;
  if (!model.has_feedthrough()) return;
  if (buffers_.settle_plan.cyclic) {  // zoh_sweep: every system at once
    settle_batches_.resize(1);
    settle_batches_[0].resize(static_cast<std::size_t>(model.system_count()), model.system_count());
    for (int s = 0; s < model.system_count(); ++s) add_entry(settle_batches_[0], model, s);
    return;
  }
  for (const auto& stage : buffers_.settle_plan.stages) {
    exec::PlainBatch& batch = settle_batches_.emplace_back();
    batch.resize(stage.size(), model.system_count());
    for (const int s : stage) add_entry(batch, model, s);
  }
}

void ExplicitCoupling::add_entry(exec::PlainBatch& batch, const model::ModularModel& model, int s) {
  batch.add(s, 0.0, buffers_.u.segment(model.input_offset(s), model.system(s).input_count()),
            buffers_.y.segment(model.output_offset(s), model.system(s).output_count()));
}

void ExplicitCoupling::settle_plain(model::ModularModel& model, double t) {
  model.dispatch(buffers_.y, buffers_.u);
  settled_ = false;  // a failed settling leaves no system holding its inputs
  const auto run = [&](exec::PlainBatch& batch) {
    executor().execute(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) throw_if_failed(batch[i].result, model.system(batch[i].system), t);
  };
  bool held = false;                   // the systems hold the inputs that their settled outputs give
  if (!buffers_.settle_plan.cyclic) {  // settle_in_order: each stage from the outputs so far, exact in one pass
    for (exec::PlainBatch& stage : settle_batches_) {
      for (std::size_t i = 0; i < stage.size(); ++i) model.dispatch_to(stage[i].system, buffers_.y, buffers_.u);
      run(stage);
    }
    model.dispatch(buffers_.y, buffers_.u);  // the same inputs for the settled systems: their sources come first
    held = true;
  }
  for (int sweep = 1; !held && sweep <= settle_sweeps_ && stop_requested() == 0; ++sweep) {  // a loop: sweeps
    run(settle_batches_[0]);  // as settle_communication_point
    held = !inputs_lag_outputs(model, buffers_);
    if (!held) model.dispatch(buffers_.y, buffers_.u);  // the inputs move on
  }
  settled_ = held;
}

void ExplicitCoupling::build_inputs(const model::ModularModel& model, int s, double h, double h_actual,
                                    const std::vector<char>* fresh) {
  InputPolynomials& p = buffers_.polynomials(s);
  p.setZero();
  const double period = rate_[static_cast<std::size_t>(s)] * h;  // τ = 1 at the end of the communication step
  const double reach = h_actual / period;
  const bool interpolates = interpolates_[static_cast<std::size_t>(s)] != 0;
  const int offset = model.input_offset(s);
  for (Eigen::Index j = 0; j < p.rows(); ++j) {
    const int g = offset + static_cast<int>(j);
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    const double value = buffers_.u(g);
    if (signal_input_[static_cast<std::size_t>(g)] != 0) {  // a known signal: its line over the step from t_N
      p(j, 0) = signal_values_(g);
      p(j, 1) = signal_slopes_(g);
      continue;
    }
    if (source < 0 || model.input_held(g) ||
        (fresh != nullptr && (*fresh)[static_cast<std::size_t>(model.system_of_output(source))] != 0)) {
      p(j, 0) = value;  // a constant, a held (discrete) input, or an output already at t_N + h
      continue;
    }
    const Eigen::Vector4d c = extrapolators_[static_cast<std::size_t>(g)].push(value);  // u(τ) = Σ c_k τ^k
    if (interpolates) {
      double scale = 1.0;
      for (int k = 0; k <= kMaxInputDegree; ++k, scale *= period) p(j, k) = c(k) / scale;  // in s = τ·period
    } else {
      double power = 1.0;  // reach^k
      for (int k = 0; k <= kMaxInputDegree; ++k, power *= reach)
        p(j, 0) += c(k) * power / (k + 1);  // mean over the step
    }
  }
}

std::string ExplicitCoupling::handle_discontinuity(model::ModularModel& model, double t) {
  const Eigen::VectorXd before = buffers_.u;  // at an event, not per step
  std::string terminated = restart_at_discontinuity(model, executor(), buffers_, buffers_.u, nullptr, t).terminated;
  // an input that jumped: its extrapolation restarts from the right limit (no history across it)
  for (int g = 0; g < model.total_inputs(); ++g) {
    if (buffers_.u(g) != before(g)) extrapolators_[static_cast<std::size_t>(g)].restart();
  }
  return terminated;
}

bool ExplicitCoupling::accept_unusual(const model::ModularModel& model, int s, const StepResult& result, double t,
                                      StepReport& report) {
  throw_if_failed(result, model.system(s), t);
  if (result.status == StepResult::Status::terminated) {
    report.terminated = true;
    report.reason = fmt::format("system '{}': {}", model.system(s).name(), result.reason);
    if (!result.step_completed) {  // the run ends at t_N, the last complete communication point
      report.h = 0.0;
      return false;
    }
  }
  fresh_[static_cast<std::size_t>(s)] = 1;
  return true;
}

StepReport ExplicitCoupling::step_plain(model::ModularModel& model, double t, double h_max) {
  StepReport report;
  report.h = h_max;
  if (settle_batches_.empty()) {
    settle_communication_point(model, executor(), buffers_, settle_sweeps_);  // ỹ(t_N), ũ = Φᵀ ỹ(t_N)
  } else {
    settle_plain(model, t);  // the same, compiled
  }
  if (model.has_feedthrough()) coupling_error_.set_start_outputs(buffers_.y);
  const double span = std::min(h_max, stop_time() - t);
  for (std::size_t b = 0; b < plain_batches_.size(); ++b) {
    exec::PlainBatch& batch = plain_batches_[b];
    // Gauss–Seidel: the inputs of sequence_[b] from the outputs already at t_N + h before it; Jacobi's
    // were taken above. The outputs land in ỹ directly.
    if (plain_batches_.size() > 1) {
      model.dispatch_to(sequence_[b], buffers_.y, buffers_.u);
      model.exchange_wide_into(sequence_[b]);
    }
    batch.set_step(span);
    if (plain_batches_.size() == 1 && !settle_batches_.empty() && settled_ != held_in_batch_) {
      // Jacobi: the settled systems hold their inputs (the entries change only when that does)
      for (std::size_t i = 0; i < batch.size(); ++i) batch[i].inputs_held = settled_ && settles_[i] != 0;
      held_in_batch_ = settled_;
    }
    executor().execute(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!accept(model, batch[i].system, batch[i].result, t, report)) return report;
    }
  }
  return report;
}

StepReport ExplicitCoupling::attempt(model::ModularModel& model, double t, double h) {
  return plain_batches_.empty() ? step_orders(model, t, h) : step_plain(model, t, h);
}

void ExplicitCoupling::commit(double t, double h) {
  coupling_error_.record(t, std::min(h, stop_time() - t), inputs_at_start(), inputs_at_end(), buffers_.y);
  ++base_step_;
}

StepReport ExplicitCoupling::step(model::ModularModel& model, double t, double h_max) {
  return control_.enabled() ? step_controlled(model, t, h_max) : step_fixed(model, t, h_max);
}

StepReport ExplicitCoupling::step_fixed(model::ModularModel& model, double t, double h) {
  StepReport report = attempt(model, t, h);  // the one named result: built in the caller's slot, not moved
  if (report.h > 0.0) commit(t, h);
  return report;
}

void ExplicitCoupling::snapshot(const model::ModularModel& model, double t, bool restore) {
  if (restore) {
    buffers_.y = y_saved_;  // assigned in place: the plain batches hold slices of both
    buffers_.u = u_saved_;
  } else {
    y_saved_ = buffers_.y;
    u_saved_ = buffers_.u;
  }
  buffers_.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    exec::Order& order = buffers_.batch.order(s);
    order.restore = restore;
    order.save = !restore;
  }
  executor().execute(buffers_.batch);
  for (int s = 0; s < model.system_count(); ++s) throw_if_failed(buffers_.batch.reply(s).result, model.system(s), t);
}

StepReport ExplicitCoupling::step_controlled(model::ModularModel& model, double t, double h) {
  std::int64_t rejected = 0;
  for (bool first = true;; first = false) {
    if (can_redo_) snapshot(model, t, !first);
    StepReport report = attempt(model, t, h);
    report.rejected = rejected;
    if (report.h == 0.0) return report;  // a system asked to stop before completing the step
    const double span = std::min(h, stop_time() - t);
    const double error = coupling_error_.step_error(span, inputs_at_start(), inputs_at_end(), buffers_.y, false,
                                                    options_.control.tolerance, options_.control.atol);
    const bool redo = can_redo_ && !report.terminated;
    if (!control_.rejects(span, error, redo)) {
      control_.accept(span, error);
      report.at_step_floor = control_.at_floor();
      commit(t, h);
      return report;
    }
    ++rejected;
    h = control_.next();
  }
}

std::vector<std::pair<std::string, double>> ExplicitCoupling::totals() const {
  if (!control_.enabled()) return {};
  return {{"steps_over_tolerance", static_cast<double>(control_.over_tolerance())}};
}

StepReport ExplicitCoupling::step_orders(model::ModularModel& model, double t, double h_max) {
  StepReport report;
  report.h = h_max;
  const double tiny = 1e-12 * std::max(1.0, std::abs(t));
  for (std::size_t s = 0; s < rate_.size(); ++s) due_[s] = base_step_ % rate_[s] == 0 ? 1 : 0;
  settle_communication_point(model, executor(), buffers_, settle_sweeps_, &due_);  // ỹ(t_N), ũ = Φᵀ ỹ(t_N)
  if (model.has_feedthrough()) coupling_error_.set_start_outputs(buffers_.y);
  if (!signal_sources_.empty()) read_signal_slopes(model, t);
  // Jacobi: the due systems in one batch (concurrently where the executor can); Gauss–Seidel: one
  // system per batch, each seeing the outputs at t_N + h of those stepped before it.
  const bool jacobi = options_.scheme == Scheme::jacobi;
  std::fill(fresh_.begin(), fresh_.end(), 0);
  for (std::size_t first = 0; first < sequence_.size(); first += jacobi ? sequence_.size() : 1) {
    if (!jacobi) {
      model.dispatch_to(sequence_[first], buffers_.y, buffers_.u);
      model.exchange_wide_into(sequence_[first]);
    }
    buffers_.batch.clear();
    for (std::size_t k = first; k < (jacobi ? sequence_.size() : first + 1); ++k) {
      const int s = sequence_[k];
      if (due_[static_cast<std::size_t>(s)] == 0) continue;
      const double span = std::min(rate_[static_cast<std::size_t>(s)] * h_max, stop_time() - t);
      build_inputs(model, s, h_max, span, jacobi ? nullptr : &fresh_);
      buffers_.input_ends(model, s, span, u_start_, u_end_);
      exec::Order& order = buffers_.order_with_inputs(model, s);
      order.step = span;
      order.read_order = 0;
      publish_at_[static_cast<std::size_t>(s)] = t + span;
    }
    executor().execute(buffers_.batch);
    for (const int s : buffers_.batch.active()) {
      const exec::Reply& reply = buffers_.batch.reply(s);
      if (!accept(model, s, reply.result, t, report)) return report;
      if (!reply.result.ok()) continue;  // it asked to stop after this step: its outputs were not read
      if (options_.rates.empty()) {      // one rate: every step ends now, publish at once
        buffers_.y.segment(model.output_offset(s), model.system(s).output_count()) = reply.outputs.col(0);
      } else {
        pending_[static_cast<std::size_t>(s)] = reply.outputs.col(0);
      }
    }
    // multi-rate: publish the outputs of any system whose communication step ends now
    const auto publish = [&](int s) {
      if (publish_at_[static_cast<std::size_t>(s)] > t + h_max + tiny) return;
      buffers_.y.segment(model.output_offset(s), model.system(s).output_count()) =
          pending_[static_cast<std::size_t>(s)];
      publish_at_[static_cast<std::size_t>(s)] = std::numeric_limits<double>::infinity();
    };
    if (!options_.rates.empty()) {
      for (int s = 0; s < model.system_count(); ++s) publish(s);
    }
  }
  return report;
}

namespace {

std::unique_ptr<CouplingMethod> make_explicit_coupling(const OptionReader& options, ExplicitCoupling::Scheme scheme,
                                                       double dt) {
  ExplicitCoupling::Options o;
  o.dt = dt;
  o.scheme = scheme;
  o.order = options.names("order");
  o.allow_algebraic_loops = options.flag("allow_algebraic_loops", false);
  if (options.has("extrapolation") &&
      options.spec().at("extrapolation").is_object()) {  // by input, "default" for the rest
    for (const auto& [input, value] : options.spec().at("extrapolation").items()) {
      if (!value.is_string()) throw Error(fmt::format("method.extrapolation.{} must be a string", input));
      if (input == "default") {
        o.extrapolation = value.get<std::string>();
      } else {
        o.extrapolation_of[input] = value.get<std::string>();
      }
    }
  } else {
    o.extrapolation = options.text("extrapolation", "zoh");
  }
  (void)extrapolation::parse_extrapolation(o.extrapolation);
  for (const auto& [input, text] : o.extrapolation_of) (void)extrapolation::parse_extrapolation(text);
  o.cliff = options.number("cliff", o.cliff);
  o.memory = options.integer("memory", o.memory, 1, 1000000);
  o.plain_steps = options.flag("plain_steps", true);
  o.control = error_control_options(options);
  if (options.has("rates")) {
    if (!options.spec().at("rates").is_object()) throw Error("method.rates must be an object {\"system\": k}");
    for (const auto& [system, value] : options.spec().at("rates").items()) {
      o.rates[system] =
          OptionReader::integer_of(value, "rates." + system, -(1 << 30), 1 << 30);  // checked by the method
    }
  }
  return std::make_unique<ExplicitCoupling>(std::move(o));
}

std::vector<MethodOption> explicit_options(bool gauss_seidel) {
  std::vector<MethodOption> options;
  if (gauss_seidel) {
    options.push_back({"order", "scenario order", "the systems' order of the sweep, by name"});
    options.push_back({"allow_algebraic_loops", "false", "run although the sweep order leaves an algebraic loop"});
  }
  options.push_back({"extrapolation", "zoh",
                     "input extrapolation: zoh, choptrey, choptrey:W or poly:… (or an object by input, \"default\" "
                     "for the rest)"});
  options.push_back({"cliff", "0.9", "Γ of CHOPtrey (seed 002)"});
  options.push_back({"memory", "16", "Λ of CHOPtrey: past samples kept"});
  if (!gauss_seidel) options.push_back({"rates", "", "multi-rate: {\"system\": k}, each system's rate (default 1)"});
  options.push_back({"plain_steps", "true", "step the common case as one plain batch (false: always as orders)"});
  return joined(std::move(options), {error_control_option_schema()});
}

}  // namespace

void register_explicit_coupling() {
  register_method({.name = "jacobi",
                   .summary = "non-iterative Jacobi: every system steps on its inputs extrapolated from t_N",
                   .options = explicit_options(false),
                   .make = [](const OptionReader& o, double dt) {
                     return make_explicit_coupling(o, ExplicitCoupling::Scheme::jacobi, dt);
                   }});
  register_method({.name = "gauss-seidel",
                   .summary = "non-iterative Gauss–Seidel: systems step in turn on the outputs already computed",
                   .options = explicit_options(true),
                   .make = [](const OptionReader& o, double dt) {
                     return make_explicit_coupling(o, ExplicitCoupling::Scheme::gauss_seidel, dt);
                   }});
}

}  // namespace cosima::methods
