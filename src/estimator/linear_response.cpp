#include "estimator/linear_response.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/polynomial.hpp"
#include "core/small_matrix.hpp"

namespace cosima::estimator {

std::vector<double> stehfest_weights(int terms) {
  if (terms < 2 || terms > 30 || terms % 2 != 0) {
    throw Error(fmt::format("Gaver–Stehfest needs an even number of terms in [2, 30], not {}", terms));
  }
  const int half = terms / 2;
  std::vector<double> weights(static_cast<std::size_t>(terms));
  for (int i = 1; i <= terms; ++i) {
    double sum = 0.0;
    for (int k = (i + 1) / 2; k <= std::min(i, half); ++k) {
      sum += std::pow(k, half) * factorial(2 * k) /
             (factorial(half - k) * factorial(k) * factorial(k - 1) * factorial(i - k) * factorial(2 * k - i));
    }
    weights[static_cast<std::size_t>(i - 1)] = ((i + half) % 2 == 0 ? 1.0 : -1.0) * sum;
  }
  return weights;
}

LinearResponseBuilder::LinearResponseBuilder(LinearResponseOptions options) : options_(options) {
  if (options_.method == InverseLaplace::stehfest) {
    weights_ = stehfest_weights(options_.stehfest_terms);
    if (!(options_.richardson_fraction > 0.0)) {
      throw Error(
          fmt::format("the Richardson fraction of eq. 42 must be positive, not {}", options_.richardson_fraction));
    }
  }
}

bool LinearResponseBuilder::compute(const Linearization& lin, double h, LinearResponse& out) {
  const Eigen::Index n_out = lin.C.rows(), n_st = lin.A.rows(), n_in = lin.B.cols();
  ensure_shape(out.GV, n_out, kInputCoefficients * n_in);
  ensure_shape(out.GD, n_out, kInputCoefficients * n_in);
  ensure_shape(out.PV, n_out, n_st);
  ensure_shape(out.PD, n_out, n_st);
  ensure_shape(out.RV, n_out, n_st);
  ensure_shape(out.RD, n_out, n_st);
  if (options_.method == InverseLaplace::exact && n_st == 1) {
    exact_one_state(lin, h, out);
  } else if (options_.method == InverseLaplace::exact) {
    exact(lin, h, out);
  } else {
    stehfest(lin, h, out);
  }
  const bool scalar = out.GV.size() == kInputCoefficients && out.PV.size() == 1;  // one state, input, output
  const bool finite = scalar ? all_finite(fixed_view<1, kInputCoefficients>(out.GV),
                                          fixed_view<1, kInputCoefficients>(out.GD), fixed_view<1, 1>(out.PV),
                                          fixed_view<1, 1>(out.PD), fixed_view<1, 1>(out.RV), fixed_view<1, 1>(out.RD))
                             : all_finite(out.GV, out.GD, out.PV, out.PD, out.RV, out.RD);
  if (!finite) {
    reason_ = fmt::format("{} inverse Laplace transform not finite at h = {}",
                          options_.method == InverseLaplace::exact ? "exact" : "Gaver–Stehfest", h);
  }
  return finite;
}

void LinearResponseBuilder::exact(const Linearization& lin, double h, LinearResponse& out) {
  // Four products (core/small_matrix.hpp), the rest plain sums; workspaces kept: no allocation once sized.
  const Eigen::Index n_out = lin.C.rows(), n_st = lin.A.rows(), n_in = lin.B.cols();
  multiply(c_a_, lin.C, lin.A);  // the _D terms: y' = C A x + C B u + C f_C + D u'
  multiply(c_b_, lin.C, lin.B);
  if (n_st > 0) {
    phi_.compute(lin.A, h, kInputCoefficients);
    multiply(c_phi_, lin.C, phi_.all());  // [C φ_0, C φ_1, …, C φ_4](hA)
    multiply(c_a_phi_, c_a_, phi_.all());
  } else {
    c_phi_.resize(n_out, 0);
    c_a_phi_.resize(n_out, 0);
  }
  out.PV = c_phi_.leftCols(n_st);              // C e^{hA}
  out.PD = c_a_phi_.leftCols(n_st);            // C A e^{hA}
  out.RV = h * c_phi_.middleCols(n_st, n_st);  // C h φ_1(hA)
  out.RD = out.PV;                             // C (hA φ_1 + I) = C e^{hA}
  // state response to ǔ_j = s^k:  ∫_0^h e^{A(h−r)} B_j r^k dr = k! h^{k+1} φ_{k+1}(hA) B_j, so column 4j + k
  //   of G_V is  k! h^{k+1} (C φ_{k+1}) B_j + h^k D_j,
  //   of G_D is  k! h^{k+1} (C A φ_{k+1}) B_j + h^k C B_j + k h^{k−1} D_j
  double h_k = 1.0, dh_k = 0.0, scale = h;  // h^k, its derivative k h^{k−1}, and k! h^{k+1}
  for (int k = 0; k <= kMaxInputDegree; ++k) {
    if (k > 0) {
      dh_k = k * h_k;
      h_k *= h;
      scale *= k * h;
    }
    const Eigen::Index phi_column = (k + 1) * n_st;
    for (Eigen::Index j = 0; j < n_in; ++j) {
      const Eigen::Index column = kInputCoefficients * j + k;
      for (Eigen::Index i = 0; i < n_out; ++i) {
        double value = 0.0, derivative = 0.0;
        for (Eigen::Index l = 0; l < n_st; ++l) {
          value += c_phi_(i, phi_column + l) * lin.B(l, j);
          derivative += c_a_phi_(i, phi_column + l) * lin.B(l, j);
        }
        out.GV(i, column) = scale * value + h_k * lin.D(i, j);
        out.GD(i, column) = scale * derivative + h_k * c_b_(i, j) + dh_k * lin.D(i, j);
      }
    }
  }
}

void LinearResponseBuilder::exact_one_state(const Linearization& lin, double h, LinearResponse& out) {
  // exact() for n_st = 1, where every φ_j(hA) is a scalar: the same products, as scalars, in the same
  // order; through raw column-major pointers, which the compiler keeps in registers
  const Eigen::Index n_out = lin.C.rows(), n_in = lin.B.cols();
  phi_.compute(lin.A, h, kInputCoefficients);
  const double* phi = phi_.all().data();  // φ_0 … φ_4
  const double a = lin.A(0, 0);
  const double *C = lin.C.data(), *B = lin.B.data(), *D = lin.D.data();
  double *gv = out.GV.data(), *gd = out.GD.data();
  for (Eigen::Index i = 0; i < n_out; ++i) {
    const double c = C[i], c_a = c * a;
    out.PV(i, 0) = c * phi[0];
    out.PD(i, 0) = c_a * phi[0];
    out.RV(i, 0) = h * (c * phi[1]);
    out.RD(i, 0) = out.PV(i, 0);
    for (Eigen::Index j = 0; j < n_in; ++j) {  // k innermost: four iterations, unrolled
      const double b = B[j], d = D[j * n_out + i];
      double h_k = 1.0, dh_k = 0.0, scale = h;
      for (int k = 0; k <= kMaxInputDegree; ++k) {
        if (k > 0) {
          dh_k = k * h_k;
          h_k *= h;
          scale *= k * h;
        }
        const Eigen::Index entry = (kInputCoefficients * j + k) * n_out + i;  // (i, 4j + k)
        gv[entry] = scale * (c * phi[k + 1] * b) + h_k * d;
        gd[entry] = scale * (c_a * phi[k + 1] * b) + h_k * (c * b) + dh_k * d;
      }
    }
  }
}

void LinearResponseBuilder::stehfest_at(const Linearization& lin, double t, Eigen::MatrixXd& g, Eigen::MatrixXd& p,
                                        Eigen::MatrixXd& r) {
  const Eigen::Index n_out = lin.C.rows(), n_st = lin.A.rows(), n_in = lin.B.cols();
  g.setZero(n_out, kInputCoefficients * n_in);
  p.setZero(n_out, n_st);
  r.setZero(n_out, n_st);
  const double ln2_t = std::numbers::ln2 / t;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    const double s = static_cast<double>(i + 1) * ln2_t;
    const double weight = weights_[i];
    if (n_st > 0) {
      resolvent_ = s * Eigen::MatrixXd::Identity(n_st, n_st) - lin.A;
      c_resolvent_.noalias() = lin.C * resolvent_.partialPivLu().inverse();  // C (sI − A)⁻¹
      p += weight * c_resolvent_;
      r += (weight / s) * c_resolvent_;
      transfer_.noalias() = c_resolvent_ * lin.B;
      transfer_ += lin.D;  // G(s)
    } else {
      transfer_ = lin.D;
    }
    double laplace_monomial = 1.0 / s;  // ℒ[t^k] = k!/s^{k+1}
    for (int k = 0; k <= kMaxInputDegree; ++k) {
      if (k > 0) laplace_monomial *= k / s;
      for (Eigen::Index j = 0; j < n_in; ++j) {
        g.col(kInputCoefficients * j + k) += (weight * laplace_monomial) * transfer_.col(j);
      }
    }
  }
  g *= ln2_t;
  p *= ln2_t;
  r *= ln2_t;
}

void LinearResponseBuilder::stehfest(const Linearization& lin, double h, LinearResponse& out) {
  const double eta = options_.richardson_fraction * h;
  stehfest_at(lin, h, g_[0], p_[0], r_[0]);
  stehfest_at(lin, h + 0.5 * eta, g_[1], p_[1], r_[1]);
  stehfest_at(lin, h + eta, g_[2], p_[2], r_[2]);
  out.GV = g_[0];
  out.PV = p_[0];
  out.RV = r_[0];
  // eq. 42: second-order Richardson  f'(h) ≈ (4 f(h + η/2) − f(h + η) − 3 f(h)) / η
  out.GD = (4.0 * g_[1] - g_[2] - 3.0 * g_[0]) / eta;
  out.PD = (4.0 * p_[1] - p_[2] - 3.0 * p_[0]) / eta;
  out.RD = (4.0 * r_[1] - r_[2] - 3.0 * r_[0]) / eta;
}

}  // namespace cosima::estimator
