#pragma once
// Rollback for a system without inputs, emulated by running ahead (System contract: save_state,
// restore_state). Such a system has one trajectory whatever the master does, so it never has to
// integrate a stretch twice: the decorator keeps the master's time t (time()) apart from the
// wrapped system's t_r ≥ t, and the points (t_i, y_i, y'_i) the wrapped system passed through
// since the oldest live snapshot.
//
//   do_step(h)      t + h ≤ t_r: nothing integrates. Otherwise the wrapped system steps from t_r to
//                   t + h (one step of the master's length or shorter) and its point is kept.
//                   Then t ← t + h.
//   save_state      remembers t; restore_state sets t back to it; release_state drops the points
//                   older than every remaining snapshot.
//   outputs         at t = t_r the wrapped system's own. Before t_r, between the points t_i ≤ t ≤
//                   t_{i+1} (Δ = t_{i+1} − t_i, s = (t − t_i)/Δ), the cubic Hermite interpolant
//                       y(t) = h00(s) y_i + h10(s) Δ y'_i + h01(s) y_{i+1} + h11(s) Δ y'_{i+1},
//                   O(Δ⁴), when the wrapped system has output derivatives; else linear, O(Δ²).
//                   Output derivatives (up to 3) are the interpolant's, watched variables linear;
//                   String outputs are the wrapped system's at t_r.
// A master that retries a step shorter (IFOSMONDI's halving, an error-controlled rejection) reads
// the interpolant inside a stretch the wrapped system took in one step; a retried step that ends
// on one of its points reads it exactly. The wrapped system's state access and linearization are
// not offered (they hold at t_r, not at t). integrations() counts the master's steps; the wrapped
// system's own count is inner().integrations().
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "system/emulation/system_decorator.hpp"

namespace cosima {

class RunAheadSystem final : public SystemDecorator {
 public:
  /// `inner` has no inputs (Error otherwise).
  explicit RunAheadSystem(std::unique_ptr<System> inner);

  [[nodiscard]] CapabilitySet emulated_capabilities() const override {
    return inner_->emulated_capabilities().add(Capability::rollback);
  }
  void watch_variables(const std::vector<std::string>& names) override;
  void read_variables(Eigen::Ref<Eigen::VectorXd> out) const override;
  void enter_initialization(double t_start) override;
  void exit_initialization() override;
  [[nodiscard]] double time() const override { return time_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;
  /// Exact only where the master's time is the wrapped system's: between its points there are none.
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override {
    return at_end() ? inner_->wide_value(name) : std::nullopt;
  }
  [[nodiscard]] bool announces_events() const override { return inner_->announces_events(); }
  StepResult handle_pending_events() override;

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override;
  [[nodiscard]] int provided_output_derivative_order() const override;
  void apply_inputs(const InputPolynomials& /*polynomials*/) override {}
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;

 private:
  struct Point {
    double t = 0.0;
    Eigen::VectorXd y, dy, variables;
  };
  /// The wrapped system's outputs (and derivatives, watched variables) at t_r, as the newest point.
  void record_point();
  /// Drops the points no live snapshot and not t can reach (kept allocated for reuse).
  void prune();
  /// Whether t is the wrapped system's time t_r (within rounding).
  [[nodiscard]] bool at_end() const;
  /// The index i of the stretch [t_i, t_{i+1}] holding t (count_ ≥ 2, t < t_r).
  [[nodiscard]] int stretch() const;
  /// d^order/dt^order of the interpolant at t (order 0: the values) into out.
  void interpolate(int order, Eigen::Ref<Eigen::VectorXd> out) const;

  int derivative_order_ = 0;   ///< the wrapped system's output derivatives (0: linear interpolation)
  double time_ = 0.0;          ///< the master's t
  std::vector<Point> points_;  ///< the first count_ are live, oldest first; the rest are spare
  int count_ = 0;
  int watched_ = 0;
  std::map<StateId, double> saved_;  ///< each snapshot's t
  StateId next_id_ = 0;
};

/// `system` wrapped in a RunAheadSystem when it has no inputs and `wanted` asks for the rollback it
/// lacks; else `system` itself.
std::unique_ptr<System> run_ahead_if_wanted(std::unique_ptr<System> system, CapabilitySet wanted);

}  // namespace cosima
