#pragma once
// The MPI calls of the MPI executor (exec/mpi_executor.hpp), behind a plugin, libcosima_mpi.so
// (core/plugin.hpp): a run without --executor mpi never loads Open MPI (≈10 ms and ten shared
// libraries at start-up). A table of C functions; each collective is rooted at rank 0 over
// MPI_COMM_WORLD, is non-blocking underneath and completed without holding a core (a short spin,
// then sleeps growing to 200 µs: with more ranks than cores a waiting rank must leave the CPU to
// the ranks that work), and returns an MPI error code (0: success) that error_text describes.
namespace cosima::exec {

struct MpiTransport {
  /// MPI_Init unless initialized, then rank and size of MPI_COMM_WORLD; errors come back as codes.
  int (*start)(int* rank, int* size);
  /// MPI_Finalize unless finalized.
  void (*finish)();
  /// MPI_Abort(MPI_COMM_WORLD, code).
  void (*abort)(int code);
  int (*bcast_int)(int* value);
  int (*scatter_int)(const int* counts, int* mine);
  int (*scatterv_bytes)(const char* send, const int* counts, const int* displacements, char* receive, int count);
  int (*gather_int)(int mine, int* counts);
  int (*gatherv_bytes)(const char* send, int count, char* receive, const int* counts, const int* displacements);
  /// The text of an error code into buffer (NUL-terminated).
  void (*error_text)(int code, char* buffer, int size);
};

inline constexpr const char* kMpiPlugin = "libcosima_mpi.so";
using MpiTransportEntry = const MpiTransport* (*)();

}  // namespace cosima::exec
