#pragma once
// A small state-space model whose parameters, inputs and outputs are named like matrix and vector
// elements (A[i,j], u[i], y[i]): its FMI 3.0 export groups them into array variables. C is declared
// column by column on purpose (the FMI 3.0 values are row-major all the same); k[1], k[3] are no
// complete array and stay scalars.
//   x' = A x + B u,   y = C x + D u,   x(0) = x0
#include <memory>
#include <string>
#include <vector>

#include "system/native/ode_model.hpp"

namespace cosima::testing {

class ExportArrays final : public OdeModel {
 public:
  ExportArrays() : OdeModel("test.export_arrays", make_structure()) {}

  [[nodiscard]] Eigen::VectorXd initial_state() const override {
    return (Eigen::VectorXd(2) << p(x0_1), p(x0_1 + 1)).finished();
  }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    for (int i = 0; i < 2; ++i) {
      dx(i) = 0.0;
      for (int j = 0; j < 2; ++j) dx(i) += p(a11 + 2 * i + j) * x(j) + p(b11 + 2 * i + j) * u(j);
    }
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    for (int i = 0; i < 3; ++i) {
      y(i) = 0.0;
      for (int j = 0; j < 2; ++j) y(i) += p(c11 + 3 * j + i) * x(j) + p(d11 + 2 * i + j) * u(j);  // C column-major
    }
  }
  [[nodiscard]] std::unique_ptr<OdeModel> clone() const override { return std::make_unique<ExportArrays>(*this); }

 private:
  // parameter indices: A, B, D row-major; C column-major; k[1], k[3]; x0
  enum Param { a11 = 0, b11 = 4, c11 = 8, d11 = 14, k1 = 20, x0_1 = 22 };

  static Structure make_structure() {
    Structure s;
    s.states = {"x1", "x2"};
    s.inputs = {"u[1]", "u[2]"};
    s.outputs = {"y[1]", "y[2]", "y[3]"};
    const double a[] = {-1.0, 0.5, -0.3, -2.0}, b[] = {1.0, 0.0, 0.5, 1.0};
    const double c_column_major[] = {1.0, 0.0, 1.0, 0.0, 1.0, 1.0}, d[] = {0.0, 0.0, 0.1, 0.0, 0.0, 0.2};
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) s.parameters.push_back({element("A", i, j), a[2 * i + j], "system matrix"});
    }
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) s.parameters.push_back({element("B", i, j), b[2 * i + j], "input matrix"});
    }
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 3; ++i)
        s.parameters.push_back({element("C", i, j), c_column_major[3 * j + i], "output matrix"});
    }
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) s.parameters.push_back({element("D", i, j), d[2 * i + j], "feedthrough matrix"});
    }
    s.parameters.push_back({"k[1]", 3.0, "not an array: k[2] is missing"});
    s.parameters.push_back({"k[3]", 4.0, ""});
    s.parameters.push_back({"x0[1]", 1.0, "initial state"});
    s.parameters.push_back({"x0[2]", -0.5, "initial state"});
    for (int o = 0; o < 3; ++o) {
      for (int i = 0; i < 2; ++i) {
        if (d[2 * o + i] != 0.0) s.feedthrough.emplace_back(o, i);
      }
    }
    return s;
  }
  static std::string element(const char* base, int i, int j) {
    return std::string(base) + "[" + std::to_string(i + 1) + "," + std::to_string(j + 1) + "]";
  }
};

inline std::unique_ptr<OdeModel> make_export_arrays() { return std::make_unique<ExportArrays>(); }

}  // namespace cosima::testing
