#pragma once
// An FMU on disk: the .fmu zip unpacked (minizip) into a private temporary directory that is removed
// when the archive object goes away — also when loading fails half-way. Entries may not leave that
// directory (compared by path components), and the unpacked size and compression ratio are bounded.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "fmi/common/model_description.hpp"

namespace cosima::fmi {

/// A directory made with mkdtemp and removed (recursively) by the destructor.
class TemporaryDirectory {
 public:
  /// `prefix`-XXXXXX under the temporary directory ($TMPDIR).
  explicit TemporaryDirectory(const std::string& prefix = "cosima-fmu");
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Reads modelDescription.xml straight from the zip, unpacking nothing (`cosima info`, scenario
/// defaults). Throws Error as FmuArchive does.
ModelDescription read_model_description(const std::filesystem::path& fmu);

/// Whether the zip holds an entry of that name.
bool archive_has_entry(const std::filesystem::path& fmu, const std::string& entry);

/// Where the shared library of `identifier` lies in the archive: binaries/linux64/<id>.so (FMI 2.0),
/// binaries/x86_64-linux/<id>.so (FMI 3.0).
std::string binary_entry(const ModelDescription& description, const std::string& identifier);

/// "file://" + the path, percent-encoded (RFC 3986: everything but unreserved characters and '/').
std::string file_uri(const std::filesystem::path& path);

/// Limits on what an FMU may unpack to (a zip bomb is refused before it fills the disk).
struct UnpackLimits {
  std::uint64_t total_bytes = 2ULL << 30;  ///< every entry together
  double compression_ratio = 200.0;        ///< per entry larger than 1 MiB (binaries: ≈ 3:1, text: ≈ 10:1)
  std::uint64_t max_entries = 50'000;      ///< entries (each one costs a file creation, however small)
};
/// What the archives of one process may take on disk together, at any time.
inline constexpr std::uint64_t kProcessUnpackBudget = 8ULL << 30;

/// Unpacks a whole zip into `target` with the checks FmuArchive makes (entries by path component,
/// limits); `kind` names the archive in errors ("FMU", "SSP"). Throws Error.
void unpack_zip(const std::filesystem::path& zip, const std::filesystem::path& target, const UnpackLimits& limits,
                const std::string& kind);

class FmuArchive {
 public:
  /// Unpacks and reads modelDescription.xml. Throws Error naming the file: not a zip, no
  /// modelDescription.xml, malformed description, ...
  explicit FmuArchive(const std::filesystem::path& fmu, const UnpackLimits& limits = {});
  ~FmuArchive();
  FmuArchive(const FmuArchive&) = delete;
  FmuArchive& operator=(const FmuArchive&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return directory_.path(); }
  [[nodiscard]] const ModelDescription& description() const { return description_; }
  /// The unpacked binary_entry of one interface; throws Error when the FMU has none.
  [[nodiscard]] std::filesystem::path binary(FmiInterface interface) const;
  /// file:// URI of resources/ (fmi2Instantiate's resourceLocation).
  [[nodiscard]] std::string resource_uri() const;
  /// An instance of the FMU returned Fatal: no instance sharing its library may be called again.
  void mark_fatal() const { fatal_.store(true); }
  [[nodiscard]] bool fatal() const { return fatal_.load(std::memory_order_relaxed); }

 private:
  std::filesystem::path file_;
  TemporaryDirectory directory_;
  ModelDescription description_;
  std::uint64_t unpacked_bytes_ = 0;
  mutable std::atomic<bool> fatal_{false};
};

/// The archive of `fmu` unpacked once per process while any instance holds it: the systems of one
/// FMU file share one copy on disk (an FMU instantiated several times shares its library too, as the
/// standard allows unless it declares canBeInstantiatedOnlyOncePerProcess).
std::shared_ptr<const FmuArchive> shared_archive(const std::filesystem::path& fmu);

}  // namespace cosima::fmi
