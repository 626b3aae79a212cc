#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "core/small_matrix.hpp"

namespace cosima {
namespace {

// SmallLu factorizes at fixed size up to kFixedLu rows and at dynamic size beyond; either way it is
// Eigen's partial-pivoting LU, so it solves what Eigen's dynamic one solves, to rounding.
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
