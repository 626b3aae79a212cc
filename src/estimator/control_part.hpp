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

namespace cosima::estimator {

enum class ControlReconstruction : std::uint8_t { zoh, foh, flexible };

std::string_view to_string(ControlReconstruction reconstruction);

class ControlPart {
 public:
  static constexpr int kMaxOrder = 2;

  void reset(Eigen::Index outputs, ControlReconstruction reconstruction);
  /// Records y_C at the communication point t (t strictly after the previous one).
  void record(double t, const Eigen::Ref<const Eigen::VectorXd>& y_c);
  /// ŷ_C and ŷ'_C at t_last + h.
  void extrapolate(double h, Eigen::Ref<Eigen::VectorXd> value, Eigen::Ref<Eigen::VectorXd> derivative) const;
  /// Orders used by the last extrapolation (flexible: per output).
  [[nodiscard]] const Eigen::VectorXi& orders() const { return orders_; }

 private:
  static constexpr int kHistory = kMaxOrder + 2;  ///< the fit of order p, plus one sample to test it
  /// Order-p polynomial through samples newest−offset−p … newest−offset, value and slope at t, for output i
  /// (the slope 0 unless with_slope: the order selection needs values only).
  [[nodiscard]] std::array<double, 2> polynomial_at(Eigen::Index i, int p, int offset, double t, bool with_slope) const;
  /// polynomial_at at a compile-time order: its loops unroll.
  template <int P, bool Slope>
  [[nodiscard]] std::array<double, 2> lagrange_at(Eigen::Index i, int offset, double t) const;

  ControlReconstruction reconstruction_ = ControlReconstruction::flexible;
  std::array<double, kHistory> times_{};  ///< times_[0] newest
  Eigen::Matrix<double, Eigen::Dynamic, kHistory> samples_;
  int count_ = 0;
  mutable Eigen::VectorXi orders_;
};

}  // namespace cosima::estimator
