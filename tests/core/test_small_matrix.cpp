#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "core/small_matrix.hpp"

namespace cosima {
namespace {

// SmallLu factorizes in plain loops up to kFixedLu rows and with Eigen's dynamic LU beyond; either way
// it is partial pivoting, so it solves what Eigen's dynamic one solves, to rounding.
TEST(SmallLu, SolvesAsEigensDynamicLuAtEverySize) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  SmallLu lu;  // one object across sizes: it changes its factorization's size with the matrix
  for (const int n : {1, 2, 3, 4, 5, 8, 4, 2}) {
    Eigen::MatrixXd a(n, n);
    Eigen::VectorXd b(n);
    for (int i = 0; i < n; ++i) {
      b(i) = entry(random);
      for (int j = 0; j < n; ++j) a(i, j) = entry(random);
    }
    a(0, 0) = 1e-12;  // pivoting needed from the first column on
    const Eigen::VectorXd expected = a.partialPivLu().solve(b);
    lu.compute(a);
    Eigen::VectorXd x;
    lu.solve(b, x);
    ASSERT_EQ(x.size(), n);
    EXPECT_LE((x - expected).lpNorm<Eigen::Infinity>(), 1e-12 * (1.0 + expected.lpNorm<Eigen::Infinity>()))
        << "n = " << n;
    EXPECT_LE((a * x - b).lpNorm<Eigen::Infinity>(), 1e-12) << "n = " << n;
  }
}

// Up to kFixedLu rows its plain loops take Eigen's unblocked PartialPivLU's operations in their order:
// the same bits as Eigen's fixed-size LU solving into a VectorXd (a column-oriented triangular solve;
// into a fixed-size vector Eigen unrolls a row-oriented one), on matrices with ties, zeros and
// pivoting in every column.
template <int N>
void expect_bitwise_eigen(std::mt19937& random) {
  std::uniform_int_distribution<int> small(-3, 3);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  SmallLu lu;
  for (int trial = 0; trial < 2000; ++trial) {
    Eigen::Matrix<double, N, N> a;
    Eigen::Matrix<double, N, 1> b;
    const bool integers = trial % 2 == 0;  // ties between candidate pivots, exact zeros
    for (int i = 0; i < N; ++i) {
      b(i) = integers ? small(random) : entry(random);
      for (int j = 0; j < N; ++j) a(i, j) = integers ? small(random) : entry(random) * std::exp(4.0 * entry(random));
    }
    const Eigen::VectorXd expected = Eigen::PartialPivLU<Eigen::Matrix<double, N, N>>(a).solve(b);
    lu.compute(Eigen::MatrixXd(a));
    Eigen::VectorXd x;
    lu.solve(Eigen::VectorXd(b), x);
    for (int i = 0; i < N; ++i) {
      const bool both_nan = std::isnan(x(i)) && std::isnan(expected(i));
      ASSERT_TRUE(both_nan || std::bit_cast<std::uint64_t>(x(i)) == std::bit_cast<std::uint64_t>(expected(i)))
          << "n = " << N << ", trial " << trial << ", x(" << i << ") = " << x(i) << " against " << expected(i);
    }
  }
}

TEST(SmallLu, IsBitwiseEigensFixedSizeLuUpToFourRows) {
  std::mt19937 random(11);
  expect_bitwise_eigen<1>(random);
  expect_bitwise_eigen<2>(random);
  expect_bitwise_eigen<3>(random);
  expect_bitwise_eigen<4>(random);
}

TEST(SmallLu, ASingularMatrixGivesANonFiniteSolution) {
  for (const int n : {2, 4, 6}) {
    Eigen::MatrixXd a = Eigen::MatrixXd::Ones(n, n);  // rank one
    SmallLu lu;
    lu.compute(a);
    Eigen::VectorXd x;
    lu.solve(Eigen::VectorXd::LinSpaced(n, 1.0, 2.0), x);
    EXPECT_FALSE(x.allFinite()) << "n = " << n;
  }
}

}  // namespace
}  // namespace cosima
