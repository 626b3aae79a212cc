#include "exec/executor.hpp"
#include "exec/executor_spec.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/tick_clock.hpp"

namespace cosima::exec {

void Executor::execute(PlainBatch& batch) {
  batch.to_orders(plain_orders_);
  execute(plain_orders_);
  batch.take_replies(plain_orders_);
}

void LocalExecutor::attach(model::ModularModel& model) {
  hosts_.clear();
  hosts_.resize(static_cast<std::size_t>(model.system_count()));
  for (int s = 0; s < model.system_count(); ++s) hosts_[static_cast<std::size_t>(s)].system = &model.system(s);
  failures_.assign(hosts_.size(), nullptr);
}

void LocalExecutor::run(Batch& batch, int s) {
  try {
    carry_out(hosts_[static_cast<std::size_t>(s)], batch.orders()[static_cast<std::size_t>(s)],
              batch.replies()[static_cast<std::size_t>(s)]);
  } catch (...) {
    failures_[static_cast<std::size_t>(s)] = std::current_exception();
    any_failure_.store(true, std::memory_order_relaxed);
  }
}

void LocalExecutor::rethrow_failure(const PlainBatch& batch) {
  if (!any_failure_.load(std::memory_order_relaxed)) return;
  any_failure_.store(false, std::memory_order_relaxed);
  std::exception_ptr first;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto& failure = failures_[static_cast<std::size_t>(batch[i].system)];
    if (failure && !first) first = failure;
    failure = nullptr;
  }
  if (first) std::rethrow_exception(first);
}

void LocalExecutor::rethrow_failure(const Batch& batch) {
  if (!any_failure_.load(std::memory_order_relaxed)) return;  // the batch's lanes have joined (executor.hpp)
  any_failure_.store(false, std::memory_order_relaxed);
  std::exception_ptr first;
  for (int s : batch.active()) {  // ascending: the lowest system index wins
    auto& failure = failures_[static_cast<std::size_t>(s)];
    if (failure && !first) first = failure;
    failure = nullptr;
  }
  if (first) std::rethrow_exception(first);
}

void SequentialExecutor::execute(Batch& batch) {
  for (int s : batch.active()) run(batch, s);
  rethrow_failure(batch);
}

void SequentialExecutor::execute(PlainBatch& batch) {
  for (std::size_t i = 0; i < batch.size(); ++i) run(batch, i);
  rethrow_failure(batch);
}

ThreadPoolExecutor::ThreadPoolExecutor(int threads, Sharing sharing) : threads_(threads), sharing_(sharing) {
  if (threads_ < 1) throw Error(fmt::format("executor threads:{}: at least one thread", threads_));
  lane_ticks_.assign(static_cast<std::size_t>(threads_), 0);
  for (int lane = 1; lane < threads_; ++lane) workers_.emplace_back([this, lane] { worker_loop(lane); });
  if (workers_.empty()) return;
  // the hand-off's cost: the median of a few round trips of an empty batch to spinning workers (warm),
  // and one to workers asleep on start_ (cold: a futex wake, under a hypervisor a virtual CPU's wake-up;
  // ≈ 0.1–0.3 ms on the 2-core VM of docs/results, against a few µs warm). Between inline batches the
  // workers fall asleep, so the first batch shared after them pays the cold cost: the running mean starts
  // where that first share would take it from the warm cost, blended in with the running means' weight.
  // A costly initializing batch then no longer starts a sharing that the first steps undo.
  constexpr int kProbes = 15;
  std::vector<std::uint64_t> trips;
  trips.reserve(kProbes);
  Batch empty;
  batch_ = &empty;
  active_.clear();
  const auto round_trip = [&] {
    const std::uint64_t start = tick_clock::now();
    share();
    return tick_clock::now() - start;
  };
  for (int probe = 0; probe < kProbes; ++probe) trips.push_back(round_trip());
  std::nth_element(trips.begin(), trips.begin() + kProbes / 2, trips.end());
  while (asleep_.load(std::memory_order_acquire) < static_cast<int>(workers_.size())) std::this_thread::yield();
  const auto warm = static_cast<double>(trips[kProbes / 2]);
  handoff_ticks_ = warm + kMeanWeight * std::max(0.0, static_cast<double>(round_trip()) - warm);
  batch_ = nullptr;
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  {
    const std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  start_.notify_all();
  for (auto& worker : workers_) worker.join();
}

std::string ThreadPoolExecutor::name() const { return fmt::format("threads:{}", threads_); }

void ThreadPoolExecutor::run_job(std::size_t i) {
  if (plain_ != nullptr) {
    run(*plain_, i);
  } else {
    run(*batch_, active_[i]);
  }
}

void ThreadPoolExecutor::work(int lane) {
  const std::uint64_t start = tick_clock::now();
  for (std::size_t i = static_cast<std::size_t>(lane); i < jobs_; i += static_cast<std::size_t>(threads_)) run_job(i);
  lane_ticks_[static_cast<std::size_t>(lane)] = tick_clock::now() - start;
}

namespace {
/// Spins on `ready` for a few tens of microseconds, yielding the core between checks.
template <typename Ready>
bool spin_until(Ready ready) {
  constexpr int kSpins = 2000;
  for (int i = 0; i < kSpins; ++i) {
    if (ready()) return true;
    std::this_thread::yield();
  }
  return ready();
}
}  // namespace

void ThreadPoolExecutor::worker_loop(int lane) {
  std::uint64_t seen = 0;
  while (true) {
    const auto published = [&] {
      return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(published)) {
      std::unique_lock lock(mutex_);
      asleep_.fetch_add(1, std::memory_order_release);
      start_.wait(lock, published);
      asleep_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    work(lane);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      const std::lock_guard lock(mutex_);  // the caller may be asleep on done_
      done_.notify_one();
    }
  }
}

void ThreadPoolExecutor::share() {
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    const std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);  // publishes batch_, active_, pending_
  }
  start_.notify_all();
  work(0);
  const auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }
}

void ThreadPoolExecutor::decide(std::size_t jobs) {
  decided_jobs_ = jobs;
  const std::size_t lanes = std::min<std::size_t>(jobs, static_cast<std::size_t>(threads_));
  pays_ = lanes > 1 && (sharing_ == Sharing::always || sharing_pays(work_ticks_, handoff_ticks_, lanes));
  // inline, one batch in System::kTimingPeriod is timed near the break-even, one in kFarTimingPeriod far
  // below it (work under 1/16 of the hand-off: the cheap FMUs), where a timed batch's clock reads and
  // bookkeeping would be most of what the pool costs over sequential
  timing_period_ = work_ticks_ >= 0.0 && 16.0 * work_ticks_ < handoff_ticks_ ? kFarTimingPeriod : System::kTimingPeriod;
}

template <typename RunInline>
void ThreadPoolExecutor::run_jobs(std::size_t jobs, RunInline&& run_inline) {
  // the common case first: the same decision as the last batch, inline and not timed (sequential's loop)
  if (jobs == decided_jobs_ && !pays_ && --until_timed_ > 0) {
    ++inline_batches_;
    run_inline();
    return;
  }
  const auto blend = [&](double& mean, double sample) {
    mean = mean < 0.0 ? sample : mean + kMeanWeight * (sample - mean);
  };
  // the first kAlwaysTimed inline batches are all timed, so that costly steps after the cheap
  // initializing sweeps are seen at once; then one in timing_period_ (System::do_step samples likewise)
  constexpr std::int64_t kAlwaysTimed = 16;
  jobs_ = jobs;
  if (jobs != decided_jobs_) decide(jobs);
  if (std::min<std::size_t>(jobs, static_cast<std::size_t>(threads_)) <= 1) {  // nothing to share
    ++inline_batches_;
    run_inline();
    until_timed_ = std::numeric_limits<std::int64_t>::max();  // nor to time, while the batches stay so
  } else if (!pays_) {
    ++inline_batches_;
    const std::uint64_t start = tick_clock::now();
    run_inline();
    blend(work_ticks_, static_cast<double>(tick_clock::now() - start));
    decide(jobs);
    until_timed_ = inline_batches_ < kAlwaysTimed ? 1 : timing_period_;
  } else {
    const std::uint64_t start = tick_clock::now();
    share();
    const auto wall = static_cast<double>(tick_clock::now() - start);
    std::uint64_t work = 0, longest = 0;
    for (const std::uint64_t ticks : lane_ticks_) {
      work += ticks;
      longest = std::max(longest, ticks);
    }
    blend(work_ticks_, static_cast<double>(work));
    blend(handoff_ticks_, std::max(0.0, wall - static_cast<double>(longest)));
    decide(jobs);
    until_timed_ = 0;  // the first inline batch after sharing is timed
    ++shared_batches_;
  }
}

void ThreadPoolExecutor::execute(Batch& batch) {
  active_ = batch.active();
  batch_ = &batch;
  run_jobs(active_.size(), [&] {
    for (const int s : active_) run(batch, s);
  });
  batch_ = nullptr;
  rethrow_failure(batch);
}

void ThreadPoolExecutor::execute(PlainBatch& batch) {
  plain_ = &batch;
  run_jobs(batch.size(), [&] {
    for (std::size_t i = 0; i < batch.size(); ++i) run(batch, i);
  });
  plain_ = nullptr;
  rethrow_failure(batch);
}

std::unique_ptr<Executor> make_local_executor(const std::string& text, int systems) {
  return make_local_executor(parse_executor_spec(text), systems);
}

std::unique_ptr<Executor> make_local_executor(const ExecutorSpec& spec, int systems) {
  if (spec.kind == ExecutorSpec::Kind::sequential) return std::make_unique<SequentialExecutor>();
  if (spec.kind != ExecutorSpec::Kind::threads) {
    throw Error(fmt::format("executor '{}' is not one of this process (sequential, threads:N)", spec.text));
  }
  int threads = spec.count;
  if (systems > 0 && threads > systems) {  // a thread without a system would only wait
    log(LogLevel::warning,
        fmt::format("--executor {}: capped at threads:{}, the number of systems", spec.text, systems));
    threads = systems;
  }
  return std::make_unique<ThreadPoolExecutor>(threads);
}

}  // namespace cosima::exec
