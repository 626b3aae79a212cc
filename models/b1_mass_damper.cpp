// B1 — seed 001 §5 (eq. 29–32): a mass on a spring-damper (S1) coupled to a damper with a
// massless plate (S2) by force f_C (S1→S2) and velocity v_C, position x_C (S2→S1). Both sides have
// direct feedthrough; the fixed point's spectral radius is √(D_SD/D_D) (eq. 34–35).
#include <cmath>

#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

/// f_L(t) = 5e·exp(1/((t/2)² − 1)) for t < 2, else 0 (eq. 29): C∞, from 5 N down to 0 N at t = 2.
double applied_force(double t) {
  if (t >= 2.0) return 0.0;
  const double r = t / 2.0;
  return 5.0 * std::exp(1.0) * std::exp(1.0 / (r * r - 1.0));
}

class Mass final : public ModelBase<Mass> {
 public:
  enum Param { M_L, K_SD, D_SD, v_L0, x_L0 };
  Mass()
      : ModelBase("b1.mass", {.states = {"v_L", "x_L"},
                              .inputs = {"v_C", "x_C"},
                              .outputs = {"f_C"},
                              .parameters = {{"M_L", 1.0, "mass [kg]"},
                                             {"K_SD", 1.0, "spring rate [N/m]"},
                                             {"D_SD", 1.0, "damper rating [N/(m/s)]"},
                                             {"v_L0", 0.0, "initial velocity [m/s]"},
                                             {"x_L0", 0.0, "initial position [m]"}},
                              .feedthrough = {{0, 0}, {0, 1}},
                              .outputs_depend_on_time = false}) {}

  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(v_L0), p(x_L0)); }
  void derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    const double f_sd = p(K_SD) * (u(1) - x(1)) + p(D_SD) * (u(0) - x(0));
    dx(0) = (applied_force(t) + f_sd) / p(M_L);
    dx(1) = x(0);
  }
  void outputs(double /*t*/, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    y(0) = p(D_SD) * (x(0) - u(0)) + p(K_SD) * (x(1) - u(1));  // f_C = −f_SD
  }
  bool jacobians(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/, Linearization& out) const override {
    const double m = p(M_L), k = p(K_SD), d = p(D_SD);
    out.A.resize(2, 2);
    out.A << -d / m, -k / m, 1.0, 0.0;
    out.B.resize(2, 2);
    out.B << d / m, k / m, 0.0, 0.0;
    out.C.resize(1, 2);
    out.C << d, k;
    out.D.resize(1, 2);
    out.D << -d, -k;
    return true;
  }
};

class Damper final : public ModelBase<Damper> {
 public:
  enum Param { D_D, x_D0 };
  Damper()
      : ModelBase("b1.damper", shared_structure([] {
                    return Structure{.states = {"x_D"},
                                     .inputs = {"f_C"},
                                     .outputs = {"v_C", "x_C"},
                                     .parameters = {{"D_D", 4.0, "damper rating [N/(m/s)], in [0.01, 4]"},
                                                    {"x_D0", 0.0, "initial plate position [m]"}},
                                     .feedthrough = {{0, 0}},
                                     .linear_time_invariant = true};
                  })) {}

  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd::Constant(1, p(x_D0)); }
  void derivatives(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = u(0) / p(D_D);
  }
  void outputs(double /*t*/, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    y(0) = u(0) / p(D_D);
    y(1) = x(0);
  }
  bool jacobians(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/, Linearization& out) const override {
    out.A = Eigen::MatrixXd::Zero(1, 1);
    out.B = Eigen::MatrixXd::Constant(1, 1, 1.0 / p(D_D));
    out.C.resize(2, 1);
    out.C << 0.0, 1.0;
    out.D.resize(2, 1);
    out.D << 1.0 / p(D_D), 0.0;
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b1_mass() { return std::make_unique<Mass>(); }
std::unique_ptr<OdeModel> make_b1_damper() { return std::make_unique<Damper>(); }

}  // namespace cosima::models
