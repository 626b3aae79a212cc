#pragma once
// Open Simulation Platform (OSP, libcosim / cosim-cli) configurations: an OspSystemStructure.xml
// (namespace http://opensimulationplatform.com/MSMI/OSPSystemStructure, version 0.1; the OSP Interface
// Specification, OSP-IS, and libcosim's "Simulation configuration") read into a cosima scenario
// document (the schema of scenario/scenario.hpp), as ssp_reader.hpp reads an SSD. Nothing is unpacked:
// each FMU's modelDescription is read from its archive.
//
// What is read, and how it maps (by the sections of the configuration format):
//   <OspSystemStructure>   StartTime → start (0 when absent, as libcosim); EndTime → stop (else the
//       FMUs' DefaultExperiment); BaseStepSize → method.dt, the default macro-step (0.1 when absent, as
//       libcosim; --dt overrides); Algorithm fixedStep (the default) → method.type "jacobi": every
//       system steps on its inputs of the step's start, as libcosim's fixed-step algorithm does.
//       Algorithm ecco is refused, and so is any other element; an EccoConfiguration under fixedStep
//       is ignored with a warning.
//   <Simulator>            name → systems.NAME.fmu: `source` relative to the XML's folder (it may
//       reach outside it: ../fmus/a.fmu), an absolute path or a file: URI; other schemes (proxyfmu:)
//       are refused. stepSize → method.rates.NAME = stepSize / BaseStepSize, refused by name unless a
//       whole number ≥ 1 (libcosim rounds down and warns). InitialValues (Real, Integer, Boolean,
//       String, checked against the variable's type) → systems.NAME.parameters; on an input that no
//       connection drives → inputs."NAME.VARIABLE" (a connected input takes its connection's value).
//   <Function>             LinearTransformation (factor, offset; signals in, out) → the scale and
//       offset of the connections from what feeds `in` to what `out` feeds, no system; Sum (inputCount
//       n; signals in[0] … in[n−1], out) → a system NAME of the built-in model "sum:n" (in0 …, out);
//       VectorSum (inputCount n, dimension d; signal groups in[i] and out, signals in[i][j], out[j])
//       → "sum:nxd" (in{i}_{j}, out{j}). Each input of a function must be fed exactly once and its
//       output must feed something (as libcosim requires); numericType integer is refused.
//   <Connection>           VariableConnection → connections[] from the output to the input (either
//       order, by the FMUs' causalities); SignalConnection → through a function as above;
//       VariableGroupConnection → one connection per variable pair: the groups' sub-groups are paired
//       in declaration order (LinearMechanicalPort → Force, LinearVelocity), recursively, and their
//       own variables in declaration order, each pair directed from its output to its input;
//       SignalGroupConnection → a VectorSum's in[i] or out and a group's variables in declaration
//       order. Groups of different sizes, variables without an output/input pair and two connections
//       into one input are refused, by name. powerBond (an ECCO matter) is ignored.
//   OspModelDescription (OSP-IS: VariableGroups) → the variable groups of a simulator: the file
//       <modelName>_OspModelDescription.xml (libcosim's name; also <FMU file stem>_…) beside the FMU,
//       else in the XML's folder. A group is any element with a `name` under <VariableGroups>; its
//       <Variable ref="…"/> are FMU variables, its other elements nested groups.
#include <filesystem>
#include <optional>
#include <string_view>

#include "ssp/ssp_reader.hpp"

namespace cosima::ssp {

/// The namespace of OspSystemStructure (OSP-IS).
inline constexpr std::string_view kOspNamespace = "http://opensimulationplatform.com/MSMI/OSPSystemStructure";
/// The configuration file libcosim reads in a folder.
inline constexpr std::string_view kOspConfigurationFile = "OspSystemStructure.xml";

/// The annotation type of OSP's settings in an SSD (libcosim: osp:Algorithm, osp:StepSizeHint).
inline constexpr std::string_view kOspAnnotation = "com.opensimulationplatform";

/// The rate k of a system that steps every `step` seconds on a base step of `base` (method.rates):
/// step / base when that is a whole number ≥ 1 (to 1e-9 relative), else nullopt.
std::optional<long long> step_rate(double step, double base);

/// Whether a scenario path is an OSP configuration: a regular file whose root element is
/// <OspSystemStructure>, or a folder that holds an OspSystemStructure.xml.
bool is_osp_configuration(const std::filesystem::path& file);

/// Reads an OSP configuration (a file, or a folder's OspSystemStructure.xml) into a scenario document
/// whose FMU paths are absolute. Throws cosima::Error naming the file and the element, simulator,
/// function, variable or group at fault.
/// Its files: the configuration, then the OspModelDescription files read.
SspImport read_osp(const std::filesystem::path& file);

}  // namespace cosima::ssp
