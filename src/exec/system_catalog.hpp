#pragma once
// What an out-of-process executor knows of the systems it places elsewhere: their names and files
// for messages, and how to build one where it will live (a child process, an MPI rank). The
// scenario layer fills it (scenario/executors.hpp); the executors never read a scenario.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "system/system.hpp"

namespace cosima::exec {

struct SystemCatalog {
  std::vector<std::string> names;           ///< by system index
  std::vector<std::filesystem::path> fmus;  ///< by system index; empty for a system that is not an FMU
  /// Builds system s (throws Error naming what failed). Called in the process that will own it.
  std::function<std::unique_ptr<System>(int s)> build;

  [[nodiscard]] int size() const { return static_cast<int>(names.size()); }
};

}  // namespace cosima::exec
