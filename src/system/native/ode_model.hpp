#pragma once
// The C++ model API for native systems:
//   x' = f(t, x, u),   y = g(t, x, u)
// with named states, inputs, outputs and parameters, declared input→output dependencies (direct
// feedthrough) and optional analytic Jacobians. A model is pure: it holds parameters, never state;
// the NativeSystem that embeds it owns the state and the integrator.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "system/system.hpp"

namespace cosima {

using VectorRef = Eigen::Ref<Eigen::VectorXd>;
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXd>;

struct ParameterSpec {
  std::string name;
  double value;
  std::string description;
};

class OdeModel {
 public:
  struct Structure {
    std::vector<std::string> states;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<ParameterSpec> parameters;
    /// (output, input) pairs where y_output depends algebraically on u_input.
    std::vector<std::pair<int, int>> feedthrough;
    /// f and g are affine with constant matrices: x' = A x + B u + e, y = C x + D u + c.
    bool linear_time_invariant = false;
    /// f alone is affine with constant A, B, e (g may depend on t or be non-linear).
    bool linear_dynamics = false;
  };

  OdeModel(std::string type, Structure structure);
  virtual ~OdeModel() = default;
  OdeModel(const OdeModel&) = default;
  OdeModel& operator=(const OdeModel&) = delete;

  [[nodiscard]] const std::string& type() const { return type_; }
  [[nodiscard]] const Structure& structure() const { return structure_; }
  [[nodiscard]] int state_count() const { return static_cast<int>(structure_.states.size()); }
  [[nodiscard]] int input_count() const { return static_cast<int>(structure_.inputs.size()); }
  [[nodiscard]] int output_count() const { return static_cast<int>(structure_.outputs.size()); }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const;
  [[nodiscard]] bool has_linear_dynamics() const {
    return structure_.linear_dynamics || structure_.linear_time_invariant;
  }

  /// Sets a parameter by name; throws Error naming the model and listing the valid names.
  void set_parameter(const std::string& name, double value);
  [[nodiscard]] double parameter(const std::string& name) const;

  [[nodiscard]] virtual Eigen::VectorXd initial_state() const = 0;
  virtual void derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const = 0;
  virtual void outputs(double t, ConstVectorRef x, ConstVectorRef u, VectorRef y) const = 0;
  /// Analytic A = ∂f/∂x, B = ∂f/∂u, C = ∂g/∂x, D = ∂g/∂u. Returns false when the model has none
  /// (the system then uses finite differences).
  virtual bool jacobians(double t, ConstVectorRef x, ConstVectorRef u, Linearization& out) const;
  [[nodiscard]] virtual std::unique_ptr<OdeModel> clone() const = 0;

 protected:
  /// Parameter value by declaration index (hot-path access for model code).
  [[nodiscard]] double p(int index) const { return values_[static_cast<std::size_t>(index)]; }

 private:
  std::string type_;
  Structure structure_;
  std::vector<double> values_;
};

/// Finite-difference Jacobians of a model at (t, x, u) (central differences).
void finite_difference_jacobians(const OdeModel& model, double t, ConstVectorRef x, ConstVectorRef u,
                                 Linearization& out);

}  // namespace cosima
