// The Python module `cosima`: load a scenario (file or dict), override its values by dot path, run it
// with any method and executor the command line offers, and read the results as numpy arrays.
//
//   import cosima
//   s = cosima.load("examples/b3_lotka_volterra.json", overrides={"stop": 2})
//   r = s.run(method="ifosmondi-jfm", dt=1e-2)
//   r.time, r["prey.p"], r.stats["macro_steps"]
//
// A Scenario keeps what it was loaded from (the file and the overrides applied since, or the JSON
// document of a dict) and is parsed again for every run, so an override acts exactly as `--set`.
// Errors of cosima (cosima::Error) are raised as cosima.Error, a RuntimeError, with cosima's message.
#include <fmt/format.h>
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/cosima.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "core/whole_number.hpp"
#include "scenario_json.hpp"

#ifndef COSIMA_VERSION
#define COSIMA_VERSION "unknown"
#endif

namespace py = pybind11;
using namespace pybind11::literals;  // NOLINT(google-build-using-namespace): "name"_a

namespace {

using cosima::io::Json;

// --- JSON ⇄ Python --------------------------------------------------------------------------------

using cosima::python::to_json;

py::object from_json(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return py::none();
    case Json::value_t::boolean: return py::bool_(value.get<bool>());
    case Json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case Json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case Json::value_t::number_float: return py::float_(value.get<double>());
    case Json::value_t::string: return py::str(value.get<std::string>());
    case Json::value_t::array: {
      py::list list;
      for (const auto& item : value) list.append(from_json(item));
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = from_json(item);
      return dict;
    }
    default: return py::none();  // binary, discarded: not in scenarios or stats
  }
}

/// "PATH=VALUE" for apply_override, VALUE as JSON text (a str stays a str, a float keeps every bit).
std::string assignment(const std::string& path, const py::handle& value) {
  return path + "=" + to_json(value, path).dump(-1, ' ', false, Json::error_handler_t::strict);
}

std::vector<std::string> assignments(const std::optional<py::dict>& overrides) {
  std::vector<std::string> out;
  if (!overrides) return out;
  for (const auto& [key, value] : *overrides) {
    if (!py::isinstance<py::str>(key)) {
      throw py::type_error(
          fmt::format("overrides: keys are dot paths (str), not {}", py::repr(key).cast<std::string>()));
    }
    out.push_back(assignment(key.cast<std::string>(), value));
  }
  return out;
}

// --- Scenario ---------------------------------------------------------------------------------------

/// What a scenario was loaded from; parsed again, with the overrides, whenever it is used.
class PyScenario {
 public:
  /// A scenario file (JSON, or any kind load_scenario reads).
  PyScenario(std::filesystem::path file, std::vector<std::string> overrides)
      : file_(std::move(file)), overrides_(std::move(overrides)) {
    reparse();
  }
  /// A document; relative FMU paths are resolved against `anchor`'s folder.
  PyScenario(Json document, std::filesystem::path anchor, const std::vector<std::string>& overrides)
      : document_(std::move(document)), anchor_(std::move(anchor)) {
    for (const auto& a : overrides) cosima::scenario::apply_override(*document_, a);
    reparse();
  }

  /// The scenario with `extra` overrides applied after the scenario's own (not kept).
  [[nodiscard]] cosima::scenario::Scenario parse(const std::vector<std::string>& extra = {}) const {
    if (document_) {
      Json document = *document_;
      for (const auto& a : extra) cosima::scenario::apply_override(document, a);
      return cosima::scenario::parse_scenario(document, anchor_);
    }
    std::vector<std::string> all = overrides_;
    all.insert(all.end(), extra.begin(), extra.end());
    return cosima::scenario::load_scenario(*file_, all);
  }

  /// Applies one override; the scenario is left unchanged when the result does not parse.
  void set(const std::string& override_text) {
    if (document_) {
      Json document = *document_;
      cosima::scenario::apply_override(document, override_text);
      parsed_ = cosima::scenario::parse_scenario(document, anchor_);
      document_ = std::move(document);
    } else {
      std::vector<std::string> all = overrides_;
      all.push_back(override_text);
      parsed_ = cosima::scenario::load_scenario(*file_, all);
      overrides_ = std::move(all);
    }
  }

  [[nodiscard]] const cosima::scenario::Scenario& parsed() const { return parsed_; }
  [[nodiscard]] const std::optional<std::filesystem::path>& file() const { return file_; }
  [[nodiscard]] const std::optional<Json>& document() const { return document_; }
  [[nodiscard]] const std::vector<std::string>& overrides() const { return overrides_; }

 private:
  void reparse() {
    const py::gil_scoped_release release;
    parsed_ = parse();
  }

  std::optional<std::filesystem::path> file_;
  std::vector<std::string> overrides_;  ///< file: applied in order at each reading
  std::optional<Json> document_;        ///< dict: the overrides already applied
  std::filesystem::path anchor_;
  cosima::scenario::Scenario parsed_;
};

/// A path (str, bytes, os.PathLike) or a dict → a scenario, with the assignments `extra` ("PATH=VALUE").
std::unique_ptr<PyScenario> load_assigned(const py::handle& source, std::vector<std::string> extra) {
  if (py::isinstance<py::dict>(source)) {
    // relative FMU paths: against the current directory at load time
    Json document = to_json(source, "");
    auto anchor = std::filesystem::current_path() / "<dict>";
    return std::make_unique<PyScenario>(std::move(document), std::move(anchor), extra);
  }
  const py::module_ os = py::module_::import("os");
  if (!py::isinstance<py::str>(source) && !py::isinstance<py::bytes>(source) &&
      !py::isinstance(source, os.attr("PathLike"))) {
    throw py::type_error(fmt::format("cosima.load: expected a path (str, os.PathLike) or a dict, not {}",
                                     py::type::of(source).attr("__name__").cast<std::string>()));
  }
  const py::object path = os.attr("fsdecode")(source);
  return std::make_unique<PyScenario>(std::filesystem::path(path.cast<std::string>()), std::move(extra));
}

/// A path (str, bytes, os.PathLike) or a dict → a scenario, with `overrides`.
std::unique_ptr<PyScenario> load(const py::handle& source, const std::optional<py::dict>& overrides) {
  return load_assigned(source, assignments(overrides));
}

// --- Result -----------------------------------------------------------------------------------------

/// One column as the run recorded it: numbers, texts (String outputs), or exact 64-bit integers.
struct Column {
  std::string label;
  std::vector<double> numbers;
  std::optional<std::vector<std::string>> texts;
  std::optional<std::vector<cosima::WideInteger>> wides;
};

/// 64-bit integers as a numpy array of dtype uint64 (all unsigned) or int64, exactly.
py::object wide_array(const std::vector<cosima::WideInteger>& values) {
  const bool all_unsigned =
      std::all_of(values.begin(), values.end(), [](const cosima::WideInteger& v) { return v.is_unsigned(); });
  py::list items;
  for (const cosima::WideInteger& v : values) {
    if (v.negative())
      items.append(py::int_(*v.as_int64()));
    else
      items.append(py::int_(*v.as_uint64()));
  }
  return py::module_::import("numpy").attr("array")(items, "dtype"_a = all_unsigned ? "uint64" : "int64");
}

class PyResult {
 public:
  PyResult(const std::vector<double>& time, std::vector<Column> columns, const Json& stats,
           const std::vector<std::string>& warnings)
      : time_(as_array(time)), stats_(from_json(stats)) {
    for (auto& c : columns) {
      labels_.push_back(c.label);
      if (c.texts) {
        py::list texts;
        for (const auto& text : *c.texts) texts.append(py::str(text));
        values_.emplace_back(py::module_::import("numpy").attr("array")(texts, "dtype"_a = "O"));
      } else if (c.wides) {
        values_.emplace_back(wide_array(*c.wides));
      } else {
        values_.emplace_back(as_array(c.numbers));
      }
    }
    for (const auto& w : warnings) warnings_.append(py::str(w));
  }

  [[nodiscard]] py::object time() const { return time_; }
  [[nodiscard]] py::object column(const std::string& label) const {
    if (label == "time") return time_;
    for (std::size_t c = 0; c < labels_.size(); ++c) {
      if (labels_[c] == label) return values_[c];
    }
    std::string known = "time";
    for (const auto& l : labels_) known += ", " + l;
    throw py::key_error(fmt::format("no column '{}' in the result (columns: {})", label, known));
  }
  [[nodiscard]] bool contains(const std::string& label) const {
    return label == "time" || std::find(labels_.begin(), labels_.end(), label) != labels_.end();
  }
  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }
  [[nodiscard]] py::object stats() const { return stats_; }
  [[nodiscard]] py::list warnings() const { return warnings_; }
  [[nodiscard]] py::ssize_t rows() const { return py::len(time_); }
  [[nodiscard]] py::dict to_dict() const {
    py::dict out;
    out["time"] = time_;
    for (std::size_t c = 0; c < labels_.size(); ++c) out[py::str(labels_[c])] = values_[c];
    return out;
  }

 private:
  static py::array_t<double> as_array(const std::vector<double>& values) {
    return py::array_t<double>(static_cast<py::ssize_t>(values.size()), values.data());
  }

  py::object time_;
  std::vector<std::string> labels_;
  std::vector<py::object> values_;
  py::object stats_;
  py::list warnings_;
};

// --- Running ----------------------------------------------------------------------------------------

/// What a run leaves for Python, gathered without the GIL.
struct RunData {  // NOLINT(bugprone-exception-escape): reported on the implicit special members of this aggregate
  std::vector<double> time;
  std::vector<Column> columns;
  Json stats;
  std::vector<std::string> warnings;
};

/// The log level of a scenario ("log_level") for the time of a run.
class LogLevelScope {
 public:
  explicit LogLevelScope(const std::string& level) : saved_(cosima::log_level()) {
    if (const auto parsed = cosima::parse_log_level(level)) cosima::set_log_level(*parsed);
  }
  ~LogLevelScope() { cosima::set_log_level(saved_); }
  LogLevelScope(const LogLevelScope&) = delete;
  LogLevelScope& operator=(const LogLevelScope&) = delete;

 private:
  cosima::LogLevel saved_;
};

/// Python's Ctrl-C during a run that released the GIL: Python's handler only notes the signal, and
/// Python code runs it. At communication points, every 50 ms, this takes the GIL and lets Python
/// run its handlers; a KeyboardInterrupt raised there becomes a stop request (the run ends at this
/// point, its results kept), and is raised again, with them, when the run is over.
class PythonInterrupts final : public cosima::observer::Observer {
 public:
  void on_step(const cosima::model::ModularModel& /*model*/, double /*t*/,
               const cosima::methods::StepReport& /*report*/) override {
    if (++steps_ % kStride != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - checked_ < std::chrono::milliseconds(50)) return;
    checked_ = now;
    const py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return;
    if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) != 0) {
      PyErr_Clear();
      interrupted_ = true;
      cosima::request_stop(SIGINT);
    }
    // another exception from a handler: left for Python, raised when the run returns
  }
  [[nodiscard]] bool interrupted() const { return interrupted_; }

 private:
  static constexpr std::int64_t kStride = 64;  ///< communication points between two clock reads
  std::int64_t steps_ = 0;
  std::chrono::steady_clock::time_point checked_ = std::chrono::steady_clock::now();
  bool interrupted_ = false;
};

/// When Python noted a Ctrl-C while the run waited on another process (steady-clock ticks; 0: none).
std::atomic<std::int64_t> g_ctrl_c_at{0};

/// cosima's interrupt poll during a run (cosima::set_interrupt_poll), asked while a wait on another
/// process sleeps: takes the GIL and lets Python run its signal handlers. A KeyboardInterrupt asks
/// the run to stop at its next communication point, as PythonInterrupts does; a wait still going a
/// second later (a hung FMU) is abandoned — the executor kills the process waited on, and the run's
/// error is raised as KeyboardInterrupt.
bool poll_python_signals() {
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  if (const std::int64_t at = g_ctrl_c_at.load(); at != 0) {
    return std::chrono::steady_clock::duration(now - at) > std::chrono::seconds(1);
  }
  const py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) == 0) return false;  // another error: raised later
  PyErr_Clear();
  g_ctrl_c_at = now;
  cosima::request_stop(SIGINT);
  return false;
}

RunData run_parsed(cosima::scenario::Scenario scenario, const std::string& executor_spec,
                   std::optional<double> fmu_timeout, PythonInterrupts* interrupts) {
  const LogLevelScope log_level(scenario.log_level);
  cosima::api::Launch launch(
      std::move(scenario),
      {.executor = executor_spec,
       .fmu_timeout = fmu_timeout,
       .mpi_refusal = "executor 'mpi' runs under mpirun with the cosima command (mpirun -n N build/cosima run ... "
                      "--executor mpi); from Python use sequential, threads:N or processes[:N]"});
  // results kept in memory (no step log: not exposed), no files
  const cosima::scenario::RunOutputs outputs{.keep_step_log = false, .observers = {interrupts}};
  cosima::scenario::ScenarioRun run = launch.run(outputs);
  launch.finish();  // the processes end here
  RunData data;
  const cosima::observer::ResultRecorder& results = *run.results;
  data.time = results.times();
  const std::size_t rows = data.time.size();
  for (std::size_t c = 0; c < results.labels().size(); ++c) {
    Column column{.label = results.labels()[c], .numbers = {}, .texts = std::nullopt, .wides = std::nullopt};
    if (results.is_text(c)) {
      column.texts.emplace();
      column.texts->reserve(rows);
      for (std::size_t r = 0; r < rows; ++r) column.texts->push_back(results.text(r, c));
    } else if (results.is_wide(c)) {  // exact, as int64 / uint64 (a row without an exact value: its double's)
      column.wides.emplace();
      for (std::size_t r = 0; r < rows; ++r) {
        column.wides->push_back(results.wide(r, c).value_or(
            cosima::WideInteger::of_double(results.value(r, c)).value_or(cosima::WideInteger{})));
      }
    } else {
      column.numbers.reserve(rows);
      for (std::size_t r = 0; r < rows; ++r) column.numbers.push_back(results.value(r, c));
    }
    data.columns.push_back(std::move(column));
  }
  data.stats = cosima::scenario::stats_to_json(run.stats);
  data.warnings = std::move(run.warnings);
  return data;
}

/// run()'s keyword arguments as assignments, in the command line's order: --set first, then
/// --method, --dt, --stop.
std::vector<std::string> run_assignments(const std::optional<std::string>& method, std::optional<double> dt,
                                         std::optional<double> stop, const std::optional<py::dict>& overrides) {
  std::vector<std::string> extra = assignments(overrides);
  if (method) extra.push_back(assignment("method.type", py::str(*method)));
  if (dt) extra.push_back(assignment("method.dt", py::float_(*dt)));
  if (stop) extra.push_back(assignment("stop", py::float_(*stop)));
  return extra;
}

PyResult run(const PyScenario& source, const std::optional<std::string>& method, std::optional<double> dt,
             std::optional<double> stop, const std::string& executor, const std::optional<py::dict>& overrides,
             std::optional<double> fmu_timeout, bool just_loaded = false) {
  const std::vector<std::string> extra = run_assignments(method, dt, stop, overrides);
  // parsed with the GIL held: another thread may call set() on the same scenario. `just_loaded`: as
  // parsed at loading (parsing again would repeat its warnings)
  cosima::scenario::Scenario scenario = just_loaded ? source.parsed() : source.parse(extra);
  RunData data;
  PythonInterrupts interrupts;
  {
    const py::gil_scoped_release release;
    struct ForgetStop {  // however the run ends, the next one starts without the request or the poll
      ~ForgetStop() {
        cosima::clear_stop_request();
        cosima::set_interrupt_poll(nullptr);
      }
    } forget;
    g_ctrl_c_at = 0;
    cosima::set_interrupt_poll(&poll_python_signals);  // a wait on a hung process: Ctrl-C within a second
    try {
      data = run_parsed(std::move(scenario), executor, fmu_timeout, &interrupts);
    } catch (const cosima::Error&) {
      if (g_ctrl_c_at == 0) throw;
      const py::gil_scoped_acquire gil;
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
  }
  PyResult result{data.time, std::move(data.columns), data.stats, data.warnings};
  if (interrupts.interrupted() || g_ctrl_c_at != 0) {
    // KeyboardInterrupt(result): the rows up to where it stopped, the stats saying so
    PyErr_SetObject(PyExc_KeyboardInterrupt, py::cast(std::move(result)).ptr());
    throw py::error_already_set();
  }
  return result;
}

/// An optional number as a Python float or None.
py::object number_or_none(const std::optional<double>& value) {
  return value ? py::object(py::float_(*value)) : py::none();
}

/// What an interface declares (FMI 2.0 §3.3 / §4.3, FMI 3.0 §3 / §4), named as in Python.
py::dict interface_dict(const cosima::fmi::InterfaceCapabilities& common) {
  py::dict out;
  out["model_identifier"] = common.model_identifier;
  out["can_get_and_set_fmu_state"] = common.can_get_and_set_state;
  out["provides_directional_derivative"] = common.provides_directional_derivative;
  out["needs_execution_tool"] = common.needs_execution_tool;
  out["can_be_instantiated_only_once_per_process"] = common.only_once_per_process;
  return out;
}

/// One variable: name, value reference, type, causality, variability, initial, start (a float for a
/// numeric scalar, else its text), unit, description, declared type, shape (arrays), negated_alias
/// (FMI 1.0, when true).
py::dict variable_dict(const cosima::fmi::ModelDescription& md, const cosima::fmi::ScalarVariable& v) {
  py::dict out;
  out["name"] = v.name;
  out["value_reference"] = v.value_reference;
  out["type"] = std::string(md.type_name(v.type));
  out["causality"] = v.causality;
  out["variability"] = v.variability;
  out["initial"] = v.initial.empty() ? py::object(py::none()) : py::object(py::str(v.initial));
  py::object start = py::none();
  if (v.start) {
    const cosima::PortInfo info = md.port_info(v);
    const bool numeric = info.kind != cosima::PortKind::string && v.dimensions.empty() && info.start;
    start = numeric ? py::object(py::float_(*info.start)) : py::object(py::str(*v.start));
  }
  out["start"] = start;
  out["unit"] = v.unit;
  out["description"] = v.description;
  out["declared_type"] = v.declared_type;
  if (!v.dimensions.empty()) out["shape"] = md.shape(v);
  if (v.negated_alias) out["negated_alias"] = true;
  return out;
}

/// cosima.info(): the modelDescription as a dict.
py::dict fmu_info_dict(const std::string& file) {
  const cosima::fmi::ModelDescription md = cosima::fmi::read_model_description(file);
  py::dict out;
  out["file"] = file;
  out["fmi_version"] = md.fmi_version;
  out["model_name"] = md.model_name;
  out["description"] = md.description;
  out["guid"] = md.guid;
  out["generation_tool"] = md.generation_tool;
  py::dict interfaces;
  if (const auto& cs = md.co_simulation) {
    py::dict d = interface_dict(*cs);
    d["can_handle_variable_communication_step_size"] = cs->can_handle_variable_step;
    d["can_interpolate_inputs"] = cs->can_interpolate_inputs;
    d["max_output_derivative_order"] = cs->max_output_derivative_order;
    interfaces["co_simulation"] = d;
  }
  if (const auto& me = md.model_exchange) {
    py::dict d = interface_dict(*me);
    d["completed_integrator_step_not_needed"] = me->completed_integrator_step_not_needed;
    d["number_of_event_indicators"] = md.event_indicator_count;
    interfaces["model_exchange"] = d;
  }
  out["interfaces"] = interfaces;
  const auto& de = md.default_experiment;
  out["default_experiment"] = py::dict(
      py::arg("start_time") = number_or_none(de.start_time), py::arg("stop_time") = number_or_none(de.stop_time),
      py::arg("tolerance") = number_or_none(de.tolerance), py::arg("step_size") = number_or_none(de.step_size));
  py::list variables;
  for (const cosima::fmi::ScalarVariable& v : md.variables) variables.append(variable_dict(md, v));
  out["variables"] = variables;
  return out;
}

std::vector<std::string> method_list() {
  std::vector<std::string> names;
  const std::string text = cosima::methods::method_names();  // "a, b, c"
  for (std::size_t begin = 0; begin < text.size();) {
    const auto comma = std::min(text.find(", ", begin), text.size());
    names.push_back(text.substr(begin, comma - begin));
    begin = comma + 2;
  }
  // the requests resolved from the systems' capabilities (methods/method_choice.hpp)
  names.emplace_back("auto");
  names.emplace_back("auto:fast");
  return names;
}

constexpr const char* kRunDoc = R"(Runs the scenario and returns a Result.

method    a method name (cosima.methods(); "auto" picks one from the systems' capabilities)
dt        the macro-step (δt_ref of the variable-step methods)
stop      the end time
executor  "sequential", "threads:N" or "processes[:N]" (as the command's --executor; not "mpi")
overrides {"dot.path": value}: overrides for this run only (method, dt, stop are applied after them)
fmu_timeout  seconds an FMU call may take under executor "processes"
The GIL is released while the run goes.)";

}  // namespace

PYBIND11_MODULE(cosima, m) {  // NOLINT
  m.doc() = "cosima — a co-simulation master: load scenarios, run them, results as numpy arrays";
  m.attr("__version__") = COSIMA_VERSION;

  // cosima::Error and its subclasses (CapabilityError); other C++ exceptions keep pybind11's mapping
  // (std::exception → RuntimeError)
  auto error = py::register_exception<cosima::Error>(m, "Error", PyExc_RuntimeError);
  error.attr("__doc__") =
      "An error cosima reports (bad scenario, bad FMU, solver failure, ...), with cosima's message.";

  py::class_<PyResult>(m, "Result", "The results of a run: time and the recorded columns as numpy arrays, stats.")
      .def_property_readonly("time", &PyResult::time, "The output times (numpy float64 array).")
      .def_property_readonly("columns", &PyResult::labels, "The recorded variables 'system.variable' (without time).")
      .def_property_readonly("stats", &PyResult::stats,
                             "The run's statistics as a dict (macro_steps, rejected_steps, iterations, ...), "
                             "as `cosima run --stats` writes them.")
      .def_property_readonly("warnings", &PyResult::warnings, "Notes of the run (e.g. method options not used).")
      .def("__getitem__", &PyResult::column, py::arg("column"),
           "The values of a column ('system.variable', or 'time') as a numpy array; KeyError names the columns.")
      .def("__contains__", &PyResult::contains, py::arg("column"), "Whether the result has this column.")
      .def("__len__", &PyResult::rows, "The number of output rows.")
      .def("to_dict", &PyResult::to_dict, "{'time': array, 'system.variable': array, ...}")
      .def("__repr__", [](const PyResult& r) {
        return fmt::format("<cosima.Result: {} rows, {} columns>", r.rows(), r.labels().size());
      });

  py::class_<PyScenario>(
      m, "Scenario", "A scenario (file or dict) with its overrides; parsed again for every run. Made by cosima.load.")
      .def_property_readonly(
          "name", [](const PyScenario& s) { return s.parsed().name; }, "The scenario's name.")
      .def_property_readonly(
          "systems",
          [](const PyScenario& s) {
            std::vector<std::string> names;
            for (const auto& spec : s.parsed().systems) names.push_back(spec.name);
            return names;
          },
          "The names of the systems, in the scenario's order.")
      .def_property_readonly(
          "method", [](const PyScenario& s) { return from_json(s.parsed().method); },
          "The method as a dict {'type': ..., 'dt': ..., options...} (a copy: change it with set).")
      .def_property_readonly(
          "start", [](const PyScenario& s) { return s.parsed().run.start; }, "The start time.")
      .def_property_readonly(
          "stop", [](const PyScenario& s) { return s.parsed().run.stop; }, "The stop time.")
      .def_property_readonly(
          "dt", [](const PyScenario& s) { return s.parsed().run.dt; }, "The macro-step (method.dt).")
      .def_property_readonly(
          "file",
          [](const PyScenario& s) -> py::object {
            if (!s.file()) return py::none();
            return py::str(s.file()->string());
          },
          "The scenario file, or None for a scenario given as a dict.")
      .def(
          "set",
          [](PyScenario& s, const std::string& path, const py::object& value) {
            s.set(assignment(path, value));  // with the GIL held: the scenario may be shared between threads
          },
          py::arg("path"), py::arg("value"),
          "Overrides one value by its dot path, as `cosima run --set PATH=VALUE`, e.g. "
          "set('systems.prey.parameters.alpha', 0.7). Raises cosima.Error (and changes nothing) when the "
          "scenario no longer parses.")
      .def(
          "to_dict",
          [](const PyScenario& s) -> py::object {
            if (s.document()) return from_json(*s.document());
            throw cosima::Error("the scenario was loaded from a file: its document is read at each run");
          },
          "The JSON document of a scenario given as a dict, overrides applied.")
      .def(
          "run",
          [](const PyScenario& s, const std::optional<std::string>& method, std::optional<double> dt,
             std::optional<double> stop, const std::string& executor, const std::optional<py::dict>& overrides,
             std::optional<double> fmu_timeout) { return run(s, method, dt, stop, executor, overrides, fmu_timeout); },
          py::arg("method") = py::none(), py::arg("dt") = py::none(), py::arg("stop") = py::none(),
          py::arg("executor") = "sequential", py::arg("overrides") = py::none(), py::arg("fmu_timeout") = py::none(),
          kRunDoc)
      .def("__repr__", [](const PyScenario& s) {
        return fmt::format("<cosima.Scenario '{}': {} systems>", s.parsed().name, s.parsed().systems.size());
      });

  m.def("load", &load, py::arg("source"), py::arg("overrides") = py::none(),
        "Loads a scenario: a path (str or os.PathLike) to a scenario file, or a dict of the same JSON "
        "(relative FMU paths then resolve against the current directory). overrides: {'dot.path': value}, "
        "applied as `cosima run --set`. Raises cosima.Error naming what is wrong.");

  m.def(
      "run",
      [](const py::object& source, const std::optional<std::string>& method, std::optional<double> dt,
         std::optional<double> stop, const std::string& executor, const std::optional<py::dict>& overrides,
         std::optional<double> fmu_timeout) {
        if (py::isinstance<PyScenario>(source)) {
          return run(source.cast<const PyScenario&>(), method, dt, stop, executor, overrides, fmu_timeout);
        }
        // a file or dict is read once, with the keyword arguments (its warnings said once)
        const auto scenario = load_assigned(source, run_assignments(method, dt, stop, overrides));
        return run(*scenario, std::nullopt, std::nullopt, std::nullopt, executor, std::nullopt, fmu_timeout, true);
      },
      py::arg("scenario"), py::arg("method") = py::none(), py::arg("dt") = py::none(), py::arg("stop") = py::none(),
      py::arg("executor") = "sequential", py::arg("overrides") = py::none(), py::arg("fmu_timeout") = py::none(),
      (std::string("Runs a Scenario, or a scenario file or dict (loaded as cosima.load does).\n\n") + kRunDoc).c_str());

  m.def(
      "info",
      [](const py::object& path, bool text) -> py::object {
        const std::string file = py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
        if (!text) return fmu_info_dict(file);
        std::string described;
        {
          const py::gil_scoped_release release;
          described = cosima::fmi::describe_fmu(file);
        }
        return py::str(described);
      },
      py::arg("fmu"), py::arg("text") = false,
      "An FMU's description, read from its modelDescription.xml only (nothing is unpacked): a dict with "
      "fmi_version, model_name, description, guid, generation_tool, interfaces (co_simulation, model_exchange: "
      "what each declares), default_experiment and variables (dicts: name, value_reference, type, causality, "
      "variability, initial, start, unit, description, declared_type, shape for arrays, negated_alias in FMI 1.0). "
      "text=True: the text "
      "of `cosima info`.");

  m.def(
      "models",
      [] {
        py::list out;
        for (const auto& entry : cosima::models::catalog()) {
          const auto model = cosima::models::make_model(entry.name);
          const auto& structure = model->structure();
          py::dict parameters;
          for (const auto& p : structure.parameters) parameters[py::str(p.name)] = p.value;
          py::dict item;
          item["name"] = entry.name;
          item["description"] = entry.description;
          item["states"] = structure.states;
          item["inputs"] = structure.inputs;
          item["outputs"] = structure.outputs;
          item["parameters"] = parameters;
          out.append(item);
        }
        return out;
      },
      "The built-in models (as `cosima models`): dicts with name, description, states, inputs, outputs and "
      "parameters (name → default).");

  // plot(): matplotlib, optional (Debian python3-matplotlib), imported only when called
  py::exec(R"py(
def plot(result, variables=None, file=None, title=None):
    """Plots a Result's columns against time with matplotlib and returns the Figure.

    variables  the columns to draw (default: every numeric column)
    file       write the figure there (PNG, SVG, PDF: by its extension) instead of keeping it open
    title      the figure's title

    Raises cosima.Error naming the missing package when matplotlib is not installed
    (Debian: python3-matplotlib)."""
    try:
        import matplotlib
        if file is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError as missing:
        raise Error("cosima.plot needs matplotlib (Debian: apt-get install python3-matplotlib)") from missing
    names = list(variables) if variables is not None else [c for c in result.columns if result[c].dtype.kind == "f"]
    figure, axes = pyplot.subplots()
    for name in names:
        axes.plot(result.time, result[name], label=name)
    axes.set_xlabel("time [s]")
    axes.grid(True)
    if names:
        axes.legend()
    if title is not None:
        axes.set_title(title)
    if file is not None:
        figure.savefig(file)
        pyplot.close(figure)
    return figure
)py",
           m.attr("__dict__"));

  m.def("methods", &method_list,
        "The coupling methods a scenario's method.type may name, then 'auto' and 'auto:fast' (chosen from the "
        "systems' capabilities).");
}
