#include "fmi/common/fmu_archive.hpp"

#include <fcntl.h>
#include <minizip/unzip.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>
#include <vector>

#include <atomic>
#include <mutex>

#include <fmt/format.h>

#include "core/cleanup.hpp"
#include "core/error.hpp"

namespace cosima::fmi {

TemporaryDirectory::TemporaryDirectory(const std::string& prefix)
    : path_(make_temporary_directory(prefix)) {}  // removed on the fatal paths too (core/cleanup.hpp)

TemporaryDirectory::~TemporaryDirectory() {
  unregister_temporary_directory(path_.c_str());
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

// The archive is read with minizip (zlib's contrib/minizip). It reads "store" and "deflate", the
// compression methods FMUs are written with, and needs nothing but zlib: loading cosima loads no
// crypto library for zip encryption that an FMU does not use (libzip's cost a process ≈ 3.5 ms).
constexpr unsigned long kEncrypted = 1U;  // general purpose bit 0 (APPNOTE §4.4.4)
constexpr unsigned long kStored = 0, kDeflated = Z_DEFLATED;
constexpr unsigned kChunk = 1U << 16;  // bytes inflated at a time

/// The archive's bytes, mapped read-only: minizip reads them through the callbacks below, with no
/// read or seek call per 16 KiB chunk.
struct MappedBytes {
  const unsigned char* data = nullptr;
  std::uint64_t size = 0, position = 0;
};

voidpf open_mapped(voidpf /*opaque*/, const void* bytes, int /*mode*/) {
  return const_cast<void*>(bytes);  // NOLINT(cppcoreguidelines-pro-type-const-cast): minizip's signature
}
uLong read_mapped(voidpf /*opaque*/, voidpf stream, void* buffer, uLong size) {
  auto& file = *static_cast<MappedBytes*>(stream);
  const std::uint64_t count = std::min<std::uint64_t>(size, file.size - file.position);
  std::memcpy(buffer, file.data + file.position, count);
  file.position += count;
  return static_cast<uLong>(count);
}
uLong write_nothing(voidpf /*opaque*/, voidpf /*stream*/, const void* /*buffer*/, uLong /*size*/) { return 0; }
ZPOS64_T tell_mapped(voidpf /*opaque*/, voidpf stream) { return static_cast<MappedBytes*>(stream)->position; }
long seek_mapped(voidpf /*opaque*/, voidpf stream, ZPOS64_T offset, int origin) {
  auto& file = *static_cast<MappedBytes*>(stream);
  const std::uint64_t base = origin == ZLIB_FILEFUNC_SEEK_SET   ? 0
                             : origin == ZLIB_FILEFUNC_SEEK_CUR ? file.position
                                                                : file.size;
  if (offset > file.size - base) return -1;
  file.position = base + offset;
  return 0;
}
int close_mapped(voidpf /*opaque*/, voidpf /*stream*/) { return 0; }
int no_error(voidpf /*opaque*/, voidpf /*stream*/) { return 0; }

/// A zip opened for reading: the file mapped, minizip's handle on it.
class ZipReader {
 public:
  ZipReader(const std::filesystem::path& fmu, const std::string& kind) {
    if (std::filesystem::is_directory(fmu)) {
      std::string extension = kind;  // "FMU" → ".fmu"
      for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      throw Error(
          fmt::format("cannot open {} '{}': it is a directory, not an .{} file", kind, fmu.string(), extension));
    }
    if (!std::filesystem::is_regular_file(fmu)) {
      throw Error(fmt::format("cannot open {} '{}': no such file", kind, fmu.string()));
    }
    const int fd = ::open(fmu.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("cannot open {} '{}'", kind, fmu.string()));
    struct stat status {};
    if (::fstat(fd, &status) == 0 && status.st_size > 0) {
      identity_ = {status.st_dev, status.st_ino, status.st_size, status.st_mtim.tv_sec, status.st_mtim.tv_nsec};
      bytes_.size = static_cast<std::uint64_t>(status.st_size);
      void* mapped = ::mmap(nullptr, bytes_.size, PROT_READ, MAP_PRIVATE, fd, 0);
      bytes_.data = mapped == MAP_FAILED ? nullptr : static_cast<const unsigned char*>(mapped);
    }
    ::close(fd);
    if (bytes_.data != nullptr) {
      zlib_filefunc64_def io{open_mapped, read_mapped,  write_nothing, tell_mapped,
                             seek_mapped, close_mapped, no_error,      nullptr};
      zip_ = unzOpen2_64(&bytes_, &io);
    }
    if (zip_ == nullptr) {
      unmap();
      throw Error(
          fmt::format("'{}' is not an {}: not a zip archive (no central directory could be read)", fmu.string(), kind));
    }
  }
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;
  ZipReader(ZipReader&&) = delete;
  ZipReader& operator=(ZipReader&&) = delete;
  ~ZipReader() {
    unzClose(zip_);
    unmap();
  }
  [[nodiscard]] unzFile get() const { return zip_; }
  /// Which file, in which version: device, inode, size, modification time.
  using Identity = std::tuple<dev_t, ino_t, off_t, std::int64_t, std::int64_t>;
  [[nodiscard]] const Identity& identity() const { return identity_; }
  /// The archive's bytes [offset, offset + size), or an empty span where they would leave the file.
  [[nodiscard]] std::span<const unsigned char> bytes(std::uint64_t offset, std::uint64_t size) const {
    if (offset > bytes_.size || size > bytes_.size - offset) return {};
    return {bytes_.data + offset, static_cast<std::size_t>(size)};
  }

 private:
  void unmap() {
    if (bytes_.data != nullptr) ::munmap(const_cast<unsigned char*>(bytes_.data), bytes_.size);  // NOLINT
  }
  MappedBytes bytes_;  // minizip holds its address: the reader neither moves nor copies
  Identity identity_{};
  unzFile zip_ = nullptr;
};

Error corrupt_directory(const std::filesystem::path& fmu, const std::string& kind) {
  return Error(fmt::format("{} '{}': cannot read the archive's directory (corrupt archive)", kind, fmu.string()));
}

/// The entry the archive is positioned at: its name and header.
struct Entry {
  std::string name;
  unz_file_info64 info{};
};

Entry current_entry(const ZipReader& archive, const std::filesystem::path& fmu, const std::string& kind) {
  Entry entry;
  if (unzGetCurrentFileInfo64(archive.get(), &entry.info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK) {
    throw corrupt_directory(fmu, kind);
  }
  std::vector<char> name(entry.info.size_filename + 1, '\0');
  if (unzGetCurrentFileInfo64(archive.get(), nullptr, name.data(), static_cast<uLong>(name.size()), nullptr, 0, nullptr,
                              0) != UNZ_OK) {
    throw corrupt_directory(fmu, kind);
  }
  entry.name = name.data();
  return entry;
}

/// Streams the current entry to `sink` in chunks, refusing more than `max_bytes` and a CRC mismatch.
template <class Sink>
void read_entry(const ZipReader& archive, const Entry& entry, const std::filesystem::path& fmu, std::uint64_t max_bytes,
                Sink&& sink, const std::string& kind = "FMU") {
  const char* name = entry.name.c_str();
  if ((entry.info.flag & kEncrypted) != 0) {
    throw Error(fmt::format("{} '{}': entry '{}' is encrypted", kind, fmu.string(), name));
  }
  if (entry.info.compression_method != kStored && entry.info.compression_method != kDeflated) {
    throw Error(fmt::format("{} '{}': entry '{}' uses compression method {} (only store and deflate are read)", kind,
                            fmu.string(), name, entry.info.compression_method));
  }
  if (unzOpenCurrentFile(archive.get()) != UNZ_OK) {
    throw Error(fmt::format("{} '{}': cannot read entry '{}' (corrupt archive)", kind, fmu.string(), name));
  }
  struct Close {
    unzFile archive;
    bool closed = false;
    int close() {
      closed = true;
      return unzCloseCurrentFile(archive);
    }
    ~Close() {
      if (!closed) unzCloseCurrentFile(archive);
    }
  } open{archive.get()};
  auto beyond_limit = [&] {
    return Error(fmt::format("{} '{}': entry '{}' goes beyond the unpacking limit ({} bytes were left; a zip bomb?)",
                             kind, fmu.string(), name, max_bytes));
  };
  auto crc_mismatch = [&] {
    return Error(fmt::format("{} '{}': entry '{}' fails its CRC-32 check (corrupt archive)", kind, fmu.string(), name));
  };
  if (entry.info.compression_method == kStored) {
    // straight from the mapping, in one piece: minizip would copy a stored entry byte by byte
    const std::span<const unsigned char> data =
        archive.bytes(unzGetCurrentFileZStreamPos64(archive.get()), entry.info.compressed_size);
    if (data.size() != entry.info.compressed_size || entry.info.compressed_size != entry.info.uncompressed_size) {
      throw Error(fmt::format("{} '{}': cannot unpack entry '{}' (corrupt archive)", kind, fmu.string(), name));
    }
    if (data.size() > max_bytes) throw beyond_limit();
    if (crc32_z(0, data.data(), data.size()) != entry.info.crc) throw crc_mismatch();
    sink(reinterpret_cast<const char*>(data.data()),
         data.size());  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    return;
  }
  const auto buffer = std::make_unique_for_overwrite<char[]>(kChunk);  // NOLINT(cppcoreguidelines-avoid-c-arrays)
  std::uint64_t total = 0;
  int read = 0;
  while ((read = unzReadCurrentFile(archive.get(), buffer.get(), kChunk)) > 0) {
    total += static_cast<std::uint64_t>(read);
    if (total > max_bytes) throw beyond_limit();
    sink(buffer.get(), static_cast<std::size_t>(read));
  }
  if (read < 0)
    throw Error(fmt::format("{} '{}': cannot unpack entry '{}' (corrupt archive)", kind, fmu.string(), name));
  if (open.close() != UNZ_OK) throw crc_mismatch();
}

/// Positions the archive at `name`; false if it has no such entry.
bool locate(const ZipReader& archive, const std::string& name) {
  constexpr int kCaseSensitive = 1;
  return unzLocateFile(archive.get(), name.c_str(), kCaseSensitive) == UNZ_OK;
}

ModelDescription description_from(const ZipReader& archive, const std::filesystem::path& fmu) {
  if (!locate(archive, "modelDescription.xml")) {
    throw Error(fmt::format("FMU '{}' has no modelDescription.xml", fmu.string()));
  }
  std::string xml;
  constexpr std::uint64_t kMaxDescription = 1ULL << 30;
  read_entry(archive, current_entry(archive, fmu, "FMU"), fmu, kMaxDescription,
             [&](const char* data, std::size_t size) { xml.append(data, size); });
  return parse_model_description(xml, fmt::format("FMU '{}'", fmu.string()));
}

void unpack_entry(const ZipReader& archive, const Entry& entry, const std::filesystem::path& fmu,
                  const std::filesystem::path& target, const std::filesystem::path& root, const UnpackLimits& limits,
                  std::uint64_t& budget, const std::string& kind) {
  const char* name = entry.name.c_str();
  const std::filesystem::path out = std::filesystem::weakly_canonical(target / name);
  // "zip slip": the entry must stay inside the directory, compared by path components
  const std::filesystem::path inside = out.lexically_relative(root);
  if (std::filesystem::path(name).is_absolute() || inside.empty() || *inside.begin() == "..") {
    throw Error(fmt::format("{} '{}': entry '{}' points outside the archive", kind, fmu.string(), name));
  }
  if (entry.name.ends_with('/')) {
    std::filesystem::create_directories(out);
    return;
  }
  const auto size = static_cast<double>(entry.info.uncompressed_size);
  const auto compressed = static_cast<double>(std::max<ZPOS64_T>(entry.info.compressed_size, 1));
  if (entry.info.uncompressed_size > (1U << 20) && size > limits.compression_ratio * compressed) {
    throw Error(fmt::format("{} '{}': entry '{}' is compressed {:.0f}:1 (more than {:.0f}:1: a zip bomb?)", kind,
                            fmu.string(), name, size / compressed, limits.compression_ratio));
  }
  std::filesystem::create_directories(out.parent_path());
  std::ofstream file(out, std::ios::binary);
  std::uint64_t written = 0;
  read_entry(
      archive, entry, fmu, budget,
      [&](const char* data, std::size_t bytes) {
        file.write(data, static_cast<std::streamsize>(bytes));
        written += bytes;
      },
      kind);
  budget -= written;
  if (!file)
    throw Error(fmt::format("{} '{}': cannot write entry '{}' to '{}'", kind, fmu.string(), name, out.string()));
}

/// Bytes every archive of this process has on disk now: their sum is bounded by kProcessUnpackBudget
/// (30 unpacked copies of a 63 MB FMU once took 1.7 GB).
std::atomic<std::uint64_t> g_unpacked_bytes{0};

/// Unpacks every entry; returns the bytes written (counted in g_unpacked_bytes until released).
std::uint64_t unzip(const ZipReader& archive, const std::filesystem::path& fmu, const std::filesystem::path& target,
                    const UnpackLimits& limits, const std::string& kind = "FMU") {
  const std::filesystem::path root = std::filesystem::weakly_canonical(target);
  unz_global_info64 global{};
  if (unzGetGlobalInfo64(archive.get(), &global) != UNZ_OK) throw corrupt_directory(fmu, kind);
  if (global.number_entry > limits.max_entries) {
    throw Error(fmt::format("{} '{}' has {} entries, more than the {} cosima unpacks", kind, fmu.string(),
                            global.number_entry, limits.max_entries));
  }
  const std::uint64_t in_use = g_unpacked_bytes.load();
  const std::uint64_t left = in_use < kProcessUnpackBudget ? kProcessUnpackBudget - in_use : 0;
  const bool process_bound = left < limits.total_bytes;
  std::uint64_t budget = std::min(limits.total_bytes, left);
  const std::uint64_t start = budget;
  int status = unzGoToFirstFile(archive.get());
  try {
    for (; status == UNZ_OK; status = unzGoToNextFile(archive.get())) {
      unpack_entry(archive, current_entry(archive, fmu, kind), fmu, target, root, limits, budget, kind);
    }
  } catch (const Error& e) {
    if (!process_bound) throw;
    throw Error(fmt::format("{} (the archives of this run already take {} bytes on disk, of the {} they may)", e.what(),
                            in_use, kProcessUnpackBudget));
  }
  if (status != UNZ_END_OF_LIST_OF_FILE) {
    throw corrupt_directory(fmu, kind);
  }
  g_unpacked_bytes += start - budget;
  return start - budget;
}

/// The description of an FMU parsed once per file version and process: a scenario reads it to check
/// the FMU, the system that loads it reads it again (parsing is ≈ 0.2 ms of a B3 FMU's start-up).
ModelDescription description_of(const ZipReader& archive, const std::filesystem::path& fmu) {
  static std::mutex mutex;
  static std::map<ZipReader::Identity, ModelDescription> parsed;
  {
    const std::lock_guard lock(mutex);
    if (const auto known = parsed.find(archive.identity()); known != parsed.end()) return known->second;
  }
  ModelDescription description = description_from(archive, fmu);
  const std::lock_guard lock(mutex);
  parsed.emplace(archive.identity(), description);
  return description;
}

}  // namespace

ModelDescription read_model_description(const std::filesystem::path& fmu) {
  const ZipReader archive(fmu, "FMU");
  return description_of(archive, fmu);
}

bool archive_has_entry(const std::filesystem::path& fmu, const std::string& entry) {
  const ZipReader archive(fmu, "FMU");
  return locate(archive, entry);
}

void unpack_zip(const std::filesystem::path& zip, const std::filesystem::path& target, const UnpackLimits& limits,
                const std::string& kind) {
  const ZipReader archive(zip, kind);
  try {
    (void)unzip(archive, zip, target, limits, kind);
  } catch (const std::filesystem::filesystem_error& e) {  // an entry the file system refuses: name clash, name too long
    throw Error(fmt::format("{} '{}': cannot unpack: {}", kind, zip.string(), e.what()));
  }
}

FmuArchive::FmuArchive(const std::filesystem::path& fmu, const UnpackLimits& limits) : file_(fmu) {
  const ZipReader archive(fmu, "FMU");
  description_ = description_of(archive, fmu);
  try {
    unpacked_bytes_ = unzip(archive, fmu, directory_.path(), limits);
  } catch (const std::filesystem::filesystem_error& e) {  // an entry the file system refuses: name clash, name too long
    throw Error(fmt::format("FMU '{}': cannot unpack: {}", fmu.string(), e.what()));
  }
}

FmuArchive::~FmuArchive() { g_unpacked_bytes -= unpacked_bytes_; }

std::shared_ptr<const FmuArchive> shared_archive(const std::filesystem::path& fmu) {
  static std::mutex mutex;
  static std::map<ZipReader::Identity, std::weak_ptr<const FmuArchive>> unpacked;
  const ZipReader::Identity identity = ZipReader(fmu, "FMU").identity();
  const std::lock_guard lock(mutex);
  if (auto known = unpacked[identity].lock()) return known;
  auto archive = std::make_shared<const FmuArchive>(fmu);
  unpacked[identity] = archive;
  return archive;
}

std::string binary_entry(const ModelDescription& description, const std::string& identifier) {
  return fmt::format("binaries/{}/{}.so", description.binary_folder, identifier);
}

std::filesystem::path FmuArchive::binary(FmiInterface interface) const {
  const std::string& identifier = description_.interface_capabilities(interface).model_identifier;
  const std::string entry = binary_entry(description_, identifier);
  std::filesystem::path so = directory_.path() / entry;
  if (!std::filesystem::exists(so)) {
    throw Error(fmt::format("FMU '{}' has no {} binary ({})", file_.string(), description_.binary_folder, entry));
  }
  return so;
}

std::string FmuArchive::resource_uri() const { return file_uri(directory_.path() / "resources"); }

}  // namespace cosima::fmi
