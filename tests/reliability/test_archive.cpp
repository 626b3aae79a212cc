// Hardened FMU archives: entries stay inside the private directory (compared by path
// components, not by string prefix), unpacked size and compression ratio are bounded, and
// `cosima info` unpacks nothing.
#include <zip.h>  // libzip: a second implementation writes the archives

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

#include "fmi/common/fmu_archive.hpp"
#include "fmi/fmu_info.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
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
  testing::write_zip(fmu,
                     {{"modelDescription.xml", description()}, {"resources/zeros.bin", std::string(64 << 20, '\0')}});
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

TEST(Archive, TooManyEntriesAreRefusedBeforeAnyIsUnpacked) {
  const PrivateTemp temp;
  const auto fmu = temp.path() / "many.fmu";
  std::vector<std::pair<std::string, std::string>> entries = {{"modelDescription.xml", description()}};
  for (int k = 0; k < 20; ++k) entries.emplace_back("resources/empty" + std::to_string(k), "");
  testing::write_zip(fmu, entries);
  const std::string what = error_of([&] { fmi::FmuArchive archive(fmu, {.max_entries = 10}); });
  EXPECT_NE(what.find("has 21 entries, more than the 10 cosima unpacks"), std::string::npos) << what;
  std::filesystem::remove(fmu);
  EXPECT_TRUE(temp.empty());
}

TEST(Archive, TheSystemsOfOneFmuFileShareOneUnpackedCopy) {
  const PrivateTemp temp;
  {
    fmi::Fmi2CsSystem first("a", kTypes), second("b", kTypes);
    std::size_t directories = 0;
    for (const auto& entry : std::filesystem::directory_iterator(temp.path()))
      directories += entry.is_directory() ? 1 : 0;
    EXPECT_EQ(directories, 1U);
    // and each runs on its own
    first.set_parameter("gain", 3.0);
    first.initialize(0.0);
    second.initialize(0.0);
    Eigen::VectorXd y1(first.output_count()), y2(second.output_count());
    first.outputs(y1);
    second.outputs(y2);
    EXPECT_EQ(y1(first.output_index("y_real")), 3.0 * 0.5);
    EXPECT_EQ(y2(second.output_index("y_real")), 2.0 * 0.5);
  }
  EXPECT_TRUE(temp.empty()) << "the copy goes with its last system";
}

TEST(Archive, EntriesTheFileSystemRefusesAreErrorsNamingTheFmu) {
  const PrivateTemp temp;
  const auto fmu = temp.path() / "clash.fmu";
  testing::write_zip(fmu,
                     {{"modelDescription.xml", description()}, {"resources", "a file"}, {"resources/data.txt", "1"}});
  const std::string what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("clash.fmu': cannot unpack"), std::string::npos) << what;
  std::filesystem::remove(fmu);
  EXPECT_TRUE(temp.empty());
}

/// An archive of modelDescription.xml and `entry` = `content`, the entry set up by `prepare`.
template <class Prepare>
void write_zip_with(const std::filesystem::path& path, const std::string& entry, const std::string& content,
                    Prepare&& prepare) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr);
  const std::string xml = description();
  zip_source_t* source = zip_source_buffer(archive, xml.data(), xml.size(), 0);
  ASSERT_GE(zip_file_add(archive, "modelDescription.xml", source, 0), 0);
  source = zip_source_buffer(archive, content.data(), content.size(), 0);
  const zip_int64_t index = zip_file_add(archive, entry.c_str(), source, 0);
  ASSERT_GE(index, 0);
  prepare(archive, static_cast<zip_uint64_t>(index));
  ASSERT_EQ(zip_close(archive), 0);
}

TEST(Archive, EntriesItCannotReadFaithfullyAreErrorsNamingTheEntry) {
  const PrivateTemp temp;
  const auto fmu = temp.path() / "odd.fmu";
  const std::string content(4096, 'x');
  // encrypted (traditional PKWARE): cosima has no password to give
  write_zip_with(fmu, "resources/secret.txt", content, [](zip_t* archive, zip_uint64_t index) {
    ASSERT_EQ(zip_file_set_encryption(archive, index, ZIP_EM_TRAD_PKWARE, "password"), 0);
  });
  std::string what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("entry 'resources/secret.txt' is encrypted"), std::string::npos) << what;
  // bzip2: a method other than store and deflate
  write_zip_with(fmu, "resources/data.bz2", content, [](zip_t* archive, zip_uint64_t index) {
    ASSERT_EQ(zip_set_file_compression(archive, index, ZIP_CM_BZIP2, 0), 0);
  });
  what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("entry 'resources/data.bz2' uses compression method 12"), std::string::npos) << what;
  // a stored entry whose bytes no longer match its CRC-32
  write_zip_with(fmu, "resources/data.txt", content, [](zip_t* archive, zip_uint64_t index) {
    ASSERT_EQ(zip_set_file_compression(archive, index, ZIP_CM_STORE, 0), 0);
  });
  {
    std::fstream file(fmu, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const auto at = bytes.find(std::string(64, 'x'));
    ASSERT_NE(at, std::string::npos);
    file.seekp(static_cast<std::streamoff>(at + 100));
    file.put('y');
  }
  what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("entry 'resources/data.txt' fails its CRC-32 check"), std::string::npos) << what;
  // cut short: the central directory is gone
  const auto size = std::filesystem::file_size(fmu);
  std::filesystem::resize_file(fmu, size / 2);
  what = error_of([&] { fmi::FmuArchive archive(fmu); });
  EXPECT_NE(what.find("odd.fmu' is not an FMU: not a zip archive"), std::string::npos) << what;
  std::filesystem::remove(fmu);
  EXPECT_TRUE(temp.empty());
}

TEST(Archive, ADescriptionIsParsedAgainWhenItsFileChanges) {
  // descriptions are kept per file version (device, inode, size, modification time)
  const PrivateTemp temp;
  const auto fmu = temp.path() / "changing.fmu";
  const std::string xml = description();
  const auto name_at = xml.find("modelName=\"");
  ASSERT_NE(name_at, std::string::npos);
  for (const std::string name : {"first", "the_second_one"}) {
    std::string renamed = xml;
    const auto begin = name_at + 11;
    renamed.replace(begin, renamed.find('"', begin) - begin, name);
    testing::write_zip(fmu, {{"modelDescription.xml", renamed}});
    EXPECT_EQ(fmi::read_model_description(fmu).model_name, name);
    EXPECT_EQ(fmi::read_model_description(fmu).model_name, name);  // the kept copy
  }
  std::filesystem::remove(fmu);
}

}  // namespace
}  // namespace cosima
