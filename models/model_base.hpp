#pragma once
// Helper for the benchmark models: clone() for free, parameters by enum index.
#include <memory>

#include "system/native/ode_model.hpp"

namespace cosima::models {

template <class Derived>
class ModelBase : public OdeModel {
 public:
  using OdeModel::OdeModel;
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

}  // namespace cosima::models
