// A linear state-space system with array ports (FMI 3.0 export kit; issue: two of them in
// feedback against the monolithic solution):
//   x' = A x + B u,   y = C x + D u,   x(0) = x0
// with n = 2 states, m = 2 inputs u[1], u[2], p = 2 outputs y[1], y[2]. The matrices are
// parameters named element-wise, A[i,j] (1-based, row-major), which the FMI 3.0 description of the
// export kit groups into array variables A (2×2), B, C, D and x0.
#include <fmt/format.h>

#include <string>

#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

constexpr int kStates = 2, kInputs = 2, kOutputs = 2;

/// The parameters A, B, C, D (row-major) and x0, with their defaults: a damped oscillator driven
/// through both inputs, both states measured, no feedthrough.
std::vector<ParameterSpec> state_space_parameters() {
  std::vector<ParameterSpec> list;
  auto matrix = [&](const char* name, int rows, int columns, std::initializer_list<double> values, const char* what) {
    auto value = values.begin();
    for (int i = 1; i <= rows; ++i) {
      for (int j = 1; j <= columns; ++j, ++value) list.push_back({fmt::format("{}[{},{}]", name, i, j), *value, what});
    }
  };
  matrix("A", kStates, kStates, {0.0, 1.0, -4.0, -0.4}, "state matrix");
  matrix("B", kStates, kInputs, {0.0, 0.0, 1.0, 0.5}, "input matrix");
  matrix("C", kOutputs, kStates, {1.0, 0.0, 0.0, 1.0}, "output matrix");
  matrix("D", kOutputs, kInputs, {0.0, 0.0, 0.0, 0.0}, "feedthrough matrix");
  list.push_back({"x0[1]", 1.0, "initial state"});
  list.push_back({"x0[2]", 0.0, "initial state"});
  return list;
}

class StateSpace final : public ModelBase<StateSpace> {
 public:
  StateSpace()
      : ModelBase("state_space", {.states = {"x[1]", "x[2]"},
                                  .inputs = {"u[1]", "u[2]"},
                                  .outputs = {"y[1]", "y[2]"},
                                  .parameters = state_space_parameters(),
                                  // D may be set non-zero: every output may depend on every input
                                  .feedthrough = {{0, 0}, {0, 1}, {1, 0}, {1, 1}},
                                  .linear_time_invariant = true}) {}

  [[nodiscard]] Eigen::VectorXd initial_state() const override {
    return Eigen::Vector2d(p(4 * kStates * kStates), p(4 * kStates * kStates + 1));
  }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override { dx = A() * x + B() * u; }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override { y = C() * x + D() * u; }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A = A();
    out.B = B();
    out.C = C();
    out.D = D();
    return true;
  }

 private:
  /// The k-th 2×2 block of the parameters, row-major.
  [[nodiscard]] Eigen::Matrix2d block(int k) const {
    Eigen::Matrix2d m;
    m << p(4 * k), p(4 * k + 1), p(4 * k + 2), p(4 * k + 3);
    return m;
  }
  [[nodiscard]] Eigen::Matrix2d A() const { return block(0); }
  [[nodiscard]] Eigen::Matrix2d B() const { return block(1); }
  [[nodiscard]] Eigen::Matrix2d C() const { return block(2); }
  [[nodiscard]] Eigen::Matrix2d D() const { return block(3); }
};

}  // namespace

std::unique_ptr<OdeModel> make_state_space() { return std::make_unique<StateSpace>(); }

}  // namespace cosima::models
