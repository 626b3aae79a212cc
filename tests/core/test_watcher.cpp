// The watcher (core/watcher.hpp): a process that died where no handler of its own could speak is named
// by its watcher, which also removes its registered temporary directories; a process that settled is
// not named. Each case runs in a forked child, whose watcher is a grandchild of the test.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/cleanup.hpp"
#include "core/crash.hpp"
#include "core/watcher.hpp"

namespace cosima {
namespace {

struct Ending {
  std::string stderr_text;  ///< the child's and its watcher's, until both are gone
  std::filesystem::path tmp, directory;
  int status = 0;
  Ending() = default;
  Ending(const Ending&) = delete;
  Ending& operator=(const Ending&) = delete;
  ~Ending() {
    std::error_code ignored;
    std::filesystem::remove_all(tmp, ignored);
  }
};

/// Forks a child that makes a temporary directory (starting its watcher), names an FMU instance, enters
/// fmi2DoStep at t = 0.25 and then ends by `end` inside the call.
template <class End>
void run_child(const End& end, Ending& ending) {
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("cosima-watcher-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  int err[2];
  int where[2];
  EXPECT_EQ(pipe(err), 0);
  EXPECT_EQ(pipe(where), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], STDERR_FILENO);
    close(err[0]);
    close(err[1]);
    close(where[0]);
    setenv("TMPDIR", tmp.c_str(), 1);
    const std::string directory = make_temporary_directory("cosima-fmu").string();
    (void)!write(where[1], directory.c_str(), directory.size());
    close(where[1]);
    static const char* const kSystem = "plant";
    watch_names(kSystem, "/models/plant.fmu");
    const ForeignCallScope in(kSystem, "/models/plant.fmu", "fmi2DoStep", 0.25);
    end();
    std::_Exit(3);
  }
  close(err[1]);
  close(where[1]);
  ending.tmp = tmp;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(where[0], buffer, sizeof buffer)) > 0)
    ending.directory += std::string(buffer, static_cast<std::size_t>(n));
  close(where[0]);
  while ((n = read(err[0], buffer, sizeof buffer)) > 0) ending.stderr_text.append(buffer, static_cast<std::size_t>(n));
  close(err[0]);  // end of file: the child and its watcher are gone
  waitpid(pid, &ending.status, 0);
}

TEST(Watcher, AKillInAForeignCallIsNamedAndTheDirectoriesRemoved) {
  Ending ending;
  run_child([] { raise(SIGKILL); }, ending);
  ASSERT_TRUE(WIFSIGNALED(ending.status));
  EXPECT_NE(ending.stderr_text.find("was killed by SIGKILL in fmi2DoStep of system 'plant' (FMU '/models/plant.fmu') "
                                    "at t = 0.25; seen by cosima's watcher"),
            std::string::npos)
      << ending.stderr_text;
  ASSERT_FALSE(ending.directory.empty());
  EXPECT_FALSE(std::filesystem::exists(ending.directory)) << ending.directory;
}

TEST(Watcher, AnExitPastTheHandlersIsNamedWithItsStatus) {
  Ending ending;
  run_child([] { std::_Exit(9); }, ending);
  EXPECT_NE(ending.stderr_text.find("exited with status 9 in fmi2DoStep of system 'plant'"), std::string::npos)
      << ending.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(ending.directory));
}

TEST(Watcher, AProcessThatSettledIsNotNamedButItsDirectoriesGo) {
  Ending ending;
  run_child(
      [] {
        settle_watcher();
        raise(SIGKILL);
      },
      ending);
  EXPECT_EQ(ending.stderr_text, "");
  EXPECT_FALSE(std::filesystem::exists(ending.directory));
}

TEST(Watcher, ADirectoryUnregisteredIsLeftToItsOwner) {
  Ending ending;
  run_child(
      [] {
        const std::string own = make_temporary_directory("cosima-kept").string();
        unregister_temporary_directory(own.c_str());
        std::fprintf(stderr, "kept %s\n", own.c_str());
        raise(SIGKILL);
      },
      ending);
  const auto at = ending.stderr_text.find("kept ");
  ASSERT_NE(at, std::string::npos) << ending.stderr_text;
  const std::filesystem::path kept = ending.stderr_text.substr(at + 5, ending.stderr_text.find('\n', at) - at - 5);
  EXPECT_TRUE(std::filesystem::is_directory(kept)) << kept;
  EXPECT_FALSE(std::filesystem::exists(ending.directory));
}

}  // namespace
}  // namespace cosima
