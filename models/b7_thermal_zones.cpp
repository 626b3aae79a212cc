// B7 — a split hybrid benchmark for CHOPtrey (seed 002 §6–7 analogue, designed here; docs/b7.md):
// four thermal zones, each heated by a radiator on a shared hot-water loop and by an electric
// heater with a hysteresis thermostat, and the slow supply loop whose boiler has its own
// hysteresis. Every subsystem switches (events), the supply is the slow shared part.
//
// Zone:    C dT/dt = −k_out (T − T_ext(t)) + k_w (T_w − T) + q P,   T_ext(t) = T_mean + T_amp sin(2πt/day)
//          outputs Q = k_w (T_w − T) (heat drawn from the loop, direct feedthrough of T_w) and T
// Supply:  C_w dT_w/dt = b P_boiler − (Q_1 + … + Q_4) − k_loss (T_w − T_room); output T_w
// The thermostats are hysteresis relays q built on a bistable state r,
//          τ dr/dt = −r³ + r + c(v),   c(v) = c* (v_mid − v)/(½(v_high − v_low)),   c* = 2/(3√3),
//          q = clamp(½ + (√3/2) r, 0, 1):
// for |c| < c* a lower (r ≤ −1/√3) and an upper (r ≥ 1/√3) state are stable (the relay keeps its
// state, q = 0 or 1); at v = v_low (v_high) one of them vanishes in a saddle-node and r switches
// within a few τ. A switch is thus a steep but smooth transition — an event to a solver — and the
// models stay ODEs (OdeModel) with no discrete state.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

/// dr/dt of the bistable relay on signal v (on below low, off above high), time constant tau.
double relay_rate(double r, double v, double low, double high, double tau) {
  const double critical = 2.0 / (3.0 * std::sqrt(3.0));
  const double bias = critical * (0.5 * (low + high) - v) / (0.5 * (high - low));
  return (-r * r * r + r + bias) / tau;
}

/// The relay's output: 0 on the lower stable branch (r ≤ −1/√3), 1 on the upper one (r ≥ 1/√3),
/// linear across the unstable middle that a switch crosses in a few τ.
double relay_on(double r) { return std::clamp(0.5 + 0.5 * std::sqrt(3.0) * r, 0.0, 1.0); }
/// d relay_on / dr.
double relay_on_slope(double r) { return std::abs(r) < 1.0 / std::sqrt(3.0) ? 0.5 * std::sqrt(3.0) : 0.0; }
/// ∂(dr/dt)/∂r and ∂(dr/dt)/∂v of relay_rate.
double relay_rate_dr(double r, double tau) { return (1.0 - 3.0 * r * r) / tau; }
double relay_rate_dv(double low, double high, double tau) {
  return -(2.0 / (3.0 * std::sqrt(3.0))) / (0.5 * (high - low)) / tau;
}

class Zone final : public ModelBase<Zone> {
 public:
  enum Param { C, k_out, k_w, P, T_low, T_high, tau_q, T_mean, T_amp, day, T0 };
  Zone()
      : ModelBase("b7.zone", {.states = {"T", "r"},
                              .inputs = {"T_w"},
                              .outputs = {"Q", "T"},
                              .parameters = {{"C", 2e5, "heat capacity [J/K]"},
                                             {"k_out", 50.0, "loss to outside [W/K]"},
                                             {"k_w", 15.0, "radiator conductance [W/K]"},
                                             {"P", 1000.0, "electric heater power [W]"},
                                             {"T_low", 19.0, "thermostat: heater on below [°C]"},
                                             {"T_high", 21.0, "thermostat: heater off above [°C]"},
                                             {"tau_q", 20.0, "relay time constant [s]"},
                                             {"T_mean", 0.0, "mean outside temperature [°C]"},
                                             {"T_amp", 5.0, "daily outside amplitude [°C]"},
                                             {"day", 86400.0, "period of the outside temperature [s]"},
                                             {"T0", 18.0, "initial temperature [°C]"}},
                              .feedthrough = {{0, 0}},
                              .outputs_depend_on_time = false}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(T0), -1.0); }  // heater off
  void derivatives(double t, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    const double outside = p(T_mean) + p(T_amp) * std::sin(2.0 * std::numbers::pi * t / p(day));
    dx(0) = (-p(k_out) * (x(0) - outside) + p(k_w) * (u(0) - x(0)) + relay_on(x(1)) * p(P)) / p(C);
    dx(1) = relay_rate(x(1), x(0), p(T_low), p(T_high), p(tau_q));
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef u, VectorRef y) const override {
    y(0) = p(k_w) * (u(0) - x(0));
    y(1) = x(0);
  }
  bool jacobians(double, ConstVectorRef x, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << -(p(k_out) + p(k_w)) / p(C), relay_on_slope(x(1)) * p(P) / p(C),
        relay_rate_dv(p(T_low), p(T_high), p(tau_q)), relay_rate_dr(x(1), p(tau_q));
    out.B.resize(2, 1);
    out.B << p(k_w) / p(C), 0.0;
    out.C.resize(2, 2);
    out.C << -p(k_w), 0.0, 1.0, 0.0;
    out.D.resize(2, 1);
    out.D << p(k_w), 0.0;
    return true;
  }
};

class Supply final : public ModelBase<Supply> {
 public:
  enum Param { C_w, P_boiler, k_loss, T_room, T_w_low, T_w_high, tau_b, T_w0 };
  Supply()
      : ModelBase("b7.supply", {.states = {"T_w", "r"},
                                .inputs = {"Q1", "Q2", "Q3", "Q4"},
                                .outputs = {"T_w"},
                                .parameters = {{"C_w", 2e6, "loop heat capacity [J/K]"},
                                               {"P_boiler", 6000.0, "boiler power [W]"},
                                               {"k_loss", 20.0, "loop losses [W/K]"},
                                               {"T_room", 15.0, "temperature around the loop [°C]"},
                                               {"T_w_low", 50.0, "boiler on below [°C]"},
                                               {"T_w_high", 60.0, "boiler off above [°C]"},
                                               {"tau_b", 20.0, "relay time constant [s]"},
                                               {"T_w0", 55.0, "initial water temperature [°C]"}},
                                .outputs_depend_on_time = false}) {}
  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::Vector2d(p(T_w0), 1.0); }  // boiler on
  void derivatives(double, ConstVectorRef x, ConstVectorRef u, VectorRef dx) const override {
    dx(0) = (relay_on(x(1)) * p(P_boiler) - u.sum() - p(k_loss) * (x(0) - p(T_room))) / p(C_w);
    dx(1) = relay_rate(x(1), x(0), p(T_w_low), p(T_w_high), p(tau_b));
  }
  void outputs(double, ConstVectorRef x, ConstVectorRef, VectorRef y) const override { y(0) = x(0); }
  bool jacobians(double, ConstVectorRef x, ConstVectorRef, Linearization& out) const override {
    out.A.resize(2, 2);
    out.A << -p(k_loss) / p(C_w), relay_on_slope(x(1)) * p(P_boiler) / p(C_w),
        relay_rate_dv(p(T_w_low), p(T_w_high), p(tau_b)), relay_rate_dr(x(1), p(tau_b));
    out.B = Eigen::MatrixXd::Zero(2, 4);
    out.B.row(0).setConstant(-1.0 / p(C_w));
    out.C.resize(1, 2);
    out.C << 1.0, 0.0;
    out.D = Eigen::MatrixXd::Zero(1, 4);
    return true;
  }
};

}  // namespace

std::unique_ptr<OdeModel> make_b7_zone() { return std::make_unique<Zone>(); }
std::unique_ptr<OdeModel> make_b7_supply() { return std::make_unique<Supply>(); }

}  // namespace cosima::models
