#pragma once
// Tiny dynamic matrices in per-step code: the estimators of co-simulation systems with one or a few
// states work on 1×1 … 4×4 Eigen::MatrixXd at every macro-step, where Eigen's fixed costs exceed the
// arithmetic.
//   multiply / multiply_add   dst = a·b, dst += factor·a·b: plain sums up to kSmallProduct multiply–adds,
//                             where Eigen's out-of-line choice between its product kernels dominates;
//                             beyond, Eigen (blocked, vectorized). dst must not alias a or b.
//   ensure_shape              resize only when the shape differs: Eigen's resize() checks rows·cols for
//                             overflow with an integer division even when nothing changes.
//   SmallLu                   the partial-pivoting LU of a dense matrix, with Eigen's fixed-size
//                             PartialPivLU up to kFixedLu rows (the 4 × 4 of MISSILES' eq. 53 for two
//                             one-output systems: ≈ 80 against ≈ 120 ns factorization and solve), its
//                             dynamic one beyond. The same algorithm either way.
// None of them allocates once dst has its shape.
#include <type_traits>
#include <variant>

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

inline constexpr Eigen::Index kFixedLu = 4;  ///< rows up to which SmallLu factorizes at fixed size

/// Partial-pivoting LU (Eigen::PartialPivLU) of a square matrix of any size, at fixed size up to
/// kFixedLu rows. A singular matrix shows as a non-finite solution, as with Eigen's.
class SmallLu {
 public:
  void compute(const Eigen::MatrixXd& a) { factorize_at_size<1>(a); }
  /// x = A⁻¹ b for the A of the last compute (x resized).
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
    std::visit(
        [&](const auto& lu) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(lu)>, std::monostate>) {
            ensure_shape(x, b.rows(), 1);
            using Vector = Eigen::Matrix<double, std::decay_t<decltype(lu)>::RowsAtCompileTime, 1>;
            if constexpr (Vector::RowsAtCompileTime == Eigen::Dynamic) {
              x.noalias() = lu.solve(b);
            } else {
              x = lu.solve(Vector(b));
            }
          }
        },
        lu_);
  }

 private:
  template <int N>
  using Lu = Eigen::PartialPivLU<Eigen::Matrix<double, N, N>>;
  /// factorize<a.rows()> when a has at most kFixedLu rows (tried from N upward), the dynamic one beyond.
  template <int N>
  void factorize_at_size(const Eigen::MatrixXd& a) {
    if constexpr (N > kFixedLu) {
      factorize<Eigen::Dynamic>(a);
    } else if (a.rows() == N) {
      factorize<N>(a);
    } else {
      factorize_at_size<N + 1>(a);
    }
  }
  template <int N>
  void factorize(const Eigen::MatrixXd& a) {
    if (!std::holds_alternative<Lu<N>>(lu_)) lu_.template emplace<Lu<N>>(a.rows());  // sized once
    if constexpr (N == Eigen::Dynamic) {
      std::get<Lu<N>>(lu_).compute(a);
    } else {
      std::get<Lu<N>>(lu_).compute(Eigen::Matrix<double, N, N>(a));
    }
  }
  std::variant<std::monostate, Lu<1>, Lu<2>, Lu<3>, Lu<4>, Lu<Eigen::Dynamic>> lu_;
  static_assert(std::variant_size_v<decltype(lu_)> == kFixedLu + 2, "a Lu<N> for every fixed size N ≤ kFixedLu");
};

}  // namespace cosima
