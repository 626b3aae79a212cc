#pragma once
// The φ-functions of exponential integrators, φ_0(Z) = e^Z, φ_{j+1}(Z) = (φ_j(Z) − I/j!) Z^{-1},
// with the identity ∫_0^h e^{A(h−r)} r^p/p! dr = h^{p+1} φ_{p+1}(hA) (DESIGN §3.3).
//
// DESIGN §3.3 obtains φ_0..φ_p(hA) from one exponential of the (p+1)·n block matrix
// h·[[A, I, 0, …], [0, 0, I, …], …, [0, …, 0]], whose first block row is (φ_0, hφ_1, …, h^pφ_p)(hA).
// This class computes the same first block row without forming the block matrix, by the scaling
// and modified squaring of Skaflestad & Wright (Appl. Numer. Math. 59, 2009):
//   1. Z = hA scaled by 2^{-s} until ‖Z‖₁ ≤ 1 (exact: a power of two);
//   2. φ_p(Z) = Σ_i Z^i/(i+p)! by Horner, truncated where the tail is below the unit round-off
//      relative to 1/p!; then φ_j = Z φ_{j+1} + I/j! for j = p−1 … 0 (stable: ‖Z‖ ≤ 1);
//   3. s times  φ_k(2Z) = 2^{-k} [φ_0(Z) φ_k(Z) + Σ_{j=1}^{k} φ_j(Z)/(k−j)!],  k = 0 … p.
// Cost: about (terms + p) n×n products, plus (p+1) per squaring — against the
// ((p+1)n)³ Padé of the block. One state (n = 1, the common case of a small co-simulation system)
// runs the same algorithm in scalars. All workspaces are kept: no allocation once sized.
#include <vector>

#include <Eigen/Dense>

namespace cosima {

class PhiFunctions {
 public:
  /// Computes φ_0(hA) ... φ_max_order(hA). A non-finite hA gives non-finite φ (callers check).
  void compute(const Eigen::MatrixXd& A, double h, int max_order);

  /// φ_j(hA), n×n.
  [[nodiscard]] Eigen::MatrixXd::ConstColsBlockXpr phi(int j) const { return all_.middleCols(j * n_, n_); }
  /// [φ_0 φ_1 … φ_max_order](hA) side by side, n × (max_order+1)·n: one product C·[φ_0 … φ_p]
  /// gives every C φ_j.
  [[nodiscard]] const Eigen::MatrixXd& all() const { return all_; }
  [[nodiscard]] int max_order() const { return n_ == 0 ? -1 : static_cast<int>(all_.cols() / n_) - 1; }
  /// k!·h^{k+1}: the factor in  ∫_0^h e^{A(h−r)} r^k dr = monomial_scale(k)·φ_{k+1}(hA),
  /// the response of x' = A x + v·r^k from x(0) = 0, i.e. state response = scale·φ_{k+1}·v.
  [[nodiscard]] double monomial_scale(int k) const;
  [[nodiscard]] double step() const { return h_; }

 private:
  Eigen::MatrixXd all_;
  Eigen::Index n_ = 0;
  std::vector<Eigen::MatrixXd> phi_, next_;  ///< workspaces: φ_j, and the squaring's new values
  Eigen::MatrixXd z_;
  Eigen::Index sized_n_ = -1;  ///< the workspaces' size
  std::size_t sized_blocks_ = 0;
  double h_ = 0.0;
};

}  // namespace cosima
