#include "core/phi_functions.hpp"

#include <unsupported/Eigen/MatrixFunctions>

namespace cosima {

void PhiFunctions::compute(const Eigen::MatrixXd& A, double h, int max_order) {
  // W = h·[[A, I, 0, …], [0, 0, I, …], …, [0, …, 0]]: the first block row of e^W is
  // (φ_0, h φ_1, h² φ_2, …, h^p φ_p)(hA). Scaling the identities by h keeps ‖W‖ ~ h‖A‖, so the
  // Padé approximant needs a low degree and no squaring when h is small.
  const Eigen::Index n = A.rows();
  const Eigen::Index blocks = max_order + 1;
  block_.setZero(blocks * n, blocks * n);
  block_.topLeftCorner(n, n) = h * A;
  for (Eigen::Index b = 0; b + 1 < blocks; ++b) {
    block_.block(b * n, (b + 1) * n, n, n).diagonal().setConstant(h);
  }
  exp_block_ = block_.exp();
  phi_.resize(static_cast<std::size_t>(blocks));
  double power = 1.0;  // h^b
  for (Eigen::Index b = 0; b < blocks; ++b) {
    phi_[static_cast<std::size_t>(b)] = exp_block_.block(0, b * n, n, n) / power;
    power *= h;
  }
  h_ = h;
}

double PhiFunctions::monomial_scale(int k) const {
  double scale = h_;
  for (int i = 1; i <= k; ++i) scale *= i * h_;
  return scale;
}

}  // namespace cosima
