#include "ssp/osp_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "fmi/common/description_reader.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/common/model_description.hpp"
#include "io/json.hpp"
#include "system/port.hpp"

namespace cosima::ssp {

// the reader's own names: a unity build compiles this file with ssp_reader.cpp in one unit
namespace osp_config {
namespace {

// --- XML ------------------------------------------------------------------------------------------

std::string_view local_name(const pugi::xml_node& node) {
  const std::string_view name = node.name();
  const auto colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::vector<pugi::xml_node> elements(const pugi::xml_node& parent) {
  std::vector<pugi::xml_node> found;
  for (const pugi::xml_node& c : parent.children()) {
    if (c.type() == pugi::node_element) found.push_back(c);
  }
  return found;
}

std::vector<pugi::xml_node> elements(const pugi::xml_node& parent, std::string_view name) {
  std::vector<pugi::xml_node> found;
  for (const pugi::xml_node& c : elements(parent)) {
    if (local_name(c) == name) found.push_back(c);
  }
  return found;
}

std::optional<std::string> read_text(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}

/// "[k]" at the start of `text` as k, and the rest; nullopt when it is not one.
std::optional<std::pair<int, std::string_view>> bracketed_index(std::string_view text) {
  if (text.size() < 3 || text.front() != '[') return std::nullopt;
  const auto close = text.find(']');
  if (close == std::string_view::npos || close == 1 || close > 7) return std::nullopt;
  int value = 0;
  for (const char c : text.substr(1, close - 1)) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return std::pair{value, text.substr(close + 1)};
}

// --- the parts of a configuration ------------------------------------------------------------------

/// A variable group of an OspModelDescription (OSP-IS: VariableGroups).
struct Group {
  std::string name;
  std::string type;                    ///< its element: LinearMechanicalPort, Force, …
  std::vector<std::string> variables;  ///< its own <Variable>s, in declaration order
  std::vector<Group> groups;           ///< its nested groups, in declaration order
  std::vector<std::string> all;        ///< every variable, nested ones included, in declaration order
};

struct Simulator {
  std::string name;
  std::filesystem::path fmu;
  fmi::ModelDescription description;
  std::map<std::string, std::size_t, std::less<>> variables;  ///< name → index in description.variables
  pugi::xml_node node;
  std::optional<std::vector<Group>> groups;  ///< read when a connection first names one
  std::filesystem::path groups_file;
};

enum class FunctionKind : std::uint8_t { linear, sum, vector_sum };

/// One end of a connection: "simulator.variable", and where its connection stands in the document.
struct Feed {
  std::string variable;
  std::size_t order = 0;
};

struct Function {
  FunctionKind kind = FunctionKind::linear;
  std::string name;
  int inputs = 1;
  int dimension = 1;
  double factor = 1.0;
  double offset = 0.0;
  std::vector<std::optional<Feed>> sources;  ///< what feeds input element i·dimension + j
  std::vector<std::vector<Feed>> targets;    ///< what output element j feeds

  [[nodiscard]] std::string describe() const {
    switch (kind) {
      case FunctionKind::linear: return fmt::format("LinearTransformation '{}'", name);
      case FunctionKind::sum: return fmt::format("Sum '{}' (inputCount {})", name, inputs);
      case FunctionKind::vector_sum:
        return fmt::format("VectorSum '{}' (inputCount {}, dimension {})", name, inputs, dimension);
    }
    return name;
  }
  /// The port of the sum system for input element `element`, or output element j.
  [[nodiscard]] std::string input_port(int element) const {
    if (dimension == 1) return fmt::format("{}.in{}", name, element);
    return fmt::format("{}.in{}_{}", name, element / dimension, element % dimension);
  }
  [[nodiscard]] std::string output_port(int j) const {
    return dimension == 1 ? fmt::format("{}.out", name) : fmt::format("{}.out{}", name, j);
  }
};

/// A signal (or signal group) of a function as a connection names it.
struct Signal {
  Function* function = nullptr;
  bool input = false;
  std::vector<int> elements;  ///< input: i·dimension + j; output: j
  std::string name;
};

/// A variable of a simulator as a connection names it.
struct VariableEnd {
  const Simulator* simulator = nullptr;
  const fmi::ScalarVariable* variable = nullptr;
  [[nodiscard]] std::string path() const { return fmt::format("{}.{}", simulator->name, variable->name); }
};

struct Link {
  std::string from, to;
  double scale = 1.0;
  double offset = 0.0;
  std::size_t order = 0;
};

constexpr int kMaxGroupDepth = 32;

/// Reads one OspSystemStructure; every failure names the file and what is at fault.
class OspReader {
 public:
  OspReader(std::filesystem::path file, std::filesystem::path folder)
      : file_(std::move(file)), folder_(std::move(folder)) {}
  /// The OspModelDescription files read so far.
  [[nodiscard]] const std::vector<std::filesystem::path>& files_read() const { return files_; }

  io::Json read(std::string_view text) {
    pugi::xml_document xml;
    const pugi::xml_parse_result parsed = xml.load_buffer(text.data(), text.size());
    if (!parsed) fail(fmt::format("not well-formed XML: {} (at byte {})", parsed.description(), parsed.offset));
    const pugi::xml_node top = xml.document_element();
    check_root(top);
    io::Json document = io::Json::object();
    read_experiment(top, document);
    for (const pugi::xml_node& s : elements(element_of(top, "Simulators", true), "Simulator")) read_simulator(s);
    if (simulators_.empty()) fail("<Simulators> holds no <Simulator>");
    for (const pugi::xml_node& f : elements(element_of(top, "Functions", false))) read_function(f);
    for (const pugi::xml_node& c : elements(element_of(top, "Connections", false))) read_connection(c);
    for (Function& function : functions_) link_function(function);
    std::stable_sort(links_.begin(), links_.end(), [](const Link& a, const Link& b) { return a.order < b.order; });

    document["systems"] = io::Json::object();
    io::Json inputs = io::Json::object();
    for (const Simulator& simulator : simulators_) {
      io::Json system = {{"fmu", simulator.fmu.string()}};
      initial_values(simulator, system, inputs);
      document["systems"][simulator.name] = std::move(system);
    }
    for (const Function& function : functions_) {
      if (function.kind == FunctionKind::linear) continue;
      const std::string size = function.dimension == 1 ? fmt::format("{}", function.inputs)
                                                       : fmt::format("{}x{}", function.inputs, function.dimension);
      document["systems"][function.name] = {{"model", "sum:" + size}};
    }
    document["connections"] = io::Json::array();
    for (const Link& link : links_) {
      io::Json connection = {{"from", link.from}, {"to", link.to}};
      if (link.scale != 1.0) connection["scale"] = link.scale;
      if (link.offset != 0.0) connection["offset"] = link.offset;
      document["connections"].push_back(std::move(connection));
    }
    if (!inputs.empty()) document["inputs"] = std::move(inputs);
    document["method"] = {{"type", "jacobi"}, {"dt", base_step_}};
    if (!rates_.empty()) document["method"]["rates"] = std::move(rates_);
    return document;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("OSP configuration '{}': {}", file_.string(), what));
  }

  double number(const std::string& text, const std::string& where) const {
    const std::optional<double> value = fmi::description::to_double(text);
    if (!value || !std::isfinite(*value)) fail(fmt::format("{} = \"{}\" is not a finite number", where, text));
    return *value;
  }

  /// The one child `name` of `parent`, or an empty node (refused when `required`).
  pugi::xml_node element_of(const pugi::xml_node& parent, std::string_view name, bool required) const {
    const std::vector<pugi::xml_node> found = elements(parent, name);
    if (found.size() > 1) fail(fmt::format("<{}> appears {} times in <{}>", name, found.size(), parent.name()));
    if (found.empty() && required) fail(fmt::format("<{}> has no <{}>", parent.name(), name));
    return found.empty() ? pugi::xml_node() : found.front();
  }

  // --- <OspSystemStructure> ---

  void check_root(const pugi::xml_node& top) const {
    if (local_name(top) != "OspSystemStructure")
      fail(fmt::format("the root element is <{}>, not <OspSystemStructure>", top.name()));
    const std::string_view name = top.name();
    const auto colon = name.find(':');
    const std::string xmlns =
        colon == std::string_view::npos ? "xmlns" : fmt::format("xmlns:{}", name.substr(0, colon));
    if (const pugi::xml_attribute ns = top.attribute(xmlns.c_str()); ns && ns.value() != kOspNamespace)
      fail(fmt::format("<OspSystemStructure> is in namespace '{}', not {}", ns.value(), kOspNamespace));
    if (const pugi::xml_attribute version = top.attribute("version");
        version && std::string_view(version.value()) != "0.1") {
      fail(fmt::format("OspSystemStructure version=\"{}\": cosima reads version 0.1", version.value()));
    }
    static const std::set<std::string, std::less<>> known = {"StartTime",   "EndTime",          "BaseStepSize",
                                                             "Algorithm",   "Simulators",       "Functions",
                                                             "Connections", "EccoConfiguration"};
    for (const pugi::xml_node& e : elements(top)) {
      if (!known.contains(local_name(e)))
        fail(fmt::format("<{}> is not an element of <OspSystemStructure> that cosima knows: refused, not ignored",
                         e.name()));
    }
  }

  /// StartTime, EndTime, BaseStepSize, Algorithm.
  void read_experiment(const pugi::xml_node& top, io::Json& document) {
    auto value = [&](std::string_view name) -> std::optional<double> {
      const pugi::xml_node node = element_of(top, name, false);
      if (!node) return std::nullopt;
      return number(std::string(fmi::description::trim(node.text().get())), fmt::format("<{}>", name));
    };
    document["start"] = value("StartTime").value_or(0.0);
    if (const std::optional<double> stop = value("EndTime")) document["stop"] = *stop;
    if (const std::optional<double> base = value("BaseStepSize")) {
      if (!(*base > 0.0)) fail(fmt::format("<BaseStepSize> = {} must be positive", *base));
      base_step_ = *base;
    } else {
      log(LogLevel::warning,
          fmt::format("OSP configuration '{}' has no <BaseStepSize>: 0.1 s, as libcosim", file_.string()));
    }
    const pugi::xml_node algorithm = element_of(top, "Algorithm", false);
    const std::string name = algorithm ? std::string(fmi::description::trim(algorithm.text().get())) : "fixedStep";
    if (name != "fixedStep") {
      fail(
          fmt::format("<Algorithm>{}</Algorithm>: cosima runs OSP's fixedStep algorithm (as Jacobi); choose "
                      "another coupling method with --method",
                      name));
    }
    if (element_of(top, "EccoConfiguration", false)) {
      log(LogLevel::warning, fmt::format("OSP configuration '{}': <EccoConfiguration> ignored under the fixedStep "
                                         "algorithm",
                                         file_.string()));
    }
  }

  // --- <Simulator> ---

  void read_simulator(const pugi::xml_node& node) {
    Simulator simulator;
    simulator.name = node.attribute("name").value();
    simulator.node = node;
    if (simulator.name.empty()) fail("a <Simulator> has no name");
    const std::string what = fmt::format("simulator '{}'", simulator.name);
    if (!names_.insert(simulator.name).second)
      fail(fmt::format("two simulators or functions are named '{}'", simulator.name));
    for (const pugi::xml_node& c : elements(node)) {
      if (local_name(c) != "InitialValues") fail(fmt::format("{} contains <{}>: not supported", what, c.name()));
    }
    if (!node.attribute("source")) fail(fmt::format("{} has no source (its FMU)", what));
    simulator.fmu = source_path(node.attribute("source").value(), what);
    try {
      simulator.description = fmi::read_model_description(simulator.fmu);
    } catch (const Error& e) {
      fail(fmt::format("{}: {}", what, e.what()));
    }
    for (std::size_t i = 0; i < simulator.description.variables.size(); ++i)
      simulator.variables.emplace(simulator.description.variables[i].name, i);
    if (const pugi::xml_attribute step = node.attribute("stepSize")) {
      const double size = number(step.value(), what + ": stepSize");
      const std::optional<long long> rate = step_rate(size, base_step_);
      if (!rate) {
        fail(
            fmt::format("{}: stepSize {} is not a whole multiple of BaseStepSize {} ({:.6g} times): cosima steps a "
                        "system every k base steps (method.rates), k = 1, 2, …",
                        what, step.value(), base_step_, size / base_step_));
      }
      if (*rate != 1) rates_[simulator.name] = *rate;
    }
    simulators_.push_back(std::move(simulator));
  }

  /// A simulator's source: a path relative to the configuration's folder (it may leave it), an
  /// absolute path, or a file: URI; percent-decoded.
  std::filesystem::path source_path(const std::string& uri, const std::string& what) const {
    std::string text = uri;
    if (text.starts_with("file://")) {
      text = text.substr(7);
      if (!text.starts_with('/')) fail(fmt::format("{}: source '{}' names a host: not supported", what, uri));
    } else if (text.starts_with("file:")) {
      text = text.substr(5);
    } else if (const auto colon = text.find(':'); colon != std::string::npos && colon < text.find('/') && colon > 1) {
      fail(fmt::format("{}: source '{}' has the scheme '{}': cosima loads FMU files (a path or a file: URI)", what, uri,
                       text.substr(0, colon)));
    }
    std::string decoded;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) != 0 &&
          std::isxdigit(static_cast<unsigned char>(text[i + 2])) != 0) {
        decoded += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += text[i];
      }
    }
    if (decoded.empty() || decoded.find('\0') != std::string::npos)
      fail(fmt::format("{}: source '{}' is no file name", what, uri));
    const std::filesystem::path path = (folder_ / std::filesystem::path(decoded)).lexically_normal();
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
      fail(fmt::format("{}: source '{}' is not a file ('{}')", what, uri, path.string()));
    return path;
  }

  Simulator& simulator_named(const std::string& name, const std::string& where) {
    for (Simulator& s : simulators_) {
      if (s.name == name) return s;
    }
    std::vector<std::string> known;
    for (const Simulator& s : simulators_) known.push_back(s.name);
    fail(fmt::format("{} names simulator '{}', which is not declared (simulators: {})", where, name, join(known)));
  }

  const fmi::ScalarVariable& variable_of(const Simulator& simulator, const std::string& name,
                                         const std::string& where) const {
    const auto found = simulator.variables.find(name);
    if (found == simulator.variables.end())
      fail(fmt::format("{} names variable '{}' of simulator '{}', which its FMU '{}' does not have", where, name,
                       simulator.name, simulator.fmu.string()));
    return simulator.description.variables[found->second];
  }

  // --- InitialValues ---

  /// InitialValues as parameters, or as constant inputs where no connection drives the input.
  void initial_values(const Simulator& simulator, io::Json& system, io::Json& inputs) const {
    for (const pugi::xml_node& initial : elements(element_of(simulator.node, "InitialValues", false), "InitialValue")) {
      const std::string name = initial.attribute("variable").value();
      const std::string where = fmt::format("an InitialValue of simulator '{}'", simulator.name);
      const fmi::ScalarVariable& variable = variable_of(simulator, name, where);
      const std::vector<pugi::xml_node> typed = elements(initial);
      if (typed.size() != 1)
        fail(fmt::format("{} for '{}' needs one <Real>, <Integer>, <Boolean> or <String>", where, name));
      io::Json value = typed_value(typed.front(), variable, fmt::format("{} for '{}'", where, name));
      const std::string path = fmt::format("{}.{}", simulator.name, name);
      if (variable.causality == "input") {
        if (!driven_.contains(path)) inputs[path] = std::move(value);  // a connected input takes its connection's
      } else {
        system["parameters"][name] = std::move(value);
      }
    }
  }

  io::Json typed_value(const pugi::xml_node& typed, const fmi::ScalarVariable& variable,
                       const std::string& what) const {
    const std::string type(local_name(typed));
    const std::string text = typed.attribute("value").value();
    if (type != "Real" && type != "Integer" && type != "Boolean" && type != "String")
      fail(fmt::format("{} is a <{}>: Real, Integer, Boolean or String", what, typed.name()));
    const PortKind kind = fmi::port_kind(variable.type);
    const bool fits = (type == "Real" && kind == PortKind::real) ||
                      (type == "Integer" && (kind == PortKind::integer || kind == PortKind::enumeration)) ||
                      (type == "Boolean" && kind == PortKind::boolean) ||
                      (type == "String" && kind == PortKind::string);
    if (!typed.attribute("value")) fail(fmt::format("{} has no value", what));
    if (!fits) fail(fmt::format("{} is a {}, and the variable is {}", what, type, to_string(kind)));
    if (type == "Real") return number(text, what);
    if (type == "String") return text;
    const std::string_view word = fmi::description::trim(text);
    if (type == "Boolean") {
      if (word != "true" && word != "false" && word != "1" && word != "0")
        fail(fmt::format("{} = \"{}\" is not a Boolean", what, text));
      return word == "true" || word == "1";
    }
    const std::optional<long long> whole = fmi::description::to_integer(word, -2147483648LL, 2147483647LL);
    if (!whole) fail(fmt::format("{} = \"{}\" is not a 32-bit integer", what, text));
    return *whole;
  }

  // --- <Function> ---

  void read_function(const pugi::xml_node& node) {
    Function function;
    function.name = node.attribute("name").value();
    const std::string_view kind = local_name(node);
    if (function.name.empty()) fail(fmt::format("a <{}> function has no name", node.name()));
    if (!names_.insert(function.name).second)
      fail(fmt::format("two simulators or functions are named '{}'", function.name));
    const std::string what = fmt::format("function '{}'", function.name);
    auto count = [&](const char* attribute) {
      const std::optional<long long> n =
          fmi::description::to_integer(fmi::description::trim(node.attribute(attribute).value()), 1, 4096);
      if (!n)
        fail(fmt::format("{}: {}=\"{}\" is not a count from 1 to 4096", what, attribute,
                         node.attribute(attribute).value()));
      return static_cast<int>(*n);
    };
    if (kind == "LinearTransformation") {
      if (const pugi::xml_attribute a = node.attribute("factor"))
        function.factor = number(a.value(), what + ": factor");
      if (const pugi::xml_attribute a = node.attribute("offset"))
        function.offset = number(a.value(), what + ": offset");
    } else if (kind == "Sum") {
      function.kind = FunctionKind::sum;
      function.inputs = count("inputCount");
    } else if (kind == "VectorSum") {
      function.kind = FunctionKind::vector_sum;
      function.inputs = count("inputCount");
      function.dimension = count("dimension");
      if (const std::string type = node.attribute("numericType").value(); !type.empty() && type != "real")
        fail(fmt::format("{}: numericType=\"{}\": cosima's sums are real", what, type));
    } else {
      fail(fmt::format("function '{}' is a <{}>: cosima supports LinearTransformation, Sum and VectorSum",
                       function.name, node.name()));
    }
    if (function.inputs * function.dimension > 4096) fail(fmt::format("{} has more than 4096 inputs", what));
    function.sources.resize(static_cast<std::size_t>(function.inputs * function.dimension));
    function.targets.resize(static_cast<std::size_t>(function.dimension));
    functions_.push_back(std::move(function));
  }

  /// The signal (group) a <Signal>/<SignalGroup> names.
  Signal signal(const pugi::xml_node& node, bool group, const std::string& where) {
    const std::string function_name = node.attribute("function").value();
    std::vector<std::string> known;
    for (Function& f : functions_) {
      known.push_back(f.name);
      if (f.name != function_name) continue;
      if (std::optional<Signal> s = signal_of(f, node.attribute("name").value(), group)) return *s;
      fail(fmt::format("{} names {} '{}' of {}, which has none such ({})", where, group ? "signal group" : "signal",
                       node.attribute("name").value(), f.describe(), signal_names(f)));
    }
    fail(fmt::format("{} names function '{}', which is not declared (functions: {})", where, function_name,
                     join(known)));
  }

  /// The elements signal `name` of `f` denotes (as libcosim names them), or nullopt.
  static std::optional<Signal> signal_of(Function& f, std::string_view name, bool group) {
    const bool vector = f.kind == FunctionKind::vector_sum;
    Signal s{&f, false, {}, std::string(name)};
    if (name == "out" && group == vector) {
      for (int j = 0; j < f.dimension; ++j) s.elements.push_back(j);
      return s;
    }
    if (name == "in" && !group && f.kind == FunctionKind::linear) {
      s.input = true;
      s.elements = {0};
      return s;
    }
    s.input = name.starts_with("in[");
    if (!s.input && !name.starts_with("out[")) return std::nullopt;
    const auto first = bracketed_index(name.substr(s.input ? 2 : 3));
    if (!first) return std::nullopt;
    const auto [index, rest] = *first;
    const auto second = bracketed_index(rest);
    if (s.input && index < f.inputs && rest.empty() && !group && f.kind == FunctionKind::sum) {
      s.elements = {index};
    } else if (s.input && index < f.inputs && rest.empty() && group && vector) {
      for (int j = 0; j < f.dimension; ++j) s.elements.push_back(index * f.dimension + j);
    } else if (s.input && index < f.inputs && !group && vector && second && second->second.empty() &&
               second->first < f.dimension) {
      s.elements = {index * f.dimension + second->first};
    } else if (!s.input && !group && vector && rest.empty() && index < f.dimension) {
      s.elements = {index};
    }
    if (s.elements.empty()) return std::nullopt;
    return s;
  }

  static std::string signal_names(const Function& f) {
    switch (f.kind) {
      case FunctionKind::linear: return "signals: in, out";
      case FunctionKind::sum: return fmt::format("signals: in[0] … in[{}], out", f.inputs - 1);
      case FunctionKind::vector_sum:
        return fmt::format("signal groups: in[0] … in[{}], out; signals in[i][j], out[j], j < {}", f.inputs - 1,
                           f.dimension);
    }
    return "";
  }

  /// The connections through a function, once every connection is read: a LinearTransformation
  /// becomes the scale and offset of each; a sum's inputs and outputs are its system's ports.
  void link_function(const Function& f) {
    for (std::size_t k = 0; k < f.sources.size(); ++k) {
      if (!f.sources[k]) {
        fail(fmt::format("input {} of {} is fed by no connection",
                         f.kind == FunctionKind::linear ? "'in'" : f.input_port(static_cast<int>(k)), f.describe()));
      }
    }
    for (std::size_t j = 0; j < f.targets.size(); ++j) {
      if (f.targets[j].empty()) fail(fmt::format("the output of {} feeds nothing", f.describe()));
    }
    if (f.kind == FunctionKind::linear) {
      for (const Feed& target : f.targets[0])
        links_.push_back({f.sources[0]->variable, target.variable, f.factor, f.offset, target.order});
      return;
    }
    for (std::size_t k = 0; k < f.sources.size(); ++k)
      links_.push_back({f.sources[k]->variable, f.input_port(static_cast<int>(k)), 1.0, 0.0, f.sources[k]->order});
    for (std::size_t j = 0; j < f.targets.size(); ++j) {
      for (const Feed& target : f.targets[j])
        links_.push_back({f.output_port(static_cast<int>(j)), target.variable, 1.0, 0.0, target.order});
    }
  }

  // --- <Connection> ---

  void read_connection(const pugi::xml_node& node) {
    const std::string_view kind = local_name(node);
    const std::string where = fmt::format("<{}> #{}", kind, ++connection_count_);
    if (kind == "VariableConnection") {
      const std::vector<pugi::xml_node> ends = only(node, {"Variable"}, where);
      if (ends.size() != 2) fail(fmt::format("{} needs two <Variable>s", where));
      const VariableEnd a = variable_end(ends[0], where);
      const VariableEnd b = variable_end(ends[1], where);
      join_pair(a, b, where);
    } else if (kind == "VariableGroupConnection") {
      const std::vector<pugi::xml_node> ends = only(node, {"VariableGroup"}, where);
      if (ends.size() != 2) fail(fmt::format("{} needs two <VariableGroup>s", where));
      Simulator& a = simulator_named(ends[0].attribute("simulator").value(), where);
      Simulator& b = simulator_named(ends[1].attribute("simulator").value(), where);
      join_groups(a, group_named(a, ends[0].attribute("name").value(), where), b,
                  group_named(b, ends[1].attribute("name").value(), where), where, 0);
    } else if (kind == "SignalConnection" || kind == "SignalGroupConnection") {
      const bool group = kind == "SignalGroupConnection";
      const char* variable_tag = group ? "VariableGroup" : "Variable";
      const char* signal_tag = group ? "SignalGroup" : "Signal";
      const std::vector<pugi::xml_node> parts = only(node, {variable_tag, signal_tag}, where);
      const std::vector<pugi::xml_node> variables = elements(node, variable_tag);
      const std::vector<pugi::xml_node> signals = elements(node, signal_tag);
      if (variables.size() != 1 || signals.size() != 1 || parts.size() != 2)
        fail(fmt::format("{} needs one <{}> and one <{}>", where, variable_tag, signal_tag));
      connect_signal(variables.front(), signal(signals.front(), group, where), group, where);
    } else {
      fail(
          fmt::format("<Connections> holds a <{}>: cosima reads VariableConnection, VariableGroupConnection, "
                      "SignalConnection and SignalGroupConnection",
                      node.name()));
    }
  }

  /// The element children of a connection, refused when any is not one of `names`.
  std::vector<pugi::xml_node> only(const pugi::xml_node& node, std::initializer_list<std::string_view> names,
                                   const std::string& where) const {
    const std::vector<pugi::xml_node> found = elements(node);
    for (const pugi::xml_node& e : found) {
      if (std::find(names.begin(), names.end(), local_name(e)) == names.end())
        fail(fmt::format("{} contains <{}>: not supported", where, e.name()));
    }
    return found;
  }

  VariableEnd variable_end(const pugi::xml_node& node, const std::string& where) {
    const Simulator& simulator = simulator_named(node.attribute("simulator").value(), where);
    return {&simulator, &variable_of(simulator, node.attribute("name").value(), where)};
  }

  /// A connection between two variables, from the output to the input.
  void join_pair(const VariableEnd& a, const VariableEnd& b, const std::string& where) {
    const bool forward = a.variable->causality == "output" && b.variable->causality == "input";
    const bool backward = b.variable->causality == "output" && a.variable->causality == "input";
    if (!forward && !backward) {
      fail(fmt::format("{} joins '{}' ({}) and '{}' ({}): a connection joins an output and an input", where, a.path(),
                       a.variable->causality, b.path(), b.variable->causality));
    }
    const VariableEnd& from = forward ? a : b;
    const VariableEnd& to = forward ? b : a;
    drive(to.path(), where);
    links_.push_back({from.path(), to.path(), 1.0, 0.0, order_++});
  }

  void drive(const std::string& input, const std::string& where) {
    if (!driven_.insert(input).second)
      fail(fmt::format("{} feeds '{}', which another connection feeds already", where, input));
  }

  void connect_signal(const pugi::xml_node& variable_node, const Signal& s, bool group, const std::string& where) {
    std::vector<VariableEnd> ends;
    if (group) {
      Simulator& simulator = simulator_named(variable_node.attribute("simulator").value(), where);
      const Group& g = group_named(simulator, variable_node.attribute("name").value(), where);
      for (const std::string& name : g.all) ends.push_back({&simulator, &variable_of(simulator, name, where)});
      if (ends.size() != s.elements.size()) {
        fail(fmt::format("{}: variable group '{}.{}' has {} variables, and signal group '{}' of {} {}", where,
                         simulator.name, g.name, ends.size(), s.name, s.function->describe(), s.elements.size()));
      }
    } else {
      ends.push_back(variable_end(variable_node, where));
    }
    Function& f = *s.function;
    for (std::size_t k = 0; k < ends.size(); ++k) {
      const VariableEnd& end = ends[k];
      const auto element = static_cast<std::size_t>(s.elements[k]);
      const char* wanted = s.input ? "output" : "input";
      if (end.variable->causality != wanted) {
        fail(fmt::format("{}: '{}' is {}, and {} of {} takes an {}", where, end.path(), end.variable->causality,
                         s.input ? "an input" : "the output", f.describe(), wanted));
      }
      if (s.input) {
        if (f.sources[element]) fail(fmt::format("{}: signal '{}' of {} is fed twice", where, s.name, f.describe()));
        f.sources[element] = Feed{end.path(), order_++};
      } else {
        drive(end.path(), where);
        f.targets[element].push_back({end.path(), order_++});
      }
    }
  }

  // --- variable groups (OspModelDescription) ---

  const std::vector<Group>& groups_of(Simulator& s) {
    if (s.groups) return *s.groups;
    std::vector<std::filesystem::path> tried;
    for (const std::filesystem::path& folder : {s.fmu.parent_path(), folder_}) {
      for (const std::string& stem : {s.description.model_name, s.fmu.stem().string()}) {
        tried.push_back(folder / (stem + "_OspModelDescription.xml"));
        if (const std::optional<std::string> text = read_text(tried.back())) {
          s.groups_file = tried.back();
          files_.push_back(s.groups_file);
          s.groups = parse_groups(*text, s.groups_file);
          return *s.groups;
        }
      }
    }
    std::vector<std::string> names;
    for (const auto& path : tried) names.push_back("'" + path.string() + "'");
    fail(fmt::format("simulator '{}' has no variable groups: no OspModelDescription ({})", s.name, join(names)));
  }

  std::vector<Group> parse_groups(const std::string& text, const std::filesystem::path& file) const {
    pugi::xml_document xml;
    const pugi::xml_parse_result parsed = xml.load_buffer(text.data(), text.size());
    if (!parsed)
      fail(fmt::format("'{}' is not well-formed XML: {} (at byte {})", file.string(), parsed.description(),
                       parsed.offset));
    const pugi::xml_node top = xml.document_element();
    if (local_name(top) != "OspModelDescription")
      fail(fmt::format("the root element of '{}' is <{}>, not <OspModelDescription>", file.string(), top.name()));
    std::vector<Group> groups;
    for (const pugi::xml_node& node : elements(element_of(top, "VariableGroups", false)))
      groups.push_back(parse_group(node, file, 0));
    return groups;
  }

  Group parse_group(const pugi::xml_node& node, const std::filesystem::path& file, int depth) const {
    Group group;
    group.name = node.attribute("name").value();
    group.type = std::string(local_name(node));
    if (group.name.empty()) fail(fmt::format("'{}': a <{}> group has no name", file.string(), node.name()));
    if (depth > kMaxGroupDepth) fail(fmt::format("'{}' nests groups deeper than {}", file.string(), kMaxGroupDepth));
    for (const pugi::xml_node& c : elements(node)) {
      if (local_name(c) == "Variable") {
        const pugi::xml_attribute ref = c.attribute("ref") ? c.attribute("ref") : c.attribute("name");
        if (!ref) fail(fmt::format("'{}': a <Variable> of group '{}' has no ref", file.string(), group.name));
        group.variables.emplace_back(ref.value());
        group.all.emplace_back(ref.value());
      } else {
        group.groups.push_back(parse_group(c, file, depth + 1));
        group.all.insert(group.all.end(), group.groups.back().all.begin(), group.groups.back().all.end());
      }
    }
    return group;
  }

  static const Group* find_group(const std::vector<Group>& groups, std::string_view name) {
    for (const Group& g : groups) {
      if (g.name == name) return &g;
      if (const Group* nested = find_group(g.groups, name)) return nested;
    }
    return nullptr;
  }

  static void group_names(const std::vector<Group>& groups, std::vector<std::string>& names) {
    for (const Group& g : groups) {
      names.push_back(g.name);
      group_names(g.groups, names);
    }
  }

  const Group& group_named(Simulator& simulator, const std::string& name, const std::string& where) {
    const std::vector<Group>& groups = groups_of(simulator);
    if (const Group* g = find_group(groups, name)) return *g;
    std::vector<std::string> names;
    group_names(groups, names);
    fail(fmt::format("{} names variable group '{}' of simulator '{}', which '{}' does not define (groups: {})", where,
                     name, simulator.name, simulator.groups_file.string(), join(names)));
  }

  /// Pairs two groups: their nested groups in declaration order, recursively, then their own
  /// variables in declaration order (as libcosim).
  void join_groups(const Simulator& sa, const Group& a, const Simulator& sb, const Group& b, const std::string& where,
                   int depth) {
    const std::string both = fmt::format(
        "variable groups '{}.{}' ({}: {} groups, {} variables) and '{}.{}' ({}: {} "
        "groups, {} variables)",
        sa.name, a.name, a.type, a.groups.size(), a.variables.size(), sb.name, b.name, b.type, b.groups.size(),
        b.variables.size());
    if (a.groups.size() != b.groups.size() || a.variables.size() != b.variables.size())
      fail(fmt::format("{} joins {}: they differ in size", where, both));
    if (depth > kMaxGroupDepth) fail(fmt::format("{}: groups nested too deep", where));
    for (std::size_t i = 0; i < a.groups.size(); ++i) join_groups(sa, a.groups[i], sb, b.groups[i], where, depth + 1);
    for (std::size_t i = 0; i < a.variables.size(); ++i) {
      const std::string context = fmt::format("{} (groups '{}.{}', '{}.{}')", where, sa.name, a.name, sb.name, b.name);
      join_pair({&sa, &variable_of(sa, a.variables[i], context)}, {&sb, &variable_of(sb, b.variables[i], context)},
                context);
    }
  }

  std::filesystem::path file_;
  std::filesystem::path folder_;
  double base_step_ = 0.1;
  std::deque<Simulator> simulators_;
  std::deque<Function> functions_;
  std::set<std::string> names_;
  std::vector<Link> links_;
  std::set<std::string> driven_;
  io::Json rates_ = io::Json::object();
  std::size_t order_ = 0;
  int connection_count_ = 0;
  std::vector<std::filesystem::path> files_;  ///< the OspModelDescription files read
};

/// The configuration file of a path: itself, or a folder's OspSystemStructure.xml.
std::filesystem::path configuration_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return path / std::string(kOspConfigurationFile);
  return path;
}

}  // namespace
}  // namespace osp_config

std::optional<long long> step_rate(double step, double base) {
  if (!std::isfinite(step) || !(base > 0.0)) return std::nullopt;
  const double whole = std::round(step / base);
  if (!(whole >= 1.0) || whole > 1e9 || std::abs(whole * base - step) > 1e-9 * step) return std::nullopt;
  return static_cast<long long>(whole);
}

bool is_osp_configuration(const std::filesystem::path& file) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error))
    return std::filesystem::is_regular_file(file / std::string(kOspConfigurationFile), error);
  using osp_config::local_name;
  using osp_config::read_text;
  // sniff only a regular file that starts like XML (a JSON scenario starts with '{')
  if (!std::filesystem::is_regular_file(file, error)) return false;
  std::ifstream in(file, std::ios::binary);
  std::array<char, 512> head{};
  in.read(head.data(), head.size());
  const std::string_view start(head.data(), static_cast<std::size_t>(in.gcount()));
  const auto first = start.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (first == std::string_view::npos || start[first] != '<') return false;
  const std::optional<std::string> text = read_text(file);
  pugi::xml_document xml;
  if (!text || !xml.load_buffer(text->data(), text->size())) return false;
  return local_name(xml.document_element()) == "OspSystemStructure";
}

SspImport read_osp(const std::filesystem::path& file) {
  const std::filesystem::path config = std::filesystem::absolute(osp_config::configuration_file(file));
  const std::optional<std::string> text = osp_config::read_text(config);
  if (!text) throw Error(fmt::format("cannot open OSP configuration '{}'", config.string()));
  osp_config::OspReader reader(osp_config::configuration_file(file), config.parent_path());
  io::Json document = reader.read(*text);
  std::vector<std::filesystem::path> files = reader.files_read();
  files.insert(files.begin(), config);
  return {std::move(document), nullptr, std::move(files)};
}

}  // namespace cosima::ssp
