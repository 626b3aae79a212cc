#pragma once
// A coupling method (co-simulation master algorithm) drives the systems of a ModularModel over
// macro-steps. Call order, by the Simulation driver:
//   check(model)                     capabilities, before anything runs (throws CapabilityError)
//   initialize(model, t_start)       systems are initialized here
//   repeat: step(model, t, h_max)    advance by at most h_max, return what was taken
// A method reaches its systems only through orders carried out by its executor (exec/), so that
// the same method runs sequentially, on threads or over MPI with identical results.
// For a method that chooses_step(), h_max is its proposed_step() clipped to the stop time (and
// stretched by a sliver rather than leaving one): it is the first attempt.
// A method reports failure as an Error carrying the reason; a system that asks to terminate ends
// the run cleanly at the last completed time.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/executor_fwd.hpp"
#include "methods/coupling_error.hpp"
#include "model/modular_model.hpp"

namespace cosima::methods {

struct StepReport {
  double h = 0.0;               ///< step actually taken (0 when terminated before completing it)
  std::int64_t iterations = 0;  ///< coupling iterations spent on this step
  std::int64_t rejected = 0;    ///< rejected attempts before it
  bool terminated = false;      ///< a system asked to stop (fmi2Terminated)
  std::string reason;           ///< why, when terminated
  // Method diagnostics of the step, NaN when the method has none (the step log writes them):
  /// Largest |ŷ − y| at the step's end between estimated and real outputs of the systems a
  /// step estimator stands in for (COSTARICA, MISSILES).
  double estimate_gap = std::numeric_limits<double>::quiet_NaN();
  double defect = std::numeric_limits<double>::quiet_NaN();             ///< ε_k (seed 004 eq. 38)
  double connection_defect = std::numeric_limits<double>::quiet_NaN();  ///< largest RMS of δu on the step
  double output_defect = std::numeric_limits<double>::quiet_NaN();      ///< largest RMS of δ̂y on the step
  /// The largest RMS connection defect of the step relative to its signal's scale, as every method
  /// has it (methods/coupling_error.hpp; the driver fills it in); NaN when not tracked.
  double coupling_error = std::numeric_limits<double>::quiet_NaN();
  /// The step was taken at the method's smallest step although its error control asked for less:
  /// the error is no longer controlled there (a warning in the step log and the stats).
  bool at_step_floor = false;
  /// Set by the driver: a system announced an event at the step's end, which the driver handles
  /// after the observers' on_step (observer/observer.hpp: on_discontinuity follows).
  bool ends_on_event = false;
};

/// How the start of a run went (the run's statistics: "initialization").
struct InitializationReport {
  int sweeps = 0;             ///< Gauss–Seidel sweeps in Initialization Mode
  int newton_iterations = 0;  ///< damped Newton iterations after sweeps that did not contract
  double residual = 0.0;      ///< max |Φᵀ Y(u) − u| when Initialization Mode was left
  int settling_sweeps = 0;    ///< sweeps after leaving it (initial events changed some outputs)
};

/// A capability a method reads of one system, with why (completes "lacks C (flag)…" in a refusal).
struct CapabilityNeed {
  Capability capability;
  std::string why;
};

class CouplingMethod {
 public:
  virtual ~CouplingMethod() = default;
  /// The executor that carries out the method's orders (exec/executor.hpp); the driver sets it
  /// before initialize().
  void set_executor(exec::Executor& executor) { executor_ = &executor; }
  /// The end of the run; the driver sets it before initialize().
  void set_stop_time(double stop) { stop_time_ = stop; }
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// What the method reads of `system` (given what the system has: e.g. IFOSMONDI reads a system
  /// without rollback through COSTARICA). The driver has cosima emulate what it can of the missing
  /// part (system/emulation/) before check().
  [[nodiscard]] virtual std::vector<CapabilityNeed> needs(const System& /*system*/) const { return {}; }
  /// The capabilities of needs(system).
  [[nodiscard]] CapabilitySet wanted(const System& system) const;
  /// How the method stands in for what it cannot read of `system` besides emulated capabilities,
  /// for the run's start message and stats (e.g. MISSILES probing a black box); empty: nothing.
  [[nodiscard]] virtual std::string stand_in(const System& /*system*/) const { return {}; }
  virtual void check(const model::ModularModel& model) const = 0;
  virtual void initialize(model::ModularModel& model, double t_start) = 0;
  virtual StepReport step(model::ModularModel& model, double t, double h_max) = 0;
  /// Variable-step methods choose their own step; fixed-step ones follow the driver's grid.
  [[nodiscard]] virtual bool chooses_step() const { return false; }
  [[nodiscard]] virtual double proposed_step() const { return 0.0; }
  /// The step ended on a time event of some system (System call order, 5.), at t: the systems with
  /// an event pending move to their right limits. The default does only that; a method that carries
  /// interface values from step to step restarts them there, from the right limits and without a
  /// C¹ constraint across the jump. Returns why the run ends when a system asks to terminate at the
  /// event (empty: it goes on).
  virtual std::string handle_discontinuity(model::ModularModel& model, double t);
  /// Method-specific totals of the run (name, value), added to the run statistics.
  [[nodiscard]] virtual std::vector<std::pair<std::string, double>> totals() const { return {}; }
  /// Tracks the connection defect of the run (methods/coupling_error.hpp); the driver calls it
  /// before initialize(), which may disable it (a method coupling exactly).
  void track_coupling_error(const model::ModularModel& model, const AccuracyOptions& options) {
    coupling_error_.configure(model, options);
  }
  /// The driver moved the systems past a discontinuity (handle_discontinuity).
  void forget_coupling_start() { coupling_error_.forget_start(); }
  [[nodiscard]] const CouplingErrorMonitor& coupling_error() const { return coupling_error_; }
  /// How initialize() reached consistent initial values (methods/initialization.hpp).
  [[nodiscard]] const InitializationReport& initialization() const { return initialization_; }

 protected:
  [[nodiscard]] exec::Executor& executor() const { return *executor_; }
  [[nodiscard]] double stop_time() const { return stop_time_; }
  /// Throws CapabilityError "method 'M' cannot run: system 'S' lacks C (flag)why, …; …" naming every
  /// need no system meets, followed by `hint`.
  /// `needs_of(s)` stands for needs(model.system(s)) where the model tells more than the system (a
  /// system whose continuous inputs no connection drives).
  void check_needs(const model::ModularModel& model, std::string_view hint = {},
                   const std::function<std::vector<CapabilityNeed>(int)>& needs_of = nullptr) const;
  InitializationReport initialization_;  ///< set by initialize()
  /// Each method records its accepted steps here (CouplingErrorMonitor::record).
  CouplingErrorMonitor coupling_error_;

 private:
  exec::Executor* executor_ = nullptr;
  double stop_time_ = std::numeric_limits<double>::infinity();
};

}  // namespace cosima::methods
