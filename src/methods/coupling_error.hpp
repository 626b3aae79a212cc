#pragma once
// The coupling error of a run, estimated from the connection defect (seed 004 eq. 17) at no extra
// call to any system. On a macro-step [t, t + h] a connected continuous input u_c was driven by
// what the method handed its system, and its source's output y_c was computed by another system:
//     δ_c(τ) = u_c(t + τh) − T_c(y_c(t + τh)),   τ ∈ [0, 1],   T_c the connection's transform.
// Only the ends are known without extra calls: d0 = δ_c(0) (the input at the step's start against
// the source's output there) and d1 = δ_c(1). Taking δ_c linear between them,
//     RMS_c² over the step = (d0² + d0·d1 + d1²)/3,   max_c = max(|d0|, |d1|).
// Zero-order hold under Jacobi gives d0 = 0, d1 = y_c(t) − y_c(t + h): the RMS is |Δy|/√3.
// A method whose inputs are C¹ cubic Hermite interpolants (IFOSMONDI, MISSILES) meets the outputs at
// both ends up to its tolerance; its defect is inside the step, the interpolation error
//     e(τ) = y⁗ (τh)² ((1 − τ)h)² / 24,   RMS over the step |y⁗| h⁴ / (24 √630), max |y⁗| h⁴ / 384,
// with y⁗ = 24 u[t_{k−3}, …, t_{k+1}], the fourth divided difference of the input's values at the
// last five communication points. Its square adds to the ends' mean square.
// Each connection's defect is relative to its signal's scale, the largest |T_c(y_c)| seen so far.
// Over the run: the time-RMS and the max of each connection, and of the worst one. A run warns
// (accuracy_warning) when some connection's relative RMS over the run exceeds `threshold`.
// A coupling diverges when a connection's defect on every step of `diverging_steps` in a row is at
// least half its signal's scale (the input carries nothing of its source: an explicit scheme
// amplifying its own error, as Jacobi does on B1 for ρ(J_Ψ) > 1) while that signal grows `growth`
// times: diverging() names it (the driver then stops the run with an error, or warns under
// allow_divergence). Only a connection whose source is on a loop of connections is watched: a
// source outside every loop (a table, a CSV source) cannot amplify the coupling's error, however its
// steps grow. A jump of a signal is one step of large defect, and a run from rest a defect small
// against its steps: neither is a divergence.
// Call order, by the method: configure(model, options) at initialize; per accepted step
// optionally set_start_outputs(ỹ(t)) (after the method changed ỹ(t), e.g. by settling
// feedthrough), then record(model, t, h, u_start, u_end, ỹ(t + h)); forget_start() after a
// discontinuity (the next step's d0 counts as 0). A method that solves the coupled equations as
// one (monolithic) does not track: its defect is nil by construction.
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "core/vector_view.hpp"
#include "model/modular_model.hpp"

namespace cosima::methods {

struct AccuracyOptions {
  double threshold = 1e-2;        ///< warn above this RMS over the run, relative to the signal's scale
  double growth = 100.0;          ///< diverging: the signal grows this many times …
  int diverging_steps = 20;       ///< … over this many steps in a row whose defect is ≥ half the signal's scale
  bool allow_divergence = false;  ///< a diverging coupling warns instead of ending the run
};

/// One connection's defect over the run.
struct ConnectionError {
  std::string output, input;  ///< "system.port" labels
  double rms = 0.0;           ///< time-RMS of δ over the run (the input's unit)
  double max = 0.0;           ///< largest |δ| at a communication point
  double scale = 0.0;         ///< largest |T(y)| of the run
  [[nodiscard]] double relative(double value) const { return value == 0.0 ? 0.0 : value / scale; }
};

struct CouplingErrorReport {
  bool tracked = false;  ///< false: the method couples exactly (monolithic) or multi-rate steps (not estimated)
  std::vector<ConnectionError> connections;
  double rms_relative = 0.0;  ///< √(mean over connections of (RMS/scale)²)
  double max_relative = 0.0;  ///< largest max/scale
  bool accuracy_warning = false;
  std::vector<std::string> warnings;  ///< why, one line each
};

class CouplingErrorMonitor {
 public:
  void configure(const model::ModularModel& model, const AccuracyOptions& options = {});
  /// Stops tracking (a method or mode whose defect is not estimated).
  void disable() { tracked_ = false; }
  [[nodiscard]] bool tracked() const { return tracked_; }
  void set_accuracy(const AccuracyOptions& options) { options_ = options; }
  /// ỹ at the coming step's start, when the method changed it since the last record().
  void set_start_outputs(ConstVectorView y);
  /// After a discontinuity: the outputs at the next step's start are right limits not recorded.
  void forget_start() {
    start_known_ = false;
    past_count_ = 0;
  }
  /// An accepted step [t, t + h]: the stacked inputs at its start and end as the systems used them,
  /// and the stacked outputs at its end.
  void record(double t, double h, ConstVectorView u_start, ConstVectorView u_end, ConstVectorView y_end) {
    record(t, h, u_start, u_end, y_end, false);
  }
  /// The same for inputs that were cubic Hermite interpolants between their values at the ends.
  void record_hermite(double t, double h, ConstVectorView u_start, ConstVectorView u_end, ConstVectorView y_end) {
    record(t, h, u_start, u_end, y_end, true);
  }
  /// The normalized error of an attempted step [t, t + h] (methods/error_control.hpp): the largest
  /// over connections of the step's own RMS defect divided by atol + tol·scale (atol < 0: tol times
  /// the |nominal| the source output declares, 0 where it declares none). Its own: for held
  /// inputs δ linear between d0 and d1, as record() has it; for Hermite interpolants δ rising
  /// linearly from 0 to d1 (RMS |d1|/√3; d0 is the gap the step before left, and no shorter step
  /// changes it), with the interpolation error inside. Before
  /// four communication points give y⁗, a Hermite step is judged as if its inputs were held
  /// (RMS |u(t + h) − u(t)|/√3, an O(h) bound): the first steps stay short rather than unjudged. The scale is the
  /// largest |T(y)| seen, at the step's start and at the ends of every attempt (kept when the attempt is rejected, so
  /// that a signal rising from 0 is judged against the size it reached, not against 0); it is the attempts' own: the
  /// scale the run reports and judges divergence by counts accepted steps only. A connection with no weight (a
  /// signal still 0, no atol) is not judged; NaN when none is. Records no defect.
  [[nodiscard]] double step_error(double h, ConstVectorView u_start, ConstVectorView u_end, ConstVectorView y_end,
                                  bool hermite, double tol, double atol);
  /// max over connections of RMS/scale on the last recorded step (NaN before any); computed when asked.
  [[nodiscard]] double last_step() const;
  /// Why the coupling diverges (the connection, its defect and growth, since when), or "" while it does not.
  [[nodiscard]] const std::string& diverging() const { return diverging_; }
  [[nodiscard]] CouplingErrorReport report(const model::ModularModel& model) const;

 private:
  struct Link {
    int input = 0, output = 0;
    double scale = 1.0, offset = 0.0;  ///< T(y) = scale·y + offset
    double nominal = 0.0;              ///< |T|·|nominal| of the source output (0: none declared)
    bool in_loop = false;              ///< its source is on a loop of connections (divergence is watched)
  };
  struct Totals {
    double square = 0.0;             ///< ∫ δ² dt over the run
    double max = 0.0, signal = 0.0;  ///< largest |δ|, largest |T(y)| of the accepted steps
    double trial_signal = 0.0;       ///< largest |T(y)| of the attempts too (step_error's scale)
    double start = 0.0;              ///< T(y) at the coming step's start (valid when start_known_)
    double last = 0.0;               ///< the last step's mean square of δ
    int streak = 0;                  ///< steps in a row whose defect was ≥ half the scale
    double streak_signal = 0.0;      ///< the scale when the streak began
    double streak_time = 0.0;        ///< when it began
    std::array<double, 4> past{};    ///< the input's values at the last four communication points
  };
  void record(double t, double h, ConstVectorView u_start, ConstVectorView u_end, ConstVectorView y_end, bool hermite);
  /// δ at a step's ends (d0 = 0 when the start is not known) and its mean square, δ linear between.
  struct Ends {
    double mean_square, d0, d1;
  };
  [[nodiscard]] Ends ends(const Totals& totals, double u0, double u1, double y1) const {
    const double d1 = u1 - y1;
    const double d0 = start_known_ ? u0 - totals.start : 0.0;
    return {.mean_square = (d0 * d0 + d0 * d1 + d1 * d1) * (1.0 / 3.0), .d0 = d0, .d1 = d1};  // δ linear over the step
  }
  /// After a step of `mean_square` defect ending at t: the link's streak of large defects, and
  /// diverging_ when it grew past the bounds.
  void watch_divergence(std::size_t link, double t, double mean_square);
  /// |y⁗| of the input from its last four communication points and u1 at the step's end (0 before four).
  [[nodiscard]] double fourth_derivative(const Totals& totals, double h, double u1) const;
  /// The Hermite interpolation error on a step of h ending with the input at u1 (RMS², max).
  [[nodiscard]] std::pair<double, double> interior(Totals& totals, double h, double u1) const;

  bool tracked_ = false;
  AccuracyOptions options_;
  std::vector<Link> links_;
  std::vector<Totals> totals_;
  bool start_known_ = false;
  bool recorded_ = false;
  std::array<double, 4> past_times_{};          ///< the last four communication points (Totals::past)
  int past_count_ = 0;                          ///< how many of them are known (0 after a discontinuity)
  double time_ = 0.0;                           ///< recorded
  std::string diverging_;                       ///< the first divergence found
  const model::ModularModel* model_ = nullptr;  ///< for the names of a diverging connection
};

}  // namespace cosima::methods
