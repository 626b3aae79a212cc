#pragma once
// Tiny dynamic matrices in per-step code: the estimators of co-simulation systems with one or a few
// states work on 1×1 … 4×4 Eigen::MatrixXd at every macro-step, where Eigen's fixed costs exceed the
// arithmetic.
//   multiply / multiply_add   dst = a·b, dst += factor·a·b: plain sums up to kSmallProduct multiply–adds,
//                             where Eigen's out-of-line choice between its product kernels dominates;
//                             beyond, Eigen (blocked, vectorized). dst must not alias a or b.
//   ensure_shape              resize only when the shape differs: Eigen's resize() checks rows·cols for
//                             overflow with an integer division even when nothing changes.
//   all_finite                one branch-free pass: Eigen's allFinite() evaluates (m − m) == (m − m).
//   same / assign             entrywise equality (−0 == 0) and dst = src, as plain loops.
//   fixed_view                a matrix's storage at a compile-time shape, for the above to unroll.
//   SmallLu                   the partial-pivoting LU of a dense matrix: plain loops up to kFixedLu rows
//                             (the 4 × 4 of MISSILES' eq. 53 for two one-output systems), bitwise
//                             Eigen's; Eigen's dynamic PartialPivLU beyond.
// None of them allocates once dst has its shape.
#include <array>
#include <cmath>
#include <type_traits>
#include <utility>

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
  if (rows == 1 && cols == 1) {  // a dot product (one-output, one-state systems): no loop nest to set up
    double sum = 0.0;
    for (Eigen::Index l = 0; l < depth; ++l) sum += a.coeff(0, l) * b.coeff(l, 0);
    if (accumulate) {
      dst.coeffRef(0, 0) += factor * sum;
    } else {
      dst.coeffRef(0, 0) = sum;
    }
    return;
  }
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

/// m's storage seen as a fixed-size Rows × Cols matrix (m has that shape: the caller checked). The
/// operations of this header on it unroll, with no shape test left; the arithmetic is the same.
template <int Rows, int Cols, class Matrix>
inline auto fixed_view(Matrix& m) {
  eigen_assert(m.rows() == Rows && m.cols() == Cols && "fixed_view: the matrix has another shape");
  using Fixed = Eigen::Matrix<double, Rows, Cols>;
  if constexpr (std::is_const_v<std::remove_pointer_t<decltype(m.data())>>) {
    return Eigen::Map<const Fixed>(m.data());
  } else {
    return Eigen::Map<Fixed>(m.data());
  }
}

/// Whether every entry of every matrix is finite, without a branch per entry: 0·x is ±0 for a
/// finite x and NaN for an infinite or NaN one, so their sum is 0 exactly when all are finite.
template <class... Matrices>
inline bool all_finite(const Matrices&... matrices) {
  double probe = 0.0;
  const auto add = [&probe](const auto& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) probe += 0.0 * m.data()[i];
  };
  (add(matrices), ...);
  return probe == 0.0;
}

/// Same shape and entrywise equal (−0 == 0, NaN ≠ NaN).
template <class MatrixA, class MatrixB>
inline bool same(const MatrixA& a, const MatrixB& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (!(a.data()[i] == b.data()[i])) return false;
  }
  return true;
}

/// dst = src, without Eigen's assignment machinery once dst has src's shape.
template <class Dst, class Src>
inline void assign(Dst&& dst, const Src& src) {
  ensure_shape(dst, src.rows(), src.cols());
  for (Eigen::Index i = 0; i < src.size(); ++i) dst.data()[i] = src.data()[i];
}

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

inline constexpr Eigen::Index kFixedLu = 4;  ///< rows up to which SmallLu factorizes in plain loops

/// Partial-pivoting LU, P A = L U with L unit lower triangular, of a square matrix of any size: up to
/// kFixedLu rows in plain loops over a fixed array, as Eigen's fixed-size PartialPivLU solving into a
/// VectorXd takes them — the same operations in the same order, so the same bits
/// (tests/core/test_small_matrix.cpp) — without its fixed costs; Eigen's dynamic PartialPivLU beyond.
/// For column k:
///   p = the first row i ≥ k of largest |a_ik|;  swap rows k and p;  a_ik /= a_kk (i > k) unless a_kk = 0;
///   a_ij −= a_ik a_kj (i, j > k).
/// Solve: b permuted as the rows were, then L y = b and U x = y column by column, as Eigen's
/// triangular solve into a dynamic vector goes (a column whose unknown is 0 is skipped). A singular
/// matrix shows as a non-finite solution, as with Eigen's.
class SmallLu {
 public:
  void compute(const Eigen::MatrixXd& a) {
    n_ = a.rows();
    switch (n_) {  // at compile-time sizes: the loops unroll
      case 1: factorize<1>(a); break;
      case 2: factorize<2>(a); break;
      case 3: factorize<3>(a); break;
      case 4: factorize<4>(a); break;
      default: dynamic_.compute(a);
    }
  }
  /// x = A⁻¹ b for the A of the last compute (x resized).
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
    ensure_shape(x, b.rows(), 1);
    switch (n_) {
      case 1: x(0) = b(0) * (1.0 / at(0, 0)); break;  // Eigen's 1 × 1 solve multiplies by the reciprocal
      case 2: solve_at<2>(b, x); break;
      case 3: solve_at<3>(b, x); break;
      case 4: solve_at<4>(b, x); break;
      default: x.noalias() = dynamic_.solve(b);
    }
  }

 private:
  static_assert(kFixedLu == 4, "compute() and solve() dispatch the sizes 1 … kFixedLu");
  double& at(Eigen::Index i, Eigen::Index j) { return lu_[static_cast<std::size_t>(j * kFixedLu + i)]; }
  [[nodiscard]] double at(Eigen::Index i, Eigen::Index j) const {
    return lu_[static_cast<std::size_t>(j * kFixedLu + i)];
  }
  template <int N>
  void factorize(const Eigen::MatrixXd& a) {
    for (int j = 0; j < N; ++j) {
      for (int i = 0; i < N; ++i) at(i, j) = a(i, j);
    }
    for (int k = 0; k < N; ++k) eliminate<N>(k);
  }
  /// Column k of the elimination: pivot, scale, rank-one update of the trailing block.
  template <int N>
  void eliminate(int k) {
    int pivot = k;
    double biggest = std::abs(at(k, k));
    for (int i = k + 1; i < N; ++i) {
      if (std::abs(at(i, k)) > biggest) {
        biggest = std::abs(at(i, k));
        pivot = i;
      }
    }
    pivots_[static_cast<std::size_t>(k)] = static_cast<std::size_t>(pivot);
    if (biggest != 0.0) {
      if (pivot != k) {
        for (int j = 0; j < N; ++j) std::swap(at(k, j), at(pivot, j));
      }
      for (int i = k + 1; i < N; ++i) at(i, k) /= at(k, k);
    }
    for (int j = k + 1; j < N; ++j) {
      for (int i = k + 1; i < N; ++i) at(i, j) -= at(k, j) * at(i, k);
    }
  }
  template <int N>
  void solve_at(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
    std::array<double, static_cast<std::size_t>(N)> y{};
    for (int i = 0; i < N; ++i) y[static_cast<std::size_t>(i)] = b(i);
    for (int k = 0; k < N; ++k) std::swap(y[static_cast<std::size_t>(k)], y[pivots_[static_cast<std::size_t>(k)]]);
    for (int k = 0; k < N; ++k) {  // L y = P b, unit diagonal
      const double yk = y[static_cast<std::size_t>(k)];
      if (yk == 0.0) continue;
      for (int i = k + 1; i < N; ++i) y[static_cast<std::size_t>(i)] -= yk * at(i, k);
    }
    for (int k = N - 1; k >= 0; --k) {  // U x = y
      double& yk = y[static_cast<std::size_t>(k)];
      if (yk == 0.0) continue;
      yk /= at(k, k);
      for (int i = 0; i < k; ++i) y[static_cast<std::size_t>(i)] -= yk * at(i, k);
    }
    for (int i = 0; i < N; ++i) x(i) = y[static_cast<std::size_t>(i)];
  }

  Eigen::Index n_ = 0;
  std::array<double, static_cast<std::size_t>(kFixedLu* kFixedLu)> lu_{};  ///< column-major, leading dimension kFixedLu
  std::array<std::size_t, static_cast<std::size_t>(kFixedLu)> pivots_{};
  Eigen::PartialPivLU<Eigen::MatrixXd> dynamic_;
};

}  // namespace cosima
