#pragma once
// Scenario files (JSON): systems (built-in model or FMU, parameters, integrator, capabilities
// withheld), connections, constant inputs, method and its options, start/stop, outputs.
//
//   {
//     "name": "B3 Lotka-Volterra",
//     "start": 0, "stop": 20,
//     "systems": {
//       "prey":     {"model": "b3.prey", "integrator": "cvode", "parameters": {"alpha": 0.6667}},
//       "predator": {"model": "b3.predator", "rollback": false},
//       "wind":     {"csv": "wind.csv", "interpolation": {"default": "linear", "gust": "hold"}}
//     },
//     "connections": [["prey.p", "predator.p"], ["predator.q", "prey.q"],
//                     {"from": "a.level", "to": "b.count", "convert": true},
//                     {"from": "a.v_kmh", "to": "b.v", "scale": 0.2777777777777778, "offset": 0}],
//     "inputs": {"system.port": 0.0, "other.mode": 2, "other.flag": true, "other.label": "text"},
//     "method": {"type": "jacobi", "dt": 1e-3},
//     "output": {"interval": 0.01, "variables": ["prey.p"]},
//     "log_level": "warning",
//     "strict_inputs": false
//   }
//
// An input that no connection or constant drives keeps its declared start value (listed at the
// start of the run and in the stats); "strict_inputs": true refuses it instead.
//
// Parameters and constant inputs are numbers, true/false (Boolean: 1/0) or texts (String); each is
// checked against the variable's declared type and range when it is set. A connection joins ports
// of one type; "convert": true asks for a numeric conversion between types (system/port.hpp);
// "scale" and "offset" transform the value linearly (model/modular_model.hpp: LinearTransform).
// `start`, `stop` and `method.dt` may be omitted when the FMUs declare a DefaultExperiment: start
// and stop are then the FMUs' startTime and stopTime, which must agree when several declare one;
// dt is the smallest stepSize declared (resolve_experiment).
//
// Any value can be overridden before parsing by its dot path (`--set a.b.c=VALUE`); the keys of
// "inputs" contain a dot themselves: `--set inputs.SYSTEM.PORT=VALUE`. An unknown key is an error
// naming its path.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json.hpp"

#include "core/wide_integer.hpp"
#include "fmi/common/model_description.hpp"
#include "model/modular_model.hpp"
#include "simulation/simulation.hpp"
#include "system/emulation/emulated_system.hpp"
#include "system/native/integrator.hpp"

namespace cosima::scenario {

/// A parameter or constant input as written: a number, true/false (for Booleans), a text, or an integer that a
/// double does not hold exactly (beyond 2^53: FMI 3.0's Int64 and UInt64 take it exactly).
using ScalarValue = std::variant<double, std::string, WideInteger, bool>;

struct ConnectionSpec {
  std::string from, to;
  bool convert = false;              ///< allow a numeric conversion between different port types
  model::LinearTransform transform;  ///< "scale", "offset": to = scale·from + offset
};

struct SystemSpec {
  std::string name;
  std::string model;          ///< built-in model name, or
  std::filesystem::path fmu;  ///< FMU file, resolved (see resolve_fmu_path), or
  std::filesystem::path csv;  ///< a signal source's table (system/source/csv_source.hpp), resolved
  /// A signal source's "interpolation": column → "linear" | "hold"; "default" for the others.
  std::map<std::string, std::string> interpolation;
  /// FMU only: "interface": "cs" | "me". Unset: Co-Simulation when the FMU has it, else Model
  /// Exchange (decided when the system is built).
  std::optional<fmi::FmiInterface> interface;
  bool integrator_given = false;  ///< "integrator", "integrator_options" present (not for a CS FMU)
  std::map<std::string, ScalarValue> parameters;
  /// Parameters given as JSON arrays: name → shape. Their elements are in `parameters` as "name[i]" /
  /// "name[i,j]" (1-based, row-major); the shape is checked against the FMU's when it is built.
  std::map<std::string, std::vector<std::size_t>> array_shapes;
  /// Built-in models and Model Exchange FMUs (default cvode for those); a Co-Simulation FMU embeds
  /// its own solver.
  std::string integrator = "dopri5";
  IntegratorOptions integrator_options;
  double step_cost = 0.0;  ///< built-in models only: seconds of busy work added to every step
  CapabilitySet withheld;
  /// Sub-steps per macro-step when cosima emulates a capability the method needs (EmulationOptions).
  int emulation_substeps = 4;
  /// Where emulated output derivatives come from: "emulation_derivatives" (EmulationOptions).
  DerivativeSource emulation_derivatives = DerivativeSource::automatic;
};

struct OutputSpec {
  double interval = 0.0;               ///< 0: every communication point
  std::vector<std::string> variables;  ///< empty: every output
  std::string format;                  ///< "csv" or "mat"; empty: from the results file's extension
};

struct Scenario {  // NOLINT(bugprone-exception-escape): reported on the implicit special members of this aggregate
  std::filesystem::path file;
  std::string name;
  simulation::RunOptions run;
  std::vector<SystemSpec> systems;
  std::vector<ConnectionSpec> connections;
  std::map<std::string, ScalarValue> constant_inputs;
  /// Constant inputs given as JSON arrays: "system.port" → shape; the elements are in constant_inputs
  /// as "system.port[i,j]", and the system's array must have as many.
  std::map<std::string, std::vector<std::size_t>> input_array_shapes;
  std::string log_level;  ///< error | warning | info | debug; empty: as set by the caller
  /// "strict_inputs": refuse unconnected inputs instead of holding them at their start values.
  bool strict_inputs = false;
  io::Json method;            ///< {"type": ..., options...}
  std::string method_choice;  ///< why, when "auto" chose the method (resolve_auto_method)
  /// The FMUs' declared capabilities were tried and those that fail withheld (prove_capabilities).
  bool capabilities_proven = false;
  /// The values cosima chose where neither the scenario nor the FMUs gave one ("method.dt = 0.002:
  /// (stop − start)/500, …"); each was also said as a warning. In the stats as "guessed".
  std::vector<std::string> guessed;
  OutputSpec output;
  /// What the scenario's files live in and must outlive it: the unpacked SSP package its FMUs point
  /// into (ssp/ssp_reader.hpp); shared, as a Scenario is copied. Empty for a plain JSON scenario.
  std::shared_ptr<const void> resources;
  /// The files the document was read from besides `file`: an SSD and its SSV and SSM files, the
  /// package a JSON names with "ssp" (files_read adds the systems' FMUs and tables).
  std::vector<std::filesystem::path> sources;
};

/// Every file a run of the scenario reads: the scenario file, its sources, each system's FMU and
/// table (a CSV source, --input among them). What no output may name (the CLI refuses it).
std::vector<std::filesystem::path> files_read(const Scenario& scenario);

/// Where an FMU named in a scenario is looked for: as written when absolute; else relative to the
/// scenario's folder, then in each folder of $COSIMA_FMU_PATH (':'-separated), then in the build's
/// fmus/ folder (the project's own FMUs). Throws Error naming the places searched.
std::filesystem::path resolve_fmu_path(const std::filesystem::path& fmu, const std::filesystem::path& scenario_file);

/// Applies "path.to.key=VALUE" to a document. VALUE is parsed as JSON when it can be (numbers,
/// true/false, arrays), else taken as a string. Missing intermediate objects are created.
void apply_override(io::Json& document, const std::string& assignment);

/// Parses a scenario document; `file` names it in errors and anchors relative FMU paths.
Scenario parse_scenario(const io::Json& document, const std::filesystem::path& file);
/// A scenario document before overrides, and what its files live in (Scenario::resources).
struct ScenarioDocument {  // NOLINT(bugprone-exception-escape): reported on the implicit special members of this
                           // aggregate
  io::Json document;
  std::shared_ptr<const void> resources;
  std::vector<std::string> guessed;            ///< values chosen for the document (Scenario::guessed)
  std::vector<std::filesystem::path> sources;  ///< Scenario::sources
};

/// Whether `file` is an FMU run on its own (`cosima run X.fmu`): its name ends in .fmu.
bool is_fmu_file(const std::filesystem::path& file);
/// The system name of an FMU run on its own: the file's stem, each character that is not a letter,
/// digit or '_' replaced by '_' ("Van der Pol.fmu" → "Van_der_Pol").
std::string fmu_system_name(const std::filesystem::path& fmu);
/// The document of a scenario file: JSON; an SSP package (.ssp, or a zip: ssp::read_ssp); an SSD or a
/// folder holding one (ssp::read_ssd); an OSP configuration (OspSystemStructure.xml: ssp::read_osp); or
/// JSON naming a package with "ssp" (relative to the JSON file) — the package's document with the
/// JSON's other keys merged on top (a JSON merge patch; its "connections" are added to the package's).
/// `ssd_name` picks an SSD other than SystemStructure.ssd in a package or folder (an Error elsewhere).
ScenarioDocument read_scenario_document(const std::filesystem::path& file, const std::string& ssd_name = {});
/// Reads, overrides and parses a scenario file (read_scenario_document, `ssd_name` as there). `fmu_run`
/// applies to an FMU run on its own and is an Error for any other scenario.
/// What an FMU run on its own takes besides overrides (FMPy's options).
struct FmuRunOptions {
  /// "NAME=VALUE" (VALUE as in apply_override): variables set whatever their names hold (dots, brackets)
  std::vector<std::string> start_values;
  /// A CSV (time, then columns named like the FMU's inputs) that drives those inputs: linear between
  /// rows for continuous Real inputs, held for the others
  std::filesystem::path input;
};
Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& overrides = {},
                       const FmuRunOptions& fmu_run = {}, const std::string& ssd_name = {});

/// One system of the scenario, as specified: a built-in model with its integrator, or an FMU;
/// parameters set, withheld capabilities withheld.
std::unique_ptr<System> build_system(const SystemSpec& spec);
/// Replaces a "method" of type "auto" / "auto:fast" by the method the systems' capabilities allow
/// (methods/method_choice.hpp), noting why in method_choice; the systems are built once for it.
/// Returns whether it did. Every rank or process that reads the scenario resolves it the same way.
bool resolve_auto_method(Scenario& scenario);
/// Tries each FMU's declared capabilities that the method reads of it (all of them for "auto") on
/// an instance of its own, and withholds those whose call fails, each said as a warning naming the
/// system, FMU and call: the method then runs with them emulated or is refused by name before the
/// run starts (system/capability_probe.hpp). Once per scenario (capabilities_proven); before any
/// executor starts, so that every process builds the same systems.
void prove_capabilities(Scenario& scenario);
/// Whether the rows between communication points are interpolated (docs/design.md §3): under a method
/// that chooses its steps, and under a fixed step that output.interval is no whole multiple of (rows
/// stay at start + k·interval).
bool rows_between_steps(const Scenario& scenario, const methods::CouplingMethod& method);
/// The same, with what `method` needs of it and it lacks emulated where cosima can stand in
/// (system/emulation/emulated_system.hpp).
std::unique_ptr<System> build_system(const SystemSpec& spec, const methods::CouplingMethod& method);

using SystemMaker = std::function<std::unique_ptr<System>(const SystemSpec&)>;

/// The systems (by `make`, by default build_system), connections and constants; finalized.
model::ModularModel build_model(const Scenario& scenario, const SystemMaker& make = {});

}  // namespace cosima::scenario
