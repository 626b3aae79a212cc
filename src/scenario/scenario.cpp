#include "scenario/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/suggest.hpp"
#include "core/whole_number.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "io/csv.hpp"
#include "io/json.hpp"
#include "ssp/osp_reader.hpp"
#include "ssp/ssp_reader.hpp"

namespace cosima::scenario {

namespace {

/// A value cosima chose itself: said as a warning and kept for the stats' "guessed".
void note_guess(std::vector<std::string>& guessed, std::string what) {
  log(LogLevel::warning, "guessed " + what);
  guessed.push_back(std::move(what));
}

std::string join(const std::set<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

/// Reads a JSON object whose keys must all be known; errors name the file and the dot path.
class ObjectReader {
 public:
  /// Checks that every key of `object` is `known`.
  ObjectReader(const io::Json& object, std::string path, const std::filesystem::path& file,
               const std::set<std::string>& known)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object()) fail(fmt::format("'{}' must be an object", path_));
    for (const auto& [key, value] : object_.items()) {
      if (!known.contains(key)) {
        fail(fmt::format("unknown key '{}{}' (known: {}){}", prefix(), key, join(known),
                         did_you_mean(key, std::vector<std::string>(known.begin(), known.end()))));
      }
    }
  }
  [[nodiscard]] bool has(const std::string& key) const { return object_.contains(key); }
  [[nodiscard]] const io::Json& at(const std::string& key) const { return object_.at(key); }
  [[nodiscard]] double number(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_number()) fail(fmt::format("'{}{}' must be a number", prefix(), key));
    return at(key).get<double>();
  }
  /// A whole number in [min, max] (a double outside int's range is refused, not cast).
  [[nodiscard]] int integer(const std::string& key, int fallback, int min, int max) const {
    if (!has(key)) return fallback;
    const io::Json& value = at(key);
    const auto whole = value.is_number() ? whole_number(value.get<double>(), min, max) : std::nullopt;
    if (!whole)
      fail(fmt::format("'{}{}' must be an integer in [{}, {}], not {}", prefix(), key, min, max, io::json_text(value)));
    return *whole;
  }
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_string()) fail(fmt::format("'{}{}' must be a string", prefix(), key));
    return at(key).get<std::string>();
  }
  [[nodiscard]] bool flag(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_boolean()) fail(fmt::format("'{}{}' must be true or false", prefix(), key));
    return at(key).get<bool>();
  }
  [[nodiscard]] std::string prefix() const { return path_.empty() ? "" : path_ + "."; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("scenario '{}': {}", file_.string(), what));
  }

 private:
  const io::Json& object_;
  std::string path_;
  const std::filesystem::path& file_;
};

/// A parameter or constant input: a number, true/false (a Boolean's only: kept as bool), or a text.
/// An integer that a double does not hold (beyond 2^53) stays exact, as a WideInteger.
ScalarValue scalar_value(const io::Json& value, const ObjectReader& reader, const std::string& path) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_unsigned() || value.is_number_integer()) {
    const WideInteger whole = value.is_number_unsigned() ? WideInteger::of(value.get<std::uint64_t>())
                                                         : WideInteger::of(value.get<std::int64_t>());
    if (whole.exact_in_double()) return whole.to_double();
    return whole;
  }
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  reader.fail(fmt::format("'{}' must be a number, true/false or a text, not {}", path, io::json_text(value)));
}

/// The sizes of a JSON array along its first elements ([[1, 2, 3], [4, 5, 6]]: 2, 3).
std::vector<std::size_t> json_shape(const io::Json& array) {
  std::vector<std::size_t> shape;
  for (const io::Json* level = &array; level->is_array() && !level->empty(); level = &level->front()) {
    shape.push_back(level->size());
  }
  return shape;
}

/// Fails unless every row of `level` (at `depth` of `shape`) has the shape's length and the
/// innermost rows hold values, not arrays.
void check_rows(const io::Json& level, const std::vector<std::size_t>& shape, std::size_t depth,
                std::vector<std::size_t>& index, const ObjectReader& reader, const std::string& path) {
  const bool leaf = depth == shape.size();
  if (leaf ? level.is_structured() : !level.is_array() || level.size() != shape[depth]) {
    reader.fail(fmt::format("'{}' is not a {} array: at [{}] {}", path, fmt::join(shape, "×"),
                            fmt::join(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(depth), ","),
                            leaf               ? io::json_text(level) + " where a value belongs"
                            : level.is_array() ? fmt::format("a row of {}", level.size())
                                               : io::json_text(level)));
  }
  if (leaf) return;
  for (std::size_t k = 0; k < level.size(); ++k) {
    index[depth] = k + 1;
    check_rows(level[k], shape, depth + 1, index, reader, path);
  }
}

/// The elements of `array` (values, one nested array per dimension) as `out["name[i,j,…]"]`,
/// 1-based and row-major: the element names of FMI 3.0 arrays (§2.4.7.2) and of Modelica arrays in
/// FMI 2.0 descriptions. Returns the shape.
std::vector<std::size_t> array_elements(const io::Json& array, const std::string& name, const ObjectReader& reader,
                                        const std::string& path, std::map<std::string, ScalarValue>& out) {
  std::vector<std::size_t> shape = json_shape(array);
  if (shape.empty()) reader.fail(fmt::format("'{}' is an empty array", path));
  std::vector<std::size_t> index(shape.size(), 0);
  check_rows(array, shape, 0, index, reader, path);
  std::vector<std::size_t> at(shape.size(), 1);  // 1-based, the last dimension fastest
  for (bool more = true; more;) {
    const io::Json* element = &array;
    for (const std::size_t i : at) element = &(*element)[i - 1];
    const std::string suffix = fmt::format("[{}]", fmt::join(at, ","));
    out[name + suffix] = scalar_value(*element, reader, path + suffix);
    more = false;
    for (std::size_t d = shape.size(); d-- > 0 && !more;) {
      more = ++at[d] <= shape[d];
      if (!more) at[d] = 1;
    }
  }
  return shape;
}

/// "emulation_derivatives": "substeps" | "history" (system/emulation/emulated_system.hpp); absent: automatic.
DerivativeSource emulation_derivatives(const ObjectReader& reader, const std::string& name) {
  if (!reader.has("emulation_derivatives")) return DerivativeSource::automatic;
  const io::Json& value = reader.at("emulation_derivatives");
  const auto source = value.is_string() ? parse_derivative_source(value.get<std::string>()) : std::nullopt;
  if (!source) {
    reader.fail(
        fmt::format("'systems.{}.emulation_derivatives' is {}: \"substeps\" (the outputs at the sub-steps of "
                    "each macro-step) or \"history\" (the outputs at the last communication points)",
                    name, io::json_text(value)));
  }
  return *source;
}

/// A signal source: {"csv": FILE, "interpolation": "linear" | "hold" | {COLUMN: MODE, "default": MODE}}.
SystemSpec parse_signal_source(const std::string& name, const ObjectReader& reader, const std::filesystem::path& file) {
  for (const char* key : {"parameters", "integrator", "integrator_options", "step_cost", "interface"}) {
    if (reader.has(key)) reader.fail(fmt::format("system '{}' is a signal source: '{}' does not apply", name, key));
  }
  SystemSpec spec;
  spec.name = name;
  const std::filesystem::path table = reader.text("csv", "");
  spec.csv = table.is_absolute() || file.empty() ? table : file.parent_path() / table;
  const auto mode = [&](const io::Json& value, const std::string& path) {
    if (!value.is_string() || (value != "linear" && value != "hold")) {
      reader.fail(fmt::format("'{}' is {}: \"linear\" or \"hold\"", path, io::json_text(value)));
    }
    return value.get<std::string>();
  };
  if (reader.has("interpolation")) {
    const io::Json& interpolation = reader.at("interpolation");
    const std::string path = fmt::format("systems.{}.interpolation", name);
    if (interpolation.is_object()) {
      for (const auto& [column, value] : interpolation.items())
        spec.interpolation[column] = mode(value, fmt::format("{}.{}", path, column));
    } else {
      spec.interpolation["default"] = mode(interpolation, path);
    }
  }
  for (Capability c : kAllCapabilities) {
    if (!reader.flag(std::string(to_string(c)), true)) spec.withheld.add(c);
  }
  spec.emulation_substeps = reader.integer("emulation_substeps", spec.emulation_substeps, 1, 64);
  spec.emulation_derivatives = emulation_derivatives(reader, name);
  return spec;
}

/// The keys a system's object may have (built once: a scenario may have 10⁵ systems).
const std::set<std::string>& system_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> known = {"model",
                                   "fmu",
                                   "interface",
                                   "parameters",
                                   "integrator",
                                   "integrator_options",
                                   "step_cost",
                                   "emulation_substeps",
                                   "emulation_derivatives",
                                   "csv",
                                   "interpolation"};
    for (Capability c : kAllCapabilities) known.insert(std::string(to_string(c)));
    return known;
  }();
  return keys;
}

/// The keys of an FMU system: its interface, and no solver for a Co-Simulation FMU.
void read_fmu_keys(const ObjectReader& reader, const std::string& name, SystemSpec& spec) {
  if (reader.has("interface")) {
    const std::string interface = reader.text("interface", "");
    if (interface != "cs" && interface != "me") {
      reader.fail(fmt::format("'systems.{}.interface' is \"{}\": \"cs\" (Co-Simulation) or \"me\" (Model Exchange)",
                              name, interface));
    }
    spec.interface = interface == "cs" ? fmi::FmiInterface::co_simulation : fmi::FmiInterface::model_exchange;
  }
  if (reader.has("step_cost")) reader.fail(fmt::format("system '{}': 'step_cost' applies to built-in models", name));
  spec.integrator_given = reader.has("integrator") || reader.has("integrator_options");
  if (spec.integrator_given && spec.interface == fmi::FmiInterface::co_simulation) {
    reader.fail(
        fmt::format("system '{}' is a Co-Simulation FMU: it embeds its own solver (set its parameters "
                    "instead of 'integrator', or choose \"interface\": \"me\")",
                    name));
  }
  spec.integrator = "cvode";
}

SystemSpec parse_system(const std::string& name, const io::Json& object, const std::filesystem::path& file) {
  const ObjectReader reader(object, "systems." + name, file, system_keys());
  SystemSpec spec;
  spec.name = name;
  spec.model = reader.text("model", "");
  if (reader.has("fmu")) spec.fmu = resolve_fmu_path(reader.text("fmu", ""), file);
  if (static_cast<int>(!spec.model.empty()) + static_cast<int>(!spec.fmu.empty()) +
          static_cast<int>(reader.has("csv")) !=
      1) {
    reader.fail(fmt::format(
        "system '{}' needs exactly one of 'model' (built-in), 'fmu' (file) or 'csv' (a signal source)", name));
  }
  if (reader.has("csv")) return parse_signal_source(name, reader, file);
  if (spec.fmu.empty() && reader.has("interface")) {
    reader.fail(fmt::format("system '{}': 'interface' applies to FMUs only", name));
  }
  if (!spec.fmu.empty()) read_fmu_keys(reader, name, spec);
  if (reader.has("parameters")) {
    const io::Json& parameters = reader.at("parameters");
    if (!parameters.is_object()) reader.fail(fmt::format("'systems.{}.parameters' must be an object", name));
    for (const auto& [key, value] : parameters.items()) {
      const std::string path = fmt::format("systems.{}.parameters.{}", name, key);
      if (value.is_array()) {
        spec.array_shapes[key] = array_elements(value, key, reader, path, spec.parameters);
      } else {
        spec.parameters[key] = scalar_value(value, reader, path);
      }
    }
  }
  spec.integrator = reader.text("integrator", spec.integrator);
  spec.step_cost = reader.number("step_cost", 0.0);
  spec.emulation_substeps = reader.integer("emulation_substeps", spec.emulation_substeps, 1, 64);
  spec.emulation_derivatives = emulation_derivatives(reader, name);
  if (spec.step_cost < 0.0) reader.fail(fmt::format("'systems.{}.step_cost' must not be negative", name));
  if (reader.has("integrator_options")) {
    const ObjectReader options(reader.at("integrator_options"), "systems." + name + ".integrator_options", file,
                               {"rtol", "atol", "max_step", "steps_per_call", "calls_per_step", "max_events_per_step",
                                "max_event_iterations"});
    spec.integrator_options.rtol = options.number("rtol", spec.integrator_options.rtol);
    spec.integrator_options.atol = options.number("atol", 1e-2 * spec.integrator_options.rtol);
    spec.integrator_options.rtol_given = options.has("rtol");
    spec.integrator_options.atol_given = options.has("atol");
    spec.integrator_options.max_step = options.number("max_step", spec.integrator_options.max_step);
    spec.integrator_options.steps_per_call =
        options.integer("steps_per_call", spec.integrator_options.steps_per_call, 1, 1 << 30);
    spec.integrator_options.calls_per_step =
        options.integer("calls_per_step", spec.integrator_options.calls_per_step, 1, 1 << 30);
    spec.integrator_options.max_events_per_step =
        options.integer("max_events_per_step", spec.integrator_options.max_events_per_step, 1, 1 << 30);
    spec.integrator_options.max_event_iterations =
        options.integer("max_event_iterations", spec.integrator_options.max_event_iterations, 1, 1 << 30);
    const IntegratorOptions& o = spec.integrator_options;
    if (!(o.rtol > 0.0) || !std::isfinite(o.rtol)) options.fail(fmt::format("'rtol' = {} must be positive", o.rtol));
    if (!(o.atol >= 0.0) || !std::isfinite(o.atol))
      options.fail(fmt::format("'atol' = {} must not be negative", o.atol));
    if (!(o.max_step >= 0.0)) options.fail(fmt::format("'max_step' = {} must not be negative", o.max_step));
    if (o.calls_per_step > 1 && (spec.integrator != "euler" || o.steps_per_call > 1)) {
      options.fail(
          fmt::format("'calls_per_step' = {} is for the integrator 'euler' with steps_per_call = 1 (one Euler "
                      "step over several calls), not '{}' with steps_per_call = {}",
                      o.calls_per_step, spec.integrator, o.steps_per_call));
    }
  }
  for (Capability c : kAllCapabilities) {
    if (!reader.flag(std::string(to_string(c)), true)) spec.withheld.add(c);
  }
  return spec;
}

/// Fills start, stop and dt the scenario leaves out from the FMUs' DefaultExperiment (FMI 2.0
/// §2.2.5): start and stop must agree among the FMUs that declare them; dt is the smallest stepSize.
void resolve_experiment(Scenario& scenario, std::optional<double> start, std::optional<double> stop,
                        std::optional<double> dt) {
  struct Declared {
    std::string system;
    double value;
  };
  std::vector<Declared> starts, stops, steps;
  if (!start || !stop || !dt) {
    for (const SystemSpec& spec : scenario.systems) {
      if (spec.fmu.empty()) continue;
      const fmi::DefaultExperiment experiment = fmi::read_model_description(spec.fmu).default_experiment;
      if (experiment.start_time) starts.push_back({spec.name, *experiment.start_time});
      if (experiment.stop_time) stops.push_back({spec.name, *experiment.stop_time});
      if (experiment.step_size) steps.push_back({spec.name, *experiment.step_size});
    }
  }
  auto agreed = [&](const std::vector<Declared>& declared, const char* key,
                    const char* attribute) -> std::optional<double> {
    if (declared.empty()) return std::nullopt;
    for (const Declared& d : declared) {
      if (d.value != declared.front().value) {
        throw Error(
            fmt::format("scenario '{}': '{}' is not given and the FMUs disagree: system '{}' declares {}={}, "
                        "system '{}' {}={}; set '{}' in the scenario",
                        scenario.file.string(), key, declared.front().system, attribute, declared.front().value,
                        d.system, attribute, d.value, key));
      }
    }
    return declared.front().value;
  };
  scenario.run.start = start ? *start : agreed(starts, "start", "startTime").value_or(0.0);
  const std::optional<double> resolved_stop = stop ? stop : agreed(stops, "stop", "stopTime");
  if (!resolved_stop) {
    throw Error(fmt::format("scenario '{}': 'stop' is required (no FMU declares a DefaultExperiment stopTime)",
                            scenario.file.string()));
  }
  scenario.run.stop = *resolved_stop;
  if (dt) {
    scenario.run.dt = *dt;
  } else if (!steps.empty()) {
    scenario.run.dt = std::min_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
                        return a.value < b.value;
                      })->value;
  } else if (std::isfinite(scenario.run.stop - scenario.run.start) && scenario.run.stop > scenario.run.start) {
    // FMPy's rule where nothing gives a step: 500 steps over the run
    scenario.run.dt = (scenario.run.stop - scenario.run.start) / 500.0;
    note_guess(scenario.guessed, fmt::format("method.dt = {:.6g}: (stop − start)/500, as neither the scenario nor "
                                             "an FMU's DefaultExperiment gives a step (set method.dt or --dt)",
                                             scenario.run.dt));
  }
  for (const auto& [key, value] : {std::pair{"start", scenario.run.start}, std::pair{"stop", scenario.run.stop},
                                   std::pair{"method.dt", scenario.run.dt}}) {
    if (!std::isfinite(value))
      throw Error(fmt::format("scenario '{}': '{}' = {} is not finite", scenario.file.string(), key, value));
  }
  if (!(scenario.run.dt > 0.0)) {
    throw Error(
        fmt::format("scenario '{}': 'method.dt' = {} must be positive", scenario.file.string(), scenario.run.dt));
  }
}

}  // namespace

std::filesystem::path resolve_fmu_path(const std::filesystem::path& fmu, const std::filesystem::path& scenario_file) {
  if (fmu.is_absolute()) return fmu;
  std::vector<std::filesystem::path> places = {scenario_file.parent_path()};
  if (const char* env = std::getenv("COSIMA_FMU_PATH")) {
    std::string list = env;
    for (std::size_t begin = 0; begin <= list.size();) {
      const auto colon = std::min(list.find(':', begin), list.size());
      if (colon > begin) places.emplace_back(list.substr(begin, colon - begin));
      begin = colon + 1;
    }
  }
  places.emplace_back(COSIMA_DEFAULT_FMU_DIR);
  std::string searched;
  for (const auto& place : places) {
    std::filesystem::path candidate = place / fmu;
    if (std::filesystem::exists(candidate)) return candidate;
    searched += (searched.empty() ? "" : ", ") + place.string();
  }
  throw Error(
      fmt::format("scenario '{}': FMU '{}' not found (searched {})", scenario_file.string(), fmu.string(), searched));
}

void apply_override(io::Json& document, const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw Error(fmt::format("--set '{}': expected PATH=VALUE", assignment));
  }
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  // a VALUE that is JSON is read as the scenario is (nesting and duplicate keys checked), else a text
  io::Json value = io::parse_json_if_json(text, fmt::format("--set '{}'", path)).value_or(io::Json(text));
  io::Json* node = &document;
  std::size_t begin = 0;
  while (true) {
    auto dot = path.find('.', begin);
    // a key with dots of its own (a nested system "sub.c"): the longest existing key the path goes on with
    if (node->is_object() && dot != std::string::npos && node->contains(path.substr(begin))) {
      dot = std::string::npos;
    } else if (node->is_object()) {
      for (auto end = path.rfind('.'); end != std::string::npos && end > dot; end = path.rfind('.', end - 1)) {
        if (node->contains(path.substr(begin, end - begin))) {
          dot = end;
          break;
        }
      }
    }
    const std::string key = path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (key.empty()) throw Error(fmt::format("--set '{}': empty key in the path", assignment));
    if (!node->is_object()) {
      throw Error(fmt::format("--set '{}': '{}' is not an object", assignment, path.substr(0, begin - 1)));
    }
    // the keys of "inputs" are "system.port": the rest of the path is one key
    if (dot == std::string::npos || (node == &document && key == "inputs")) {
      if (dot != std::string::npos) {
        io::Json& inputs = (*node)[key];
        if (inputs.is_null()) inputs = io::Json::object();
        if (!inputs.is_object()) throw Error(fmt::format("--set '{}': 'inputs' is not an object", assignment));
        inputs[path.substr(dot + 1)] = value;
        return;
      }
      (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    if (node->is_null()) *node = io::Json::object();
    begin = dot + 1;
  }
}

namespace {

/// The scenario's systems, in the document's order. A system that names no model is most often a
/// mistyped one (--set systems.prei.…): its error suggests the closest name.
std::vector<SystemSpec> parse_systems(const io::Json& systems, const std::filesystem::path& file) {
  std::vector<std::string> names;
  for (const auto& [name, object] : systems.items()) names.push_back(name);
  std::vector<SystemSpec> specs;
  for (const auto& [name, object] : systems.items()) {
    try {
      specs.push_back(parse_system(name, object, file));
    } catch (const Error& e) {
      const bool nameless =
          object.is_object() && !object.contains("model") && !object.contains("fmu") && !object.contains("csv");
      if (!nameless) throw;
      std::vector<std::string> others;
      for (const std::string& other : names) {
        if (other != name) others.push_back(other);
      }
      const std::string hint = did_you_mean(name, others);
      if (hint.empty()) throw;
      throw Error(fmt::format("{}{}", e.what(), hint));
    }
  }
  return specs;
}

}  // namespace

/// "connections": [["sys.output", "sys.input"], {"from": …, "to": …, "scale": …}, …].
std::vector<ConnectionSpec> parse_connections(const ObjectReader& top, const std::filesystem::path& file) {
  std::vector<ConnectionSpec> read;
  const io::Json& connections = top.at("connections");
  if (!connections.is_array()) top.fail("'connections' must be an array of [\"sys.output\", \"sys.input\"]");
  for (const io::Json& c : connections) {
    if (c.is_object()) {
      const ObjectReader connection(c, "connections[]", file, {"from", "to", "convert", "scale", "offset"});
      if (!connection.has("from") || !connection.has("to")) {
        top.fail(fmt::format("connection {} needs \"from\" and \"to\"", io::json_text(c)));
      }
      read.push_back({connection.text("from", ""),
                      connection.text("to", ""),
                      connection.flag("convert", false),
                      {connection.number("scale", 1.0), connection.number("offset", 0.0)}});
      continue;
    }
    if (!c.is_array() || c.size() != 2 || !c[0].is_string() || !c[1].is_string()) {
      top.fail(fmt::format("connection {} must be [\"sys.output\", \"sys.input\"] or {{\"from\": …, \"to\": …}}",
                           io::json_text(c)));
    }
    read.push_back({c[0].get<std::string>(), c[1].get<std::string>(), false, {}});
  }
  return read;
}

/// "inputs": {"sys.input": value or array of values}.
void parse_constant_inputs(const ObjectReader& top, Scenario& scenario) {
  const io::Json& inputs = top.at("inputs");
  if (!inputs.is_object()) top.fail("'inputs' must be an object {\"sys.input\": value}");
  for (const auto& [port, value] : inputs.items()) {
    if (value.is_array()) {
      scenario.input_array_shapes[port] = array_elements(value, port, top, "inputs." + port, scenario.constant_inputs);
    } else {
      scenario.constant_inputs[port] = scalar_value(value, top, "inputs." + port);
    }
  }
}

namespace {

/// "accuracy": when a run's coupling error warns, and when it diverges (methods/coupling_error.hpp).
methods::AccuracyOptions parse_accuracy(const io::Json& value, const std::filesystem::path& file) {
  const ObjectReader accuracy(value, "accuracy", file, {"threshold", "growth", "diverging_steps"});
  methods::AccuracyOptions options;
  options.threshold = accuracy.number("threshold", options.threshold);
  options.growth = accuracy.number("growth", options.growth);
  options.diverging_steps = accuracy.integer("diverging_steps", options.diverging_steps, 1, 1 << 30);
  for (const auto& [key, number] : {std::pair{"threshold", options.threshold}, std::pair{"growth", options.growth}}) {
    if (!(number > 0.0)) accuracy.fail(fmt::format("'accuracy.{}' must be positive, not {}", key, number));
  }
  return options;
}

}  // namespace

Scenario parse_scenario(const io::Json& document, const std::filesystem::path& file) {
  const ObjectReader top(document, "", file,
                         {"name", "description", "start", "stop", "systems", "connections", "inputs", "method",
                          "output", "log_level", "strict_inputs", "accuracy", "allow_divergence"});
  Scenario scenario;
  scenario.file = file;
  scenario.strict_inputs = top.flag("strict_inputs", false);
  scenario.name = top.text("name", file.stem().string());
  scenario.log_level = top.text("log_level", "");
  if (!scenario.log_level.empty() && !parse_log_level(scenario.log_level)) {
    top.fail(fmt::format("'log_level' is '{}'; give error, warning, info or debug", scenario.log_level));
  }
  if (!top.has("systems") || !top.at("systems").is_object() || top.at("systems").empty()) {
    top.fail("'systems' must be a non-empty object of named systems");
  }
  scenario.systems = parse_systems(top.at("systems"), file);
  if (top.has("connections")) scenario.connections = parse_connections(top, file);
  if (top.has("inputs")) parse_constant_inputs(top, scenario);
  scenario.method = top.has("method") ? top.at("method") : io::Json::object();
  if (!scenario.method.is_object()) top.fail("'method' must be an object");
  if (!scenario.method.contains("type")) scenario.method["type"] = "jacobi";
  std::optional<double> start, stop, dt;
  if (top.has("start")) start = top.number("start", 0.0);
  if (top.has("stop")) stop = top.number("stop", 1.0);
  if (scenario.method.contains("dt")) {
    if (!scenario.method["dt"].is_number()) top.fail("'method.dt' must be a number");
    dt = scenario.method["dt"].get<double>();
  }
  resolve_experiment(scenario, start, stop, dt);
  if (top.has("accuracy")) scenario.run.accuracy = parse_accuracy(top.at("accuracy"), file);
  scenario.run.accuracy.allow_divergence = top.flag("allow_divergence", false);
  if (top.has("output")) {
    const ObjectReader output(top.at("output"), "output", file, {"interval", "variables", "format"});
    if (output.has("format")) {
      const io::Json& format = output.at("format");
      if (!format.is_string() || (format != "csv" && format != "mat")) {
        output.fail(fmt::format("'output.format' is {}: \"csv\" or \"mat\" (MATLAB v4)", io::json_text(format)));
      }
      scenario.output.format = format.get<std::string>();
    }
    scenario.output.interval = output.number("interval", 0.0);
    if (!(scenario.output.interval >= 0.0) || !std::isfinite(scenario.output.interval)) {
      output.fail(fmt::format("'output.interval' must be a finite number ≥ 0, not {}", scenario.output.interval));
    }
    if (output.has("variables")) {
      for (const io::Json& v : output.at("variables")) {
        if (!v.is_string()) output.fail("'output.variables' must be an array of \"system.variable\"");
        scenario.output.variables.push_back(v.get<std::string>());
      }
    }
  }
  // defect-jacobi's rows between its steps are interpolated: its step grows without bound where the
  // defect is nil (uncoupled systems), so by default it is no longer than the rows' interval
  if (scenario.method.contains("type") && scenario.method["type"] == "defect-jacobi" &&
      scenario.output.interval > 0.0 && !scenario.method.contains("h_max")) {
    scenario.method["h_max"] = scenario.output.interval;
  }
  return scenario;
}

bool is_fmu_file(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".fmu";
}

std::string fmu_system_name(const std::filesystem::path& fmu) {
  std::string name = fmu.stem().string();
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') c = '_';
  }
  return name.empty() ? std::string("fmu") : name;
}

namespace {

/// An FMU on its own as a scenario, as FMPy simulates one: one system named after the file, the
/// FMU's DefaultExperiment, every input at its start value, every output recorded.
ScenarioDocument fmu_scenario_document(const std::filesystem::path& file) {
  ScenarioDocument read;
  read.document = io::Json::object();
  read.document["name"] = file.stem().string();
  read.document["systems"] = io::Json::object();
  read.document["systems"][fmu_system_name(file)] = {{"fmu", std::filesystem::absolute(file).string()}};
  return read;
}

/// --start-values of an FMU run on its own, as the parameters of its system.
void set_start_values(io::Json& document, const std::filesystem::path& file, const std::vector<std::string>& values) {
  for (const std::string& assignment : values) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw Error(fmt::format("start value '{}': expected NAME=VALUE", assignment));
    }
    const std::string text = assignment.substr(equals + 1);
    document["systems"][fmu_system_name(file)]["parameters"][assignment.substr(0, equals)] =
        io::parse_json_if_json(text, fmt::format("start value '{}'", assignment)).value_or(io::Json(text));
  }
}

/// --input of an FMU run on its own: a CSV source whose columns drive the inputs of the same names
/// (FMPy's input files), continuous Real inputs interpolated linearly, the others held.
void drive_from_csv(io::Json& document, const std::filesystem::path& file, const std::filesystem::path& csv) {
  const std::string system = fmu_system_name(file);
  const fmi::ModelDescription md = fmi::read_model_description(file);
  std::map<std::string, const fmi::ScalarVariable*> inputs;
  std::set<std::string> input_names;
  for (const fmi::ScalarVariable& v : md.variables) {
    if (v.causality != "input") continue;
    inputs.emplace(v.name, &v);
    input_names.insert(v.name);
  }
  const io::Table table = io::read_csv(csv);
  const std::string source = system == "input" ? "input_csv" : "input";
  io::Json interpolation = {{"default", "linear"}};
  for (const std::string& column : table.columns) {
    const auto input = inputs.find(column);
    if (input == inputs.end()) {
      throw Error(fmt::format("input file '{}': column '{}' names no input of FMU '{}' (inputs: {}){}", csv.string(),
                              column, file.string(), input_names.empty() ? "none" : join(input_names),
                              did_you_mean(column, std::vector<std::string>(input_names.begin(), input_names.end()))));
    }
    const fmi::VariableType type = input->second->type;
    const bool real = type == fmi::VariableType::real || type == fmi::VariableType::float32;
    if (!real || input->second->variability != "continuous") interpolation[column] = "hold";
    // the table's numbers take the input's type, as FMPy casts each column (an Integer, Boolean or
    // Enumeration input takes whole values, checked at each step)
    document["connections"].push_back({{"from", fmt::format("{}.{}", source, column)},
                                       {"to", fmt::format("{}.{}", system, column)},
                                       {"convert", !real}});
  }
  document["systems"][source] = {{"csv", std::filesystem::absolute(csv).string()}, {"interpolation", interpolation}};
}

/// The stop of an FMU run on its own that neither the command nor the FMU gives: start + 1 (FMPy's).
void guess_single_fmu_stop(ScenarioDocument& read, const std::filesystem::path& file) {
  if (read.document.contains("stop")) return;
  const fmi::DefaultExperiment experiment = fmi::read_model_description(file).default_experiment;
  if (experiment.stop_time) return;
  const double start = read.document.contains("start") && read.document["start"].is_number()
                           ? read.document["start"].get<double>()
                           : experiment.start_time.value_or(0.0);
  read.document["stop"] = start + 1.0;
  note_guess(
      read.guessed,
      fmt::format("stop = {}: start + 1, as the FMU's DefaultExperiment gives no stopTime (--stop)", start + 1.0));
}

}  // namespace

ScenarioDocument read_scenario_document(const std::filesystem::path& file, const std::string& ssd_name) {
  if (ssp::is_ssd(file) || (!ssd_name.empty() && std::filesystem::is_directory(file))) {
    ssp::SspImport ssd = ssp::read_ssd(file, ssd_name);
    return {
        .document = std::move(ssd.document), .resources = std::move(ssd.resources), .sources = std::move(ssd.files)};
  }
  const auto no_ssd_name = [&] {
    if (!ssd_name.empty())
      throw Error(fmt::format("scenario '{}': --ssd '{}' picks an SSD of an SSP package (.ssp) or folder",
                              file.string(), ssd_name));
  };
  if (ssp::is_osp_configuration(file)) {  // OspSystemStructure.xml (libcosim)
    no_ssd_name();
    ssp::SspImport osp = ssp::read_osp(file);
    return {.document = std::move(osp.document), .resources = nullptr, .sources = std::move(osp.files)};
  }
  if (std::filesystem::is_directory(file)) {
    throw Error(
        fmt::format("scenario '{}' is a directory without a SystemStructure.ssd or OspSystemStructure.xml; give a "
                    "scenario .json, .fmu, .ssp, .ssd or OspSystemStructure.xml file",
                    file.string()));
  }
  if (is_fmu_file(file)) {
    no_ssd_name();
    return fmu_scenario_document(file);
  }
  if (ssp::is_ssp_file(file)) {
    ssp::SspImport package = ssp::read_ssp(file, ssd_name);  // (its files are in a private folder)
    return {std::move(package.document), std::move(package.resources)};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot open scenario '{}'", file.string()));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  io::Json document = io::parse_json(text, fmt::format("scenario '{}'", file.string()));
  if (!document.is_object() || !document.contains("ssp")) {
    no_ssd_name();
    return {std::move(document), nullptr};
  }
  // an SSP as the base, the JSON's other keys on top
  if (!document["ssp"].is_string()) throw Error(fmt::format("scenario '{}': 'ssp' must be a file name", file.string()));
  const std::filesystem::path package_file = file.parent_path() / document["ssp"].get<std::string>();
  if (!ssp::is_ssp_file(package_file)) {
    throw Error(fmt::format("scenario '{}': 'ssp' names '{}', which is not an .ssp package", file.string(),
                            package_file.string()));
  }
  ssp::SspImport package = ssp::read_ssp(package_file, ssd_name);
  document.erase("ssp");
  if (document.contains("connections") && document["connections"].is_array() &&
      package.document.contains("connections")) {
    io::Json connections = package.document["connections"];
    for (const io::Json& c : document["connections"]) connections.push_back(c);
    document["connections"] = std::move(connections);
  }
  package.document.merge_patch(document);
  return {
      .document = std::move(package.document), .resources = std::move(package.resources), .sources = {package_file}};
}

Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                       const FmuRunOptions& fmu_run, const std::string& ssd_name) {
  ScenarioDocument read = read_scenario_document(file, ssd_name);
  if ((!fmu_run.start_values.empty() || !fmu_run.input.empty()) && !is_fmu_file(file)) {
    throw Error(
        fmt::format("start values and input files are for an FMU run on its own (cosima run X.fmu); in "
                    "scenario '{}' use --set systems.NAME.parameters.VARIABLE=VALUE and a \"csv\" system",
                    file.string()));
  }
  set_start_values(read.document, file, fmu_run.start_values);
  if (!fmu_run.input.empty()) drive_from_csv(read.document, file, fmu_run.input);
  for (const auto& assignment : overrides) apply_override(read.document, assignment);
  if (is_fmu_file(file)) guess_single_fmu_stop(read, file);
  Scenario scenario = parse_scenario(read.document, file);
  scenario.resources = std::move(read.resources);
  scenario.sources = std::move(read.sources);
  scenario.guessed.insert(scenario.guessed.begin(), read.guessed.begin(), read.guessed.end());
  return scenario;
}

std::vector<std::filesystem::path> files_read(const Scenario& scenario) {
  std::vector<std::filesystem::path> files = {scenario.file};
  files.insert(files.end(), scenario.sources.begin(), scenario.sources.end());
  for (const SystemSpec& system : scenario.systems) {
    if (!system.fmu.empty()) files.push_back(system.fmu);
    if (!system.csv.empty()) files.push_back(system.csv);
  }
  return files;
}

}  // namespace cosima::scenario
