#pragma once
// SSP 1.0 export: a scenario whose systems are all FMUs as an .ssp package — SystemStructure.ssd and
// resources/<system>.fmu (SSP 1.0, Packaging) — that ssp_reader.hpp reads back into the same run.
//
// SystemStructure.ssd holds one ssd:System with one ssd:Component per system; the connectors its
// connections use (kind and type from the FMU's modelDescription); the connections, with an
// ssc:LinearTransformation where "scale"/"offset" are not 1/0; the parameters as an inline
// ParameterBinding per component; constant inputs as root input connectors bound to their values;
// start and stop as ssd:DefaultExperiment; and what SSP does not carry (method, output, integrator,
// withheld capabilities, ...) in the ssc:Annotation type="org.cosima.scenario" of the root system.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace cosima::scenario {

/// The SSD of a parsed scenario and its document (read_scenario_document, overrides applied);
/// `sources` gives each system's FMU entry in the package ("resources/prey.fmu"). Throws Error
/// naming a system that is not an FMU.
std::string write_ssd(const Scenario& scenario, const io::Json& document,
                      const std::map<std::string, std::string>& sources);

/// Writes the scenario file (JSON or SSP, `overrides` as `--set`) as an SSP package at `out`
/// (replaced if it exists). Throws Error naming the system, file or entry at fault; nothing is left
/// at `out` then.
void export_ssp(const std::filesystem::path& scenario, const std::filesystem::path& out,
                const std::vector<std::string>& overrides = {});

}  // namespace cosima::scenario
