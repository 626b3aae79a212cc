#pragma once
// Defect-controlled non-iterative Jacobi (seed 004, Algorithm 1). Per communication step
// (T_{k−1}, T_k], H = T_k − T_{k−1}:
//   1. inputs: Taylor polynomials of order m_i from the connected outputs' values and derivatives
//      at T_{k−1} (eq. 14–15; up to min(m_i, n_source));
//   2. every system integrates to T_{k−1} + H/2, its outputs are sampled, then it integrates to T_k;
//   3. outputs are reconstructed at T_k as Taylor polynomials ỹ of order n_i (eq. 12);
//   4. connection defect δu = ũ − ỹ_source on the step (eq. 17) and output-defect estimate
//      δ̂y(t) = −((T_k − t)/(H/2))^{n_i+1}·(y(T_k − H/2) − ỹ(T_k − H/2)) (eq. 30–32); their RMS over
//      the step are exact for polynomials: RMS(δ̂y) = |y_mid − ỹ_mid|·2^{n+1}/√(2n+3);
//   5. ε_k = the largest of those RMS (eq. 38), each divided by its signal's scale (the largest
//      |value| at the communication points so far; tol_scale = absolute: not divided, as in the
//      seed), and the next H from the PI controller (eq. 39), or constant in the fixed-step variant.
//      A step is never redone.
// Requires a model without algebraic loops.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "methods/initialization.hpp"
#include "methods/step_size_controller.hpp"

namespace cosima::methods {

class DefectJacobi final : public CouplingMethod {
 public:
  /// An order for every system, with exceptions by name.
  struct Orders {
    int all = 0;
    std::map<std::string, int> by_system;
    [[nodiscard]] int of(const std::string& system) const {
      const auto it = by_system.find(system);
      return it == by_system.end() ? all : it->second;
    }
  };
  struct Options {
    Orders input_order;   ///< m
    Orders output_order;  ///< n
    bool fixed_step = false;
    double h1 = 0.0;  ///< first (or fixed) step; 0: the driver's δt
    PiController::Options controller;
    /// ε_k relative to each signal's scale (its largest |value| at the communication points so far),
    /// so that tol means the same for a force of 2e4 N and a position of 1e-3 m; false: absolute, as
    /// seed 004 has it.
    bool relative = true;
  };
  DefectJacobi(Options options, double dt);

  [[nodiscard]] std::string_view name() const override { return "defect-jacobi"; }
  [[nodiscard]] std::vector<CapabilityNeed> needs(const System& system) const override;
  void check(const model::ModularModel& model) const override;
  void initialize(model::ModularModel& model, double t_start) override;
  StepReport step(model::ModularModel& model, double t, double h_max) override;
  /// The next step's Taylor polynomials start from the right limits and their derivatives.
  std::string handle_discontinuity(model::ModularModel& model, double t) override;
  [[nodiscard]] bool chooses_step() const override { return true; }
  [[nodiscard]] double proposed_step() const override { return h_next_; }
  [[nodiscard]] std::vector<std::pair<std::string, double>> totals() const override;

 private:
  /// The input polynomials of every system from samples_ (eq. 14–15), into buffers_.polynomials.
  void input_polynomials(const model::ModularModel& model);
  /// Asks every order of the batch for outputs, and derivatives up to the system's n if asked.
  void read_orders(const model::ModularModel& model, bool derivatives);
  /// Copies the outputs and derivatives of the last batch's replies into samples_.
  /// The largest RMS of δu on the step (eq. 17), each input's ∫ δu² added to the run's.
  double connection_defect(const model::ModularModel& model, double h);
  /// The largest RMS of δ̂y on the step (eq. 32) over the coupled continuous outputs, likewise.
  double output_defect(const model::ModularModel& model, double h);
  void sample_outputs(const model::ModularModel& model);
  /// Output polynomials ỹ around T_k, re-expanded in s = t − T_{k−1} (shift −H).
  void output_polynomials(const model::ModularModel& model, double h);

  Options options_;
  std::unique_ptr<StepSizeController> controller_;
  CouplingBuffers buffers_;
  std::vector<int> m_, n_;            ///< per system
  std::vector<int> n_of_output_;      ///< n of the system producing each global output
  std::vector<char> coupled_output_;  ///< the output drives an input: its defect δ̂y counts
  Eigen::MatrixXd samples_;           ///< total_outputs × 4: d^j y/dt^j at the last communication point
  Eigen::VectorXd y_mid_;
  Eigen::VectorXd u_start_, u_end_;  ///< the inputs at the step's ends (coupling error)
  InputPolynomials output_poly_, shifted_;
  std::vector<double> connection_square_, output_square_;  ///< ∫ δ² over the run, per input / output
  std::vector<double> output_scale_;  ///< largest |y| of each output at the communication points so far
  /// The scale a defect of output o (or of an input fed by o through transform) is divided by: 1
  /// when tol is absolute, or while the signal has been 0.
  [[nodiscard]] double scale_of(int output, const model::LinearTransform& transform = {}) const;
  /// output_scale_ with the samples at the current communication point.
  void update_scales();
  bool h_min_given_ = false;  ///< else a default is chosen at initialize
  double h_next_ = 0.0, elapsed_ = 0.0;
  std::int64_t steps_ = 0, steps_at_floor_ = 0;
};

}  // namespace cosima::methods
