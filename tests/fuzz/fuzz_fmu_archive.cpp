// An .fmu file: the bytes written to a file, then read_model_description (straight from the zip),
// archive_has_entry and FmuArchive (unpacks into a temporary directory under $TMPDIR, which the
// harness points to a private folder). After each input that folder must be empty again: the
// archive removes its directory also when unpacking fails half-way. cosima::Error is the expected
// refusal; anything else escaping, a sanitizer report, a leak or a directory left behind is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)cosima_fuzz::root();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = cosima_fuzz::write_input("input.fmu", data, size);
  try {
    (void)cosima::fmi::read_model_description(path);
  } catch (const cosima::Error&) {
  }
  try {
    (void)cosima::fmi::archive_has_entry(path, "resources/data.txt");
  } catch (const cosima::Error&) {
  }
  try {
    // small limits: the fuzzer must not fill the disk
    const cosima::fmi::FmuArchive archive(path, {.total_bytes = 64ULL << 20, .compression_ratio = 1000.0});
    if (!std::filesystem::is_directory(archive.directory())) __builtin_trap();
    (void)archive.resource_uri();
    for (const auto interface : {cosima::fmi::FmiInterface::co_simulation, cosima::fmi::FmiInterface::model_exchange}) {
      try {
        (void)archive.binary(interface);
      } catch (const cosima::Error&) {
      }
    }
  } catch (const cosima::Error&) {
  }
  const auto temp = cosima_fuzz::temp_dir();
  if (!std::filesystem::is_empty(temp)) {
    cosima_fuzz::die("FmuArchive left " + std::filesystem::directory_iterator(temp)->path().string() + " behind");
  }
  return 0;
}
