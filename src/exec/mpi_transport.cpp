// The plugin libcosima_mpi.so: the MPI calls of the MPI executor (exec/mpi_transport.hpp).
#include "exec/mpi_transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/plugin.hpp"

namespace cosima::exec {

namespace {

/// Waits for a non-blocking collective: a short spin, then sleeps that grow to 200 µs.
int complete(MPI_Request& request) {
  int done = 0;
  for (int spin = 0; spin < 200 && done == 0; ++spin) {
    if (const int code = MPI_Test(&request, &done, MPI_STATUS_IGNORE); code != MPI_SUCCESS) return code;
  }
  auto pause = std::chrono::microseconds(5);
  while (done == 0) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
    if (const int code = MPI_Test(&request, &done, MPI_STATUS_IGNORE); code != MPI_SUCCESS) return code;
  }
  return MPI_SUCCESS;
}

/// Starts a collective with `start(request)` and completes it.
template <typename Start>
int collective(Start start) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (const int code = start(&request); code != MPI_SUCCESS) return code;
  return complete(request);
}

int start(int* rank, int* size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    if (const int code = MPI_Init(nullptr, nullptr); code != MPI_SUCCESS) return code;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors come back as codes
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

void finish() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int bcast_int(int* value) {
  return collective([&](MPI_Request* r) { return MPI_Ibcast(value, 1, MPI_INT, 0, MPI_COMM_WORLD, r); });
}
int scatter_int(const int* counts, int* mine) {
  return collective(
      [&](MPI_Request* r) { return MPI_Iscatter(counts, 1, MPI_INT, mine, 1, MPI_INT, 0, MPI_COMM_WORLD, r); });
}
int scatterv_bytes(const char* send, const int* counts, const int* displacements, char* receive, int count) {
  return collective([&](MPI_Request* r) {
    return MPI_Iscatterv(send, counts, displacements, MPI_BYTE, receive, count, MPI_BYTE, 0, MPI_COMM_WORLD, r);
  });
}
int gather_int(int mine, int* counts) {
  return collective(
      [&](MPI_Request* r) { return MPI_Igather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, r); });
}
int gatherv_bytes(const char* send, int count, char* receive, const int* counts, const int* displacements) {
  return collective([&](MPI_Request* r) {
    return MPI_Igatherv(send, count, MPI_BYTE, receive, counts, displacements, MPI_BYTE, 0, MPI_COMM_WORLD, r);
  });
}

void error_text(int code, char* buffer, int size) {
  if (size <= 0) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  const int n = std::min(length, size - 1);
  std::memcpy(buffer, text, static_cast<std::size_t>(n));
  buffer[n] = '\0';
}

const MpiTransport kTransport = {start,          finish,     abort_job,     bcast_int, scatter_int,
                                 scatterv_bytes, gather_int, gatherv_bytes, error_text};

}  // namespace

}  // namespace cosima::exec

extern "C" COSIMA_PLUGIN_EXPORT const cosima::exec::MpiTransport* cosima_mpi_transport() {
  return &cosima::exec::kTransport;
}
