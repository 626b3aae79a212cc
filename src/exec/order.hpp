#pragma once
// What a method asks of one system at one point of a macro-step, as data: an Order. Methods fill
// the orders of a Batch and hand it to their Executor, which carries them out — in this process,
// on threads, or on the MPI rank that owns the system — and fills one Reply per order. Because an
// order is data, the same method code runs on every executor, and results do not depend on it.
//
// An order is carried out in this sequence (each part optional):
//   restore → save → enter initialization → configure estimator → set 64-bit inputs exactly and
//   String inputs → set_inputs → exit initialization → step → handle pending events →
//   read outputs and derivatives → read states → read 64-bit values exactly and String outputs →
//   estimator update 1 → estimator update 2
// Every reply carries the system's next event time and whether an event is pending.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/polynomial.hpp"
#include "core/vector_view.hpp"
#include "estimator/step_estimator.hpp"
#include "model/modular_model.hpp"
#include "system/system.hpp"

namespace cosima::exec {

struct Order {
  bool active = false;                                             ///< part of the batch
  bool restore = false;                                            ///< back to the system's snapshot (rollback)
  bool save = false;                                               ///< take (or overwrite) the system's snapshot
  double initialize = std::numeric_limits<double>::quiet_NaN();    ///< enter initialization at this time
  bool exit_initialization = false;                                ///< leave initialization, after the inputs are set
  std::optional<estimator::EstimatorOptions> configure_estimator;  ///< (re)create the system's COSTARICA estimator
  bool set_inputs = false;
  InputPolynomials inputs;  ///< in s = t − time()
  double step = 0.0;        ///< integrate by this much (0: no step)
  /// A discontinuity at the system's time: System::handle_pending_events (to the right limits at a
  /// time event; nothing when none is pending) and the estimator restarts
  bool handle_events = false;
  int read_order = -1;  ///< read outputs (0) and their derivatives up to this order; −1: none
  bool read_states = false;
  bool read_state_derivatives = false;  ///< ẋ at the system's time (System::state_derivatives)
  bool estimate_begin = false;          ///< estimator update 1 with estimate_u_now
  Eigen::VectorXd estimate_u_now;
  double estimate_h = 0.0;         ///< > 0: estimator update 2 for this step size
  std::vector<std::string> watch;  ///< System::watch_variables with these names (empty: as before)
  bool read_variables = false;     ///< read the watched variables (System::read_variables)
  /// At a communication point, out of process: System::set_wide_input and set_string_input (before
  /// set_inputs), System::wide_value of these names and string_output of these outputs (after the reads).
  std::vector<std::pair<int, WideInteger>> wide_inputs;
  std::vector<std::string> read_wide;
  std::vector<std::pair<int, std::string>> string_inputs;
  std::vector<int> read_strings;

  /// Back to "nothing to do", keeping the buffers.
  void clear();
};

struct Reply {
  StepResult result;                                            ///< of the step (ok when there was none)
  double time = 0.0;                                            ///< the system's time once the order is carried out
  double next_event = std::numeric_limits<double>::infinity();  ///< System::next_event_time()
  bool event_pending = false;                                   ///< System::event_pending()
  Eigen::MatrixXd outputs;                                      ///< n_out × (read_order + 1): column k is d^k y / dt^k
  Eigen::VectorXd states;
  Eigen::VectorXd state_derivatives;
  bool estimate_ok = true;             ///< update 2 succeeded (else result.reason says why)
  estimator::LinearResponse response;  ///< after update 2: G_V and G_D only (P, R are folded into K_V, K_D)
  Eigen::VectorXd constant_value, constant_derivative;  ///< K_V, K_D
  Eigen::VectorXd variables;                            ///< the watched variables, when read
  std::vector<std::optional<WideInteger>> wide_values;  ///< of Order::read_wide, in its order
  std::vector<std::string> strings;                     ///< of Order::read_strings, in its order
};

/// The orders and replies of one batch, one slot per system, reused from step to step.
class Batch {
 public:
  void resize(int systems);
  /// The order of system s, cleared and made active.
  Order& order(int s);
  [[nodiscard]] const Reply& reply(int s) const { return replies_[static_cast<std::size_t>(s)]; }
  /// Deactivates every order (O(active orders), not O(systems)).
  void clear();
  /// The systems with an active order, ascending.
  [[nodiscard]] const std::vector<int>& active() const;

  [[nodiscard]] int size() const { return static_cast<int>(orders_.size()); }
  [[nodiscard]] std::vector<Order>& orders() { return orders_; }
  [[nodiscard]] const std::vector<Order>& orders() const { return orders_; }
  [[nodiscard]] std::vector<Reply>& replies() { return replies_; }

 private:
  std::vector<Order> orders_;
  std::vector<Reply> replies_;
  mutable std::vector<int> active_;
  mutable bool sorted_ = true;
};

/// The hot loops' batch: each entry's system takes its inputs, steps by h and reports its outputs,
/// with no order or reply matrix in between.
///   - The explicit schemes (methods/explicit_coupling.hpp): inputs u held constant —
///     System::step_constant. An entry of h = 0 takes its inputs and reports its outputs without a
///     step (System::settle_constant: settling direct feedthrough at a communication point).
///   - The C¹ methods (MISSILES, IFOSMONDI): input polynomials, read in place (add_polynomial) —
///     optionally restore → set_inputs → do_step(h) → outputs, and first derivatives when dy is set.
///   - COSTARICA's updates 1 and 2 on the system's estimator, no step (add_estimate): what an order
///     of estimate_begin / estimate_h does, into a Reply of the caller's.
/// u, y and dy point into the method's stacked vectors. An executor whose systems live elsewhere
/// carries the entries out as orders (to_orders / take_replies).
class PlainBatch {
 public:
  struct Entry {
    int system = -1;
    double h = 0.0;
    const double* u = nullptr;
    double* y = nullptr;
    Eigen::Index inputs = 0, outputs = 0;
    /// The system holds u already (settled with these values at this communication point): the
    /// step does not set them again (System::step_held).
    bool inputs_held = false;
    /// The inputs over the step as polynomials (then u is unused); h = 0: no step, as an order of
    /// step 0. A failed entry may have written y (and dy): the caller reads them only on success.
    const InputPolynomials* polynomials = nullptr;
    double* dy = nullptr;  ///< with polynomials: the first output derivatives are read here too
    bool restore = false;  ///< with polynomials: back to the system's snapshot first (rollback)
    /// Set: the estimator's updates instead of a step, their operators into *estimate
    /// (Reply::estimate_ok, response, constant_value, constant_derivative).
    Reply* estimate = nullptr;
    const double* estimate_u_now = nullptr;  ///< update 1 with these `inputs` inputs (nullptr: none)
    double estimate_h = 0.0;                 ///< update 2 for this step
    StepResult result;                       ///< filled by the executor
  };
  /// Room for `entries` entries of systems numbered below `systems` (no allocation afterwards). A
  /// Gauss–Seidel sweep has a batch of one entry per system: sizing each by the systems would take
  /// memory quadratic in their number.
  void resize(std::size_t entries, int systems);
  void clear() { count_ = 0; }
  void add(int system, double h, ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y);
  /// An entry whose system steps by h with `inputs` (kept by the caller until the batch is carried
  /// out; h = 0: no step) and reports its outputs into y; set dy and restore on the entry returned.
  Entry& add_polynomial(int system, double h, const InputPolynomials& inputs, Eigen::Ref<Eigen::VectorXd> y);
  /// An entry of the estimator's update 1 with inputs u_now (nullptr: none; `inputs` entries, kept
  /// by the caller) and update 2 for h, into `into`.
  void add_estimate(int system, const double* u_now, Eigen::Index inputs, double h, Reply& into);
  /// Every entry steps by h.
  void set_step(double h) {
    for (std::size_t i = 0; i < count_; ++i) entries_[i].h = h;
  }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] Entry& operator[](std::size_t i) { return entries_[i]; }
  [[nodiscard]] const Entry& operator[](std::size_t i) const { return entries_[i]; }

  /// The entries as the orders of `orders` (their inputs, restore, step and reads, or estimator
  /// updates), for executors that speak orders; `orders` is sized for the systems at its first use.
  void to_orders(Batch& orders) const;
  /// Results, outputs, derivatives and estimates back from the replies of to_orders().
  void take_replies(const Batch& orders);

 private:
  /// The next entry, its kind (and what only some kinds set) cleared; each add* sets the rest.
  Entry& next_entry(int system);

  std::vector<Entry> entries_;
  std::size_t count_ = 0;
  int systems_ = 0;
};

// The add* of the hot loops, inline: a few stores each.
inline PlainBatch::Entry& PlainBatch::next_entry(int system) {
  // what says which kind an entry is, and what only some kinds set; each add* sets the rest (the
  // result is kept: carry_out replaces it by a failure, or a failure by success)
  Entry& entry = entries_.at(count_++);
  entry.system = system;
  entry.u = nullptr;
  entry.y = nullptr;
  entry.inputs_held = false;
  entry.polynomials = nullptr;
  entry.dy = nullptr;
  entry.restore = false;
  entry.estimate = nullptr;
  return entry;
}

inline void PlainBatch::add(int system, double h, ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y) {
  Entry& entry = next_entry(system);
  entry.h = h;
  entry.u = u.data();
  entry.inputs = u.size();
  entry.y = y.data();
  entry.outputs = y.size();
}

inline PlainBatch::Entry& PlainBatch::add_polynomial(int system, double h, const InputPolynomials& inputs,
                                                     Eigen::Ref<Eigen::VectorXd> y) {
  Entry& entry = next_entry(system);
  entry.h = h;
  entry.inputs = inputs.rows();
  entry.y = y.data();
  entry.outputs = y.size();
  entry.polynomials = &inputs;
  return entry;
}

inline void PlainBatch::add_estimate(int system, const double* u_now, Eigen::Index inputs, double h, Reply& into) {
  Entry& entry = next_entry(system);
  entry.h = 0.0;
  entry.inputs = inputs;
  entry.outputs = 0;
  entry.estimate = &into;
  entry.estimate_u_now = u_now;
  entry.estimate_h = h;
}

/// The per-system state an executor keeps where the system lives: its snapshot and estimator.
struct SystemHost {
  System* system = nullptr;
  StateId snapshot = -1;
  Eigen::Index watched = 0;  ///< how many variables the system was told to watch
  std::unique_ptr<estimator::OutputEstimator>
      estimator;  ///< from its linearization, or by probing (output_estimator.hpp)
};

/// Carries out a PlainBatch entry with polynomial inputs (restore, set_inputs, do_step, the reads)
/// or of estimator updates.
void carry_out_c1(SystemHost& host, PlainBatch::Entry& entry);

/// Carries out one PlainBatch entry on its system (System::step_constant, step_held or
/// settle_constant; carry_out_c1 for the others; inline: the hot loop's call).
inline void carry_out(SystemHost& host, PlainBatch::Entry& entry) {
  if (entry.polynomials != nullptr || entry.estimate != nullptr) [[unlikely]] {  // (keeps the constant path inlined)
    carry_out_c1(host, entry);
    return;
  }
  const Eigen::Map<const Eigen::VectorXd> u(entry.u, entry.inputs);
  const Eigen::Map<Eigen::VectorXd> y(entry.y, entry.outputs);
  StepResult result = entry.h == 0.0      ? host.system->settle_constant(u, y)
                      : entry.inputs_held ? host.system->step_held(entry.h, y)
                                          : host.system->step_constant(u, entry.h, y);
  if (!result.ok() || !entry.result.ok()) entry.result = std::move(result);  // (a success holds no reason)
}

/// Carries out one order on the system of `host` (the one implementation every executor uses).
/// Failures of the step are returned in reply.result; contract violations throw Error.
void carry_out(SystemHost& host, const Order& order, Reply& reply);

/// COSTARICA's update 1 (when u_now is given: `inputs` values) and update 2 (when h > 0) on the
/// estimator of `host`, the operators into reply (estimate_ok; when false, result says why).
void estimator_updates(SystemHost& host, const double* u_now, Eigen::Index inputs, double h, Reply& reply);
/// An estimate's part of a reply (result, estimate_ok and the operators), copied without allocating
/// once sized.
void take_estimate(const Reply& from, Reply& into);

/// ŷ = G_V vec(Ξ̌) + K_V, ŷ' = G_D vec(Ξ̌) + K_D from an estimator's reply (update 3).
void estimate_from(const Reply& reply, const InputPolynomials& inputs, Eigen::Ref<Eigen::VectorXd> y,
                   Eigen::Ref<Eigen::VectorXd> dy);

}  // namespace cosima::exec
