#pragma once
// What `cosima info` prints of an FMU, of any FMI version.
#include <filesystem>
#include <string>

namespace cosima::fmi {

/// Human-readable summary: interfaces, variables with types, capabilities, default experiment.
/// Reads modelDescription.xml only (nothing is unpacked).
std::string describe_fmu(const std::filesystem::path& fmu);

}  // namespace cosima::fmi
