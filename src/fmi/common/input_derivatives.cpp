#include "fmi/common/input_derivatives.hpp"

namespace cosima::fmi {

InputDerivatives::InputDerivatives(const FmuInstance& fmu) {
  const FmuInstance::TypedPorts& real_in = fmu.continuous_real_inputs();
  for (std::size_t k = 0; k < real_in.vrs.size(); ++k) {
    ports_.push_back(real_in.ports[k]);
    signs_.push_back(real_in.signs.empty() ? 1.0 : real_in.signs[k]);
    for (int order = 1; order <= kMaxInputDegree; ++order) {
      vrs_.push_back(real_in.vrs[k]);
      orders_.push_back(order);
    }
  }
  values_.assign(vrs_.size(), 0.0);
}

bool InputDerivatives::update(const InputPolynomials& polynomials) {
  bool any = false;
  std::size_t slot = 0;
  for (std::size_t k = 0; k < ports_.size(); ++k) {
    double factorial = 1.0;
    for (int order = 1; order <= kMaxInputDegree; ++order, ++slot) {
      factorial *= order;
      values_[slot] = signs_[k] * factorial * polynomials(ports_[k], order);
      any = any || values_[slot] != 0.0;
    }
  }
  const bool send = any || sent_nonzero_;
  sent_nonzero_ = any;
  return send;
}

}  // namespace cosima::fmi
