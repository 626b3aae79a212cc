#pragma once
// A model whose solver fails after t = 0.5 (its derivative turns NaN): exported as an FMU whose
// fmi2DoStep returns fmi2Error.
#include <limits>
#include <memory>

#include "system/native/ode_model.hpp"

namespace cosima::testing {

class Breaks final : public OdeModel {
 public:
  Breaks() : OdeModel("test.breaks", {.states = {"x"}, .inputs = {"u"}, .outputs = {"y"}}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Zero(1); }
  void derivatives(double t, ConstVectorRef, ConstVectorRef, VectorRef dx) const override {
    dx(0) = t < 0.5 ? 1.0 : std::numeric_limits<double>::quiet_NaN();
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y = x; }
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<Breaks>(*this); }
};

inline std::unique_ptr<OdeModel> make_breaks() { return std::make_unique<Breaks>(); }

}  // namespace cosima::testing
