#pragma once
// CHOPoly (seed 002 §4): causal hopping oblivious polynomial predictors P_{δ,λ,ω}. On a frame of
// the λ last samples with unit spacing and the newest at 0 (u_λ = [u_0, u_{−1}, …, u_{1−λ}]),
// the polynomial of degree δ minimizing the weighted least-squares error (eq. 4)
//     Σ_{l=1−λ}^{0} ((λ + l)/λ)^ω (u_l − p(l))²            (weights eq. 3)
// predicts u(τ) = τ_δᵀ Π_{δ,λ,ω} u_λ for τ ≥ 0 (Type II, eq. 8), τ_δ = [1, τ, …, τ^δ]ᵀ. The
// (δ+1)×λ matrices Π are computed once per (δ, λ, ω) and kept: P_{0,1,ω} is ZOH, P_{1,2,0} is FOH,
// P_{0,λ,0} the running mean (eq. 16).
#include <map>
#include <tuple>

#include <Eigen/Dense>

namespace cosima::extrapolation {

/// Π_{δ,λ,ω}; throws Error unless 0 ≤ δ < λ and ω ≥ 0.
Eigen::MatrixXd choply_matrix(int degree, int frame, double weight_power);

/// The Π matrices in use, computed on first request.
class ChopolyCache {
 public:
  const Eigen::MatrixXd& matrix(int degree, int frame, double weight_power);

 private:
  std::map<std::tuple<int, int, double>, Eigen::MatrixXd> matrices_;
};

}  // namespace cosima::extrapolation
