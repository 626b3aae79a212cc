// B4 — seed 003 §4.1 (Table 3): two masses between walls; S1 the left mass (outputs v1, x1, input
// the coupling force F), S2 the right mass, whose output F = c2(x2 − x1) + d2(v2 − v1) has direct
// feedthrough. Initial coupling force −20000 N.
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class LeftMass final : public ModelBase<LeftMass> {
 public:
  enum Param { m1, c1, d1, x1_0, v1_0 };
  LeftMass()
      : ModelBase("b4.left", {.states = {"x1", "v1"},
                              .inputs = {"F"},
                              .outputs = {"v1", "x1"},
                              .parameters = {{"m1", 5.0, "mass [kg]"},
                                             {"c1", 1e4, "left spring rate [N/m]"},
                                             {"d1", 10.0, "left damper rating [N/(m/s)]"},
                                             {"x1_0", -1.0, "initial position [m]"},
                                             {"v1_0", 0.0, "initial velocity [m/s]"}},
                              .linear_time_invariant = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(x1_0), p(v1_0)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = (-p(c1) * x(0) - p(d1) * x(1) + u(0)) / p(m1);
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override {
    y(0) = x(1);
    y(1) = x(0);
  }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -p(c1) / p(m1), -p(d1) / p(m1);
    out.B.resize(2, 1);
    out.B << 0.0, 1.0 / p(m1);
    out.C.resize(2, 2);
    out.C << 0.0, 1.0, 1.0, 0.0;
    out.D = Eigen::MatrixXd::Zero(2, 1);
    return true;
  }
};

class RightMass final : public ModelBase<RightMass> {
 public:
  enum Param { m2, c2, c3, d2, d3, x2_0, v2_0 };
  RightMass()
      : ModelBase("b4.right", {.states = {"x2", "v2"},
                               .inputs = {"v1", "x1"},
                               .outputs = {"F"},
                               .parameters = {{"m2", 80.0, "mass [kg]"},
                                              {"c2", 1e4, "coupling spring rate [N/m]"},
                                              {"c3", 1e5, "right spring rate [N/m]"},
                                              {"d2", 10.0, "coupling damper rating [N/(m/s)]"},
                                              {"d3", 40.0, "right damper rating [N/(m/s)]"},
                                              {"x2_0", -3.0, "initial position [m]"},
                                              {"v2_0", 0.0, "initial velocity [m/s]"}},
                               .feedthrough = {{0, 0}, {0, 1}},
                               .linear_time_invariant = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(x2_0), p(v2_0)); }
  [[nodiscard]] double coupling(ConstVectorRef x, ConstVectorRef u) const {
    return p(c2) * (x(0) - u(1)) + p(d2) * (x(1) - u(0));
  }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = (-coupling(x, u) - p(c3) * x(0) - p(d3) * x(1)) / p(m2);
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override { y(0) = coupling(x, u); }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -(p(c2) + p(c3)) / p(m2), -(p(d2) + p(d3)) / p(m2);
    out.B.resize(2, 2);
    out.B << 0.0, 0.0, p(d2) / p(m2), p(c2) / p(m2);
    out.C.resize(1, 2);
    out.C << p(c2), p(d2);
    out.D.resize(1, 2);
    out.D << -p(d2), -p(c2);
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b4_left() { return std::make_unique<LeftMass>(); }
std::unique_ptr<OdeModel> make_b4_right() { return std::make_unique<RightMass>(); }

}  // namespace cosima::models
