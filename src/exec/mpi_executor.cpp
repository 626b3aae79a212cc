#include "exec/mpi_executor.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/plugin.hpp"
#include "core/watcher.hpp"
#include "exec/mpi_transport.hpp"
#include "exec/protocol.hpp"
#include "nonlinear/nonlinear_solver.hpp"

namespace cosima::exec {

namespace {

enum Command : int { kExecute = 1, kShutdown = 2 };

/// The MPI plugin's calls, loaded on first use (a run without --executor mpi never loads MPI).
const MpiTransport& mpi() {
  static const MpiTransport* transport =
      reinterpret_cast<MpiTransportEntry>(plugin_symbol(kMpiPlugin, "cosima_mpi_transport"))();
  return *transport;
}

void mpi_check(int code, const char* call) {
  if (code == 0) return;
  std::array<char, 512> text{};
  mpi().error_text(code, text.data(), static_cast<int>(text.size()));
  throw Error(fmt::format("MPI: {} failed: {}", call, text.data()));
}

// The collectives of the protocol (rooted at rank 0, exec/mpi_transport.hpp).
void bcast(int& value) { mpi_check(mpi().bcast_int(&value), "MPI_Ibcast"); }
void scatter(const int* counts, int& mine) { mpi_check(mpi().scatter_int(counts, &mine), "MPI_Iscatter"); }
void scatterv(const char* send, const int* counts, const int* displacements, char* receive, int count) {
  mpi_check(mpi().scatterv_bytes(send, counts, displacements, receive, count), "MPI_Iscatterv");
}
void gather(int mine, int* counts) { mpi_check(mpi().gather_int(mine, counts), "MPI_Igather"); }
void gatherv(const char* send, int count, char* receive, const int* counts, const int* displacements) {
  mpi_check(mpi().gatherv_bytes(send, count, receive, counts, displacements), "MPI_Igatherv");
}

}  // namespace

// --- the proxy on rank 0 ------------------------------------------------------------------------

// --- session ------------------------------------------------------------------------------------

MpiSession::MpiSession() {
  forgo_watcher();  // mpirun watches the ranks and names a death; a fork beside MPI is best avoided
  mpi_check(mpi().start(&rank_, &size_), "MPI_Init");
}

MpiSession::~MpiSession() {
  nonlinear::finalize_petsc();  // PETSc uses MPI: it goes first
  mpi().finish();
}

int owner_rank(int s, int systems, int ranks) {
  const int workers = ranks - 1;
  return 1 + static_cast<int>((static_cast<long long>(s) * workers) / systems);
}

// --- rank 0 -------------------------------------------------------------------------------------

MpiExecutor::MpiExecutor(const SystemCatalog& catalog, int ranks) : ranks_(ranks) {
  if (ranks_ < 2) {
    throw Error("the MPI executor needs rank 0 and at least one worker: mpirun -n 3 cosima run … --executor mpi");
  }
  names_ = catalog.names;
  const int systems = static_cast<int>(names_.size());
  descriptions_.assign(static_cast<std::size_t>(systems), {});
  counts_.assign(static_cast<std::size_t>(ranks_), 0);
  displacements_.assign(static_cast<std::size_t>(ranks_), 0);
  outgoing_.assign(static_cast<std::size_t>(ranks_), {});
  running_ = true;
  // the workers report what they built
  receive_from_workers();
  const std::string failures = decode_descriptions(receive_.data(), receive_.size(), descriptions_);
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
  if (!encode_orders(
          batch, [&](int s) { return owner_rank(s, systems, ranks_); }, outgoing_))
    return;
  if (!running_) throw Error("MPI executor: the workers have been shut down");
  // orders out
  int command = kExecute;
  bcast(command);
  send_.clear();
  for (int r = 0; r < ranks_; ++r) {
    counts_[static_cast<std::size_t>(r)] = static_cast<int>(outgoing_[static_cast<std::size_t>(r)].size());
    displacements_[static_cast<std::size_t>(r)] = static_cast<int>(send_.size());
    send_.insert(send_.end(), outgoing_[static_cast<std::size_t>(r)].begin(),
                 outgoing_[static_cast<std::size_t>(r)].end());
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

void serve(const SystemCatalog& catalog, int rank, int ranks) {
  const int systems = catalog.size();
  std::vector<int> mine;
  for (int s = 0; s < systems; ++s) {
    if (owner_rank(s, systems, ranks) == rank) mine.push_back(s);
  }
  SystemServer server(catalog, mine);
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

void serve_mpi_worker(const SystemCatalog& catalog, int rank, int ranks) {
  forward_warnings();  // the replies carry them to rank 0, whose stats list them
  try {
    serve(catalog, rank, ranks);
  } catch (const std::exception& e) {
    // the protocol is broken: end the whole job rather than leave rank 0 waiting
    std::cerr << fmt::format("cosima: rank {}: {} — aborting the run\n", rank, e.what());
    mpi().abort(1);
  }
}

}  // namespace cosima::exec
