#include "fmi/fmu_archive.hpp"

#include <unistd.h>
#include <zip.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::fmi {

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw Error(fmt::format("cannot create a temporary directory {}", pattern));
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string file_uri(const std::filesystem::path& path) {
  std::string uri = "file://";
  for (const unsigned char c : path.string()) {
    const bool unreserved = std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    uri += unreserved ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return uri;
}

namespace {

using ZipHandle = std::unique_ptr<zip_t, decltype(&zip_discard)>;
using ZipEntry = std::unique_ptr<zip_file_t, decltype(&zip_fclose)>;

ZipHandle open_zip(const std::filesystem::path& fmu, const std::string& kind = "FMU") {
  if (std::filesystem::is_directory(fmu)) {
    std::string extension = kind;  // "FMU" → ".fmu"
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    throw Error(fmt::format("cannot open {} '{}': it is a directory, not an .{} file", kind, fmu.string(), extension));
  }
  if (!std::filesystem::is_regular_file(fmu)) {
    throw Error(fmt::format("cannot open {} '{}': no such file", kind, fmu.string()));
  }
  int error = 0;
  ZipHandle archive(zip_open(fmu.c_str(), ZIP_RDONLY, &error), zip_discard);
  if (!archive) {
    if (error == ZIP_ER_NOENT || error == ZIP_ER_OPEN) throw Error(fmt::format("cannot open {} '{}'", kind, fmu.string()));
    zip_error_t z;
    zip_error_init_with_code(&z, error);
    const std::string why = zip_error_strerror(&z);
    zip_error_fini(&z);
    throw Error(fmt::format("'{}' is not an {}: not a zip archive ({})", fmu.string(), kind, why));
  }
  return archive;
}

/// Streams one entry to `sink` in chunks, refusing more than `max_bytes`.
template <class Sink>
void read_entry(zip_t* archive, zip_uint64_t index, const std::filesystem::path& fmu, const char* name,
                std::uint64_t max_bytes, Sink&& sink, const std::string& kind = "FMU") {
  ZipEntry entry(zip_fopen_index(archive, index, 0), zip_fclose);
  if (!entry) throw Error(fmt::format("{} '{}': cannot read entry '{}'", kind, fmu.string(), name));
  std::vector<char> buffer(1 << 16);
  std::uint64_t total = 0;
  zip_int64_t read = 0;
  while ((read = zip_fread(entry.get(), buffer.data(), buffer.size())) > 0) {
    total += static_cast<std::uint64_t>(read);
    if (total > max_bytes) {
      throw Error(fmt::format("{} '{}': entry '{}' goes beyond the unpacking limit ({} bytes were left; a zip bomb?)",
                              kind, fmu.string(), name, max_bytes));
    }
    sink(buffer.data(), static_cast<std::size_t>(read));
  }
  if (read < 0) throw Error(fmt::format("{} '{}': cannot unpack entry '{}' (corrupt archive)", kind, fmu.string(), name));
}

ModelDescription description_from(zip_t* archive, const std::filesystem::path& fmu) {
  const zip_int64_t index = zip_name_locate(archive, "modelDescription.xml", 0);
  if (index < 0) throw Error(fmt::format("FMU '{}' has no modelDescription.xml", fmu.string()));
  std::string xml;
  constexpr std::uint64_t kMaxDescription = 1ULL << 30;
  read_entry(archive, static_cast<zip_uint64_t>(index), fmu, "modelDescription.xml", kMaxDescription,
             [&](const char* data, std::size_t size) { xml.append(data, size); });
  return parse_model_description(xml, fmt::format("FMU '{}'", fmu.string()));
}

void unzip(zip_t* archive, const std::filesystem::path& fmu, const std::filesystem::path& target,
           const UnpackLimits& limits, const std::string& kind = "FMU") {
  const zip_int64_t entries = zip_get_num_entries(archive, 0);
  const std::filesystem::path root = std::filesystem::weakly_canonical(target);
  std::uint64_t budget = limits.total_bytes;
  for (zip_int64_t i = 0; i < entries; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    const char* name = zip_get_name(archive, index, 0);
    if (name == nullptr) continue;
    const std::filesystem::path out = std::filesystem::weakly_canonical(target / name);
    // "zip slip": the entry must stay inside the directory, compared by path components
    const std::filesystem::path inside = out.lexically_relative(root);
    if (std::filesystem::path(name).is_absolute() || inside.empty() || *inside.begin() == "..") {
      throw Error(fmt::format("{} '{}': entry '{}' points outside the archive", kind, fmu.string(), name));
    }
    if (std::string_view(name).ends_with('/')) {
      std::filesystem::create_directories(out);
      continue;
    }
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) == 0 && (stat.valid & ZIP_STAT_SIZE) != 0 &&
        (stat.valid & ZIP_STAT_COMP_SIZE) != 0 && stat.size > (1U << 20) &&
        static_cast<double>(stat.size) > limits.compression_ratio * static_cast<double>(std::max<zip_uint64_t>(stat.comp_size, 1))) {
      throw Error(fmt::format("{} '{}': entry '{}' is compressed {:.0f}:1 (more than {:.0f}:1: a zip bomb?)", kind,
                              fmu.string(), name, static_cast<double>(stat.size) / static_cast<double>(std::max<zip_uint64_t>(stat.comp_size, 1)),
                              limits.compression_ratio));
    }
    std::filesystem::create_directories(out.parent_path());
    std::ofstream file(out, std::ios::binary);
    std::uint64_t written = 0;
    read_entry(
        archive, index, fmu, name, budget,
        [&](const char* data, std::size_t size) {
          file.write(data, static_cast<std::streamsize>(size));
          written += size;
        },
        kind);
    budget -= written;
    if (!file) throw Error(fmt::format("{} '{}': cannot write entry '{}' to '{}'", kind, fmu.string(), name, out.string()));
  }
}

}  // namespace

ModelDescription read_model_description(const std::filesystem::path& fmu) {
  const ZipHandle archive = open_zip(fmu);
  return description_from(archive.get(), fmu);
}

bool archive_has_entry(const std::filesystem::path& fmu, const std::string& entry) {
  const ZipHandle archive = open_zip(fmu);
  return zip_name_locate(archive.get(), entry.c_str(), 0) >= 0;
}

void unpack_zip(const std::filesystem::path& zip, const std::filesystem::path& target, const UnpackLimits& limits,
                const std::string& kind) {
  const ZipHandle archive = open_zip(zip, kind);
  try {
    unzip(archive.get(), zip, target, limits, kind);
  } catch (const std::filesystem::filesystem_error& e) {  // an entry the file system refuses: name clash, name too long
    throw Error(fmt::format("{} '{}': cannot unpack: {}", kind, zip.string(), e.what()));
  }
}

FmuArchive::FmuArchive(const std::filesystem::path& fmu, const UnpackLimits& limits) : file_(fmu) {
  const ZipHandle archive = open_zip(fmu);
  description_ = description_from(archive.get(), fmu);
  try {
    unzip(archive.get(), fmu, directory_.path(), limits);
  } catch (const std::filesystem::filesystem_error& e) {  // an entry the file system refuses: name clash, name too long
    throw Error(fmt::format("FMU '{}': cannot unpack: {}", fmu.string(), e.what()));
  }
}

std::string binary_entry(const ModelDescription& description, const std::string& identifier) {
  // FMI 2.0 §2.4: binaries/linux64; FMI 3.0 §2.5.1.4: the platform tuple x86_64-linux
  return fmt::format("binaries/{}/{}.so", description.is_fmi3() ? "x86_64-linux" : "linux64", identifier);
}

std::filesystem::path FmuArchive::binary(FmiInterface interface) const {
  const std::string& identifier = description_.interface_capabilities(interface).model_identifier;
  const std::string entry = binary_entry(description_, identifier);
  std::filesystem::path so = directory_.path() / entry;
  if (!std::filesystem::exists(so)) {
    throw Error(fmt::format("FMU '{}' has no {} binary ({})", file_.string(),
                            description_.is_fmi3() ? "x86_64-linux" : "linux64", entry));
  }
  return so;
}

std::string FmuArchive::resource_uri() const { return file_uri(directory_.path() / "resources"); }

}  // namespace cosima::fmi
