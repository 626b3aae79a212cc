#pragma once
// Jumps in coupling signals that no system announced ("discontinuity-aware interfaces").
// An announced time event ends a step on it and the interface restarts from the right limits
// (handle_discontinuity). A jump nobody announced — an FMU switching inside doStep, a model that
// tests `t >= t_switch` — is seen only in what a step returns; two tests, one per kind of method:
//
//   the interface test (iterative methods, values and derivatives known at both ends): over a step
//   of h a C¹ signal satisfies the trapezoidal rule,
//       d = Δu − h/2·(u̇(t) + u̇(t+h)) = −h³/12·u⃛(ξ),   Δu = u(t+h) − u(t),
//   so d is a small part of Δu on a resolved signal, while a jump J inside the step leaves
//   d ≈ Δu ≈ J whatever h. A signal is taken to have jumped when
//       |Δu| > tolerance·scale   (the scale: the largest |u| seen),
//       |d| > defect_ratio·|Δu|, and |Δu| > slope_factor·h·min(|u̇(t)|, |u̇(t+h)|)
//   (the last keeps out a step across an extremum; the smaller slope, as a derivative read next to
//   the jump, e.g. by a forward difference that straddles it, is a spike). On A·cos(ωt) none fires
//   for ωh ≤ 2; a transient much faster than the step (λh ≳ 3) does, and is then resolved.
//   A method with rollback halves the step until the jump lies in a step shorter than the
//   resolution (location by step reduction); a false alarm only shortens steps.
//
//   the estimate test (COSTARICA, MISSILES: a system's outputs estimated before it integrates the
//   step for real): the gap between its real and estimated outputs is the estimator's error, which
//   changes smoothly from step to step — even a first-order estimator's (seed 000 without f_C), whose
//   gaps are O(h) and can exceed any fixed tolerance — unless the system jumped. A gap is a jump when
//       gap > tolerance·scale  and  gap > gap_outlier·(the typical gap of that output),
//   the typical gap decaying by half a step from the largest recent one (none on the first step).
//
// Either way the interface values fed by the system restart from its outputs after the jump, with
// no C¹ constraint across it (restart_at_discontinuity in methods/coupling_buffers.hpp).
#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "core/vector_view.hpp"

namespace cosima::methods {

struct JumpOptions {
  double tolerance = 1e-2;     ///< smallest jump detected, relative to the signal's scale; 0: no detection
  double defect_ratio = 0.5;   ///< |d| above this part of |Δu| is not a resolved C¹ change
  double slope_factor = 4.0;   ///< nor is |Δu| above this many h·min(|u̇(t)|, |u̇(t+h)|)
  double resolution = 1e-12;   ///< a jump is located once inside a step ≤ resolution·max(1, |t|)
  double gap_outlier = 100.0;  ///< an estimate gap this many times its typical size is a jump
  [[nodiscard]] bool enabled() const { return tolerance > 0.0; }
};

class JumpDetector {
 public:
  /// Any vector or segment of one, without a copy (the tests run on every macro-step).
  using Vector = ConstVectorView;

  explicit JumpDetector(JumpOptions options = {}) : options_(options) {}

  [[nodiscard]] const JumpOptions& options() const { return options_; }
  /// Starts the scales of n signals from their initial values.
  void reset(const Eigen::VectorXd& values);
  /// Widens the scales with accepted values (of signals [offset, offset + size)).
  void observe(const Eigen::VectorXd& values);
  void observe_segment(ConstVectorView values, Eigen::Index offset);
  /// The interface test over a step of h from (u0, du0) to (u1, du1): the first signal that jumped,
  /// −1 when none (or detection is off).
  [[nodiscard]] int jumped(const Vector& u0, const Vector& du0, const Vector& u1, const Vector& du1, double h) const;
  /// The estimate test on signals [offset, offset + size) after a step: whether a gap |real −
  /// estimate| is a jump; the others update the typical gaps.
  bool estimate_jumped(ConstVectorView real, ConstVectorView estimate, Eigen::Index offset);
  /// Whether a step of h at t is short enough to have located a jump inside it.
  [[nodiscard]] bool located(double t, double h) const;

  // Location by step reduction (a method with rollback). Once jumped() flags signal g on a step
  // ending at `until`, suspect() opens a suspicion; while it is open, a step contains the jump when g
  // changes over it by more than half the suspected jump — a bisection on the values, since the
  // derivatives read next to a jump are not to be trusted (a forward difference straddling it is a
  // spike). The method halves a step that contains it until located(), and closes the suspicion
  // there, or when it passes `until` without finding it (a false alarm).
  void suspect(int signal, const Vector& u0, const Vector& u1, double until, double h);
  [[nodiscard]] bool locating() const { return suspicion_.signal >= 0; }
  [[nodiscard]] int suspected_signal() const { return suspicion_.signal; }
  /// The suspected signal when it changes from u0 to u1 by more than half the suspected jump, else −1.
  [[nodiscard]] int contains(const Vector& u0, const Vector& u1) const;
  [[nodiscard]] double suspected_until() const { return suspicion_.until; }
  /// Closes the suspicion; returns the step size at which it was opened.
  double close_suspicion();

 private:
  [[nodiscard]] double floor(Eigen::Index signal, double value) const {
    const double seen = signal < scale_.size() ? scale_(signal) : 0.0;
    return options_.tolerance * std::max(seen, std::abs(value));
  }

  struct Suspicion {
    int signal = -1;     ///< −1: none open
    double size = 0.0;   ///< |Δu| over the step that raised it
    double until = 0.0;  ///< that step's end
    double step = 0.0;   ///< its size
  };

  JumpOptions options_;
  Eigen::VectorXd scale_;        ///< per signal, the largest |value| seen
  Eigen::VectorXd typical_gap_;  ///< per signal, of the estimate test (< 0: no gap seen yet)
  Suspicion suspicion_;
};

}  // namespace cosima::methods
