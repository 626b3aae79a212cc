#pragma once
// Error-controlled macro-steps under `method.tolerance`, shared by the methods that can choose
// their steps (jacobi, gauss-seidel, ifosmondi, ifosmondi-jfm, missiles). After each attempt of
// size h the method hands over its error estimate: the step's largest connection defect
// (coupling_error.hpp, seed 004 eq. 17, with the Hermite interpolation error where the inputs are
// C¹ interpolants), each connection's RMS over the step divided by its weight
//     w_c = atol_c + tol·scale_c    (scale_c: the largest |value| of the signal before the step;
//                                    atol_c: tolerance_atol, else tol·|nominal| of the source output
//                                    where it declares one, else 0),
// so that the normalized error e ≤ 1 means "within tolerance". e behaves as C·h^k, k the estimate's
// order (1 for held inputs, 4 for cubic Hermite interpolants). Then:
//   e > 1 and the step can be redone   rejected, retried on h·clamp(safety·e^{−1/k}, θ_min, 0.9),
//                                  where the controller restarts;
//   otherwise                      kept; the next step from the PI controller of seed 004 eq. 39 on
//                                  log e, aiming at e = safety, gains K_I = 0.3/k, K_P = 0.4/k
//                                  (Gustafsson's), limited to θ_max·h and to [h_min, h_max]; a kept
//                                  step with e > 1 is counted (no rollback for it, or h at h_min).
// A method may keep a step on one estimate and control the next on a larger one, known only once
// the step is taken for real (MISSILES' and COSTARICA's estimate gap).
// Call order: configure() at the method's initialize; per attempt rejects(), then for the step kept
// accept(); next() is the retry after a rejection or the step after an accepted one.
#include <cstdint>

#include "methods/step_size_controller.hpp"

namespace cosima::methods {

struct ErrorControlOptions {
  double tolerance = 0.0;  ///< relative; 0: off (the method's own steps)
  /// absolute part of each connection's weight, in the signal's unit; negative: tol·|nominal| of
  /// each source output that declares a nominal (FMI's `nominal`), 0 for the others
  double atol = -1.0;
  double safety = 0.5;     ///< the controller aims at e = safety
  double theta_max = 2.0;  ///< largest growth of a step over the last
  double theta_min = 0.2;  ///< largest shrinking of a rejected step
  double h_min = 0.0;      ///< 0: h_first·1e-6
  double h_max = 0.0;      ///< 0: no upper limit
  [[nodiscard]] bool enabled() const { return tolerance > 0.0; }
};

class ErrorControl {
 public:
  /// A run starting with step h_first, with an estimate of order k (e ∝ h^k).
  void configure(const ErrorControlOptions& options, double order, double h_first);
  [[nodiscard]] bool enabled() const { return options_.enabled(); }
  /// Whether the attempt of size h with normalized error e (NaN: not estimated) is to be taken again
  /// shorter; `can_redo`: the method can take it again from its start. True: next() is the retry.
  bool rejects(double h, double error, bool can_redo);
  /// The step of size h is kept with normalized error e (NaN: not estimated, the step is kept as
  /// the next): next() becomes the step after it.
  void accept(double h, double error);
  /// The retry after rejects(), or the step after accept().
  [[nodiscard]] double next() const { return next_; }
  /// The last accepted step was over the tolerance although at h_min (the error is not controlled).
  [[nodiscard]] bool at_floor() const { return at_floor_; }
  [[nodiscard]] std::int64_t over_tolerance() const { return over_tolerance_; }

 private:
  ErrorControlOptions options_;
  double order_ = 1.0;
  PiController controller_{PiController::Options{}};  ///< eq. 39 on e, aiming at `safety`
  double next_ = 0.0;
  bool at_floor_ = false;
  std::int64_t over_tolerance_ = 0;  ///< accepted with e > 1 (no rollback, or at h_min)
};

}  // namespace cosima::methods
