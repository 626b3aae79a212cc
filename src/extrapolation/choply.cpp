#include "extrapolation/choply.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::extrapolation {

Eigen::MatrixXd choply_matrix(int degree, int frame, double weight_power) {
  if (degree < 0 || frame <= degree || weight_power < 0.0) {
    throw Error(fmt::format("CHOPoly P_{{{},{},{}}}: needs 0 ≤ δ < λ and ω ≥ 0", degree, frame, weight_power));
  }
  // V[i, k] = l_i^k at l_i = −i, W = diag(((λ − i)/λ)^ω), Π = (Vᵀ W V)⁻¹ Vᵀ W   (normal equations of eq. 4)
  Eigen::MatrixXd vandermonde(frame, degree + 1);
  Eigen::VectorXd weights(frame);
  for (int i = 0; i < frame; ++i) {
    double power = 1.0;
    for (int k = 0; k <= degree; ++k) {
      vandermonde(i, k) = power;
      power *= -static_cast<double>(i);
    }
    weights(i) = std::pow(static_cast<double>(frame - i) / frame, weight_power);
  }
  const Eigen::MatrixXd weighted = weights.asDiagonal() * vandermonde;  // W V
  return (vandermonde.transpose() * weighted).ldlt().solve(weighted.transpose());
}

const Eigen::MatrixXd& ChopolyCache::matrix(int degree, int frame, double weight_power) {
  const auto key = std::make_tuple(degree, frame, weight_power);
  auto it = matrices_.find(key);
  if (it == matrices_.end()) it = matrices_.emplace(key, choply_matrix(degree, frame, weight_power)).first;
  return it->second;
}

}  // namespace cosima::extrapolation
