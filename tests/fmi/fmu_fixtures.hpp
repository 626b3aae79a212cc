#pragma once
// Test fixtures for FMU files: the project's FMUs, zips written on the fly, a private TMPDIR.
#include <zip.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cosima::testing {

inline const std::filesystem::path kFmuDir = COSIMA_TEST_FMU_DIR;
inline const std::filesystem::path kExamples = COSIMA_EXAMPLES_DIR;

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Reads one entry of a zip (e.g. modelDescription.xml of a project FMU).
inline std::string read_zip_entry(const std::filesystem::path& zip_path, const std::string& entry) {
  int error = 0;
  zip_t* archive = zip_open(zip_path.c_str(), ZIP_RDONLY, &error);
  if (archive == nullptr) return {};
  zip_stat_t stat;
  zip_stat(archive, entry.c_str(), 0, &stat);
  std::string content(stat.size, '\0');
  zip_file_t* file = zip_fopen(archive, entry.c_str(), 0);
  zip_fread(file, content.data(), stat.size);
  zip_fclose(file);
  zip_discard(archive);
  return content;
}

/// Writes a zip whose entries are (name, content).
/// `compress`: deflate the entries (as exporters do); false stores them — tests that repack whole FMU
/// binaries many times (several MB each under the sanitizers) would otherwise spend their time in zlib.
inline void write_zip(const std::filesystem::path& path,
                      const std::vector<std::pair<std::string, std::string>>& entries, bool compress = true) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr);
  for (const auto& [name, content] : entries) {
    // libzip frees a buffer it owns only when it is not empty: an empty entry gets none
    void* copy = content.empty() ? nullptr : std::malloc(content.size());
    if (copy != nullptr) std::memcpy(copy, content.data(), content.size());
    zip_source_t* source = zip_source_buffer(archive, copy, content.size(), copy != nullptr ? 1 : 0);
    const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_OVERWRITE);
    ASSERT_GE(index, 0);
    if (!compress) {
      ASSERT_EQ(zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0), 0);
    }
  }
  ASSERT_EQ(zip_close(archive), 0);
}

/// A private TMPDIR for one test: FMUs unpack there, and it must be empty again afterwards.
class PrivateTemp {
 public:
  PrivateTemp() {
    const char* old = std::getenv("TMPDIR");
    old_ = old != nullptr ? old : "";
    had_ = old != nullptr;
    std::string pattern = (std::filesystem::temp_directory_path() / "cosima-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
    setenv("TMPDIR", path_.c_str(), 1);
  }
  ~PrivateTemp() {
    if (had_)
      setenv("TMPDIR", old_.c_str(), 1);
    else
      unsetenv("TMPDIR");
    std::filesystem::remove_all(path_);
  }
  [[nodiscard]] bool empty() const { return std::filesystem::is_empty(path_); }
  /// No unpacked FMU (cosima-fmu-*) left — what a test that also started PETSc can promise: the
  /// private Open MPI session directory (cosima-mpi-*) stays until the process ends.
  [[nodiscard]] bool no_fmu_left() const {
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      if (entry.path().filename().string().starts_with("cosima-fmu-")) return false;
    }
    return true;
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::string old_;
  bool had_ = false;
};

}  // namespace cosima::testing
