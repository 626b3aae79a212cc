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

void ControlPart::record(double t, ConstVectorView y_c) {
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
  // the order selection's fits, on the samples before the newest, evaluated at the newest's time:
  // functions of the times only, shared by every output
  static_assert(kMaxOrder == 2, "a fit for each order 0 … kMaxOrder below");
  if (reconstruction_ != ControlReconstruction::flexible) return;
  if (count_ >= 2) lagrange_basis<0, false>(1, times_[0], fit_[0]);
  if (count_ >= 3) lagrange_basis<1, false>(1, times_[0], fit_[1]);
  if (count_ >= 4) lagrange_basis<2, false>(1, times_[0], fit_[2]);
}

template <int P, bool Slope>
void ControlPart::lagrange_basis(int offset, double t, Basis& basis) const {
  // Lagrange basis through the nodes offset … offset + P at t, and its slope if asked
  for (int a = offset; a <= offset + P; ++a) {
    const double ta = times_[static_cast<std::size_t>(a)];
    double value = 1.0, slope = 0.0;
    for (int b = offset; b <= offset + P; ++b) {
      if (b == a) continue;
      const double tb = times_[static_cast<std::size_t>(b)];
      if constexpr (Slope) slope = slope * (t - tb) / (ta - tb) + value / (ta - tb);
      value *= (t - tb) / (ta - tb);
    }
    basis.value[static_cast<std::size_t>(a - offset)] = value;
    basis.slope[static_cast<std::size_t>(a - offset)] = slope;
  }
}

template <int P>
double ControlPart::combine(const std::array<double, kMaxOrder + 1>& weights, Eigen::Index i, int offset) const {
  double sum = 0.0;
  for (int a = 0; a <= P; ++a) sum += weights[static_cast<std::size_t>(a)] * samples_(i, offset + a);
  return sum;
}

int ControlPart::order_of(Eigen::Index i) const {
  if (reconstruction_ == ControlReconstruction::zoh) return 0;
  if (reconstruction_ == ControlReconstruction::foh) return std::min(1, count_ - 1);
  // flexible: the order whose fit on the older samples best predicts the newest one (ties: lower order)
  static_assert(kMaxOrder == 2, "a fit for each order 0 … kMaxOrder below");
  int order = 0;
  double best = std::numeric_limits<double>::infinity();
  const auto consider = [&]<int P>() {
    if (P + 2 > count_) return;
    const double miss = std::abs(combine<P>(fit_[P].value, i, 1) - samples_(i, 0));
    if (miss < best) {
      best = miss;
      order = P;
    }
  };
  consider.template operator()<0>();
  consider.template operator()<1>();
  consider.template operator()<2>();
  return order;
}

template <int P>
void ControlPart::extrapolate_output(Eigen::Index i, double t, bool& known, double& value, double& derivative) const {
  if (!known) lagrange_basis<P, true>(0, t, at_[P]);
  known = true;
  value = combine<P>(at_[P].value, i, 0);
  derivative = combine<P>(at_[P].slope, i, 0);
}

void ControlPart::extrapolate(double h, Eigen::Ref<Eigen::VectorXd> value,
                              Eigen::Ref<Eigen::VectorXd> derivative) const {
  const double t = times_[0] + h;
  std::array<bool, kMaxOrder + 1> known{};  // the basis of each order at t, computed at its first use
  for (Eigen::Index i = 0; i < samples_.rows(); ++i) {
    const int order = order_of(i);
    orders_(i) = order;
    switch (order) {
      case -1: value(i) = derivative(i) = 0.0; break;  // no sample yet (the first-order fit before the first record)
      case 0: extrapolate_output<0>(i, t, known[0], value(i), derivative(i)); break;
      case 1: extrapolate_output<1>(i, t, known[1], value(i), derivative(i)); break;
      default: extrapolate_output<2>(i, t, known[2], value(i), derivative(i)); break;
    }
  }
}

}  // namespace cosima::estimator
