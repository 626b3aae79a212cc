// B5 — seed 004 §4 (eq. 40–44): two-mass rotational oscillator.
//   S1 x = (φ1, ω1, φ2), input ω2, output τ1 = c_k(φ1 − φ2) + d_k(ω1 − ω2)
//   S2 x = (φ2, ω2),     input τ1, output ω2
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

class Body1 final : public ModelBase<Body1> {
 public:
  enum Param { J1, c1, d1, ck, dk, phi1_0, omega1_0, phi2_0 };
  Body1()
      : ModelBase("b5.body1", {.states = {"phi1", "omega1", "phi2"},
                               .inputs = {"omega2"},
                               .outputs = {"tau1"},
                               .parameters = {{"J1", 10.0, "inertia [kg m²]"},
                                              {"c1", 1.0, "spring to ground [N m/rad]"},
                                              {"d1", 1.0, "damper to ground [N m s/rad]"},
                                              {"ck", 1.0, "coupling spring [N m/rad]"},
                                              {"dk", 2.0, "coupling damper [N m s/rad]"},
                                              {"phi1_0", 0.1, "initial angle [rad]"},
                                              {"omega1_0", 0.1, "initial speed [rad/s]"},
                                              {"phi2_0", 0.2, "initial angle of body 2 [rad]"}},
                               .feedthrough = {{0, 0}},
                               .linear_time_invariant = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override {
    return Eigen::Vector3d(p(phi1_0), p(omega1_0), p(phi2_0));
  }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    const double tau1 = p(ck) * (x(0) - x(2)) + p(dk) * (x(1) - u(0));
    dx(0) = x(1);
    dx(1) = (-p(c1) * x(0) - p(d1) * x(1) - tau1) / p(J1);
    dx(2) = u(0);
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    y(0) = p(ck) * (x(0) - x(2)) + p(dk) * (x(1) - u(0));
  }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    const double j = p(J1);
    out.A.resize(3, 3);
    out.A << 0.0, 1.0, 0.0, -(p(c1) + p(ck)) / j, -(p(d1) + p(dk)) / j, p(ck) / j, 0.0, 0.0, 0.0;
    out.B.resize(3, 1);
    out.B << 0.0, p(dk) / j, 1.0;
    out.C.resize(1, 3);
    out.C << p(ck), p(dk), -p(ck);
    out.D = Eigen::MatrixXd::Constant(1, 1, -p(dk));
    return true;
  }
};

class Body2 final : public ModelBase<Body2> {
 public:
  enum Param { J2, c2, d2, phi2_0, omega2_0 };
  Body2()
      : ModelBase("b5.body2", {.states = {"phi2", "omega2"},
                               .inputs = {"tau1"},
                               .outputs = {"omega2"},
                               .parameters = {{"J2", 10.0, "inertia [kg m²]"},
                                              {"c2", 1.0, "spring to ground [N m/rad]"},
                                              {"d2", 2.0, "damper to ground [N m s/rad]"},
                                              {"phi2_0", 0.2, "initial angle [rad]"},
                                              {"omega2_0", 0.1, "initial speed [rad/s]"}},
                               .linear_time_invariant = true}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(phi2_0), p(omega2_0)); }
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = x(1);
    dx(1) = (-p(c2) * x(0) - p(d2) * x(1) + u(0)) / p(J2);
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y(0) = x(1); }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << 0.0, 1.0, -p(c2) / p(J2), -p(d2) / p(J2);
    out.B.resize(2, 1);
    out.B << 0.0, 1.0 / p(J2);
    out.C.resize(1, 2);
    out.C << 0.0, 1.0;
    out.D = Eigen::MatrixXd::Zero(1, 1);
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b5_body1() { return std::make_unique<Body1>(); }
std::unique_ptr<OdeModel> make_b5_body2() { return std::make_unique<Body2>(); }

}  // namespace cosima::models
