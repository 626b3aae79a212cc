#pragma once
// An FMU on disk: the .fmu zip unpacked (libzip) into a private temporary directory that is removed
// when the archive object goes away — also when loading fails half-way.
#include <filesystem>

#include "fmi/model_description.hpp"

namespace cosima::fmi {

/// A directory made with mkdtemp and removed (recursively) by the destructor.
class TemporaryDirectory {
 public:
  TemporaryDirectory();
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class FmuArchive {
 public:
  /// Unpacks and reads modelDescription.xml. Throws Error naming the file: not a zip, no
  /// modelDescription.xml, malformed description, ...
  explicit FmuArchive(const std::filesystem::path& fmu);

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return directory_.path(); }
  [[nodiscard]] const ModelDescription& description() const { return description_; }
  /// binaries/linux64/<modelIdentifier>.so; throws Error when the FMU has none.
  [[nodiscard]] std::filesystem::path binary() const;
  /// file:// URI of resources/ (fmi2Instantiate's resourceLocation).
  [[nodiscard]] std::string resource_uri() const;

 private:
  std::filesystem::path file_;
  TemporaryDirectory directory_;
  ModelDescription description_;
};

}  // namespace cosima::fmi
