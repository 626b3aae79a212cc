#pragma once
// The φ-functions of exponential integrators, φ_0(Z) = e^Z, φ_{j+1}(Z) = (φ_j(Z) − I/j!) Z^{-1},
// with the identity ∫_0^h e^{A(h−r)} r^p/p! dr = h^{p+1} φ_{p+1}(hA) (DESIGN §3.3).
// All of φ_0..φ_p(hA) come from ONE matrix exponential of the block matrix
//          [ A  I  0 ... 0 ]
//   W = h· [ 0  0  I ... 0 ]     (size (p+1)·n):  e^W's first block row is (φ_0, hφ_1, ..., h^p φ_p)(hA).
//          [       ...   I ]
//          [ 0  0  0 ... 0 ]
#include <vector>

#include <Eigen/Dense>

namespace cosima {

class PhiFunctions {
 public:
  /// Computes φ_0(hA) ... φ_max_order(hA).
  void compute(const Eigen::MatrixXd& A, double h, int max_order);

  [[nodiscard]] const Eigen::MatrixXd& phi(int j) const { return phi_[static_cast<std::size_t>(j)]; }
  [[nodiscard]] int max_order() const { return static_cast<int>(phi_.size()) - 1; }
  /// k!·h^{k+1}: the factor in  ∫_0^h e^{A(h−r)} r^k dr = monomial_scale(k)·φ_{k+1}(hA),
  /// the response of x' = A x + v·r^k from x(0) = 0, i.e. state response = scale·φ_{k+1}·v.
  [[nodiscard]] double monomial_scale(int k) const;
  [[nodiscard]] double step() const { return h_; }

 private:
  std::vector<Eigen::MatrixXd> phi_;
  Eigen::MatrixXd block_;
  Eigen::MatrixXd exp_block_;
  double h_ = 0.0;
};

}  // namespace cosima
