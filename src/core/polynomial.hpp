#pragma once
// Polynomials in local time s = t - t_N, stored as Taylor coefficients a_0..a_3:
//   p(s) = a_0 + a_1 s + a_2 s^2 + a_3 s^3.
// This is how inputs are handed to a system over one macro-step (FMI 2.0 hands the derivatives
// p^(k)(0) = k! a_k instead; the conversion lives with the FMU code).
#include <cmath>

#include <Eigen/Dense>

namespace cosima {

inline constexpr int kMaxInputDegree = 3;
inline constexpr int kInputCoefficients = kMaxInputDegree + 1;

/// n! as a double.
inline double factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

/// One row per input, columns a_0..a_3.
using InputPolynomials = Eigen::Matrix<double, Eigen::Dynamic, kInputCoefficients, Eigen::RowMajor>;

/// Value of the k-th derivative of every row polynomial at s.
inline void evaluate_polynomials(const InputPolynomials& coefficients, double s, int derivative,
                                 Eigen::Ref<Eigen::VectorXd> out) {
  for (Eigen::Index row = 0; row < coefficients.rows(); ++row) {
    double value = 0.0;
    for (int k = kMaxInputDegree; k >= derivative; --k) {
      double factor = 1.0;  // k!/(k-derivative)!
      for (int j = 0; j < derivative; ++j) factor *= k - j;
      value = value * s + factor * coefficients(row, k);
    }
    out(row) = value;
  }
}

/// Coefficients of the same polynomials re-expanded around s = shift (Taylor shift).
inline void shift_polynomials(const InputPolynomials& coefficients, double shift, InputPolynomials& out) {
  out.resize(coefficients.rows(), kInputCoefficients);
  for (Eigen::Index row = 0; row < coefficients.rows(); ++row) {
    for (int k = 0; k <= kMaxInputDegree; ++k) {
      // b_k = sum_{j>=k} C(j,k) a_j shift^(j-k)
      double sum = 0.0;
      for (int j = kMaxInputDegree; j >= k; --j) {
        double binomial = 1.0;
        for (int i = 0; i < k; ++i) binomial = binomial * (j - i) / (i + 1);
        sum = sum * shift + binomial * coefficients(row, j);
      }
      out(row, k) = sum;
    }
  }
}

/// ∫_0^h p(s) ds of one polynomial p(s) = Σ_k p_k s^k (Horner in h).
inline double integral(const Eigen::Ref<const Eigen::Matrix<double, 1, kInputCoefficients>>& p, double h) {
  double sum = 0.0;
  for (int k = kMaxInputDegree; k >= 0; --k) sum = sum * h + p(k) / (k + 1);
  return sum * h;
}

/// Mean square of one polynomial over [0, h]:  (1/h) ∫_0^h p(s)² ds, exactly (p² has degree ≤ 6).
inline double mean_square(const Eigen::Ref<const Eigen::Matrix<double, 1, kInputCoefficients>>& p, double h) {
  double integral = 0.0;
  for (int i = 0; i <= kMaxInputDegree; ++i) {
    for (int j = 0; j <= kMaxInputDegree; ++j) integral += p(i) * p(j) * std::pow(h, i + j + 1) / (i + j + 1);
  }
  return integral / h;
}

}  // namespace cosima
