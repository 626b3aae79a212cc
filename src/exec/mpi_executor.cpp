#include "exec/mpi_executor.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <cstdint>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "exec/protocol.hpp"
#include "nonlinear/nonlinear_solver.hpp"

namespace cosima {

namespace {

enum Command : int { kExecute = 1, kShutdown = 2 };

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(fmt::format("MPI: {} failed: {}", call, std::string(text, static_cast<std::size_t>(length))));
}

/// Waits for a non-blocking collective without holding a core: a short spin, then sleeps that
/// grow to 200 µs. A waiting rank (rank 0 while the workers step, a worker while rank 0 solves)
/// must leave the CPU to the ranks that work — with more ranks than cores a blocking MPI call
/// would spin and take it.
void complete(MPI_Request& request, const char* call) {
  int done = 0;
  for (int spin = 0; spin < 200 && done == 0; ++spin) mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
  auto pause = std::chrono::microseconds(5);
  while (done == 0) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
  }
}

// The collectives of the protocol, each completed by complete().
void bcast(int& value) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  complete(request, "MPI_Ibcast");
}
void scatter(const int* counts, int& mine) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iscatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Iscatter");
  complete(request, "MPI_Iscatter");
}
void scatterv(const char* send, const int* counts, const int* displacements, char* receive, int count) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iscatterv(send, counts, displacements, MPI_BYTE, receive, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
            "MPI_Iscatterv");
  complete(request, "MPI_Iscatterv");
}
void gather(int mine, int* counts) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Igather");
  complete(request, "MPI_Igather");
}
void gatherv(const char* send, int count, char* receive, const int* counts, const int* displacements) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igatherv(send, count, MPI_BYTE, receive, counts, displacements, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
            "MPI_Igatherv");
  complete(request, "MPI_Igatherv");
}

}  // namespace

// --- the proxy on rank 0 ------------------------------------------------------------------------

// --- session ------------------------------------------------------------------------------------

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors come back as codes
}

MpiSession::~MpiSession() {
  finalize_petsc();  // PETSc uses MPI: it goes first
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

int owner_rank(int s, int systems, int ranks) {
  const int workers = ranks - 1;
  return 1 + static_cast<int>((static_cast<long long>(s) * workers) / systems);
}

// --- rank 0 -------------------------------------------------------------------------------------

MpiExecutor::MpiExecutor(const Scenario& scenario) {
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  if (ranks_ < 2) {
    throw Error("the MPI executor needs rank 0 and at least one worker: mpirun -n 3 cosima run … --executor mpi");
  }
  for (const auto& spec : scenario.systems) names_.push_back(spec.name);
  const int systems = static_cast<int>(names_.size());
  descriptions_.assign(static_cast<std::size_t>(systems), {});
  counts_.assign(static_cast<std::size_t>(ranks_), 0);
  displacements_.assign(static_cast<std::size_t>(ranks_), 0);
  outgoing_.assign(static_cast<std::size_t>(ranks_), {});
  running_ = true;
  // the workers report what they built
  receive_from_workers();
  const std::string failures = decode_descriptions(receive_.data(), receive_.size(), descriptions_,
                                                   [&](int s) { return place(s); });
  if (!failures.empty()) {
    shutdown();
    throw Error(failures);
  }
}

std::string MpiExecutor::place(int system) const {
  return fmt::format("rank {}", owner_rank(system, static_cast<int>(names_.size()), ranks_));
}

MpiExecutor::~MpiExecutor() {
  try {
    shutdown();
  } catch (const std::exception& e) {
    std::cerr << "cosima: shutting the MPI workers down: " << e.what() << '\n';
  }
}

void MpiExecutor::shutdown() {
  if (!running_) return;
  running_ = false;
  int command = kShutdown;
  bcast(command);
}

std::string MpiExecutor::name() const { return fmt::format("mpi ({} workers)", ranks_ - 1); }

void MpiExecutor::execute(Batch& batch) {
  const int systems = static_cast<int>(names_.size());
  for (auto& bytes : outgoing_) bytes.clear();
  if (!encode_orders(batch, [&](int s) { return owner_rank(s, systems, ranks_); }, outgoing_)) return;
  if (!running_) throw Error("MPI executor: the workers have been shut down");
  // orders out
  int command = kExecute;
  bcast(command);
  send_.clear();
  for (int r = 0; r < ranks_; ++r) {
    counts_[static_cast<std::size_t>(r)] = static_cast<int>(outgoing_[static_cast<std::size_t>(r)].size());
    displacements_[static_cast<std::size_t>(r)] = static_cast<int>(send_.size());
    send_.insert(send_.end(), outgoing_[static_cast<std::size_t>(r)].begin(), outgoing_[static_cast<std::size_t>(r)].end());
  }
  int mine = 0;
  scatter(counts_.data(), mine);
  scatterv(send_.data(), counts_.data(), displacements_.data(), nullptr, 0);
  // replies in
  receive_from_workers();
  const auto [failed_system, failure] = decode_replies(receive_.data(), receive_.size(), batch, proxies_);
  if (failed_system >= 0) throw Error(fmt::format("{}: {}", place(failed_system), failure));
}

void MpiExecutor::receive_from_workers() {
  gather(0, counts_.data());
  int total = 0;
  for (int r = 0; r < ranks_; ++r) {
    displacements_[static_cast<std::size_t>(r)] = total;
    total += counts_[static_cast<std::size_t>(r)];
  }
  receive_.resize(static_cast<std::size_t>(total));
  gatherv(nullptr, 0, receive_.data(), counts_.data(), displacements_.data());
}


// --- ranks 1…n ----------------------------------------------------------------------------------

namespace {

void serve(const Scenario& scenario, int rank, int ranks) {
  const int systems = static_cast<int>(scenario.systems.size());
  std::vector<int> mine;
  for (int s = 0; s < systems; ++s) {
    if (owner_rank(s, systems, ranks) == rank) mine.push_back(s);
  }
  SystemServer server(scenario, mine);
  auto reply = [&](const std::vector<char>& bytes) {
    const int count = static_cast<int>(bytes.size());
    gather(count, nullptr);
    gatherv(bytes.data(), count, nullptr, nullptr, nullptr);
  };
  reply(server.descriptions());
  std::vector<char> incoming, replies;
  while (true) {
    int command = 0;
    bcast(command);
    if (command == kShutdown) return;
    if (command != kExecute) throw Error(fmt::format("unknown command {} from rank 0", command));
    int count = 0;
    scatter(nullptr, count);
    incoming.resize(static_cast<std::size_t>(count));
    scatterv(nullptr, nullptr, nullptr, incoming.data(), count);
    server.serve(incoming.data(), incoming.size(), replies);
    reply(replies);
  }
}

}  // namespace

void serve_mpi_worker(const Scenario& scenario) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    serve(scenario, rank, ranks);
  } catch (const std::exception& e) {
    // the protocol is broken: end the whole job rather than leave rank 0 waiting
    std::cerr << fmt::format("cosima: rank {}: {} — aborting the run\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace cosima
