#include "estimator/linear_response.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/polynomial.hpp"

namespace cosima {

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
      throw Error(fmt::format("the Richardson fraction of eq. 42 must be positive, not {}", options_.richardson_fraction));
    }
  }
}

bool LinearResponseBuilder::compute(const Linearization& lin, double h, LinearResponse& out) {
  out.GV.resize(lin.C.rows(), kInputCoefficients * lin.B.cols());
  out.GD.resize(lin.C.rows(), kInputCoefficients * lin.B.cols());
  if (options_.method == InverseLaplace::exact) {
    exact(lin, h, out);
  } else {
    stehfest(lin, h, out);
  }
  const bool finite = out.GV.allFinite() && out.GD.allFinite() && out.PV.allFinite() && out.PD.allFinite() &&
                      out.RV.allFinite() && out.RD.allFinite();
  if (!finite) {
    reason_ = fmt::format("{} inverse Laplace transform not finite at h = {}",
                          options_.method == InverseLaplace::exact ? "exact" : "Gaver–Stehfest", h);
  }
  return finite;
}

void LinearResponseBuilder::exact(const Linearization& lin, double h, LinearResponse& out) {
  const Eigen::Index n_st = lin.A.rows(), n_in = lin.B.cols();
  if (n_st > 0) {
    phi_.compute(lin.A, h, kInputCoefficients);
    out.PV.noalias() = lin.C * phi_.phi(0);      // C e^{hA}
    out.PD.noalias() = lin.C * lin.A * phi_.phi(0);
    out.RV.noalias() = h * lin.C * phi_.phi(1);  // C h φ_1(hA)
    out.RD = out.PV;                             // C (hA φ_1 + I) = C e^{hA}
  } else {
    out.PV.resize(lin.C.rows(), 0);
    out.PD.resize(lin.C.rows(), 0);
    out.RV.resize(lin.C.rows(), 0);
    out.RD.resize(lin.C.rows(), 0);
  }
  double h_k = 1.0, dh_k = 0.0;  // h^k and its derivative k h^{k−1}
  for (int k = 0; k <= kMaxInputDegree; ++k) {
    if (k > 0) {
      dh_k = k * h_k;
      h_k *= h;
    }
    // state response to ǔ_j = s^k:  ∫_0^h e^{A(h−r)} B_j r^k dr = k! h^{k+1} φ_{k+1}(hA) B_j
    if (n_st > 0) {
      state_response_.noalias() = phi_.phi(k + 1) * lin.B;
      state_response_ *= phi_.monomial_scale(k);
    } else {
      state_response_.resize(0, n_in);
    }
    for (Eigen::Index j = 0; j < n_in; ++j) {
      const Eigen::Index column = kInputCoefficients * j + k;
      out.GV.col(column).noalias() = lin.C * state_response_.col(j) + h_k * lin.D.col(j);
      out.GD.col(column).noalias() =
          lin.C * (lin.A * state_response_.col(j) + h_k * lin.B.col(j)) + dh_k * lin.D.col(j);
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

}  // namespace cosima
