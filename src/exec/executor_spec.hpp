#pragma once
// The executor as users name it (`--executor`, the Python module's `executor=`): one parser for
// every front end.
//   sequential | threads:N | processes | processes:N | mpi      (N a positive integer)
#include <string>
#include <string_view>

namespace cosima::exec {

struct ExecutorSpec {
  enum class Kind { sequential, threads, processes, mpi };
  Kind kind = Kind::sequential;
  int count = 0;     ///< N of threads:N and processes:N; 0 for processes: one per system
  std::string text;  ///< as given, for messages
};

/// Throws Error naming `text` and the forms allowed when it is none of them.
ExecutorSpec parse_executor_spec(std::string_view text);

}  // namespace cosima::exec
