#include "fmi/fmu_archive.hpp"

#include <unistd.h>
#include <zip.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::fmi {

TemporaryDirectory::TemporaryDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "cosima-fmu-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a temporary directory for an FMU");
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

namespace {

void unzip(const std::filesystem::path& fmu, const std::filesystem::path& target) {
  int error = 0;
  std::unique_ptr<zip_t, decltype(&zip_discard)> archive(zip_open(fmu.c_str(), ZIP_RDONLY, &error), zip_discard);
  if (!archive) {
    if (error == ZIP_ER_NOENT || error == ZIP_ER_OPEN) throw Error(fmt::format("cannot open FMU '{}'", fmu.string()));
    zip_error_t z;
    zip_error_init_with_code(&z, error);
    const std::string why = zip_error_strerror(&z);
    zip_error_fini(&z);
    throw Error(fmt::format("'{}' is not an FMU: not a zip archive ({})", fmu.string(), why));
  }
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  std::vector<char> buffer(1 << 16);
  const std::filesystem::path root = std::filesystem::weakly_canonical(target);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (name == nullptr) continue;
    const std::filesystem::path out = std::filesystem::weakly_canonical(target / name);
    // refuse entries that would land outside the directory ("zip slip")
    if (out.string().rfind(root.string(), 0) != 0) {
      throw Error(fmt::format("FMU '{}': entry '{}' points outside the archive", fmu.string(), name));
    }
    if (std::string_view(name).ends_with('/')) {
      std::filesystem::create_directories(out);
      continue;
    }
    std::filesystem::create_directories(out.parent_path());
    std::unique_ptr<zip_file_t, decltype(&zip_fclose)> entry(zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(i), 0),
                                                             zip_fclose);
    if (!entry) throw Error(fmt::format("FMU '{}': cannot read entry '{}'", fmu.string(), name));
    std::ofstream file(out, std::ios::binary);
    zip_int64_t read = 0;
    while ((read = zip_fread(entry.get(), buffer.data(), buffer.size())) > 0) file.write(buffer.data(), read);
    if (read < 0 || !file) throw Error(fmt::format("FMU '{}': cannot unpack entry '{}'", fmu.string(), name));
  }
}

}  // namespace

FmuArchive::FmuArchive(const std::filesystem::path& fmu) : file_(fmu) {
  if (!std::filesystem::is_regular_file(fmu)) throw Error(fmt::format("cannot open FMU '{}': no such file", fmu.string()));
  unzip(fmu, directory_.path());
  const std::filesystem::path xml = directory_.path() / "modelDescription.xml";
  if (!std::filesystem::exists(xml)) throw Error(fmt::format("FMU '{}' has no modelDescription.xml", fmu.string()));
  description_ = parse_model_description(xml, fmt::format("FMU '{}'", fmu.string()));
}

std::filesystem::path FmuArchive::binary() const {
  std::filesystem::path so =
      directory_.path() / "binaries" / "linux64" / (description_.co_simulation.model_identifier + ".so");
  if (!std::filesystem::exists(so)) {
    throw Error(fmt::format("FMU '{}' has no linux64 binary (binaries/linux64/{}.so)", file_.string(),
                            description_.co_simulation.model_identifier));
  }
  return so;
}

std::string FmuArchive::resource_uri() const { return "file://" + (directory_.path() / "resources").string(); }

}  // namespace cosima::fmi
