// A scenario: JSON document plus --set overrides, then parse_scenario.
//
// Input: the bytes up to the first NUL are the JSON document; after it, each non-empty line
// ('\n'-separated) is one override PATH=VALUE, applied in order with apply_override (as
// `cosima run --set` does). Without a NUL there are no overrides. Input that is not JSON is
// refused before any override, as load_scenario refuses it.
//
// Files: the scenario is "<private dir>/fuzz.json" and $COSIMA_FMU_PATH is <private dir>/fmus,
// which holds one valid FMU, model.fmu (a copy of a seed of fuzz_fmu_archive), so that FMU systems
// reach the DefaultExperiment code. An FMU path that is absolute or climbs out with ".." is
// replaced by its last component before parsing: the harness reads no file outside its folder
// (and the build's fmus/ folder, COSIMA_DEFAULT_FMU_DIR). cosima::Error is the expected refusal;
// anything else escaping (nlohmann::json exceptions included), a sanitizer report or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "io/json.hpp"
#include "scenario/scenario.hpp"

namespace {

std::filesystem::path g_scenario_file;

/// FMU paths stay inside the private folder (see above).
void confine_fmu_paths(cosima::io::Json& document) {
  if (!document.is_object() || !document.contains("systems") || !document["systems"].is_object()) return;
  for (auto& [name, system] : document["systems"].items()) {
    if (!system.is_object() || !system.contains("fmu") || !system["fmu"].is_string()) continue;
    const std::filesystem::path fmu = system["fmu"].get<std::string>();
    bool climbs = false;
    for (const auto& part : fmu) climbs = climbs || part == "..";
    if (fmu.is_absolute() || climbs) {
      const std::string last = fmu.filename().string();
      system["fmu"] = last == ".." ? std::string("x.fmu") : last;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const std::filesystem::path root = cosima_fuzz::root();
  const std::filesystem::path fmus = root / "fmus";
  std::filesystem::create_directory(fmus);
  std::error_code error;
  std::filesystem::copy_file(COSIMA_FUZZ_SEED_FMU, fmus / "model.fmu", error);
  if (error) cosima_fuzz::die(std::string("cannot copy ") + COSIMA_FUZZ_SEED_FMU + ": " + error.message());
  setenv("COSIMA_FMU_PATH", fmus.c_str(), 1);
  g_scenario_file = root / "fuzz.json";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  std::string_view overrides = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  cosima::io::Json document;
  try {  // the reader load_scenario uses: nesting, duplicate keys, numbers beyond double refused
    document = cosima::io::parse_json(json, "fuzz.json");
  } catch (const cosima::Error&) {
    return 0;
  }
  try {
    while (!overrides.empty()) {
      const std::size_t end = overrides.find('\n');
      const std::string_view line = overrides.substr(0, end);
      overrides = end == std::string_view::npos ? std::string_view() : overrides.substr(end + 1);
      if (!line.empty()) cosima::scenario::apply_override(document, std::string(line));
    }
    confine_fmu_paths(document);
    (void)cosima::scenario::parse_scenario(document, g_scenario_file);
  } catch (const cosima::Error&) {
  }
  return 0;
}
