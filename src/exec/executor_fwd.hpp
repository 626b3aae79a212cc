#pragma once
// The executor named without its definition (exec/executor.hpp), for headers that only hold or pass
// one: the thread pool's internals stay out of them.

namespace cosima::exec {
class Executor;
}  // namespace cosima::exec
