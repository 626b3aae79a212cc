#include "methods/missiles.hpp"
#include "methods/method_registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "estimator/output_estimator.hpp"

namespace cosima::methods {

Missiles::Missiles(Options options) : options_(options), jumps_(options.jumps) {}

namespace {

/// The inputs of `system` that can take a continuous signal (continuous Real ones): the probed ones.
int continuous_inputs(const System& system) {
  int count = 0;
  for (int j = 0; j < system.input_count(); ++j) {
    if (system.input_info(j).kind == PortKind::real && system.input_info(j).continuous) ++count;
  }
  return count;
}

bool has_continuous_input(const System& system) { return continuous_inputs(system) > 0; }

/// Whether a connection drives a continuous input of system s (one the model does not hold over the step).
bool continuously_fed(const model::ModularModel& model, int s) {
  for (int j = 0; j < model.input_count(s); ++j) {
    const int g = model.input_offset(s) + j;
    if (model.input_sources()[static_cast<std::size_t>(g)] >= 0 && !model.input_held(g)) return true;
  }
  return false;
}

}  // namespace

std::vector<CapabilityNeed> Missiles::stepped_first_needs(const System& system) const {
  std::vector<CapabilityNeed> needs = {
      {Capability::output_derivatives, " (its K_D: no continuous input, no estimator)"}};
  // a step over the tolerance is redone from every system's snapshot: a system without inputs
  // and rollback runs ahead (system/emulation/run_ahead_system.hpp); one with discrete inputs and
  // no rollback leaves the steps over the tolerance as they are, warned about
  if (options_.control.enabled() && system.input_count() == 0) {
    needs.push_back({Capability::rollback, " (to redo a step over the tolerance)"});
  }
  return needs;
}

std::vector<CapabilityNeed> Missiles::needs(const System& system) const {
  if (!has_continuous_input(system)) return stepped_first_needs(system);
  if (estimator::estimator_kind(system) ==
      estimator::EstimatorKind::probing) {  // estimated by perturbed steps with restore
    return {{Capability::rollback, ""},
            {Capability::interpolate_inputs, ""},
            {Capability::output_derivatives, " (ŷ' at t_N + h of each probe)"}};
  }
  return {{Capability::state_access, ""}, {Capability::linearization, ""}, {Capability::interpolate_inputs, ""}};
}

std::string Missiles::stand_in(const System& system) const {
  if (!has_continuous_input(system) || estimator::estimator_kind(system) != estimator::EstimatorKind::probing)
    return {};
  return fmt::format(
      "estimates it by perturbed steps with restore (it has no states and linearization): {} "
      "integrations per macro-step",
      2 + 4 * continuous_inputs(system));
}

void Missiles::check(const model::ModularModel& model) const {
  check_needs(model,
              " (its COSTARICA estimators read states and linearizations, or probe a system that can be rolled back; "
              "the inputs are Hermite polynomials)",
              [&](int s) {
                return continuously_fed(model, s) ? needs(model.system(s)) : stepped_first_needs(model.system(s));
              });
}

std::vector<std::pair<std::string, double>> Missiles::totals() const {
  std::vector<std::pair<std::string, double>> totals = {{"estimated_jumps", static_cast<double>(estimated_jumps_)}};
  if (control_.enabled()) totals.emplace_back("steps_over_tolerance", static_cast<double>(control_.over_tolerance()));
  return totals;
}

std::string Missiles::handle_discontinuity(model::ModularModel& model, double t) {
  return restart_c1_interface(model, executor(), buffers_, u_start_, du_start_, t, first_step_);
}

void Missiles::initialize(model::ModularModel& model, double t_start) {
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  u_start_ = buffers_.u;
  du_start_.setZero(model.total_inputs());
  jumps_.reset(buffers_.y);
  jumped_.assign(static_cast<std::size_t>(model.system_count()), 0);
  estimated_jumps_ = 0;
  buffers_.batch.clear();
  stepped_first_.assign(static_cast<std::size_t>(model.system_count()), 0);
  for (int s = 0; s < model.system_count(); ++s) {
    stepped_first_[static_cast<std::size_t>(s)] = continuously_fed(model, s) ? 0 : 1;
    if (!stepped_first(s)) buffers_.batch.order(s).configure_estimator = options_.estimator;
  }
  executor().execute(buffers_.batch);
  plain_.resize(static_cast<std::size_t>(model.system_count()), model.system_count());
  estimators_.resize(static_cast<std::size_t>(model.system_count()), model.system_count());
  estimates_.assign(static_cast<std::size_t>(model.system_count()), exec::Reply{});
  const Eigen::Index unknowns = 2 * static_cast<Eigen::Index>(model.total_outputs());
  rhs_.setZero(unknowns);
  solution_.setZero(unknowns);
  if (dense()) {  // the assembled matrix and the one factorized last trade places (solve)
    dense_.setZero(unknowns, unknowns);
    factorized_dense_.setZero(unknowns, unknowns);
  }
  first_step_ = true;
  pattern_analyzed_ = false;
  factorized_ = false;
  control_.configure(options_.control, 4.0, options_.dt);  // the Hermite interpolation error: O(h⁴)
  can_redo_ = true;
  for (int s = 0; s < model.system_count(); ++s) {
    if (stepped_first(s) && !model.system(s).has(Capability::rollback)) can_redo_ = false;
  }
}

void Missiles::assemble(const model::ModularModel& model, HermiteKind kind, double h) {
  const int n_out = model.total_outputs(), unknowns = 2 * n_out;
  if (dense()) {  // entries added in place, in the order the triplets would be summed in
    ensure_shape(dense_, unknowns, unknowns);
    std::fill(dense_.data(), dense_.data() + dense_.size(), 0.0);
    for (int r = 0; r < unknowns; ++r) dense_(r, r) += 1.0;
  } else {
    triplets_.clear();
    for (int r = 0; r < unknowns; ++r) triplets_.emplace_back(r, r, 1.0);
  }
  const Eigen::Matrix4d& hermite = buffers_.hermite_map_of(kind, h);  // (a0..a3) = H (v1, d1, v2, d2), eq. 54/55
  for (int s = 0; s < model.system_count(); ++s) assemble_system(model, s, hermite);
}

void Missiles::assemble_system(const model::ModularModel& model, int s, const Eigen::Matrix4d& hermite) {
  const int n_out = model.total_outputs();
  const exec::Reply& estimator = estimate_of(s);  // COSTARICA updates 1–2 of this step
  const estimator::LinearResponse& response = estimator.response;
  const int out_offset = model.output_offset(s), in_offset = model.input_offset(s);
  const bool integrated = stepped_first(s);  // no G: its inputs are known over the step
  const int outputs = model.output_count(s), inputs = integrated ? 0 : model.input_count(s);
  double* value_rows = rhs_.data() + out_offset;  // K_V, K_D; or, with no inputs, the real outputs at t_N + h
  double* derivative_rows = rhs_.data() + n_out + out_offset;
  const double* values = integrated ? estimator.outputs.col(0).data() : estimator.constant_value.data();
  const double* derivatives = integrated ? estimator.outputs.col(1).data() : estimator.constant_derivative.data();
  for (int i = 0; i < outputs; ++i) {
    value_rows[i] = values[i];
    derivative_rows[i] = derivatives[i];
  }
  const auto add = [this](int row, int column, double value) {
    if (dense()) {
      dense_(row, column) += value;
    } else {
      triplets_.emplace_back(row, column, value);
    }
  };
  for (int j = 0; j < inputs; ++j) {
    const int g = in_offset + j;
    const Eigen::Index first = kInputCoefficients * static_cast<Eigen::Index>(j);  // vec(Ξ̌) index 4j + k
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    for (int i = 0; i < outputs; ++i) {
      const int r = out_offset + i;
      // G·H for output i and input j (fixed 1×4·4×4: inlined)
      const Eigen::RowVector4d through_value = response.GV.block<1, kInputCoefficients>(i, first) * hermite;
      const Eigen::RowVector4d through_derivative = response.GD.block<1, kInputCoefficients>(i, first) * hermite;
      // known start of the interface: B_H (v1, d1)
      rhs_(r) += through_value(0) * u_start_(g) + through_value(1) * du_start_(g);
      rhs_(n_out + r) += through_derivative(0) * u_start_(g) + through_derivative(1) * du_start_(g);
      if (source >= 0) {  // −G A_H blockdiag(Φᵀ, Φᵀ): u(t_N+h) = a ŷ_source + b, u'(t_N+h) = a ŷ'_source
        const model::LinearTransform& transform = model.input_transform(g);
        const double a = transform.scale;
        add(r, source, -a * through_value(2));
        add(r, n_out + source, -a * through_value(3));
        add(n_out + r, source, -a * through_derivative(2));
        add(n_out + r, n_out + source, -a * through_derivative(3));
        if (transform.offset != 0.0) {
          rhs_(r) += through_value(2) * transform.offset;
          rhs_(n_out + r) += through_derivative(2) * transform.offset;
        }
      } else {  // a constant input: value known, derivative 0
        rhs_(r) += through_value(2) * model.constant_inputs()(g);
        rhs_(n_out + r) += through_derivative(2) * model.constant_inputs()(g);
      }
    }
  }
}

bool Missiles::solve() {
  const Eigen::Index unknowns = rhs_.size();
  // Lazy update (seed 000 Algorithm 3): the matrix of eq. 53 depends only on the estimators' G, h and
  // the Hermite kind. When it is entrywise the one factorized last (LTI systems on a fixed grid), the
  // factorization is reused: exact, no approximation.
  if (dense()) {
    if (!factorized_ || !same(dense_, factorized_dense_)) {
      dense_lu_.compute(dense_);       // a singular matrix shows as a non-finite solution
      factorized_dense_.swap(dense_);  // kept to compare; the next assemble() fills dense_ afresh
      factorized_ = true;
    }
    dense_lu_.solve(rhs_, solution_);
    return all_finite(solution_);
  }
  const auto same_entry = [](const Eigen::Triplet<double>& a, const Eigen::Triplet<double>& b) {
    return a.row() == b.row() && a.col() == b.col() && a.value() == b.value();
  };
  const bool refactorize = !factorized_ || factorized_unknowns_ != unknowns ||
                           !std::equal(triplets_.begin(), triplets_.end(), factorized_triplets_.begin(),
                                       factorized_triplets_.end(), same_entry);
  if (refactorize) {
    factorized_ = false;
    sparse_.resize(unknowns, unknowns);
    sparse_.setFromTriplets(triplets_.begin(), triplets_.end());
    if (!pattern_analyzed_) {  // the sparsity of eq. 53 is the same at every step
      sparse_lu_.analyzePattern(sparse_);
      pattern_analyzed_ = true;
    }
    sparse_lu_.factorize(sparse_);
    if (sparse_lu_.info() != Eigen::Success) return false;
    factorized_triplets_ = triplets_;  // capacity kept: no allocation once sized
    factorized_unknowns_ = unknowns;
    factorized_ = true;
  }
  solution_ = sparse_lu_.solve(rhs_);
  return all_finite(solution_);
}

void Missiles::estimate(model::ModularModel& model, double h, bool first, bool keep_snapshot) {
  // COSTARICA updates 1–2 on every system with continuous inputs, where it lives; the others
  // integrate the step, their inputs (discrete, constant) held at their values at t_N as under Jacobi
  buffers_.batch.clear();
  estimators_.clear();
  bool integrations = false;  // some system is stepped first
  for (int s = 0; s < model.system_count(); ++s) {
    const int inputs = model.input_count(s);
    if (!stepped_first(s)) {
      const double* u_now = first ? u_start_.data() + model.input_offset(s) : nullptr;  // update 1 once per t_N
      estimators_.add_estimate(s, u_now, inputs, h, estimates_[static_cast<std::size_t>(s)]);
      continue;
    }
    integrations = true;
    if (inputs > 0) {
      assign(buffers_.u.segment(model.input_offset(s), inputs), u_start_.segment(model.input_offset(s), inputs));
      buffers_.zoh(model, s);
    }
    exec::Order& order = inputs > 0 ? buffers_.order_with_inputs(model, s) : buffers_.batch.order(s);
    order.restore = !first;
    order.save = first && keep_snapshot;
    order.step = h;
    order.read_order = 1;
  }
  if (integrations) executor().execute(buffers_.batch);
  if (estimators_.size() > 0) executor().execute(estimators_);
}

const exec::Reply& Missiles::estimate_of(int s) const {
  return stepped_first(s) ? buffers_.batch.reply(s) : estimates_[static_cast<std::size_t>(s)];
}

bool Missiles::stopped(const StepResult& result, const System& system, double t, StepReport& report) {
  if (result.ok()) return false;
  if (result.status != StepResult::Status::terminated) {
    throw_if_failed(result, system, t);
    return false;
  }
  report.terminated = true;
  report.reason = result.reason;
  if (!result.step_completed) report.h = 0.0;
  return true;
}

std::string Missiles::solve_interface(model::ModularModel& model, HermiteKind kind, double t, double h) {
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimate_of(s).estimate_ok) {
      return fmt::format("missiles: estimator of system '{}' at t = {}: {}", model.system(s).name(), t,
                         estimate_of(s).result.reason);
    }
  }
  const int n_out = model.total_outputs();
  assemble(model, kind, h);
  if (!solve()) return fmt::format("missiles: the linear system of eq. 53 is singular at t = {} (h = {})", t, h);
  assign(buffers_.y, solution_.head(n_out));  // plain copies of a few values (core/small_matrix.hpp)
  assign(dy_, solution_.tail(n_out));
  model.dispatch(buffers_.y, u_end_);
  model.dispatch_derivatives(dy_, du_end_);
  return {};
}

void Missiles::integrate(model::ModularModel& model, HermiteKind kind, double h) {
  // one real integration per system with continuous inputs, all in one batch; the systems stepped
  // first are exact in buffers_.y already
  assign(y_real_, buffers_.y);
  plain_.clear();
  for (int s = 0; s < model.system_count(); ++s) {
    if (stepped_first(s)) continue;
    buffers_.hermite(model, s, kind, h, u_start_, du_start_, u_end_, du_end_);
    plain_.add_polynomial(s, h, buffers_.held_polynomials(model, s),
                          y_real_.segment(model.output_offset(s), model.output_count(s)));
  }
  executor().execute(plain_);
}

double Missiles::solve_within_tolerance(model::ModularModel& model, double t, double h, StepReport& report) {
  const HermiteKind kind = first_step_ ? HermiteKind::first_step : HermiteKind::cubic;
  const bool redo = control_.enabled() && can_redo_;
  for (bool first = true;; first = false) {
    estimate(model, h, first, redo);
    report.h = h;
    // a real integration that failed throws; one whose system asked to stop ends the step
    for (int s = 0; s < model.system_count(); ++s) {
      if (stepped_first(s) && stopped(buffers_.batch.reply(s).result, model.system(s), t, report)) {
        return 0.0;
      }
    }
    const std::string failure = solve_interface(model, kind, t, h);
    if (!control_.enabled() && !failure.empty()) throw Error(failure);
    if (!control_.enabled()) return h;
    // under tolerance, an estimator that fails on a long step is a rejection like a large error
    const double error = failure.empty() ? coupling_error_.step_error(h, u_start_, u_end_, buffers_.y, true,
                                                                      options_.control.tolerance, options_.control.atol)
                                         : std::numeric_limits<double>::infinity();
    if (!control_.rejects(h, error, redo)) {
      if (!failure.empty()) throw Error(failure);
      trial_error_ = error;
      return h;
    }
    ++report.rejected;
    h = control_.next();
  }
}

const Eigen::VectorXd& Missiles::left_limits(const model::ModularModel& model) {
  y_left_ = y_real_;
  for (int s = 0; s < model.system_count(); ++s) {
    if (jumped_[static_cast<std::size_t>(s)] == 0) continue;
    const int offset = model.output_offset(s), count = model.output_count(s);
    y_left_.segment(offset, count) = buffers_.y.segment(offset, count);
  }
  return y_left_;
}

StepReport Missiles::step(model::ModularModel& model, double t, double h_max) {
  StepReport report;
  report.estimate_gap = 0.0;
  const double h = solve_within_tolerance(model, t, h_max, report);
  if (h == 0.0) return report;
  const HermiteKind kind = first_step_ ? HermiteKind::first_step : HermiteKind::cubic;
  integrate(model, kind, h);
  std::fill(jumped_.begin(), jumped_.end(), 0);
  bool any_jump = false;
  for (std::size_t i = 0; i < plain_.size(); ++i) {
    const int s = plain_[i].system;
    if (stopped(plain_[i].result, model.system(s), t, report)) return report;
    const int offset = model.output_offset(s), count = model.output_count(s);
    const auto real = y_real_.segment(offset, count);
    const auto estimate = buffers_.y.segment(offset, count);
    report.estimate_gap = std::max(report.estimate_gap, (real - estimate).lpNorm<Eigen::Infinity>());
    if (jumps_.estimate_jumped(real, estimate, offset)) {
      jumped_[static_cast<std::size_t>(s)] = 1;
      any_jump = true;
    }
    jumps_.observe_segment(real, offset);
  }
  if (!std::isfinite(report.estimate_gap)) throw Error(fmt::format("missiles: non-finite outputs at t = {}", t + h));
  // The defect of a step is judged against the outputs' left limits at its end: for a system that
  // jumped, its estimate (the gap is the jump, not a coupling error, as at an announced event)
  const Eigen::VectorXd& y_left = any_jump ? left_limits(model) : y_real_;
  if (control_.enabled()) {  // the next step also answers for the estimates' gap, known now
    const double gap = coupling_error_.step_error(h, u_start_, u_end_, y_left, false, options_.control.tolerance,
                                                  options_.control.atol);
    control_.accept(h, std::fmax(trial_error_, gap));  // fmax: the one of them that is known
    report.at_step_floor = control_.at_floor();
  }
  coupling_error_.record_hermite(t, h, u_start_, u_end_, y_left);
  assign(u_start_, u_end_);  // C¹ inputs: the next step starts where this one ended
  assign(du_start_, du_end_);
  first_step_ = false;
  if (any_jump) {  // what a jumped system feeds restarts from its real outputs at t + h
    ++estimated_jumps_;
    report.reason =
        restart_c1_interface(model, executor(), buffers_, u_start_, du_start_, t + h, first_step_, &jumped_);
    coupling_error_.forget_start();  // the interface restarts from right limits: no defect across the jump
    report.terminated = !report.reason.empty();
  }
  return report;
}

void register_missiles() {
  register_method({.name = "missiles",
                   .summary = "MISSILES (seed 003): the C¹ interface of every step solved as one linear system",
                   .options = joined({{"sparse_above", "64", "unknowns from which the sparse LU is used"}},
                                     {error_control_option_schema(), estimator_option_schema(), jump_option_schema()}),
                   .make = [](const OptionReader& options, double dt) -> std::unique_ptr<CouplingMethod> {
                     Missiles::Options o;
                     o.control = error_control_options(options);
                     o.dt = dt;
                     o.estimator = estimator_options(options);
                     o.sparse_above = options.integer("sparse_above", o.sparse_above, 0, 1 << 30);
                     o.jumps = jump_options(options);
                     return std::make_unique<Missiles>(o);
                   }});
}

}  // namespace cosima::methods
