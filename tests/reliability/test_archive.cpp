// Hardened FMU archives (issue #17): entries stay inside the private directory (compared by path
// components, not by string prefix), unpacked size and compression ratio are bounded, and
// `cosima info` unpacks nothing.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "fmi/fmu_archive.hpp"
#include "fmi/fmu_system.hpp"
#include "fmu_fixtures.hpp"

namespace cosima {
namespace {

using testing::error_of;
using testing::PrivateTemp;

const std::filesystem::path kTypes = std::filesystem::path(COSIMA_C_FMU_DIR) / "cosima_test_types.fmu";

std::string description() { return testing::read_zip_entry(kTypes, "modelDescription.xml"); }

TEST(Archive, AnEntryEscapingIntoASiblingDirectoryIsRefused) {
  const PrivateTemp temp;
  // the string-prefix check of old accepted "../cosima-fmu-XXXXXX<anything>/f": a sibling of the
  // private directory whose name starts with it
  for (const char* entry : {"../cosima-fmu-XXXXXXevil/f", "../../etc/passwd", "/tmp/absolute", "a/../../b"}) {
    const auto fmu = temp.path() / "slip.fmu";
    testing::write_zip(fmu, {{"modelDescription.xml", description()}, {entry, "x"}});
    const std::string what = error_of([&] { fmi::FmuArchive archive(fmu); });
    EXPECT_NE(what.find("points outside the archive"), std::string::npos) << entry << ": " << what;
    std::filesystem::remove(fmu);
    EXPECT_TRUE(temp.empty()) << entry;
  }
}

TEST(Archive, ZipBombsAreRefusedBeforeTheyFillTheDisk) {
  const PrivateTemp temp;
  const auto fmu = temp.path() / "bomb.fmu";
  testing::write_zip(fmu, {{"modelDescription.xml", description()}, {"resources/zeros.bin", std::string(64 << 20, '\0')}});
  std::string what = error_of([&] { fmi::FmuArchive archive(fmu); });  // default limits: ≈ 1000:1 > 200:1
  EXPECT_NE(what.find("is compressed"), std::string::npos) << what;
  EXPECT_NE(what.find("zeros.bin"), std::string::npos) << what;
  what = error_of([&] { fmi::FmuArchive archive(fmu, {.total_bytes = 8 << 20, .compression_ratio = 1e9}); });
  EXPECT_NE(what.find("goes beyond the unpacking limit"), std::string::npos) << what;
  // info reads modelDescription.xml only: nothing is unpacked, nothing refused
  EXPECT_NE(fmi::describe_fmu(fmu).find("u_mode"), std::string::npos);
  std::filesystem::remove(fmu);
  EXPECT_TRUE(temp.empty());
}

TEST(Archive, EntriesTheFileSystemRefusesAreErrorsNamingTheFmu) {
  const PrivateTemp temp;
  const auto fmu = temp.path() / "clash.fmu";
  testing::write_zip(fmu, {{"modelDescription.xml", description()}, {"resources", "a file"}, {"resources/data.txt", "1"}});
  const std::string what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("clash.fmu': cannot unpack"), std::string::npos) << what;
  std::filesystem::remove(fmu);
  EXPECT_TRUE(temp.empty());
}

}  // namespace
}  // namespace cosima
