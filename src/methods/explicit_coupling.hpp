#pragma once
// Non-iterative coupling (DESIGN §3.1, §3.6):
//   Jacobi        every system steps [t_N, t_N+h) on inputs from ỹ(t_N) — the systems are
//                 independent and run concurrently on the executor. ỹ(t_N) of a system with direct
//                 feedthrough depends on its inputs at t_N: without an algebraic loop the master
//                 propagates them along the feedthrough chains first (settle_communication_point);
//   Gauss–Seidel  systems step one after another in `order`; a system's inputs come from the
//                 outputs already at t_N+h of the systems before it. A cycle of direct feedthrough
//                 cannot be ordered (algebraic loop): it is reported as an error unless allowed.
// Inputs over a step are extrapolated per connection from the samples at the receiver's
// communication points (extrapolation/extrapolator.hpp): ZOH, a CHOPoly predictor or CHOPtrey
// (seed 002). A system that cannot interpolate inputs gets the extrapolation's mean over the step.
// Multi-rate Jacobi: system s steps every k_s base steps (its communication step k_s·δt); its
// outputs are published when the base grid reaches the end of its step, and held until the next.
// The common case — every input held (ZOH), one rate — is stepped as a PlainBatch (exec/order.hpp):
// System::step_constant straight on slices of ũ and ỹ, the same numbers without orders or polynomials.
// Under `method.tolerance` (error_control.hpp; held inputs, one rate) each step is judged by its
// connection defect, of order 1 in h: with every system able to roll back, a rejected step is
// taken again shorter from the snapshots at t_N; without, it is kept and counted over tolerance.
#include <map>
#include <string>
#include <vector>

#include "extrapolation/extrapolator.hpp"
#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"
#include "methods/error_control.hpp"
#include "methods/initialization.hpp"

namespace cosima::methods {

class ExplicitCoupling final : public CouplingMethod {
 public:
  enum class Scheme : std::uint8_t { jacobi, gauss_seidel };
  struct Options {
    Scheme scheme = Scheme::jacobi;
    std::vector<std::string> order;  ///< Gauss–Seidel order by system name; empty: scenario order
    bool allow_algebraic_loops = false;
    std::string extrapolation = "zoh";                    ///< for every input …
    std::map<std::string, std::string> extrapolation_of;  ///< … but these ("system.input")
    double cliff = 0.9;                                   ///< Γ of CHOPtrey
    int memory = 16;                                      ///< Λ of CHOPtrey
    std::map<std::string, int> rates;                     ///< multi-rate: k_s by system name (default 1)
    bool plain_steps = true;      ///< step the common case as a PlainBatch (false: always as orders)
    ErrorControlOptions control;  ///< error-controlled steps (off by default)
    double dt = 0.0;              ///< the first step under tolerance
  };
  explicit ExplicitCoupling(Options options) : options_(std::move(options)) {}

  [[nodiscard]] std::string_view name() const override {
    return options_.scheme == Scheme::jacobi ? "jacobi" : "gauss-seidel";
  }
  void check(const model::ModularModel& model) const override;
  void initialize(model::ModularModel& model, double t_start) override;
  StepReport step(model::ModularModel& model, double t, double h_max) override;
  /// The outputs of the next step's start are the right limits; the extrapolations of the inputs
  /// that jumped restart from them.
  std::string handle_discontinuity(model::ModularModel& model, double t) override;
  [[nodiscard]] bool chooses_step() const override { return options_.control.enabled(); }
  [[nodiscard]] double proposed_step() const override { return control_.next(); }
  [[nodiscard]] std::vector<std::pair<std::string, double>> totals() const override;

 private:
  /// One attempt at [t, t + h) by the plain batches or by orders, recording nothing; report.h = 0
  /// when a system asked to stop before completing it.
  StepReport attempt(model::ModularModel& model, double t, double h);
  /// The inputs at the step's ends as the systems used them: the plain batches hold ũ over the step.
  [[nodiscard]] const Eigen::VectorXd& inputs_at_start() const {
    return plain_batches_.empty() ? u_start_ : buffers_.u;
  }
  [[nodiscard]] const Eigen::VectorXd& inputs_at_end() const { return plain_batches_.empty() ? u_end_ : buffers_.u; }
  /// Records the completed step [t, t + h) (coupling error) and moves the base grid on.
  void commit(double t, double h);
  /// The step of a fixed grid: an attempt, committed.
  StepReport step_fixed(model::ModularModel& model, double t, double h);
  /// The step under tolerance: attempts judged by the error control, the rejected ones undone.
  StepReport step_controlled(model::ModularModel& model, double t, double h);
  /// Every system back to (restore) or saving (save) its snapshot at t_N, with ỹ and ũ there.
  void snapshot(const model::ModularModel& model, double t, bool restore);
  /// The error control of a run (configure at initialize): refuses what it cannot control.
  void configure_control(const model::ModularModel& model);
  /// The step by orders (polynomial inputs, multi-rate).
  StepReport step_orders(model::ModularModel& model, double t, double h_max);
  /// Takes the outcome of system s's step (throws on a failure; a system asking to stop ends the
  /// run); false when the run ends at t_N, without that step. Inline: a success is a store.
  bool accept(const model::ModularModel& model, int s, const StepResult& result, double t, StepReport& report) {
    if (!result.ok()) [[unlikely]]
      return accept_unusual(model, s, result, t, report);
    fresh_[static_cast<std::size_t>(s)] = 1;
    return true;
  }
  /// accept() of a step that did not succeed plainly (failed, or asked to stop).
  bool accept_unusual(const model::ModularModel& model, int s, const StepResult& result, double t, StepReport& report);
  /// An entry of h = 0 for system s over its slices of buffers_.u and .y.
  void add_entry(exec::PlainBatch& batch, const model::ModularModel& model, int s);

  /// The step as plain_batches_.
  StepReport step_plain(model::ModularModel& model, double t, double h_max);
  /// settle_communication_point as settle_batches_ (the same numbers, without orders).
  void settle_plain(model::ModularModel& model, double t);
  /// Compiles settle_batches_ from buffers_.settle_plan: a batch per stage, or one batch of every
  /// system swept up to settle_sweeps_ times when the feedthrough forms a loop.
  void compile_settling(const model::ModularModel& model);
  /// plain_batches_ (and settles_), after compile_settling.
  void compile_steps(const model::ModularModel& model);
  /// polynomials(s) over a step of `h_actual` on the communication step k_s·h of system s; inputs
  /// whose source is marked in `fresh` take the source's current output as ZOH (Gauss–Seidel).
  void build_inputs(const model::ModularModel& model, int s, double h, double h_actual, const std::vector<char>* fresh);
  /// The known signals' inputs (signal_input_) and their sources; false when there are none.
  bool find_signal_inputs(const model::ModularModel& model);
  /// The slopes of the known signals at t_N into signal_slopes_ (their sources' first derivatives).
  void read_signal_slopes(const model::ModularModel& model, double t);

  Options options_;
  CouplingBuffers buffers_;
  /// Every input held and one rate: the step as compiled once, at initialize — Jacobi one batch of
  /// every system, Gauss–Seidel one batch per system in sequence_ — over slices of buffers_.u and .y
  /// (which keep their storage for the run). Empty otherwise.
  std::vector<exec::PlainBatch> plain_batches_;
  /// With plain_batches_ and direct feedthrough: the settling of a communication point, compiled
  /// (entries of h = 0 over the same slices of buffers_.u and .y).
  std::vector<exec::PlainBatch> settle_batches_;
  /// After settle_plain: the settled systems hold the inputs they step on (they did not change since)
  bool settled_ = false;
  /// With one plain batch: entry k of plain_batches_[0] is a system that settle_plain settles
  std::vector<char> settles_;
  /// With one plain batch: the settled_ its entries' inputs_held were last set from
  bool held_in_batch_ = false;
  extrapolation::ChopolyCache chopoly_;
  std::vector<extrapolation::SignalExtrapolator> extrapolators_;  ///< one per global input
  std::vector<int> sequence_;                                     ///< system indices in stepping order
  std::vector<int> rate_;                                         ///< k_s
  std::vector<char> due_, fresh_;
  std::vector<char> interpolates_;  ///< system s interpolates polynomial inputs (its capability, read once)
  /// Inputs given as their source's line over the step (PortInfo::signal, to a system that interpolates
  /// its inputs): by input, and the source systems whose slopes read_signal_slopes reads at t_N.
  std::vector<char> signal_input_;
  std::vector<int> signal_sources_;
  Eigen::VectorXd signal_slopes_, signal_values_;  ///< by input, of signal_input_ ones, at t_N
  std::vector<Eigen::VectorXd> pending_;           ///< outputs of a system at the end of its current step
  std::vector<double> publish_at_;
  Eigen::VectorXd u_start_, u_end_;  ///< the inputs at the step's ends as the systems used them (coupling error)
  std::int64_t base_step_ = 0;
  int settle_sweeps_ = 1;  ///< feedthrough propagation at a communication point (1 with a loop)
  ErrorControl control_;
  bool can_redo_ = false;              ///< every system has rollback: a rejected step is undone
  Eigen::VectorXd y_saved_, u_saved_;  ///< ỹ and ũ at t_N, for an undone step
};

}  // namespace cosima::methods
