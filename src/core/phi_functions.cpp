#include "core/phi_functions.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/small_matrix.hpp"

namespace cosima {
namespace {

constexpr int kMaxOrder = 20;      ///< max_order accepted (the estimators use 4)
constexpr int kUnrolledOrder = 4;  ///< the estimators' order: its one-state path unrolls
constexpr int kMaxTerms = 40;      ///< Taylor terms beyond the first; ‖Z‖₁ ≤ 1 needs at most ~20

constexpr std::array<double, kMaxOrder + kMaxTerms + 1> kInverseFactorial = [] {
  std::array<double, kMaxOrder + kMaxTerms + 1> table{};
  double value = 1.0;
  for (std::size_t j = 0; j < table.size(); ++j) {
    if (j > 0) value /= static_cast<double>(j);
    table[j] = value;
  }
  return table;
}();

constexpr std::array<double, kMaxOrder + 1> kHalfPower = [] {  // 2^{-k}, exact
  std::array<double, kMaxOrder + 1> table{};
  double value = 1.0;
  for (double& entry : table) {
    entry = value;
    value *= 0.5;
  }
  return table;
}();

// The operations of the algorithm, for one state (a scalar) and for n states (a matrix).
void set_identity(double& x, double c) { x = c; }
void set_identity(Eigen::MatrixXd& x, double c) {
  x.setZero();
  x.diagonal().setConstant(c);
}
void add_identity(double& x, double c) { x += c; }
void add_identity(Eigen::MatrixXd& x, double c) { x.diagonal().array() += c; }
void product(double& out, double a, double b) { out = a * b; }
void product(Eigen::MatrixXd& out, const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { multiply(out, a, b); }
void add_scaled(double& out, double c, double x) { out += c * x; }
void add_scaled(Eigen::MatrixXd& out, double c, const Eigen::MatrixXd& x) { out += c * x; }

/// φ_0..φ_p(2^s Z) for the scaled Z with ‖Z‖₁ = norm ≤ 1 (the header's steps 2 and 3), in phi[0..p]
/// or next[0..p] (the squarings alternate between them): returns the one that holds them. Order is
/// int, or std::integral_constant for an order known at compile time (its loops unroll; same operations).
template <class T, class Order>
T* scaled_taylor_and_squaring(const T& z, double norm, int squarings, Order order, T* phi, T* next) {
  const int p = order;
  const auto inverse_factorial = [](int j) { return kInverseFactorial[static_cast<std::size_t>(j)]; };
  // degree m: the first neglected term's bound ‖Z‖^{m+1}/(m+1+p)! under u/(2 p!) (the tail is at
  // most twice its first term for ‖Z‖ ≤ 1)
  const double tolerance = 0.5 * (0.5 * std::numeric_limits<double>::epsilon()) * inverse_factorial(p);
  int m = 0;
  for (double bound = norm * inverse_factorial(p + 1); bound > tolerance && m < kMaxTerms;) {
    ++m;
    bound *= norm / (m + 1 + p);
  }
  T* top = &phi[p];
  T* work = &next[p];
  set_identity(*top, inverse_factorial(m + p));  // Horner: φ_p = Σ_{i ≤ m} Z^i/(i+p)!
  for (int i = m - 1; i >= 0; --i) {
    product(*work, z, *top);
    add_identity(*work, inverse_factorial(i + p));
    std::swap(top, work);
  }
  if (top != &phi[p]) std::swap(phi[p], next[p]);
  for (int j = p - 1; j >= 0; --j) {  // φ_j = Z φ_{j+1} + I/j!
    product(phi[j], z, phi[j + 1]);
    add_identity(phi[j], inverse_factorial(j));
  }
  for (int squaring = 0; squaring < squarings; ++squaring) {  // the doubling formula (header, step 3)
    for (int k = 0; k <= p; ++k) {
      T& doubled = next[k];
      product(doubled, phi[0], phi[k]);
      for (int j = 1; j <= k; ++j) add_scaled(doubled, inverse_factorial(k - j), phi[j]);
      doubled *= kHalfPower[static_cast<std::size_t>(k)];
    }
    std::swap(phi, next);
  }
  return phi;
}

/// One state: φ_0..φ_p(2^s z) as scalars on the stack, into out[0..p].
template <class Order>
void scalar_phi(double z, double norm, int squarings, Order order, double* out) {
  std::array<double, kMaxOrder + 1> phi, next;  // every entry read is written first
  const double* result = scaled_taylor_and_squaring(z, norm, squarings, order, phi.data(), next.data());
  const int p = order;
  for (int j = 0; j <= p; ++j) out[j] = result[j];
}

}  // namespace

void PhiFunctions::compute(const Eigen::MatrixXd& A, double h, int max_order) {
  if (max_order < 0 || max_order > kMaxOrder) {
    throw Error(fmt::format("φ-functions: order {} outside [0, {}]", max_order, kMaxOrder));
  }
  const Eigen::Index n = A.rows();
  const std::size_t blocks = static_cast<std::size_t>(max_order) + 1;
  h_ = h;
  n_ = n;
  ensure_shape(all_, n, static_cast<Eigen::Index>(blocks) * n);
  if (sized_n_ != n || sized_blocks_ != blocks) {  // workspaces sized once per system
    sized_n_ = n;
    sized_blocks_ = blocks;
    const std::size_t matrices = n > 1 ? blocks : 0;  // one state: scalars on the stack (below)
    phi_.resize(matrices);
    next_.resize(matrices);
    for (auto& phi : phi_) phi.resize(n, n);
    for (auto& next : next_) next.resize(n, n);
  }
  if (n == 0) return;
  // ‖hA‖₁
  const double norm = std::abs(h) * (n == 1 ? std::abs(A(0, 0)) : A.cwiseAbs().colwise().sum().maxCoeff());
  if (!std::isfinite(norm)) {
    all_.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  int squarings = 0;  // ‖hA‖₁ 2^{-s} ≤ 1
  if (norm > 1.0) std::frexp(norm, &squarings);
  const double scale = squarings == 0 ? h : std::ldexp(h, -squarings);
  const double scaled_norm = squarings == 0 ? norm : std::ldexp(norm, -squarings);
  if (n == 1 && max_order == kUnrolledOrder) {
    scalar_phi(scale * A(0, 0), scaled_norm, squarings, std::integral_constant<int, kUnrolledOrder>{}, all_.data());
    return;
  }
  if (n == 1) {
    scalar_phi(scale * A(0, 0), scaled_norm, squarings, max_order, all_.data());
    return;
  }
  z_.noalias() = scale * A;
  const Eigen::MatrixXd* result =
      scaled_taylor_and_squaring(z_, scaled_norm, squarings, max_order, phi_.data(), next_.data());
  for (std::size_t j = 0; j < blocks; ++j) {
    all_.middleCols(static_cast<Eigen::Index>(j) * n, n) = result[static_cast<std::ptrdiff_t>(j)];
  }
}

double PhiFunctions::monomial_scale(int k) const {
  double scale = h_;
  for (int i = 1; i <= k; ++i) scale *= i * h_;
  return scale;
}

}  // namespace cosima
