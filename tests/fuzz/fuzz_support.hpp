#pragma once
// What the harnesses share: one private directory per fuzzer process, made once at start-up
// (LLVMFuzzerInitialize) under $TMPDIR (or /tmp) and removed at a normal exit. TMPDIR then points
// to its tmp/ subfolder, so that whatever the library unpacks (FmuArchive) stays inside, and inputs
// that must be files are written to its in/ subfolder. Nothing else on disk is written.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace cosima_fuzz {

namespace detail {
inline char g_root[4096];  // a plain array: still valid in the atexit handler, after static destructors
inline void remove_root() {
  std::error_code ignored;
  if (g_root[0] != '\0') std::filesystem::remove_all(g_root, ignored);
}
}  // namespace detail

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::abort();
}

/// The private directory (made on the first call).
inline std::filesystem::path root() {
  if (detail::g_root[0] == '\0') {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/cosima-fuzz-XXXXXX";
    if (pattern.size() >= sizeof detail::g_root || mkdtemp(pattern.data()) == nullptr) die("cannot make " + pattern);
    std::memcpy(detail::g_root, pattern.c_str(), pattern.size() + 1);
    std::atexit(detail::remove_root);
    const std::filesystem::path dir = pattern;
    std::filesystem::create_directory(dir / "tmp");
    std::filesystem::create_directory(dir / "in");
    setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  }
  return detail::g_root;
}

/// Where the library may make temporary directories ($TMPDIR): must be empty between inputs.
inline std::filesystem::path temp_dir() { return root() / "tmp"; }

/// Writes the input to in/NAME and returns that path.
inline std::filesystem::path write_input(const char* name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = root() / "in" / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) die("cannot write " + path.string());
  return path;
}

}  // namespace cosima_fuzz
