#pragma once
// Executors: where and how the systems of a run carry out their orders (libcosim's "execution"
// idea). Every method steps and evaluates its systems only through Executor::execute, so a run
// gives the same numbers — bitwise — whichever executor carries it out:
//   sequential   one system after the other, in this thread
//   threads:N    a pool of N persistent threads (the caller is one of them); the active orders of a
//                batch are dealt round-robin, each system's order runs on one thread
//   mpi          rank 0 runs the method, ranks 1…n own the systems (exec/mpi_executor.hpp)
// Call order: attach(model) once before the run, then execute(batch) any number of times.
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exec/executor_spec.hpp"
#include "exec/order.hpp"
#include "model/modular_model.hpp"

namespace cosima::exec {

class Executor {
 public:
  virtual ~Executor() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  /// Binds to the model of a run (one host per system). Called before the method initializes.
  virtual void attach(model::ModularModel& model) = 0;
  /// Carries out every active order of the batch and fills its replies, returning when all are
  /// done. Orders of different systems may run concurrently. A failure thrown by an order is
  /// rethrown here once the batch is done — the one of the lowest system index.
  virtual void execute(Batch& batch) = 0;
  /// Carries out every entry of a PlainBatch (exec/order.hpp: constant or polynomial inputs, or
  /// estimator updates), with execute's contract; a thrown failure is the one of the first entry.
  /// The default carries the entries out as orders.
  virtual void execute(PlainBatch& batch);
  /// Whether the model's System objects are the real systems in this process (false for MPI,
  /// where they are proxies): methods that need the systems' internals (monolithic) check this.
  [[nodiscard]] virtual bool systems_are_local() const { return true; }
  /// When the system lives elsewhere (MPI), the proxy rank 0 puts in its model; else nullptr.
  [[nodiscard]] virtual std::unique_ptr<System> remote_system(const std::string& /*name*/) { return nullptr; }
  /// Ends the executor after a run: what went wrong on the way out (a system's process that died
  /// in fmi2FreeInstance), empty when nothing did. The destructor ends it too, silently.
  [[nodiscard]] virtual std::string finish() { return {}; }

 private:
  Batch plain_orders_;  ///< the default execute(PlainBatch&)'s orders: one set for every plain batch
};

/// The systems live in this process.
class LocalExecutor : public Executor {
 public:
  void attach(model::ModularModel& model) override;

 protected:
  /// Runs order s, storing a thrown failure instead of propagating it.
  void run(Batch& batch, int s);
  /// Runs entry i, storing a thrown failure instead of propagating it (inline: the hot loops' call).
  void run(PlainBatch& batch, std::size_t i) {
    PlainBatch::Entry& entry = batch[i];
    try {
      carry_out(hosts_[static_cast<std::size_t>(entry.system)], entry);
    } catch (...) {
      failures_[static_cast<std::size_t>(entry.system)] = std::current_exception();
      any_failure_.store(true, std::memory_order_relaxed);
    }
  }
  /// Rethrows the first stored failure of the batch (lowest system index) and forgets all of them.
  void rethrow_failure(const Batch& batch);
  /// Rethrows the stored failure of the first entry that has one and forgets all of them.
  void rethrow_failure(const PlainBatch& batch);

  std::vector<SystemHost> hosts_;
  std::vector<std::exception_ptr> failures_;
  std::atomic<bool> any_failure_{false};  ///< some failures_ slot is set (the common case: none to scan)
};

class SequentialExecutor final : public LocalExecutor {
 public:
  [[nodiscard]] std::string name() const override { return "sequential"; }
  void execute(Batch& batch) override;
  void execute(PlainBatch& batch) override;
};

class ThreadPoolExecutor final : public LocalExecutor {
 public:
  /// adaptive: share a batch only when that pays (below); always: share every batch of two or more
  /// orders (tests of the shared path).
  enum class Sharing : std::uint8_t { adaptive, always };
  /// `threads` ≥ 1 threads in all, the caller included: threads − 1 are started once, here, and the
  /// cost of handing a batch to them is measured (round trips of an empty batch).
  explicit ThreadPoolExecutor(int threads, Sharing sharing = Sharing::adaptive);
  ~ThreadPoolExecutor() override;
  ThreadPoolExecutor(const ThreadPoolExecutor&) = delete;
  ThreadPoolExecutor& operator=(const ThreadPoolExecutor&) = delete;

  [[nodiscard]] std::string name() const override;
  /// Shares the batch among the threads when that pays: when the batch's work (the sum of its
  /// orders' times, a running mean over past batches) less the share of the longest lane exceeds
  /// the hand-off's cost. Otherwise (cheap systems: a few hundred ns of work against µs of hand-off)
  /// the calling thread runs it, so threads are never much slower than sequential.
  void execute(Batch& batch) override;
  void execute(PlainBatch& batch) override;

  /// Whether sharing a batch of `work` ticks over `lanes` lanes pays against a hand-off of
  /// `handoff` ticks: it saves about work·(1 − 1/lanes). Unknown work (< 0) is run inline first.
  [[nodiscard]] static bool sharing_pays(double work, double handoff, std::size_t lanes) {
    return work >= 0.0 && lanes > 1 && work * (1.0 - 1.0 / static_cast<double>(lanes)) > handoff;
  }
  /// Batches run by the caller alone / shared (for tests and benchmarks).
  [[nodiscard]] std::int64_t inline_batches() const { return inline_batches_; }
  [[nodiscard]] std::int64_t shared_batches() const { return shared_batches_; }

 private:
  /// Runs job i of the current batch: the i-th active order, or the i-th plain entry.
  void run_job(std::size_t i);
  void work(int lane);  ///< runs the jobs lane, lane + T, lane + 2T, …; times them
  void worker_loop(int lane);
  /// Publishes the current batch to the workers, takes lane 0, and waits for the others.
  void share();
  /// Runs the current batch's jobs, inline (`run_inline`) or shared (the adaptive rule above).
  template <typename RunInline>
  void run_jobs(std::size_t jobs, RunInline&& run_inline);
  /// Makes the sharing decision (pays_, timing_period_) for batches of `jobs` jobs.
  void decide(std::size_t jobs);

  // A batch is published by bumping generation_; workers spin on it briefly (batches of cheap
  // systems follow each other within microseconds) and otherwise sleep on start_.
  int threads_;
  Sharing sharing_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::atomic<std::uint64_t> generation_{0};  ///< batches published
  std::atomic<int> pending_{0};               ///< workers still on the current batch
  std::atomic<bool> stopping_{false};
  std::atomic<int> asleep_{0};   ///< workers asleep on start_
  Batch* batch_ = nullptr;       ///< the current batch: orders …
  PlainBatch* plain_ = nullptr;  ///< … or plain entries
  std::vector<int> active_;      ///< indices of the active orders of the current batch
  std::size_t jobs_ = 0;         ///< active orders or plain entries
  // the sharing decision, in tick_clock ticks
  std::vector<std::uint64_t> lane_ticks_;       ///< per lane: its work in the current batch
  double work_ticks_ = -1.0;                    ///< running mean of a batch's work (< 0: not yet known)
  double handoff_ticks_ = 0.0;                  ///< running mean of a hand-off's cost
  std::size_t decided_jobs_ = 0;                ///< the batch size pays_ was decided for (0: not yet)
  bool pays_ = false;                           ///< sharing_pays(work_ticks_, handoff_ticks_, lanes of decided_jobs_)
  static constexpr double kMeanWeight = 0.125;  ///< of the newest batch in the running means
  static constexpr std::int64_t kFarTimingPeriod = 64;
  std::int64_t timing_period_ = System::kTimingPeriod;  ///< inline batches per timed one (decide)
  std::int64_t until_timed_ = 0;                        ///< inline batches until the next timed one
  std::int64_t inline_batches_ = 0, shared_batches_ = 0;
};

/// "sequential" | "threads:N" | "mpi" (the last only under mpirun, see exec/mpi_executor.hpp).
/// Throws Error naming a malformed spec.
/// With `systems` > 0, threads:N is capped at that many threads (with a warning).
std::unique_ptr<Executor> make_local_executor(const std::string& spec, int systems = 0);
/// The same, from a spec already parsed (exec/executor_spec.hpp).
std::unique_ptr<Executor> make_local_executor(const ExecutorSpec& spec, int systems = 0);

}  // namespace cosima::exec
