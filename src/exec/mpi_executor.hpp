#pragma once
// The MPI executor: the orchestrator/worker layout of seed 001 §4. Rank 0 runs the method; ranks
// 1…n own the systems — system s of S lives on rank 1 + ⌊s·n/S⌋ — and build them from the same
// catalog there (exec/system_catalog.hpp: an FMU is loaded on the rank that owns it). Per batch of orders:
//   MPI_Bcast    the command (carry out orders / shut down)
//   MPI_Scatterv each worker's orders           (rank 0 → workers)
//   MPI_Gatherv  the replies                    (workers → rank 0)
// Rank 0's model holds proxies (RemoteSystem) with the remote systems' structure and capabilities,
// their last outputs and their counters. A system failure comes back as a reply; an exception on
// a worker is rethrown on rank 0 naming the rank and system; a worker that cannot go on aborts
// the job (MPI_Abort), so a run never hangs.
//
//   MpiSession session(argc, argv);
//   if (session.rank() == 0) { MpiExecutor executor(catalog, session.size()); run_scenario(scenario, &executor); }
//   else serve_mpi_worker(catalog, session.rank(), session.size());
#include <memory>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "exec/protocol.hpp"
#include "exec/system_catalog.hpp"

namespace cosima::exec {

/// MPI_Init on construction (loading the MPI plugin, exec/mpi_transport.hpp); PETSc (if used) and
/// MPI finalized on destruction.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

/// The rank that owns system s of `systems`, among `ranks` (rank 0 owns none).
int owner_rank(int s, int systems, int ranks);

class MpiExecutor final : public RemoteExecutor {
 public:
  /// Rank 0: receives the structure of every system from its owner. Throws Error when a worker
  /// could not build its systems (the workers are then shut down).
  MpiExecutor(const SystemCatalog& catalog, int ranks);
  ~MpiExecutor() override;
  MpiExecutor(const MpiExecutor&) = delete;
  MpiExecutor& operator=(const MpiExecutor&) = delete;

  [[nodiscard]] std::string name() const override;
  using Executor::execute;
  void execute(Batch& batch) override;

  [[nodiscard]] std::string place(int system) const override;

 private:
  void shutdown();
  /// Gathers what every worker sends (counts, then bytes) into receive_.
  void receive_from_workers();

  int ranks_ = 1;
  std::vector<std::vector<char>> outgoing_;  ///< per rank
  std::vector<char> send_, receive_;
  std::vector<int> counts_, displacements_;
  bool running_ = false;
};

/// Ranks 1…n: builds the systems this rank owns, reports their structure to rank 0, then carries
/// out orders until rank 0 shuts the run down.
void serve_mpi_worker(const SystemCatalog& catalog, int rank, int ranks);

}  // namespace cosima::exec
