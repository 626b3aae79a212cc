#include "methods/ifosmondi.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"

namespace cosima {

Ifosmondi::Ifosmondi(Options options) : options_(std::move(options)) {
  if (options_.dt_min <= 0.0) options_.dt_min = options_.dt_ref * 1e-6;
}

void Ifosmondi::check(const ModularModel& model) const {
  std::string missing;
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    std::string lacks;
    const auto need = [&](Capability c, std::string_view why) {
      if (!system.has(c)) lacks += fmt::format("{}{} ({}){}", lacks.empty() ? "" : ", ", to_string(c), fmi_flag(c), why);
    };
    need(Capability::interpolate_inputs, "");
    need(Capability::variable_step, "");
    if (system.has(Capability::rollback)) {
      need(Capability::output_derivatives, "");
    } else {  // COSTARICA stands in for it
      need(Capability::state_access, ", needed by COSTARICA as the system has no rollback");
      need(Capability::linearization, ", needed by COSTARICA as the system has no rollback");
    }
    if (!lacks.empty()) missing += fmt::format("{}system '{}' lacks {}", missing.empty() ? "" : "; ", system.name(), lacks);
  }
  if (!missing.empty()) throw CapabilityError(fmt::format("method '{}' cannot run: {}", name(), missing));
}

void Ifosmondi::initialize(ModularModel& model, double t_start) {
  initialize_coupled(model, t_start, buffers_);
  const Eigen::Index n = model.total_inputs();
  u_start_ = buffers_.u;  // u_init
  du_start_.setZero(n);
  x_.setZero(2 * n);
  gamma_.setZero(2 * n);
  dy_.setZero(model.total_outputs());
  saved_.assign(static_cast<std::size_t>(model.system_count()), -1);
  estimators_.clear();
  estimators_.resize(static_cast<std::size_t>(model.system_count()));
  for (int s = 0; s < model.system_count(); ++s) {
    System& system = model.system(s);
    if (system.has(Capability::rollback)) {
      saved_[static_cast<std::size_t>(s)] = system.save_state();
    } else {
      estimators_[static_cast<std::size_t>(s)].emplace(options_.estimator).reset(system);
    }
  }
  solver_ = make_nonlinear_solver(options_.nonlinear, 2 * n);
  first_step_ = true;
  h_next_ = options_.dt_ref;
}

void Ifosmondi::restore(ModularModel& model) {
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) model.system(s).restore_state(saved_[static_cast<std::size_t>(s)]);
  }
}

bool Ifosmondi::evaluate(ModularModel& model, HermiteKind kind, double h, const Eigen::VectorXd& u_end,
                         const Eigen::VectorXd& du_end) {
  restore(model);
  for (int s = 0; s < model.system_count(); ++s) {
    System& system = model.system(s);
    auto y = buffers_.y.segment(model.output_offset(s), system.output_count());
    auto dy = dy_.segment(model.output_offset(s), system.output_count());
    if (estimated(s)) {
      estimators_[static_cast<std::size_t>(s)]->estimate(buffers_.hermite(model, s, kind, h, u_start_, du_start_, u_end, du_end), y, dy);
      continue;
    }
    buffers_.apply_hermite(model, s, kind, h, u_start_, du_start_, u_end, du_end);
    const StepResult result = system.do_step(h);
    if (!result.ok()) {
      failure_ = result.status == StepResult::Status::terminated
                     ? result.reason
                     : fmt::format("system '{}' failed: {}", system.name(), result.reason);
      return false;
    }
    system.outputs(y);
    system.output_derivatives(1, dy);
  }
  return buffers_.y.allFinite() && dy_.allFinite();
}

double Ifosmondi::integrate_estimated(ModularModel& model, HermiteKind kind, double h, double t) {
  double gap = std::numeric_limits<double>::quiet_NaN();
  for (int s = 0; s < model.system_count(); ++s) {
    if (!estimated(s)) continue;
    System& system = model.system(s);
    buffers_.apply_hermite(model, s, kind, h, u_start_, du_start_, x_.head(model.total_inputs()),
                           x_.tail(model.total_inputs()));
    throw_if_failed(system.do_step(h), system, t);
    auto estimate = buffers_.y.segment(model.output_offset(s), system.output_count());
    real_.resize(system.output_count());
    system.outputs(real_);
    const double system_gap = (real_ - estimate).lpNorm<Eigen::Infinity>();
    gap = std::isnan(gap) ? system_gap : std::max(gap, system_gap);
  }
  return gap;
}

bool Ifosmondi::prepare_estimators(const ModularModel& model, double h) {
  for (int s = 0; s < model.system_count(); ++s) {
    auto& estimator = estimators_[static_cast<std::size_t>(s)];
    if (estimator && !estimator->prepare(h)) {  // COSTARICA update 2
      failure_ = fmt::format("COSTARICA estimator of system '{}': {}", model.system(s).name(), estimator->reason());
      return false;
    }
  }
  return true;
}

StepReport Ifosmondi::step(ModularModel& model, double t, double h_max) {
  const Eigen::Index n = model.total_inputs();
  StepReport report;
  double h = h_max;  // proposed_step(), clipped to the stop time by the driver
  for (int s = 0; s < model.system_count(); ++s) {
    System& system = model.system(s);
    if (estimated(s)) {  // COSTARICA update 1 (Algorithm 3)
      estimators_[static_cast<std::size_t>(s)]->begin_step(
          system, u_start_.segment(model.input_offset(s), system.input_count()));
    } else {
      system.save_state(saved_[static_cast<std::size_t>(s)]);
    }
  }
  while (true) {
    // ζ at its first call on τ: "moving on" (eq. 20) — or constant inputs on the very first step
    const HermiteKind moving_on = first_step_ ? HermiteKind::constant : HermiteKind::moving_on;
    NonlinearResult result;
    if (prepare_estimators(model, h) && evaluate(model, moving_on, h, u_start_, du_start_)) {
      model.dispatch(buffers_.y, buffers_.u);
      model.dispatch_derivatives(dy_, du_);
      x_ << buffers_.u, du_;  // initial guess Ψ(moving on)
      const HermiteKind iterate = first_step_ ? HermiteKind::first_step : HermiteKind::cubic;
      const Residual gamma = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
        last_x_ = x;
        if (!evaluate(model, iterate, h, x.head(n), x.tail(n))) return false;
        model.dispatch(buffers_.y, buffers_.u);
        model.dispatch_derivatives(dy_, du_);
        out.resize(2 * n);
        out << x.head(n) - buffers_.u, x.tail(n) - du_;  // eq. 24
        return true;
      };
      result = solver_->solve(gamma, x_);
      report.iterations += result.iterations;
      // leave the systems in the state of the converged inputs
      if (result.converged && (last_x_.size() != x_.size() || last_x_ != x_)) {
        if (!evaluate(model, iterate, h, x_.head(n), x_.tail(n))) {
          result.converged = false;
          result.reason = failure_;
        }
      }
    } else {
      result.reason = failure_;
    }
    if (result.converged) {
      report.estimate_gap = integrate_estimated(model, first_step_ ? HermiteKind::first_step : HermiteKind::cubic, h, t);
      u_start_ = x_.head(n);
      du_start_ = x_.tail(n);
      first_step_ = false;
      h_next_ = std::min(options_.dt_ref, options_.growth * h);  // eq. 28 (min: erratum)
      report.h = h;
      return report;
    }
    // rejected: back to t_N, retry on half the step ("moving on" again, subcase 2.2)
    restore(model);
    ++report.rejected;
    log(LogLevel::info, fmt::format("{}: step [{}, {}] rejected: {}", name(), t, t + h, result.reason));
    h *= 0.5;
    if (h < options_.dt_min) {
      throw Error(fmt::format("{}: no convergence at t = {} even with the step reduced to {:.3g} (minimum {:.3g}): {}{}",
                              name(), t, 2 * h, options_.dt_min, result.reason,
                              options_.nonlinear.solver == "fixed-point"
                                  ? " — the fixed point cannot converge when the coupling is not contractive "
                                    "(spectral radius ≥ 1); use ifosmondi-jfm"
                                  : ""));
    }
  }
}

}  // namespace cosima
