#pragma once
// Tiny dynamic matrices in per-step code: the estimators of co-simulation systems with one or a few
// states work on 1×1 … 4×4 Eigen::MatrixXd at every macro-step, where Eigen's fixed costs exceed the
// arithmetic.
//   multiply / multiply_add   dst = a·b, dst += factor·a·b: plain sums up to kSmallProduct multiply–adds,
//                             where Eigen's out-of-line choice between its product kernels dominates;
//                             beyond, Eigen (blocked, vectorized). dst must not alias a or b.
//   ensure_shape              resize only when the shape differs: Eigen's resize() checks rows·cols for
//                             overflow with an integer division even when nothing changes.
// None of them allocates once dst has its shape.
#include <Eigen/Dense>

namespace cosima {

inline constexpr Eigen::Index kSmallProduct = 64;  ///< rows·depth·cols up to which plain sums are used

template <class Matrix>
inline void ensure_shape(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
}

namespace detail {
template <class Dst, class Lhs, class Rhs>
[[gnu::noinline]] void eigen_product(Dst& dst, const Lhs& a, const Rhs& b, bool accumulate, double factor) {
  if (accumulate) {
    dst.noalias() += factor * a * b;
  } else {
    dst.noalias() = a * b;
  }
}

template <class Dst, class Lhs, class Rhs>
inline void product(Dst& dst, const Lhs& a, const Rhs& b, bool accumulate, double factor) {
  const Eigen::Index rows = a.rows(), depth = a.cols(), cols = b.cols();
  if (rows * depth * cols > kSmallProduct) {
    eigen_product(dst, a, b, accumulate, factor);
    return;
  }
  if (!accumulate) ensure_shape(dst, rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) {
      double sum = 0.0;
      for (Eigen::Index l = 0; l < depth; ++l) sum += a.coeff(i, l) * b.coeff(l, j);
      if (accumulate) {
        dst.coeffRef(i, j) += factor * sum;
      } else {
        dst.coeffRef(i, j) = sum;
      }
    }
  }
}
}  // namespace detail

/// dst = a·b (dst resized).
template <class Dst, class Lhs, class Rhs>
inline void multiply(Dst&& dst, const Lhs& a, const Rhs& b) {
  detail::product(dst, a, b, false, 1.0);
}

/// dst += factor·a·b (dst already a.rows() × b.cols()).
template <class Dst, class Lhs, class Rhs>
inline void multiply_add(Dst&& dst, const Lhs& a, const Rhs& b, double factor) {
  detail::product(dst, a, b, true, factor);
}

}  // namespace cosima
