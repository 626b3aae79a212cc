#pragma once
// The derivatives of the continuous Real inputs at a step's start, in the layout of FMI 1.0's and
// FMI 2.0's Set Real Input Derivatives (FMI 2.0 §4.2.1; FMI 1.0 CS, fmiSetRealInputDerivatives): one
// entry per input and order k = 1 … kMaxInputDegree, valueReference, order and value
//   d^k u/dt^k (t_start) = k! · a_k   for the input polynomial u(t_start + τ) = Σ a_k τ^k.
// A negated alias (FMI 1.0) gets its sign. Call order: update() once the polynomials are known; when it
// returns true send the three arrays; after a rollback, forget() so that the next update sends them.
#include <vector>

#include "fmi/common/fmu_instance.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

class InputDerivatives {
 public:
  /// The entries of the instance's continuous Real inputs; sized once.
  explicit InputDerivatives(const FmuInstance& fmu);

  /// Fills the values from the polynomials. True when they must be sent: one is not zero, or the FMU
  /// still holds nonzero ones from before (zeros are sent once to clear them).
  bool update(const InputPolynomials& polynomials);
  /// The FMU may hold derivatives unknown to this object (after a restored state): update() sends.
  void forget() { sent_nonzero_ = true; }
  /// Whether the FMU holds nonzero derivatives from the last update.
  [[nodiscard]] bool held() const { return sent_nonzero_; }
  [[nodiscard]] bool empty() const { return vrs_.empty(); }

  [[nodiscard]] const std::vector<unsigned int>& vrs() const { return vrs_; }
  [[nodiscard]] const std::vector<int>& orders() const { return orders_; }
  [[nodiscard]] const std::vector<double>& values() const { return values_; }

 private:
  std::vector<unsigned int> vrs_;
  std::vector<int> orders_;
  std::vector<double> values_;
  std::vector<int> ports_;     ///< the input port of each input, in turn
  std::vector<double> signs_;  ///< −1 for a negated alias, else +1
  bool sent_nonzero_ = false;
};

}  // namespace cosima::fmi
