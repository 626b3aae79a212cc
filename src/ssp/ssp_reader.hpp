#pragma once
// SSP 1.0 import (System Structure and Parameterization, Modelica Association): an .ssp package — a
// zip with SystemStructure.ssd at its root and the FMUs, parameter sets (.ssv) and mappings (.ssm) it
// refers to (SSP 1.0, Packaging) — read into a cosima scenario document (the schema of scenario/scenario.hpp).
//
// What is read, and how it maps:
//   ssd:Component (type application/x-fmu-sharedlibrary)  → systems.NAME.fmu (implementation
//       CoSimulation / ModelExchange → "interface"); any other component type is refused.
//   nested ssd:System                                     → flattened: component c of sub-system sub
//       is system "sub.c"; connections through system connectors become component-to-component ones.
//   ssd:Connection (+ ssc:LinearTransformation, units)    → connections[] {from, to, scale, offset}:
//       unit conversions (same base-unit exponents) and linear transformations compose along the
//       path; an identity Boolean/Integer/Enumeration mapping is accepted, any other refused.
//       A connector's unit is its SSD declaration's, else the unit its FMU declares for the variable
//       (own or declared type's); a unit name is defined by the SSD's ssd:Units, else by that FMU's
//       UnitDefinitions. Equal names are the same unit; differing units convert when their base-unit
//       exponents agree and are refused (naming both connectors and units) when they differ or a unit
//       is defined nowhere. suppressUnitConversion="true" skips the conversion of that connection.
//   ssd:ParameterBindings (.ssv file or inline, prefix, .ssm name mapping) → systems.NAME.parameters,
//       with the SSP precedence (a higher level wins over a lower one, a later binding over an earlier
//       one); a value bound to a system connector feeds what that connector is connected to: a
//       constant input ("inputs") or a parameter.
//   ssd:DefaultExperiment                                 → start, stop.
//   ssc:Annotation type="org.cosima.scenario" on the root system: a JSON object merged onto the
//       document (JSON merge patch): what SSP does not carry (method, output, integrator, ...).
//   ssc:Annotation type="com.opensimulationplatform" (libcosim's, ssp/osp_reader.hpp): in
//       ssd:DefaultExperiment, osp:Algorithm/osp:FixedStepAlgorithm baseStepSize → method.dt (the
//       default macro-step; --dt and the org.cosima.scenario annotation override it); in a component,
//       osp:StepSizeHint value → method.rates.COMPONENT (a whole multiple of the base step, else
//       refused). Another algorithm is refused; any other OSP element is warned about and ignored.
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include "io/json.hpp"

#include "fmi/common/model_description.hpp"

namespace cosima::ssp {

/// The annotation type of cosima's own settings (SSP 1.0, Common Content: Annotations).
inline constexpr std::string_view kScenarioAnnotation = "org.cosima.scenario";
/// The component type of a signal table: a CSV file (time, then one column per output) that cosima
/// runs as a signal source (system/source/csv_source.hpp).
inline constexpr std::string_view kCsvType = "text/csv";

/// What an SSD refers to, by its path inside the package (the relative URI, percent-decoded, checked
/// to stay inside the package).
struct SsdResources {
  /// The text of a parameter set (.ssv) or parameter mapping (.ssm); nullopt when there is none.
  std::function<std::optional<std::string>(const std::string& path)> text;
  /// The FMU of a component on disk; nullopt when there is none.
  std::function<std::optional<std::filesystem::path>(const std::string& path)> file;
  /// The modelDescription of an FMU (fmi::read_model_description): its variables — a bound parameter the FMU lacks is
  /// ignored (SSP 1.0, SSD ParameterBindings) — and their units with the FMU's UnitDefinitions. nullptr (or no
  /// function): unknown, every bound name is applied and only the SSD's own units take part.
  std::function<std::shared_ptr<const fmi::ModelDescription>(const std::filesystem::path& fmu)> description;
  /// Whether relative URIs must stay inside the package (no "..", no absolute path): true for a package
  /// and a folder; false for a bare .ssd, whose sources are files the user names, as a scenario's.
  bool confined = true;
};

/// The scenario document of an SSD given as text; `source` names it in errors ("SSP 'x.ssp'").
/// Throws cosima::Error naming the element, connector, unit or file at fault.
io::Json parse_ssd(std::string_view ssd, const SsdResources& resources, const std::string& source);

/// An imported package: the document, whose FMU paths point into the unpacked package, and the owner
/// of that directory — it is removed when the last copy of `resources` goes.
struct SspImport {
  io::Json document;
  std::shared_ptr<const void> resources;
  /// The files read for the document: the SSD, and the SSV and SSM files it references.
  std::vector<std::filesystem::path> files;
};

/// Unpacks an .ssp (entries checked and bounded as FMUs are, fmi/common/fmu_archive.hpp) into a private
/// temporary directory and reads its SystemStructure.ssd, or the SSD at its root that `ssd_name` names
/// (a file name, with or without .ssd: `cosima run x.ssp --ssd NAME`; an unknown one is refused with
/// the package's SSDs listed). Nothing stays on disk when it throws.
SspImport read_ssp(const std::filesystem::path& ssp, const std::string& ssd_name = {});

/// Reads an SSD as it lies on disk: a folder holding SystemStructure.ssd or the SSD `ssd_name` (an
/// unpacked package: relative URIs are checked to stay inside it), or a bare .ssd file, whose
/// resources (FMUs, .ssv, .ssm) are relative to its folder and may lie outside it (../fmus/a.fmu), as
/// any file the user names. Nothing is unpacked.
SspImport read_ssd(const std::filesystem::path& ssd, const std::string& ssd_name = {});
/// Whether a scenario path is an SSD: the extension .ssd, or a folder with a SystemStructure.ssd.
bool is_ssd(const std::filesystem::path& file);

/// Whether a scenario file is an SSP package: the extension .ssp, or a regular file that is a zip
/// (local file header magic).
bool is_ssp_file(const std::filesystem::path& file);

}  // namespace cosima::ssp
