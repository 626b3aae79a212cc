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

 protected:
  /// The structure `make()` returns, built once and shared by every instance: for a model whose
  /// structure does not depend on how it is constructed.
  template <class Make>
  static SharedStructure shared_structure(Make make) {
    static const SharedStructure shared{std::make_shared<const Structure>(make())};
    return shared;
  }
};

}  // namespace cosima::models
