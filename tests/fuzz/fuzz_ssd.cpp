// SystemStructure.ssd as text: parse_ssd, the SSP reader's structure, connection, unit and
// parameter-binding logic, without a package on disk.
//
// Input: the bytes up to the first NUL are the SSD; the bytes after it are the text of every
// parameter set or mapping the SSD refers to (any source="…" of a ParameterBinding or
// ParameterMapping). A component's source is found when it ends in ".fmu" (a path that is never
// opened: the variables of an FMU are "unknown", so every bound name applies). cosima::Error is the
// expected refusal; anything else escaping (nlohmann::json exceptions included), a sanitizer report
// or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "ssp/ssp_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view ssd = input.substr(0, nul);
  const std::string attached = nul == std::string_view::npos ? std::string() : std::string(input.substr(nul + 1));
  cosima::ssp::SsdResources resources;
  resources.text = [&](const std::string& /*path*/) -> std::optional<std::string> {
    if (nul == std::string_view::npos) return std::nullopt;
    return attached;
  };
  resources.file = [](const std::string& path) -> std::optional<std::filesystem::path> {
    if (!path.ends_with(".fmu")) return std::nullopt;
    return std::filesystem::path("/nonexistent") / path;
  };
  try {
    const cosima::io::Json document = cosima::ssp::parse_ssd(ssd, resources, "fuzz.ssp");
    if (!document.is_object() || !document.contains("systems")) __builtin_trap();  // a document, or refused
    (void)document.dump(-1, ' ', false, cosima::io::Json::error_handler_t::replace);
  } catch (const cosima::Error&) {
  }
  return 0;
}
