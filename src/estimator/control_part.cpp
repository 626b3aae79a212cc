#include "estimator/control_part.hpp"

#include <cmath>
#include <limits>

namespace cosima::estimator {

std::string_view to_string(ControlReconstruction reconstruction) {
  switch (reconstruction) {
    case ControlReconstruction::zoh: return "zoh";
    case ControlReconstruction::foh: return "foh";
    case ControlReconstruction::flexible: return "flexible";
  }
  return "unknown";
}

void ControlPart::reset(Eigen::Index outputs, ControlReconstruction reconstruction) {
  reconstruction_ = reconstruction;
  samples_.setZero(outputs, kHistory);
  orders_.setZero(outputs);
  count_ = 0;
}

void ControlPart::record(double t, const Eigen::Ref<const Eigen::VectorXd>& y_c) {
  // plain loops: Eigen's column assignments cost more than the few samples they move
  double* samples = samples_.data();
  const Eigen::Index rows = samples_.rows();
  for (int k = kHistory - 1; k > 0; --k) times_[static_cast<std::size_t>(k)] = times_[static_cast<std::size_t>(k - 1)];
  times_[0] = t;
  for (Eigen::Index i = 0; i < rows; ++i) {  // the history innermost: a fixed count, unrolled
    for (int k = kHistory - 1; k > 0; --k) samples[k * rows + i] = samples[(k - 1) * rows + i];
    samples[i] = y_c(i);
  }
  count_ = std::min(count_ + 1, kHistory);
}

template <int P, bool Slope>
std::array<double, 2> ControlPart::lagrange_at(Eigen::Index i, int offset, double t) const {
  // Lagrange form through the nodes offset … offset + P; value and derivative at t.
  double value = 0.0, slope = 0.0;
  for (int a = offset; a <= offset + P; ++a) {
    const double ta = times_[static_cast<std::size_t>(a)];
    double basis = 1.0, basis_slope = 0.0;
    for (int b = offset; b <= offset + P; ++b) {
      if (b == a) continue;
      const double tb = times_[static_cast<std::size_t>(b)];
      if constexpr (Slope) basis_slope = basis_slope * (t - tb) / (ta - tb) + basis / (ta - tb);
      basis *= (t - tb) / (ta - tb);
    }
    value += basis * samples_(i, a);
    if constexpr (Slope) slope += basis_slope * samples_(i, a);
  }
  return {value, slope};
}

std::array<double, 2> ControlPart::polynomial_at(Eigen::Index i, int p, int offset, double t, bool with_slope) const {
  static_assert(kMaxOrder == 2, "a case for each order −1 … kMaxOrder below");
  switch (p) {
    case -1: return {0.0, 0.0};  // no sample yet (the first-order fit before the first record)
    case 0: return with_slope ? lagrange_at<0, true>(i, offset, t) : lagrange_at<0, false>(i, offset, t);
    case 1: return with_slope ? lagrange_at<1, true>(i, offset, t) : lagrange_at<1, false>(i, offset, t);
    default: return with_slope ? lagrange_at<2, true>(i, offset, t) : lagrange_at<2, false>(i, offset, t);
  }
}

void ControlPart::extrapolate(double h, Eigen::Ref<Eigen::VectorXd> value,
                              Eigen::Ref<Eigen::VectorXd> derivative) const {
  const double t = times_[0] + h;
  for (Eigen::Index i = 0; i < samples_.rows(); ++i) {
    int order = 0;
    if (reconstruction_ == ControlReconstruction::foh) {
      order = std::min(1, count_ - 1);
    } else if (reconstruction_ == ControlReconstruction::flexible) {
      // the order whose fit on the older samples best predicts the newest one (ties: lower order)
      double best = std::numeric_limits<double>::infinity();
      for (int p = 0; p <= kMaxOrder && p + 2 <= count_; ++p) {
        const double miss = std::abs(polynomial_at(i, p, 1, times_[0], false)[0] - samples_(i, 0));
        if (miss < best) {
          best = miss;
          order = p;
        }
      }
    }
    orders_(i) = order;
    const auto [v, d] = polynomial_at(i, order, 0, t, true);
    value(i) = v;
    derivative(i) = d;
  }
}

}  // namespace cosima::estimator
