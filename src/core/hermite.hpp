#pragma once
// Interface polynomials on one macro-step s ∈ [0, h] (seed 001 §2.5, seed 003 eq. 54–55): the
// lowest-degree polynomial meeting the constraints given, among
//   p(0) = v1,  p'(0) = d1,  p(h) = v2,  p'(h) = d2.
//   all four               cubic Hermite (seed 001 eq. 22):
//                            a0 = v1, a1 = d1, a2 = (3(v2−v1) − h(2d1+d2))/h², a3 = (2(v1−v2) + h(d1+d2))/h³
//   v1, d1 and v2 = v1     "moving on" quadratic (eq. 20): a2 = −d1/h
//   v1, v2, d2             first step, no derivative at t_init (eq. 55):
//                            a1 = (2(v2−v1) − h d2)/h, a2 = (h d2 − (v2−v1))/h²
//   v1                     constant (first call of the run)
// The coefficients are linear in (v1, d1, v2, d2): hermite_map() returns that 4×4 map so that the
// linear methods (MISSILES) can assemble it; hermite_coefficients() applies it.
#include <cmath>

#include <Eigen/Dense>

namespace cosima {

/// a + w·(b − a) for w ∈ [0, 1]; where b − a overflows (finite a and b of opposite signs near
/// ±DBL_MAX) the same line as (1 − w)·a + w·b, which does not — a table of ±1e308 is no NaN.
inline double linear_between(double a, double b, double w) {
  const double d = b - a;
  return std::isfinite(d) || !std::isfinite(a) || !std::isfinite(b) ? a + w * d : (1.0 - w) * a + w * b;
}

enum class HermiteKind {
  cubic,       ///< v1, d1, v2, d2
  moving_on,   ///< v1, d1; v2 := v1
  first_step,  ///< v1, v2, d2
  constant,    ///< v1
};

/// M such that (a0, a1, a2, a3)ᵀ = M (v1, d1, v2, d2)ᵀ on [0, h]; unused constraints have zero columns.
inline Eigen::Matrix4d hermite_map(HermiteKind kind, double h) {
  Eigen::Matrix4d M = Eigen::Matrix4d::Zero();
  M(0, 0) = 1.0;  // a0 = v1 in every case
  switch (kind) {
    case HermiteKind::cubic:
      M(1, 1) = 1.0;
      M.row(2) << -3.0 / (h * h), -2.0 / h, 3.0 / (h * h), -1.0 / h;
      M.row(3) << 2.0 / (h * h * h), 1.0 / (h * h), -2.0 / (h * h * h), 1.0 / (h * h);
      break;
    case HermiteKind::moving_on:
      M(1, 1) = 1.0;
      M(2, 1) = -1.0 / h;
      break;
    case HermiteKind::first_step:
      M.row(1) << -2.0 / h, 0.0, 2.0 / h, -1.0;
      M.row(2) << 1.0 / (h * h), 0.0, -1.0 / (h * h), 1.0 / h;
      break;
    case HermiteKind::constant: break;
  }
  return M;
}

/// Taylor coefficients (a0..a3) of the interface polynomial.
inline Eigen::Vector4d hermite_coefficients(HermiteKind kind, double h, double v1, double d1, double v2, double d2) {
  return hermite_map(kind, h) * Eigen::Vector4d(v1, d1, v2, d2);
}

/// w such that p^(order)(s) = w · (v1, d1, v2, d2) for the cubic Hermite polynomial on [0, h]
/// (order 0 … 3): Mᵀ times the order-th derivatives of (1, s, s², s³).
inline Eigen::Vector4d hermite_weights(double h, double s, int order) {
  Eigen::Vector4d powers = Eigen::Vector4d::Zero();
  for (int k = order; k <= 3; ++k) {
    double factor = 1.0;  // k!/(k − order)!
    for (int j = k - order + 1; j <= k; ++j) factor *= j;
    double power = 1.0;
    for (int j = 0; j < k - order; ++j) power *= s;
    powers(k) = factor * power;
  }
  return hermite_map(HermiteKind::cubic, h).transpose() * powers;
}

}  // namespace cosima
