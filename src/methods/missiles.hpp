#pragma once
// MISSILES (seed 003): IFOSMONDI-JFM with a COSTARICA estimator on every system makes the coupling
// equation affine, so each macro-step needs ONE linear solve and no rollback (seed 003 §3).
//
// Per macro-step [t_N, t_N + h):
//   1. every system is linearized at t_N (estimator update 1) and its operators built for h
//      (update 2), giving  ŷ_k = G_V,k vec(Ξ̌_k) + K_V,k  and  ŷ'_k = G_D,k vec(Ξ̌_k) + K_D,k;
//   2. the input coefficients are Hermite maps of the interface (core/hermite.hpp, eq. 54; first
//      step eq. 55): vec(Ξ̌) = A_H (u(t_N+h), u'(t_N+h)) + B_H (u(t_N), u'(t_N)), and the inputs at
//      t_N + h are the dispatched outputs, (u, u') = blockdiag(Φᵀ, Φᵀ) Y (+ constants);
//   3. so Y = (ŷ, ŷ') solves  [I − G A_H blockdiag(Φᵀ, Φᵀ)] Y = G B_H + K        (eq. 53)
//      assembled from the per-system blocks: below `sparse_above` unknowns in place into a dense
//      matrix and its LU (core/small_matrix.hpp), beyond as triplets for Eigen's SparseLU;
//   4. every system integrates the step once with the Hermite inputs of the dispatched solution,
//      which also start the next step (inputs stay C¹).
// The gap between ŷ and the real outputs at t_N + h is reported per step (StepReport).
// A system that no connection feeds a continuous signal (no inputs, or only discrete or constant ones)
// needs no estimate: it integrates the step first, its inputs held at their values at t_N as under
// Jacobi, and its outputs and output derivatives at t_N + h are K_V, K_D with no G (it needs neither
// states nor a linearization, and nothing of it is probed).
// A system whose real outputs jump away from their estimate (a jump it did not announce; the estimate
// test of methods/jump_detector.hpp) restarts the interface it feeds from its real outputs at
// t_N + h, without the C¹ link; MISSILES has no rollback to locate the jump inside the step.
// Under `method.tolerance` (error_control.hpp) the step is judged after step 3, on the estimated
// interface, by its connection defect with the Hermite interpolation error (order 4): a rejected
// step repeats steps 1–3 shorter (update 1 is kept; the systems without inputs are restored, so
// rejection needs their rollback), and no system has integrated it for real yet.
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include "core/small_matrix.hpp"
#include "estimator/step_estimator.hpp"
#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "methods/error_control.hpp"
#include "methods/initialization.hpp"
#include "methods/jump_detector.hpp"

namespace cosima::methods {

class Missiles final : public CouplingMethod {
 public:
  struct Options {
    estimator::EstimatorOptions estimator;
    int sparse_above = 64;        ///< unknowns (2·n_out_tot) from which the sparse LU is used
    JumpOptions jumps;            ///< unannounced jumps (the estimate test)
    ErrorControlOptions control;  ///< error-controlled steps (off by default)
    double dt = 0.0;              ///< the first step under tolerance
  };
  explicit Missiles(Options options);

  [[nodiscard]] std::string_view name() const override { return "missiles"; }
  [[nodiscard]] std::vector<CapabilityNeed> needs(const System& system) const override;
  [[nodiscard]] std::string stand_in(const System& system) const override;
  void check(const model::ModularModel& model) const override;
  void initialize(model::ModularModel& model, double t_start) override;
  StepReport step(model::ModularModel& model, double t, double h_max) override;
  /// The interface restarts from the right limits, without the C¹ link across the jump.
  std::string handle_discontinuity(model::ModularModel& model, double t) override;
  [[nodiscard]] std::vector<std::pair<std::string, double>> totals() const override;
  [[nodiscard]] bool chooses_step() const override { return options_.control.enabled(); }
  [[nodiscard]] double proposed_step() const override { return control_.next(); }

 private:
  // the steps of step(): estimators (COSTARICA updates 1–2) and input-free systems' steps, the
  // interface of eq. 53, the real integrations on it
  /// COSTARICA updates 1 (on the `first` attempt at a step) and 2 for step h; the systems without
  /// inputs integrate the step — on a retry from their snapshot, taken on the first attempt when
  /// `keep_snapshot`.
  void estimate(model::ModularModel& model, double h, bool first, bool keep_snapshot);
  /// Steps 1–3 for h, retried shorter while the error control rejects them; the step taken, or 0
  /// when a system without inputs asked to stop (then `report` says why).
  double solve_within_tolerance(model::ModularModel& model, double t, double h, StepReport& report);
  /// What a system stepped first needs: its output derivatives (and, without inputs, rollback under
  /// a tolerance).
  [[nodiscard]] std::vector<CapabilityNeed> stepped_first_needs(const System& system) const;
  /// Whether system s integrates each step first (no connection feeds it a continuous signal).
  [[nodiscard]] bool stepped_first(int s) const { return stepped_first_[static_cast<std::size_t>(s)] != 0; }
  /// What system s's step 1 gave: its estimator's operators, or (stepped first) its real outputs.
  [[nodiscard]] const exec::Reply& estimate_of(int s) const;
  /// Whether a system's step result ends the run (it throws when the step failed); fills `report` then.
  static bool stopped(const StepResult& result, const System& system, double t, StepReport& report);
  /// Steps 2–3 for h: the interface of eq. 53 into buffers_.y, dy_, u_end_, du_end_; why it failed
  /// (an estimator, or a singular matrix), empty when solved.
  std::string solve_interface(model::ModularModel& model, HermiteKind kind, double t, double h);
  /// Every system with inputs integrates the step on the solved interface (plain_), its real
  /// outputs into y_real_ over the estimates.
  void integrate(model::ModularModel& model, HermiteKind kind, double h);
  /// Assembles eq. 53 for step h with interface kind `kind` into rhs_ and, below sparse_above
  /// unknowns, dense_ (else triplets_).
  void assemble(const model::ModularModel& model, HermiteKind kind, double h);
  /// System s's rows of eq. 53.
  void assemble_system(const model::ModularModel& model, int s, const Eigen::Matrix4d& hermite);
  /// Below sparse_above unknowns eq. 53 is assembled into dense_, beyond into triplets_.
  [[nodiscard]] bool dense() const { return rhs_.size() < options_.sparse_above; }
  /// Solves it into solution_; false when the matrix is singular.
  bool solve();
  /// The outputs at the step's end as left limits: y_real_, but the estimates of the systems that
  /// jumped on it (their real outputs are right limits, the estimator's error there the jump).
  const Eigen::VectorXd& left_limits(const model::ModularModel& model);

  Options options_;
  CouplingBuffers buffers_;
  exec::PlainBatch plain_;              ///< the real integrations of a step
  exec::PlainBatch estimators_;         ///< COSTARICA's updates of the systems with inputs
  std::vector<exec::Reply> estimates_;  ///< their operators (update 2), by system
  Eigen::VectorXd u_start_, du_start_, u_end_, du_end_;
  Eigen::VectorXd rhs_, solution_, dy_;
  Eigen::VectorXd y_real_;  ///< the real outputs at the step's end (coupling error)
  Eigen::VectorXd y_left_;  ///< y_real_ with the estimates of the systems that jumped (left_limits)
  std::vector<Eigen::Triplet<double>> triplets_;
  Eigen::MatrixXd dense_;  ///< assembled; after solve() it may hold an older matrix (swapped), refilled by assemble()
  Eigen::MatrixXd factorized_dense_;  ///< the matrix of the kept dense factorization
  SmallLu dense_lu_;
  Eigen::SparseMatrix<double> sparse_;
  Eigen::SparseLU<Eigen::SparseMatrix<double>> sparse_lu_;
  std::vector<Eigen::Triplet<double>> factorized_triplets_;  ///< the matrix of the kept factorization
  Eigen::Index factorized_unknowns_ = 0;
  bool factorized_ = false;
  bool first_step_ = true;
  bool pattern_analyzed_ = false;
  JumpDetector jumps_;
  std::vector<char> jumped_;         ///< systems whose outputs jumped on the last step
  std::vector<char> stepped_first_;  ///< by system: stepped_first(s)
  std::int64_t estimated_jumps_ = 0;
  ErrorControl control_;
  double trial_error_ = 0.0;  ///< the kept step's error on the estimated interface
  bool can_redo_ = false;     ///< every system without inputs has rollback (a rejected step can be redone)
};

}  // namespace cosima::methods
