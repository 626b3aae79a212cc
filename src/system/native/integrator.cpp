#include "system/native/integrator.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "system/native/dopri5.hpp"
#include "system/native/euler.hpp"
#include "system/native/exact_lti.hpp"
#include "system/native/sundials_integrator.hpp"

namespace cosima {

std::string StepRhs::non_finite(ConstVectorRef dx) const {
  for (Eigen::Index i = 0; i < dx.size(); ++i) {
    if (!std::isfinite(dx(i))) {
      return fmt::format("derivative of state '{}' is {}", model_.structure().states[static_cast<std::size_t>(i)],
                         dx(i));
    }
  }
  return {};
}

void Integrator::begin_events(const StepRhs& rhs, double t0, const Eigen::VectorXd& x0) {
  const int nz = rhs.indicator_count();
  if (nz == 0) return;
  z_start_.resize(nz);
  z_probe_.resize(nz);
  rhs.indicators(t0, x0, z_start_);
}

StepResult Integrator::advance_without_states(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  stop_ = {t1};
  if (t1 <= t0 || (rhs.indicator_count() == 0 && !rhs.wants_step_reports())) return StepResult::success();
  begin_events(rhs, t0, x);
  end_of_step(rhs, t0, t1, x);
  return StepResult::success();
}

bool Integrator::domain_changed(const Eigen::VectorXd& z) const {
  // FMI 2.0 §3.1: the domains are z > 0 and z ≤ 0
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if ((z(i) > 0.0) != (z_start_(i) > 0.0)) return true;
  }
  return false;
}

bool Integrator::end_of_step(const StepRhs& rhs, double t_a, double t_b, Eigen::VectorXd& x) {
  if (rhs.indicator_count() > 0) {
    rhs.indicators(t_b, x, z_probe_);
    if (domain_changed(z_probe_)) {
      double lo = t_a, hi = t_b;  // the change lies in (lo, hi]
      while (hi - lo > 1e-14 * std::max(1.0, std::abs(hi))) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        interpolate(mid, x_probe_);
        rhs.indicators(mid, x_probe_, z_probe_);
        (domain_changed(z_probe_) ? hi : lo) = mid;
      }
      if (hi < t_b) interpolate(hi, x);
      stop_ = {hi, true, false, false};
      return true;
    }
    z_start_ = z_probe_;
  }
  if (rhs.wants_step_reports()) {
    const IntegratorStepReport report = rhs.step_completed(t_b, x);
    if (report.enter_event_mode || report.terminate) {
      stop_ = {t_b, false, report.enter_event_mode, report.terminate};
      return true;
    }
  }
  return false;
}

std::string_view integrator_kinds() { return "dopri5, cvode, arkode, euler, exact"; }

std::unique_ptr<Integrator> make_integrator(std::string_view kind, const IntegratorOptions& options) {
  if (kind == "dopri5") return std::make_unique<Dopri5>(options);
  if (kind == "cvode" || kind == "arkode") return std::make_unique<SundialsIntegrator>(kind, options);
  if (kind == "euler") return std::make_unique<ForwardEuler>(options);
  if (kind == "exact") return std::make_unique<ExactLti>();
  throw Error(fmt::format("unknown integrator '{}' (known: {})", kind, integrator_kinds()));
}

}  // namespace cosima
