#include "methods/ifosmondi.hpp"
#include "methods/method_registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"

namespace cosima::methods {

Ifosmondi::Ifosmondi(Options options)
    : options_(std::move(options)), interface_jumps_(options_.jumps), output_jumps_(options_.jumps) {
  if (options_.control.h_min <= 0.0) options_.control.h_min = options_.dt_ref * 1e-6;
}

std::vector<CapabilityNeed> Ifosmondi::needs(const System& system) const {
  std::vector<CapabilityNeed> needs = {{Capability::interpolate_inputs, ""}, {Capability::variable_step, ""}};
  if (system.has(Capability::rollback) || system.input_count() == 0) {
    // a system without inputs and rollback runs ahead (system/emulation/run_ahead_system.hpp)
    needs.push_back({Capability::rollback, ""});
    needs.push_back({Capability::output_derivatives, ""});
  } else {  // COSTARICA stands in for it
    needs.push_back({Capability::state_access, ", needed by COSTARICA as the system has no rollback"});
    needs.push_back({Capability::linearization, ", needed by COSTARICA as the system has no rollback"});
  }
  return needs;
}

void Ifosmondi::check(const model::ModularModel& model) const { check_needs(model); }

void Ifosmondi::initialize(model::ModularModel& model, double t_start) {
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  const Eigen::Index n = model.total_inputs();
  u_start_ = buffers_.u;  // u_init
  du_start_.setZero(n);
  x_.setZero(2 * n);
  dy_.setZero(model.total_outputs());
  y_trial_.setZero(model.total_outputs());
  dy_trial_.setZero(model.total_outputs());
  plain_.resize(static_cast<std::size_t>(model.system_count()), model.system_count());
  estimators_.resize(static_cast<std::size_t>(model.system_count()), model.system_count());
  estimated_.assign(static_cast<std::size_t>(model.system_count()), false);
  estimates_.assign(static_cast<std::size_t>(model.system_count()), exec::Reply{});
  buffers_.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    exec::Order& order = buffers_.batch.order(s);
    if (model.system(s).has(Capability::rollback)) {
      order.save = true;
    } else {  // COSTARICA stands in for it
      estimated_[static_cast<std::size_t>(s)] = true;
      order.configure_estimator = options_.estimator;
    }
  }
  executor().execute(buffers_.batch);
  solver_ = nonlinear::make_nonlinear_solver(options_.nonlinear, 2 * n);
  first_step_ = true;
  h_next_ = options_.dt_ref;
  control_.configure(options_.control, 4.0, options_.dt_ref);  // the Hermite interpolation error: O(h⁴)
  interface_jumps_.reset(u_start_);
  output_jumps_.reset(buffers_.y);
  jumped_.assign(static_cast<std::size_t>(model.system_count()), 0);
  jumps_located_ = estimated_jumps_ = steps_at_published_tolerance_ = 0;
  const double horizon = stop_time() - t_start;
  horizon_ = std::isfinite(horizon) && horizon > 0.0 ? horizon : 0.0;
}

double Ifosmondi::step_tolerance_scale(double h) const {
  return options_.per_step && horizon_ > 0.0 ? std::min(1.0, h / horizon_) : 1.0;
}

nonlinear::NonlinearResult Ifosmondi::solve_interface(const nonlinear::Residual& gamma, double h) {
  const double scale = step_tolerance_scale(h);
  solver_->set_tolerance_scale(scale);
  nonlinear::NonlinearResult result = solver_->solve(gamma, x_);
  if (result.converged || scale == 1.0 || !failure_.empty()) return result;
  const int iterations = result.iterations;
  solver_->set_tolerance_scale(1.0);
  result = solver_->solve(gamma, x_);
  result.iterations += iterations;
  if (result.converged) ++steps_at_published_tolerance_;
  return result;
}

bool Ifosmondi::failed(const model::ModularModel& model) {
  for (std::size_t i = 0; i < plain_.size(); ++i) {
    const int s = plain_[i].system;
    const StepResult& result = plain_[i].result;
    if (result.ok()) continue;
    if (result.status == StepResult::Status::terminated) {
      failure_ = result.reason;
      terminated_ = result.reason;
    } else {
      failure_ = fmt::format("system '{}' failed: {}", model.system(s).name(), result.reason);
    }
    return true;
  }
  return false;
}

bool Ifosmondi::evaluate(model::ModularModel& model, HermiteKind kind, double h, ConstVectorView u_end,
                         ConstVectorView du_end) {
  // the rollback systems integrate for real from their snapshot at t_N, all in one batch
  plain_.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (estimated(s)) continue;
    buffers_.hermite(model, s, kind, h, u_start_, du_start_, u_end, du_end);
    const int offset = model.output_offset(s), count = model.output_count(s);
    exec::PlainBatch::Entry& entry =
        plain_.add_polynomial(s, h, buffers_.held_polynomials(model, s), y_trial_.segment(offset, count));
    entry.dy = dy_trial_.data() + offset;
    entry.restore = true;
  }
  executor().execute(plain_);
  if (failed(model)) return false;
  for (std::size_t i = 0; i < plain_.size(); ++i) {
    const int offset = model.output_offset(plain_[i].system);
    const auto count = static_cast<Eigen::Index>(plain_[i].outputs);
    buffers_.y.segment(offset, count) = y_trial_.segment(offset, count);
    dy_.segment(offset, count) = dy_trial_.segment(offset, count);
  }
  // the others are estimated (COSTARICA update 3)
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) continue;
    const int offset = model.output_offset(s), count = model.output_count(s);
    exec::estimate_from(estimates_[static_cast<std::size_t>(s)],
                        buffers_.hermite(model, s, kind, h, u_start_, du_start_, u_end, du_end),
                        buffers_.y.segment(offset, count), dy_.segment(offset, count));
  }
  return buffers_.y.allFinite() && dy_.allFinite();
}

double Ifosmondi::integrate_estimated(model::ModularModel& model, HermiteKind kind, double h, double t) {
  const Eigen::Index n = model.total_inputs();
  buffers_.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) continue;
    buffers_.hermite(model, s, kind, h, u_start_, du_start_, x_.head(n), x_.tail(n));
    exec::Order& order = buffers_.order_with_inputs(model, s);
    order.step = h;
    order.read_order = 0;
  }
  executor().execute(buffers_.batch);
  double gap = std::numeric_limits<double>::quiet_NaN();
  std::fill(jumped_.begin(), jumped_.end(), 0);
  y_real_ = buffers_.y;  // the estimated systems' real outputs replace their estimates below
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) continue;
    const exec::Reply& reply = buffers_.batch.reply(s);
    throw_if_failed(reply.result, model.system(s), t);  // no rollback: the step cannot be retried
    const int offset = model.output_offset(s);
    const auto estimate = buffers_.y.segment(offset, model.output_count(s));
    const double system_gap = (reply.outputs.col(0) - estimate).lpNorm<Eigen::Infinity>();
    gap = std::isnan(gap) ? system_gap : std::max(gap, system_gap);
    y_real_.segment(offset, model.output_count(s)) = reply.outputs.col(0);
    if (output_jumps_.estimate_jumped(reply.outputs.col(0), estimate, offset)) jumped_[static_cast<std::size_t>(s)] = 1;
    output_jumps_.observe_segment(reply.outputs.col(0), offset);
  }
  return gap;
}

bool Ifosmondi::prepare_estimators(const model::ModularModel& model, double h, const Eigen::VectorXd* u_now) {
  // COSTARICA update 1 (once per t_N, when u_now is given) and update 2 (per step size), into estimates_
  estimators_.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) continue;
    const double* u = u_now != nullptr ? u_now->data() + model.input_offset(s) : nullptr;
    estimators_.add_estimate(s, u, model.input_count(s), h, estimates_[static_cast<std::size_t>(s)]);
  }
  if (estimators_.size() == 0) return true;
  executor().execute(estimators_);
  for (std::size_t i = 0; i < estimators_.size(); ++i) {
    const int s = estimators_[i].system;
    const exec::Reply& estimate = estimates_[static_cast<std::size_t>(s)];
    if (!estimate.estimate_ok) {
      failure_ = fmt::format("COSTARICA estimator of system '{}': {}", model.system(s).name(), estimate.result.reason);
      return false;
    }
  }
  return true;
}

std::string Ifosmondi::handle_discontinuity(model::ModularModel& model, double t) {
  // no C¹ link across the jump: the next step starts from the right limits and their derivatives
  return restart_c1_interface(model, executor(), buffers_, u_start_, du_start_, t, first_step_);
}

std::vector<std::pair<std::string, double>> Ifosmondi::totals() const {
  std::vector<std::pair<std::string, double>> totals = {{"jumps_located", static_cast<double>(jumps_located_)},
                                                        {"estimated_jumps", static_cast<double>(estimated_jumps_)}};
  if (options_.per_step) {
    totals.emplace_back("steps_at_published_tolerance", static_cast<double>(steps_at_published_tolerance_));
  }
  if (control_.enabled()) totals.emplace_back("steps_over_tolerance", static_cast<double>(control_.over_tolerance()));
  return totals;
}

void Ifosmondi::save_snapshots(model::ModularModel& model) {
  buffers_.batch.clear();  // snapshots at t_N
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) buffers_.batch.order(s).save = true;
  }
  executor().execute(buffers_.batch);
}

nonlinear::NonlinearResult Ifosmondi::iterate(model::ModularModel& model, double h, bool begin_estimators,
                                              StepReport& report) {
  const Eigen::Index n = model.total_inputs();
  // ζ at its first call on τ: "moving on" (eq. 20) — or constant inputs on the very first step
  const HermiteKind moving_on = first_step_ ? HermiteKind::constant : HermiteKind::moving_on;
  nonlinear::NonlinearResult result;
  failure_.clear();
  terminated_.clear();
  const bool prepared = prepare_estimators(model, h, begin_estimators ? &u_start_ : nullptr);
  if (!prepared || !evaluate(model, moving_on, h, u_start_, du_start_)) {
    result.reason = failure_;
    return result;
  }
  model.dispatch(buffers_.y, buffers_.u);
  model.dispatch_derivatives(dy_, du_);
  x_ << buffers_.u, du_;  // initial guess Ψ(moving on)
  const HermiteKind iterate = first_step_ ? HermiteKind::first_step : HermiteKind::cubic;
  // (captures two pointers, which std::function holds without allocating)
  const struct {
    model::ModularModel& model;
    HermiteKind kind;
    double h;
  } context{model, iterate, h};
  const nonlinear::Residual gamma = [this, &context](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
    const Eigen::Index inputs = context.model.total_inputs();
    if (const int signal = stop_requested(); signal != 0) {  // SIGINT inside the iteration: end at t_N
      terminated_ = failure_ = fmt::format("interrupted by {}", stop_signal_name(signal));
      return false;
    }
    last_x_ = x;
    if (!evaluate(context.model, context.kind, context.h, x.head(inputs), x.tail(inputs))) return false;
    context.model.dispatch(buffers_.y, buffers_.u);
    context.model.dispatch_derivatives(dy_, du_);
    out.resize(2 * inputs);
    out << x.head(inputs) - buffers_.u, x.tail(inputs) - du_;  // eq. 24
    return true;
  };
  if (n == 0) {
    result.converged = true;  // no coupling unknowns: the moving-on evaluation is the step
  } else {
    if (options_.nonlinear.criterion == nonlinear::Criterion::componentwise) {  // u̇ weighted by the step
      weights_.resize(2 * n);
      weights_.head(n).setOnes();
      weights_.tail(n).setConstant(h);
      solver_->set_weights(weights_);
    }
    result = solve_interface(gamma, h);
  }
  report.iterations += result.iterations;
  if (!result.converged && !failure_.empty()) result.reason = failure_;  // a system failed: name it
  // leave the systems in the state of the converged inputs
  if (result.converged && (last_x_.size() != x_.size() || last_x_ != x_)) {
    if (!evaluate(model, iterate, h, x_.head(n), x_.tail(n))) {
      result.converged = false;
      result.reason = failure_;
    }
  }
  return result;
}

int Ifosmondi::jumped_input(double h, Eigen::Index n) {
  // not tested on a first step, whose start derivatives are unknown
  if (interface_jumps_.locating()) return interface_jumps_.contains(u_start_, x_.head(n));
  if (first_step_) return -1;
  return interface_jumps_.jumped(u_start_, du_start_, x_.head(n), x_.tail(n), h);
}

void Ifosmondi::accept(model::ModularModel& model, double t, double h, int jumped, StepReport& report) {
  const Eigen::Index n = model.total_inputs();
  report.estimate_gap = integrate_estimated(model, first_step_ ? HermiteKind::first_step : HermiteKind::cubic, h, t);
  if (jumped < 0 && interface_jumps_.locating()) {
    // short of the jump, the suspected signal's derivative may be read across it (a forward
    // difference straddling it is a spike): the next piece starts from the secant instead
    const int g = interface_jumps_.suspected_signal();
    x_(n + g) = (x_(g) - u_start_(g)) / h;
  }
  if (control_.enabled()) {  // the next step also answers for the estimated systems' gap, now known
    const double gap = coupling_error_.step_error(h, u_start_, x_.head(n), y_real_, false, options_.control.tolerance,
                                                  options_.control.atol);
    control_.accept(h, std::fmax(trial_error_, gap));  // fmax: the one of them that is known
  }
  coupling_error_.record_hermite(t, h, u_start_, x_.head(n), y_real_);
  u_start_ = x_.head(n);
  du_start_ = x_.tail(n);
  first_step_ = false;
  // eq. 28 (min: erratum), or the error controller's step
  h_next_ = control_.enabled() ? control_.next() : std::min(options_.dt_ref, options_.growth * h);
  report.at_step_floor = control_.at_floor();
  if (jumped >= 0) {  // located: the next step starts from the right limits, with the step before
    ++jumps_located_;
    log(LogLevel::info, fmt::format("{}: input '{}' jumps in [{}, {}] (h = {:.3g}): the interface restarts there",
                                    name(), model.input_label(jumped), t, t + h, h));
    h_next_ = std::max(h_next_, interface_jumps_.close_suspicion());
    coupling_error_.forget_start();  // no defect or interpolation error across the jump
  } else if (interface_jumps_.locating() && t + h >= interface_jumps_.suspected_until()) {
    (void)interface_jumps_.close_suspicion();  // passed in shorter steps without a jump: a false alarm
  }
  interface_jumps_.observe(u_start_);
  report.h = h;
  if (std::find(jumped_.begin(), jumped_.end(), 1) != jumped_.end()) {
    // an estimated system's real outputs jumped away from its estimate: what it feeds restarts
    // from its real outputs at t + h (it has no rollback to locate the jump)
    ++estimated_jumps_;
    report.reason =
        restart_c1_interface(model, executor(), buffers_, u_start_, du_start_, t + h, first_step_, &jumped_);
    coupling_error_.forget_start();  // the interface restarts from right limits: no defect across the jump
    report.terminated = !report.reason.empty();
  }
}

StepReport Ifosmondi::step(model::ModularModel& model, double t, double h_max) {
  StepReport report;
  double h = h_max;  // proposed_step(), clipped to the stop time by the driver
  save_snapshots(model);
  for (bool first_try = true;; first_try = false) {
    const nonlinear::NonlinearResult result = iterate(model, h, first_try, report);
    if (!result.converged && !terminated_.empty()) {
      // a system asked to end the run inside the step, or a stop signal came: the run ends at t_N,
      // the last point every system agreed on (as a Jacobi run ends where its system asked)
      report.terminated = true;
      report.reason = terminated_;
      report.h = 0.0;
      return report;
    }
    if (result.converged) {
      // an unannounced jump in the interface: located by halving the step (jump_detector.hpp)
      const int jumped = jumped_input(h, model.total_inputs());
      if (jumped < 0 || interface_jumps_.located(t, h)) {
        if (!within_tolerance(model, h, report)) {
          h = control_.next();
          continue;
        }
        accept(model, t, h, jumped, report);
        return report;
      }
      if (!interface_jumps_.locating()) {
        interface_jumps_.suspect(jumped, u_start_, x_.head(model.total_inputs()), t + h, h);
        log(LogLevel::info, fmt::format("{}: input '{}' jumps from {} to {} in [{}, {}]: locating it", name(),
                                        model.input_label(jumped), u_start_(jumped), x_(jumped), t, t + h));
      }
      ++report.rejected;
      h *= 0.5;
      continue;
    }
    // rejected: retry on half the step from t_N ("moving on" again, subcase 2.2); every
    // evaluation restores the rollback systems, the estimated ones never left t_N
    ++report.rejected;
    log(LogLevel::info, fmt::format("{}: step [{}, {}] rejected: {}", name(), t, t + h, result.reason));
    h *= 0.5;
    if (h < options_.control.h_min) {
      throw Error(
          fmt::format("{}: no convergence at t = {} even with the step reduced to {:.3g} (minimum {:.3g}): {}{}",
                      name(), t, 2 * h, options_.control.h_min, result.reason, why_no_convergence()));
    }
  }
}

std::string Ifosmondi::why_no_convergence() const {
  if (options_.nonlinear.solver == "fixed-point" && failure_.empty()) {
    return " — the fixed point cannot converge when the coupling is not contractive (spectral radius ≥ 1); use "
           "ifosmondi-jfm";
  }
  // seed 001 §5 (Fig. 8): NGMRES without line search fails where the coupling is far from
  // contractive (ρ = 10 there; on B1 here from ρ = 5), its variant with line search converges
  if (options_.nonlinear.solver == "ngmres") {
    return " — method.jfm = \"ngmres\" (without line search) does not converge on strongly non-contractive couplings "
           "(seed 001 Fig. 8); \"ngmres-ls\", \"newtonls\" or \"anderson\" do";
  }
  return "";
}

bool Ifosmondi::within_tolerance(const model::ModularModel& model, double h, StepReport& report) {
  if (!control_.enabled()) return true;
  const double error = coupling_error_.step_error(h, u_start_, x_.head(model.total_inputs()), buffers_.y, true,
                                                  options_.control.tolerance, options_.control.atol);
  if (!control_.rejects(h, error, true)) {
    trial_error_ = error;
    return true;
  }
  ++report.rejected;
  return false;
}

namespace {

std::unique_ptr<CouplingMethod> make_ifosmondi(const OptionReader& options, double dt, bool jfm) {
  Ifosmondi::Options o;
  o.control = error_control_options(options);
  // under tolerance, eq. 27 leaves a hundredth of it by default (the ends' defect is what it leaves)
  const double epsilon =
      options.positive("epsilon", o.control.enabled() ? std::min(1e-4, 1e-2 * o.control.tolerance) : 1e-4);
  o.nonlinear.epsilon_abs = options.positive("epsilon_abs", epsilon);
  o.nonlinear.epsilon_rel = options.positive("epsilon_rel", epsilon);
  // the fixed point contracts slowly near ρ = 1: it gets more iterations by default
  o.nonlinear.max_iterations = options.integer("max_iterations", jfm ? 100 : 500, 1, 1 << 30);
  o.nonlinear.solver = jfm ? options.text("jfm", "anderson") : "fixed-point";
  if (jfm && o.nonlinear.solver == "fixed-point") throw Error("method.jfm: use method 'ifosmondi' for the fixed point");
  o.nonlinear.petsc_options = options.text("petsc_options", "");
  const std::string criterion = options.text("criterion", "norm");
  if (criterion != "norm" && criterion != "componentwise") {
    throw Error(
        fmt::format("method.criterion is '{}': 'norm' (eq. 27, one norm over the unknowns) or 'componentwise' "
                    "(each unknown against its own scale)",
                    criterion));
  }
  o.nonlinear.criterion =
      criterion == "componentwise" ? nonlinear::Criterion::componentwise : nonlinear::Criterion::norm;
  o.per_step = options.flag("epsilon_per_step", true);
  o.dt_ref = dt;
  o.estimator = estimator_options(options);
  o.jumps = jump_options(options);
  return std::make_unique<Ifosmondi>(std::move(o));
}

std::vector<MethodOption> ifosmondi_options(bool jfm) {
  std::vector<MethodOption> options = {
      {"epsilon", "1e-4",
       "the convergence tolerance of eq. 27 (both parts); under tolerance: min(1e-4, tolerance/100)"},
      {"epsilon_abs", "epsilon", "its absolute part"},
      {"epsilon_rel", "epsilon", "its relative part"},
      {"max_iterations", jfm ? "100" : "500", "iterations per step before the step is halved"},
      {"criterion", "norm", "norm (eq. 27 over all unknowns) or componentwise"},
      {"epsilon_per_step", "true",
       "both tolerances times h/(stop − start), so the coupling error falls with the step; false: eq. 27 as "
       "published (seed 001). A step the systems cannot solve that tightly is accepted by eq. 27 as published "
       "and counted (steps_at_published_tolerance)"},
  };
  if (jfm) {
    options.push_back(
        {"jfm", "anderson", "the solver (PETSc SNES): anderson, anderson-paper, ngmres, ngmres-ls, newtonls, petsc"});
    options.push_back({"petsc_options", "", "extra PETSc options, as on a PETSc command line"});
  }
  return joined(std::move(options), {error_control_option_schema(), estimator_option_schema(), jump_option_schema()});
}

}  // namespace

void register_ifosmondi() {
  register_method({.name = "ifosmondi",
                   .summary = "IFOSMONDI (seed 001): C¹ cubic interfaces iterated by a fixed point",
                   .options = ifosmondi_options(false),
                   .make = [](const OptionReader& o, double dt) { return make_ifosmondi(o, dt, false); }});
  register_method({.name = "ifosmondi-jfm",
                   .summary = "IFOSMONDI-JFM (seed 001): the same interfaces solved by a Jacobian-free method (PETSc)",
                   .options = ifosmondi_options(true),
                   .make = [](const OptionReader& o, double dt) { return make_ifosmondi(o, dt, true); }});
}

}  // namespace cosima::methods
