#pragma once
// IFOSMONDI (seed 001): implicit co-simulation with C¹ Hermite interfaces. On each macro-step
// τ = [t_N, t_N + h) the unknowns are the inputs and their time-derivatives at t_N + h,
// x = (ũ, ũ'), and the coupling equation is (eq. 24)
//     γ_τ(x) = x − blockdiag(Φᵀ, Φᵀ)·(ỹ(t_N+h), ỹ'(t_N+h)),
// where every system k is restored to t_N and integrated with the polynomial inputs (ζ_k):
//   - the first evaluation of a step ("moving on", eq. 20–21): quadratic with u(t_N), u'(t_N)
//     from the previous step and u(t_N+h) = u(t_N); its dispatched outputs are the initial guess;
//   - the iterations (eq. 22–23): cubic Hermite on (u(t_N), u'(t_N), ũ, ũ');
//   - at t_init no derivative is imposed (case 3): constant, then quadratic (eq. 55 of seed 003).
// γ_τ = 0 is solved by the fixed point (classical IFOSMONDI, eq. 26) or by a PETSc SNES
// matrix-free method (IFOSMONDI-JFM); convergence by eq. 27. After convergence the systems are
// left in the state of the converged inputs. Step control (eq. 28, with the erratum of DESIGN
// §3.2): grow by 30 % up to δt_ref after a converged step; halve after any non-convergence; below
// the minimum step the run stops with the reason. Under `method.tolerance` (error_control.hpp) a
// converged step is judged by its connection defect with the Hermite interpolation error (order 4)
// before the estimated systems integrate it: rejected steps are retried shorter, accepted ones set
// the next step by the PI controller instead of eq. 28 (non-convergence still halves).
//
// Systems without rollback (or whose rollback the scenario withholds) take part through COSTARICA
// (seed 000 Algorithm 2/3, estimator/step_estimator.hpp): inside the iterations their outputs are
// estimated from their linearization at t_N, and once the step has converged they integrate it
// for real, once, with the converged interface. The others iterate for real (hybrid).
//
// Unannounced jumps (methods/jump_detector.hpp): a converged step whose interface changed like a
// jump, not like a C¹ signal, is rejected and halved until the jump lies in a step shorter than
// the resolution; the step after it starts from the right limits (the converged values at its end)
// and from the step size before the location. A jump in the real outputs of an estimated system
// (its estimate gap) restarts the interface it feeds from them.
#include <memory>
#include <optional>
#include <vector>

#include "estimator/step_estimator.hpp"
#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "methods/error_control.hpp"
#include "methods/initialization.hpp"
#include "methods/jump_detector.hpp"
#include "nonlinear/nonlinear_solver.hpp"

namespace cosima::methods {

class Ifosmondi final : public CouplingMethod {
 public:
  struct Options {
    nonlinear::NonlinearOptions nonlinear;  ///< solver "fixed-point" is classical IFOSMONDI
    double dt_ref = 1e-2;                   ///< initial and largest macro-step
    double growth = 1.3;                    ///< eq. 28
    estimator::EstimatorOptions estimator;  ///< COSTARICA, for the systems without rollback
    JumpOptions jumps;                      ///< unannounced jumps
    ErrorControlOptions control;            ///< error-controlled steps (off by default); h_min is the smallest
                                            ///< macro-step with or without them (0: dt_ref·1e-6)
    bool per_step = true;                   ///< eq. 27's tolerances times h/(t_stop − t_start) (step_tolerance_scale)
  };
  explicit Ifosmondi(Options options);

  [[nodiscard]] std::string_view name() const override {
    return options_.nonlinear.solver == "fixed-point" ? "ifosmondi" : "ifosmondi-jfm";
  }
  [[nodiscard]] std::vector<CapabilityNeed> needs(const System& system) const override;
  void check(const model::ModularModel& model) const override;
  void initialize(model::ModularModel& model, double t_start) override;
  StepReport step(model::ModularModel& model, double t, double h_max) override;
  /// The interface restarts from the right limits ("moving on" from the post-jump values).
  std::string handle_discontinuity(model::ModularModel& model, double t) override;
  [[nodiscard]] bool chooses_step() const override { return true; }
  [[nodiscard]] double proposed_step() const override { return h_next_; }
  [[nodiscard]] std::vector<std::pair<std::string, double>> totals() const override;

 private:
  // the steps of step(): snapshots at t_N, the interface iteration on [t_N, t_N + h), the jump test,
  // then acceptance — or a rejection that halves h
  void save_snapshots(model::ModularModel& model);
  /// Prepares the estimators, evaluates the "moving on" guess and solves eq. 24 from it; leaves the
  /// systems in the state of the converged inputs. Counts its iterations into `report`.
  nonlinear::NonlinearResult iterate(model::ModularModel& model, double h, bool begin_estimators, StepReport& report);
  /// The factor on eq. 27's tolerances for a step h: h/(t_stop − t_start) with per_step (at most 1),
  /// else 1 (eq. 27 as published). A converged interface leaves a defect γ ≤ ε in the inputs, which
  /// moves the states by O(h γ) per step: with ε as published that sums to O(ε T) over any step size,
  /// so the coupling error no longer falls with δt once it reaches ε's floor; with ε h/T the sum is
  /// O(ε h) and falls with the step.
  [[nodiscard]] double step_tolerance_scale(double h) const;
  /// Solves eq. 24 at the step's scaled tolerance; where that is out of reach of the systems' own
  /// precision, falls back to eq. 27 as published from the last iterate and counts the step.
  nonlinear::NonlinearResult solve_interface(const nonlinear::Residual& gamma, double h);
  /// The interface input that jumped in the step just solved (jump_detector.hpp), or −1.
  int jumped_input(double h, Eigen::Index n);
  /// Accepts the converged step [t, t + h): estimated systems integrate, the interface moves on.
  void accept(model::ModularModel& model, double t, double h, int jumped, StepReport& report);
  /// Restores every rollback system to t_N and integrates [t_N, t_N + h) with interface
  /// polynomials of `kind` ending at (u_end, du_end); estimates the others (COSTARICA). Reads
  /// ỹ, ỹ' at t_N + h. False (failure_) when a system failed.
  bool evaluate(model::ModularModel& model, HermiteKind kind, double h, ConstVectorView u_end, ConstVectorView du_end);
  /// Algorithm 2, last stage: the estimated systems integrate the converged step for real.
  /// Returns the largest gap between their estimated and real outputs, and marks in jumped_ the
  /// systems whose gap is a jump.
  double integrate_estimated(model::ModularModel& model, HermiteKind kind, double h, double t);
  /// COSTARICA updates 1 (with the inputs at t_N, once per step) and 2 (for step size h); false
  /// (failure_) when an estimator cannot be built.
  bool prepare_estimators(const model::ModularModel& model, double h, const Eigen::VectorXd* u_now);
  /// Whether an entry of plain_ failed; sets failure_.
  bool failed(const model::ModularModel& model);
  [[nodiscard]] bool estimated(int s) const { return estimated_[static_cast<std::size_t>(s)]; }
  /// Under tolerance: whether the converged step [t, t + h) is kept (its error in trial_error_), or
  /// rejected (counted in `report`; control_.next() is the retry).
  bool within_tolerance(const model::ModularModel& model, double h, StepReport& report);
  /// What a run that cannot converge should try instead ("" when nothing is known), after the reason.
  [[nodiscard]] std::string why_no_convergence() const;

  Options options_;
  std::unique_ptr<nonlinear::NonlinearSolver> solver_;
  CouplingBuffers buffers_;
  std::vector<bool> estimated_;         ///< systems without rollback, run through COSTARICA
  std::vector<exec::Reply> estimates_;  ///< their estimator operators for the current step (update 2)
  Eigen::VectorXd u_start_, du_start_;  ///< interface values and derivatives at t_N
  Eigen::VectorXd x_, dy_, du_, last_x_;
  exec::PlainBatch plain_;                         ///< the rollback systems' integrations of an evaluation
  exec::PlainBatch estimators_;                    ///< the estimated systems' COSTARICA updates
  Eigen::VectorXd y_trial_, dy_trial_;             ///< their outputs, into buffers_.y and dy_ once all succeeded
  Eigen::VectorXd y_real_;                         ///< the real outputs at the step's end (coupling error)
  Eigen::VectorXd weights_;                        ///< of eq. 27, with step_weighted_derivatives
  double horizon_ = 0.0;                           ///< t_stop − t_start (0: unknown, no scaling)
  std::int64_t steps_at_published_tolerance_ = 0;  ///< steps solve_interface accepted by eq. 27 as published
  bool first_step_ = true;
  double h_next_ = 0.0;
  ErrorControl control_;
  double trial_error_ = 0.0;      ///< the kept step's error before the estimated systems integrated it
  std::string failure_;           ///< reason of the last failed evaluation
  std::string terminated_;        ///< a system's request to end the run, met in the last iteration
  JumpDetector interface_jumps_;  ///< on the interface (ũ, ũ')
  JumpDetector output_jumps_;     ///< on the outputs of the estimated systems
  std::vector<char> jumped_;      ///< estimated systems whose outputs jumped on the last step
  std::int64_t jumps_located_ = 0, estimated_jumps_ = 0;
};

}  // namespace cosima::methods
