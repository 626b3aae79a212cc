// cosima_fmu_pack OUT.fmu STAGE_DIR — zips an exported FMU's staging folder
// (build step of cmake/CosimaFmu.cmake). Entries are sorted, so the archive
// does not depend on directory order. modelDescription.xml and other files are
// deflated; the shared libraries under binaries/ are stored uncompressed (a
// method FMI 2.0 §2.3 and FMI 3.0 §2.5 allow: the FMU is a zip file with
// "deflate" or "store"), the choice Android makes for native libraries: an
// importer then copies the library instead of inflating it, which was three
// quarters of the instructions of a one-step run of two B3 FMUs
// (bench/overhead.cpp, section "Start-up").
#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "cosima_fmu_pack: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cosima_fmu_pack OUT.fmu STAGE_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[1], stage = argv[2];
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::recursive_directory_iterator it(stage, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file()) files.push_back(it->path().lexically_relative(stage));
  }
  if (error) return fail(stage.string() + ": " + error.message());
  std::sort(files.begin(), files.end());
  std::filesystem::remove(out, error);
  int code = 0;
  zip_t* archive = zip_open(out.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (archive == nullptr) return fail(out.string() + ": cannot create (libzip error " + std::to_string(code) + ")");
  for (const auto& relative : files) {
    const std::string name = relative.generic_string();
    zip_source_t* source = zip_source_file(archive, (stage / relative).c_str(), 0, -1);
    const zip_int64_t index = source == nullptr ? -1 : zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      if (source != nullptr) zip_source_free(source);
      std::string why = name + ": " + zip_strerror(archive);
      zip_discard(archive);
      return fail(why);
    }
    const bool library = name.starts_with("binaries/");
    if (zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), library ? ZIP_CM_STORE : ZIP_CM_DEFLATE,
                                 0) != 0) {
      std::string why = name + ": " + zip_strerror(archive);
      zip_discard(archive);
      return fail(why);
    }
  }
  if (zip_close(archive) != 0) {
    const std::string why = zip_strerror(archive);
    zip_discard(archive);
    return fail(out.string() + ": " + why);
  }
  return 0;
}
