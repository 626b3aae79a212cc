#include <cmath>

#include <gtest/gtest.h>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/phi_functions.hpp"
#include "core/polynomial.hpp"

namespace cosima {
namespace {

TEST(Polynomial, EvaluatesValuesAndDerivatives) {
  InputPolynomials p(2, kInputCoefficients);
  p << 1.0, 2.0, -1.0, 0.5,  // 1 + 2s − s² + s³/2
      3.0, 0.0, 0.0, 0.0;
  Eigen::VectorXd out(2);
  const double s = 0.7;
  evaluate_polynomials(p, s, 0, out);
  EXPECT_DOUBLE_EQ(out(0), 1 + 2 * s - s * s + 0.5 * s * s * s);
  EXPECT_DOUBLE_EQ(out(1), 3.0);
  evaluate_polynomials(p, s, 1, out);
  EXPECT_DOUBLE_EQ(out(0), 2 - 2 * s + 1.5 * s * s);
  EXPECT_DOUBLE_EQ(out(1), 0.0);
  evaluate_polynomials(p, s, 2, out);
  EXPECT_DOUBLE_EQ(out(0), -2 + 3 * s);
  evaluate_polynomials(p, s, 3, out);
  EXPECT_DOUBLE_EQ(out(0), 3.0);
}

TEST(Polynomial, ShiftReexpandsAroundANewOrigin) {
  InputPolynomials p(1, kInputCoefficients), shifted;
  p << 1.0, 2.0, -1.0, 0.5;
  shift_polynomials(p, 0.3, shifted);
  Eigen::VectorXd a(1), b(1);
  for (double s : {0.0, 0.2, 1.1}) {
    evaluate_polynomials(p, s + 0.3, 0, a);
    evaluate_polynomials(shifted, s, 0, b);
    EXPECT_NEAR(a(0), b(0), 1e-14);
  }
}

TEST(PhiFunctions, MatchTheScalarClosedForms) {
  // φ1(z) = (e^z − 1)/z, φ2(z) = (e^z − 1 − z)/z², φ3 = (e^z − 1 − z − z²/2)/z³
  Eigen::MatrixXd A(1, 1);
  A << -0.8;
  PhiFunctions phi;
  const double h = 0.5;
  phi.compute(A, h, 3);
  const double z = -0.8 * h;
  EXPECT_NEAR(phi.phi(0)(0, 0), std::exp(z), 1e-15);
  EXPECT_NEAR(phi.phi(1)(0, 0), (std::exp(z) - 1) / z, 1e-14);
  EXPECT_NEAR(phi.phi(2)(0, 0), (std::exp(z) - 1 - z) / (z * z), 1e-14);
  EXPECT_NEAR(phi.phi(3)(0, 0), (std::exp(z) - 1 - z - z * z / 2) / (z * z * z), 1e-13);
}

TEST(PhiFunctions, SatisfyTheRecurrenceForMatrices) {
  // φ_{j}(Z) = Z φ_{j+1}(Z) + I/j!
  Eigen::MatrixXd A(3, 3);
  A << -1.0, 2.0, 0.0, -2.0, -1.0, 0.5, 0.0, 0.3, -4.0;
  const double h = 0.25;
  PhiFunctions phi;
  phi.compute(A, h, 4);
  const Eigen::MatrixXd Z = h * A;
  double factorial = 1.0;
  EXPECT_LT((phi.phi(0) - Z.exp()).norm(), 1e-14);
  for (int j = 0; j < 4; ++j) {
    if (j > 0) factorial *= j;
    const Eigen::MatrixXd lhs = phi.phi(j);
    const Eigen::MatrixXd rhs = Z * phi.phi(j + 1) + Eigen::MatrixXd::Identity(3, 3) / factorial;
    EXPECT_LT((lhs - rhs).norm(), 1e-14) << "j = " << j;
  }
}

TEST(PhiFunctions, MatchTheBlockExponentialFromTinyToStiffSteps) {
  // DESIGN §3.3's definition: the first block row of exp(h·[[A, I, 0…], [0, 0, I…], …]) is
  // (φ_0, hφ_1, …, h^p φ_p)(hA). From ‖hA‖ ~ 1e-7 (Taylor, no squaring) to ~ 90 (7 squarings),
  // real and complex spectra.
  Eigen::MatrixXd A(4, 4);
  A << -3.0, 2.0, 0.0, 0.1, -2.0, -1.0, 0.5, 0.0, 0.0, 0.3, -40.0, 1.0, 0.2, 0.0, 0.0, 0.5;
  constexpr int kOrder = 4;
  for (double h : {1e-8, 1e-3, 0.05, 0.4, 2.0}) {
    const Eigen::Index n = A.rows(), size = (kOrder + 1) * n;
    Eigen::MatrixXd block = Eigen::MatrixXd::Zero(size, size);
    block.topLeftCorner(n, n) = h * A;
    for (Eigen::Index b = 0; b < kOrder; ++b) block.block(b * n, (b + 1) * n, n, n).diagonal().setConstant(h);
    const Eigen::MatrixXd exp_block = block.exp();
    PhiFunctions phi;
    phi.compute(A, h, kOrder);
    for (int j = 0; j <= kOrder; ++j) {
      const Eigen::MatrixXd reference = exp_block.block(0, j * n, n, n) / std::pow(h, j);
      EXPECT_LT((phi.phi(j) - reference).norm(), 1e-13 * reference.norm()) << "h = " << h << ", j = " << j;
    }
  }
}

TEST(PhiFunctions, OneStateMatchesTheClosedFormsWhenStiffOrGrowing) {
  // the scalar path with squarings: z = hA = −30 and +6
  for (const double z : {-30.0, 6.0}) {
    Eigen::MatrixXd A(1, 1);
    A << z / 0.5;
    PhiFunctions phi;
    phi.compute(A, 0.5, 3);
    const double e = std::exp(z);
    EXPECT_NEAR(phi.phi(0)(0, 0), e, 1e-13 * e);  // e^z's own relative condition number is |z|
    const double phi1 = (e - 1) / z, phi2 = (e - 1 - z) / (z * z), phi3 = (e - 1 - z - z * z / 2) / (z * z * z);
    EXPECT_NEAR(phi.phi(1)(0, 0), phi1, 1e-14 * std::abs(phi1)) << z;
    EXPECT_NEAR(phi.phi(2)(0, 0), phi2, 1e-14 * std::abs(phi2)) << z;
    EXPECT_NEAR(phi.phi(3)(0, 0), phi3, 1e-14 * std::abs(phi3)) << z;
  }
}

}  // namespace
}  // namespace cosima

#include "core/hermite.hpp"

namespace cosima {
namespace {

double value(const Eigen::Vector4d& a, double s) { return a(0) + s * (a(1) + s * (a(2) + s * a(3))); }
double slope(const Eigen::Vector4d& a, double s) { return a(1) + s * (2 * a(2) + 3 * s * a(3)); }

TEST(Hermite, EveryKindMeetsItsConstraints) {
  const double h = 0.3, v1 = 1.2, d1 = -0.7, v2 = 0.4, d2 = 2.5;
  const Eigen::Vector4d cubic = hermite_coefficients(HermiteKind::cubic, h, v1, d1, v2, d2);
  EXPECT_NEAR(value(cubic, 0), v1, 1e-14);
  EXPECT_NEAR(slope(cubic, 0), d1, 1e-14);
  EXPECT_NEAR(value(cubic, h), v2, 1e-13);
  EXPECT_NEAR(slope(cubic, h), d2, 1e-13);
  const Eigen::Vector4d moving_on = hermite_coefficients(HermiteKind::moving_on, h, v1, d1, v2, d2);
  EXPECT_NEAR(value(moving_on, 0), v1, 1e-14);
  EXPECT_NEAR(slope(moving_on, 0), d1, 1e-14);
  EXPECT_NEAR(value(moving_on, h), v1, 1e-14);  // eq. 20: u(t_{N+1}) = u(t_N)
  EXPECT_EQ(moving_on(3), 0.0);
  const Eigen::Vector4d first = hermite_coefficients(HermiteKind::first_step, h, v1, d1, v2, d2);
  EXPECT_NEAR(value(first, 0), v1, 1e-14);
  EXPECT_NEAR(value(first, h), v2, 1e-13);
  EXPECT_NEAR(slope(first, h), d2, 1e-13);
  EXPECT_EQ(first(3), 0.0);
  // seed 003 eq. 55: A_V,first = (0, 2/h, −1/h²), A_D,first = (0, −1, 1/h), B_first = v1 (1, −2/h, 1/h²)
  const Eigen::Matrix4d M = hermite_map(HermiteKind::first_step, h);
  EXPECT_NEAR(M(1, 2), 2 / h, 1e-12);
  EXPECT_NEAR(M(2, 2), -1 / (h * h), 1e-12);
  EXPECT_NEAR(M(1, 3), -1.0, 1e-15);
  EXPECT_NEAR(M(2, 3), 1 / h, 1e-12);
  EXPECT_NEAR(M(1, 0), -2 / h, 1e-12);
  EXPECT_NEAR(M(2, 0), 1 / (h * h), 1e-12);
  const Eigen::Vector4d constant = hermite_coefficients(HermiteKind::constant, h, v1, d1, v2, d2);
  EXPECT_EQ(constant, Eigen::Vector4d(v1, 0, 0, 0));
}

}  // namespace
}  // namespace cosima
