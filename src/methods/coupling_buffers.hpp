#pragma once
// Shared plumbing of the methods: stacked outputs ỹ and inputs ũ, per-system input polynomials,
// and the consistent start of a run. Allocated once per run, reused on every macro-step.
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/hermite.hpp"
#include "core/polynomial.hpp"
#include "core/vector_view.hpp"
#include "exec/executor.hpp"
#include "methods/sweep_plan.hpp"
#include "model/modular_model.hpp"
#include "system/system.hpp"

namespace cosima::methods {

/// Makes the held (discrete, non-Real) inputs of system s constant over the step at their value at
/// its start: extrapolation, Hermite and Taylor polynomials apply to continuous Reals only.
void hold_discrete_inputs(const model::ModularModel& model, int s, InputPolynomials& polynomials);

class CouplingBuffers {
 public:
  void resize(const model::ModularModel& model);

  Eigen::VectorXd y;  ///< ỹ, stacked outputs
  Eigen::VectorXd u;  ///< ũ, stacked inputs
  exec::Batch batch;  ///< the orders of the method's systems
  /// The systems with direct feedthrough in the order settle_communication_point visits them.
  SweepPlan settle_plan;

  /// Builds polynomials(s): system s's slice of ũ as constants (zero-order hold).
  const InputPolynomials& zoh(const model::ModularModel& model, int s);
  /// Builds polynomials(s): interface polynomials on [0, h] from the constraints of system s's
  /// inputs (slices of the stacked vectors; see core/hermite.hpp for which ones `kind` uses).
  /// (Views: a head or tail of a stacked vector is read in place, not copied.)
  const InputPolynomials& hermite(const model::ModularModel& model, int s, HermiteKind kind, double h,
                                  ConstVectorView v1, ConstVectorView d1, ConstVectorView v2, ConstVectorView d2);
  /// An order for system s that hands over polynomials(s), its held inputs held (see below).
  exec::Order& order_with_inputs(const model::ModularModel& model, int s);
  /// polynomials(s) with its held inputs held, in place: what a PlainBatch entry hands over
  /// (exec::PlainBatch::add_polynomial). For a caller that rebuilds them before each step (hermite()).
  const InputPolynomials& held_polynomials(const model::ModularModel& model, int s) {
    hold_discrete_inputs(model, s, polynomials(s));
    return polynomials(s);
  }
  /// Copies the outputs (and first derivatives, when read) of the batch's replies into y (and dy).
  void gather_replies(const model::ModularModel& model, Eigen::VectorXd* dy = nullptr);
  [[nodiscard]] InputPolynomials& polynomials(int s) { return polynomials_[static_cast<std::size_t>(s)]; }
  /// The inputs of system s at the start and the end of a step of h as polynomials(s) gives them,
  /// into its slices of the stacked u_start and u_end (the ends of methods/coupling_error.hpp).
  void input_ends(const model::ModularModel& model, int s, double h, Eigen::VectorXd& u_start, Eigen::VectorXd& u_end);
  /// hermite_map(kind, h) (core/hermite.hpp), kept while kind and h repeat: every system and every
  /// evaluation of a step, and every step of a fixed-step run, use the same.
  const Eigen::Matrix4d& hermite_map_of(HermiteKind kind, double h) {
    if (kind != map_kind_ || h != map_h_) {
      map_ = hermite_map(kind, h);
      map_kind_ = kind;
      map_h_ = h;
    }
    return map_;
  }

 private:
  std::vector<InputPolynomials> polynomials_;
  Eigen::Matrix4d map_ = hermite_map(HermiteKind::constant, 1.0);
  HermiteKind map_kind_ = HermiteKind::constant;
  double map_h_ = 1.0;
};

/// Whether some connected input differs from what its source's output gives now (ũ ≠ Φᵀ ỹ): a
/// settling sweep changed an output that feeds back.
bool inputs_lag_outputs(const model::ModularModel& model, const CouplingBuffers& buffers);

/// Makes ũ consistent with the outputs at the current communication point, starting from the
/// outputs in buffers.y. The systems with direct feedthrough take their ZOH inputs and report their
/// outputs in topological order (buffers.settle_plan): exact in one pass when they feed each other
/// without a cycle. Otherwise every system does, repeatedly until ũ no longer changes — at most
/// `max_sweeps` times: with an algebraic loop it must not be iterated (that would be a fixed-point
/// method), so callers pass 1. A model without feedthrough needs no sweep. Returns the sweeps done.
/// With `due`, only the systems marked there take part (multi-rate: the others are mid-step and
/// keep the outputs they published).
int settle_communication_point(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                               int max_sweeps, const std::vector<char>* due = nullptr);

/// Throws Error with the system's reason (the step from t failed).
[[noreturn]] void throw_step_failure(const StepResult& result, const System& system, double t);
/// Throws Error with the system's reason when a step failed (inline: a check per system and step).
inline void throw_if_failed(const StepResult& result, const System& system, double t) {
  if (result.status == StepResult::Status::failed) [[unlikely]]
    throw_step_failure(result, system, t);
}

struct EventRestart {
  bool derivatives_known = true;  ///< false: some restarted du are unknown (0)
  std::string terminated;         ///< a system asked to end the run at the event: why
};

/// At a discontinuity on the communication point t — a time event of some systems (System call
/// order, 5.), or a jump the method detected in the outputs of the systems marked in `jumped`
/// (methods/jump_detector.hpp): those systems move to their right limits (handle_events; for a
/// detected jump they are there already, and their estimator restarts) and report their outputs (and
/// first derivatives, with `du`) into buffers.y; the interface values u (and du) fed by them restart
/// from there. When some of those derivatives are unknown (a system without output derivatives; du
/// is 0 there) the caller drops the derivative constraint at the next step's start.
EventRestart restart_at_discontinuity(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                                      Eigen::VectorXd& u, Eigen::VectorXd* du, double t,
                                      const std::vector<char>* jumped = nullptr);

/// restart_at_discontinuity for a method that carries C¹ interface values (u, du) from step to step
/// (IFOSMONDI, MISSILES): buffers.u follows u, and `drop_derivatives` is set when some restarted
/// derivative is unknown (the next step then imposes none at its start). Returns why the run ends
/// when a system asks to terminate there (empty: it goes on).
std::string restart_c1_interface(model::ModularModel& model, exec::Executor& executor, CouplingBuffers& buffers,
                                 Eigen::VectorXd& u, Eigen::VectorXd& du, double t, bool& drop_derivatives,
                                 const std::vector<char>* jumped = nullptr);

}  // namespace cosima::methods
