#include "system/native/dopri5.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace cosima {

namespace {
// Butcher tableau of Dormand & Prince (1980), RK5(4)7FM.
constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
constexpr double a21 = 1.0 / 5;
constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
constexpr double a71 = 35.0 / 384, a73 = 500.0 / 1113, a74 = 125.0 / 192, a75 = -2187.0 / 6784, a76 = 11.0 / 84;
// error coefficients: 5th-order weights minus the embedded 4th-order ones
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                 e7 = -1.0 / 40;
// dense output (Shampine's continuous extension, Hairer–Nørsett–Wanner II.6)
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                 d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                 d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
constexpr double kSafety = 0.9, kMinFactor = 0.2, kMaxFactor = 10.0;
constexpr int kMaxDopriSteps = 1'000'000;
}  // namespace

void Dopri5::resize(Eigen::Index n) {
  if (k1_.size() == n) return;
  for (Eigen::VectorXd* v :
       {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &y_stage_, &y_new_, &error_, &r1_, &r2_, &r3_, &r4_, &r5_}) {
    v->setZero(n);
  }
  scale_.setZero(n);
  atol_ = options_.state_atol.size() == n ? Eigen::ArrayXd(options_.state_atol.array())
                                          : Eigen::ArrayXd::Constant(n, options_.atol);
  have_fsal_ = false;
}

double Dopri5::initial_step(const StepRhs& rhs, double t0, const Eigen::VectorXd& x, double span) {
  // Hairer's heuristic: h0 = 0.01 ‖x‖/‖f‖ refined by an estimate of the second derivative.
  const Eigen::ArrayXd scale = atol_ + options_.rtol * x.array().abs();
  const double d0 = std::sqrt((x.array() / scale).square().mean());
  const double d1n = std::sqrt((k1_.array() / scale).square().mean());
  double h0 = (d0 < 1e-5 || d1n < 1e-5) ? 1e-6 : 0.01 * d0 / d1n;
  h0 = std::min(h0, span);
  y_stage_ = x + h0 * k1_;
  rhs(t0 + h0, y_stage_, k2_);
  ++rhs_evaluations_;
  const double d2 = std::sqrt(((k2_ - k1_).array() / scale).square().mean()) / h0;
  const double h1 =
      std::max(d1n, d2) <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / std::max(d1n, d2), 1.0 / 5.0);
  return std::min({100 * h0, h1, span});
}

StepResult Dopri5::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  stop_ = {t1};
  const Eigen::Index n = x.size();
  if (n == 0) return advance_without_states(rhs, t0, t1, x);
  if (t1 <= t0) return StepResult::success();
  resize(n);
  begin_events(rhs, t0, x);
  if (!have_fsal_) {
    rhs(t0, x, k1_);
    ++rhs_evaluations_;
    have_fsal_ = true;
  }
  const double span = t1 - t0;
  double h = h_guess_ > 0.0 ? std::min(h_guess_, span) : initial_step(rhs, t0, x, span);
  if (options_.max_step > 0.0) h = std::min(h, options_.max_step);
  double t = t0;
  for (int steps = 0; t < t1; ++steps) {
    if (steps > kMaxDopriSteps)
      return StepResult::failure(fmt::format("dopri5: more than {} steps on [{}, {}]", kMaxDopriSteps, t0, t1));
    const bool last = t + h >= t1 - 1e-14 * std::abs(t1);
    if (last) h = t1 - t;
    y_stage_ = x + h * (a21 * k1_);
    rhs(t + c2 * h, y_stage_, k2_);
    y_stage_ = x + h * (a31 * k1_ + a32 * k2_);
    rhs(t + c3 * h, y_stage_, k3_);
    y_stage_ = x + h * (a41 * k1_ + a42 * k2_ + a43 * k3_);
    rhs(t + c4 * h, y_stage_, k4_);
    y_stage_ = x + h * (a51 * k1_ + a52 * k2_ + a53 * k3_ + a54 * k4_);
    rhs(t + c5 * h, y_stage_, k5_);
    y_stage_ = x + h * (a61 * k1_ + a62 * k2_ + a63 * k3_ + a64 * k4_ + a65 * k5_);
    rhs(t + h, y_stage_, k6_);
    y_new_ = x + h * (a71 * k1_ + a73 * k3_ + a74 * k4_ + a75 * k5_ + a76 * k6_);
    const double t_new = last ? t1 : t + h;
    rhs(t_new, y_new_, k7_);
    rhs_evaluations_ += 6;
    error_ = h * (e1 * k1_ + e3 * k3_ + e4 * k4_ + e5 * k5_ + e6 * k6_ + e7 * k7_);
    scale_ = atol_ + options_.rtol * x.array().abs().max(y_new_.array().abs());
    const double err = std::sqrt((error_.array() / scale_).square().mean());
    if (!std::isfinite(err)) {
      std::string which;
      for (const Eigen::VectorXd* k : {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_}) {
        if (which.empty()) which = rhs.non_finite(*k);
      }
      return StepResult::failure(fmt::format("dopri5: non-finite state or derivative in the step from t = {}{}", t,
                                             which.empty() ? "" : " (" + which + ")"));
    }
    double factor = err == 0.0 ? kMaxFactor : std::clamp(kSafety * std::pow(err, -0.2), kMinFactor, kMaxFactor);
    if (err <= 1.0) {
      ++accepted_;
      r1_ = x;
      r2_ = y_new_ - x;
      r3_ = h * k1_ - r2_;
      r4_ = r2_ - h * k7_ - r3_;
      r5_ = h * (d1 * k1_ + d3 * k3_ + d4 * k4_ + d5 * k5_ + d6 * k6_ + d7 * k7_);
      dense_t_old_ = t;
      dense_h_ = h;
      x = y_new_;
      k1_ = k7_;  // FSAL
      t = t_new;
      // a step cut short to land on t1 says nothing about the natural step size
      if (!last)
        h_guess_ = h * factor;
      else
        h_guess_ = std::max(h_guess_, h * factor);
      h *= factor;
      if (end_of_step(rhs, dense_t_old_, t, x)) {   // an event: stop there
        if (stop_.state_event) have_fsal_ = false;  // x moved back into the step
        return StepResult::success();
      }
    } else {
      ++rejected_;
      h *= std::min(1.0, factor);
      if (h < 1e-14 * std::max(1.0, std::abs(t))) {
        return StepResult::failure(fmt::format("dopri5: step size underflow at t = {}", t));
      }
    }
    if (options_.max_step > 0.0) h = std::min(h, options_.max_step);
  }
  return StepResult::success();
}

bool Dopri5::dense_output(double t, Eigen::VectorXd& x) const {
  if (dense_h_ <= 0.0) return false;
  const double theta = (t - dense_t_old_) / dense_h_;
  if (theta < -1e-12 || theta > 1.0 + 1e-12) return false;
  const double theta1 = 1.0 - theta;
  x = r1_ + theta * (r2_ + theta1 * (r3_ + theta * (r4_ + theta1 * r5_)));
  return true;
}

}  // namespace cosima
