#pragma once
// The control part of the COSTARICA estimator (seed 000 §3.2.1): what the linearization does not
// explain — nonlinearity, time-dependent terms, offsets — measured at each communication point as
//     y_C,N = y_N − C_N x_N − D_N u(t_N)                                   (eq. 12)
// and reconstructed at t_N + h from those samples:
//   zoh       y_C(t_N + h) = y_C,N, derivative 0                          (eq. 13)
//   foh       the line through the last two samples, and its slope        (eq. 14–15)
//   flexible  per coordinate, the order 0, 1 or 2 whose extrapolation from the samples before the
//             last one would have predicted the last one best — an order-selection rule in the
//             spirit of the flexible-order reconstruction the seed uses (its ref. 13).
// Until enough samples exist the orders fall back to ZOH with derivative 0, as the seed does.
#include <array>
#include <cstdint>
#include <string_view>

#include <Eigen/Dense>

#include "core/vector_view.hpp"

namespace cosima::estimator {

enum class ControlReconstruction : std::uint8_t { zoh, foh, flexible };

std::string_view to_string(ControlReconstruction reconstruction);

class ControlPart {
 public:
  static constexpr int kMaxOrder = 2;

  void reset(Eigen::Index outputs, ControlReconstruction reconstruction);
  /// Records y_C at the communication point t (t strictly after the previous one).
  void record(double t, ConstVectorView y_c);
  /// ŷ_C and ŷ'_C at t_last + h.
  void extrapolate(double h, Eigen::Ref<Eigen::VectorXd> value, Eigen::Ref<Eigen::VectorXd> derivative) const;
  /// Orders used by the last extrapolation (flexible: per output).
  [[nodiscard]] const Eigen::VectorXi& orders() const { return orders_; }

 private:
  static constexpr int kHistory = kMaxOrder + 2;  ///< the fit of order p, plus one sample to test it
  /// The Lagrange basis through samples newest−offset … newest−offset−p at a time, and its slope.
  struct Basis {
    std::array<double, kMaxOrder + 1> value{}, slope{};
  };
  /// At a compile-time order, its loops unrolled; the slope only if Slope.
  template <int P, bool Slope>
  void lagrange_basis(int offset, double t, Basis& basis) const;
  /// Σ_a weights[a] · sample newest−offset−a of output i, a = 0 … P: the polynomial's value.
  template <int P>
  [[nodiscard]] double combine(const std::array<double, kMaxOrder + 1>& weights, Eigen::Index i, int offset) const;
  /// Output i's extrapolation of order P at t, the basis computed unless known.
  template <int P>
  void extrapolate_output(Eigen::Index i, double t, bool& known, double& value, double& derivative) const;
  /// The order of output i's extrapolation (−1: no sample yet).
  [[nodiscard]] int order_of(Eigen::Index i) const;

  ControlReconstruction reconstruction_ = ControlReconstruction::flexible;
  std::array<double, kHistory> times_{};  ///< times_[0] newest
  Eigen::Matrix<double, Eigen::Dynamic, kHistory> samples_;
  int count_ = 0;
  std::array<Basis, kMaxOrder + 1> fit_{};  ///< flexible: fit_[p], order p through the older samples, at times_[0]
  mutable std::array<Basis, kMaxOrder + 1> at_{};  ///< extrapolate's basis of each order
  mutable Eigen::VectorXi orders_;
};

}  // namespace cosima::estimator
