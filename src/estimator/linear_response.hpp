#pragma once
// The linear part of the COSTARICA estimator (seed 000 §3.2.2–3.2.3; the f_C term is seed 003
// eq. 10–14). On a macro-step of size h, in the shifted time s ∈ [0, h], the linearization
//     x' = A x + B ǔ(s) + f_C,   x(0) = x_N,      y_L = C x + D ǔ(s),     ǔ_j(s) = Σ_k ξ_jk s^k
// gives outputs and output derivatives at s = h that are affine in the input coefficients Ξ̌:
//     ŷ_L(h)  = G_V·vec(Ξ̌) + P_V x_N + R_V f_C                        (seed 000 eq. 32)
//     ŷ'_L(h) = G_D·vec(Ξ̌) + P_D x_N + R_D f_C                        (seed 000 eq. 34)
// where vec(Ξ̌)[4j + k] = ξ_jk is the row-major layout of InputPolynomials, and
//     G = ℒ⁻¹[(C(sI−A)⁻¹B + D) ⊗ (k!/s^{k+1})_k],  P = ℒ⁻¹[C(sI−A)⁻¹],  R = ℒ⁻¹[C(sI−A)⁻¹/s]
// taken at h (_V) and differentiated at h (_D).
//
// Two evaluations of ℒ⁻¹:
//   exact     φ-functions (DESIGN §3.3; core/phi_functions.hpp): P_V = C e^{hA},
//             R_V = h C φ_1(hA), G_V[:, 4j+k] = C·k! h^{k+1} φ_{k+1}(hA) B_j + D_j h^k, and the
//             _D terms from y' = C(A x + B u + f_C) + D u'. Exact for linear systems.
//   stehfest  the paper's Gaver–Stehfest sum  f(t) ≈ ln2/t Σ_{i=1}^{N} V_i F(i ln2 / t)
//             with N terms, and the second-order Richardson derivative of eq. 42,
//             f'(h) ≈ (4 f(h + η/2) − f(h + η) − 3 f(h)) / η,   η = richardson_fraction·h.
#include <array>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/phi_functions.hpp"
#include "system/system.hpp"

namespace cosima::estimator {

enum class InverseLaplace : std::uint8_t { exact, stehfest };

struct LinearResponseOptions {
  InverseLaplace method = InverseLaplace::exact;
  int stehfest_terms = 14;           ///< N, even; double precision is best around 12–16
  double richardson_fraction = 0.2;  ///< η / h in eq. 42 (the seed's value)
};

/// The operators of eq. 32–35 for one step size.
struct LinearResponse {
  Eigen::MatrixXd GV, GD;  ///< n_out × 4·n_in
  Eigen::MatrixXd PV, PD;  ///< n_out × n_st
  Eigen::MatrixXd RV, RD;  ///< n_out × n_st
};

/// Builds LinearResponse from a linearization; keeps its workspaces between calls.
class LinearResponseBuilder {
 public:
  explicit LinearResponseBuilder(LinearResponseOptions options = {});

  /// Computes the operators at step size h. Returns false with reason() when the evaluation is not
  /// finite (Stehfest abscissa on a pole of (sI − A)⁻¹): the caller changes h.
  bool compute(const Linearization& lin, double h, LinearResponse& out);
  [[nodiscard]] const std::string& reason() const { return reason_; }
  [[nodiscard]] const LinearResponseOptions& options() const { return options_; }

 private:
  /// The exact operators of seed 000 §3 from the φ-functions of hA (any n_st; compute() takes
  /// exact_one_state for n_st = 1).
  void exact(const Linearization& lin, double h, LinearResponse& out);
  /// exact() for n_st = 1: the φ_j(hA) are scalars, the products scalings (same operations, same order).
  void exact_one_state(const Linearization& lin, double h, LinearResponse& out);
  /// ℒ⁻¹ of G ⊗ (k!/s^{k+1}), P and R at time t by Gaver–Stehfest.
  void stehfest_at(const Linearization& lin, double t, Eigen::MatrixXd& g, Eigen::MatrixXd& p, Eigen::MatrixXd& r);
  void stehfest(const Linearization& lin, double h, LinearResponse& out);

  LinearResponseOptions options_;
  std::vector<double> weights_;  ///< Stehfest V_1..V_N
  PhiFunctions phi_;
  Eigen::MatrixXd c_a_, c_b_, c_phi_, c_a_phi_;  ///< exact: C A, C B, C·[φ_0 … φ_4], C A·[φ_0 … φ_4]
  Eigen::MatrixXd resolvent_, c_resolvent_, transfer_;
  std::array<Eigen::MatrixXd, 3> g_, p_, r_;  ///< at h, h + η/2, h + η
  std::string reason_;
};

/// The Gaver–Stehfest weights V_1..V_N (N even) — Stehfest, CACM 13(1), 1970.
std::vector<double> stehfest_weights(int terms);

}  // namespace cosima::estimator
