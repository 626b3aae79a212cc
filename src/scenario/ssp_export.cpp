#include "scenario/ssp_export.hpp"

#include <fmt/format.h>
#include <minizip/zip.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "ssp/ssp_reader.hpp"

namespace cosima::scenario {

namespace {

constexpr const char* kSsdNamespace = "http://ssp-standard.org/SSP1/SystemStructureDescription";
constexpr const char* kSscNamespace = "http://ssp-standard.org/SSP1/SystemStructureCommon";
constexpr const char* kSsvNamespace = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";

/// "system.port" as (system, port): the longest system name the label begins with and a dot.
std::pair<std::string, std::string> split_port(const std::string& label, const Scenario& scenario) {
  const SystemSpec* best = nullptr;
  for (const SystemSpec& spec : scenario.systems) {
    if (label.size() > spec.name.size() + 1 && label.starts_with(spec.name) && label[spec.name.size()] == '.' &&
        (best == nullptr || spec.name.size() > best->name.size())) {
      best = &spec;
    }
  }
  if (best == nullptr) throw Error(fmt::format("scenario '{}': '{}' names no system", scenario.file.string(), label));
  return {best->name, label.substr(best->name.size() + 1)};
}

/// The SSP type element of an FMI variable (SSP 1.0 has Real, Integer, Boolean, String, Enumeration);
/// empty when it has none (Binary, Clock).
std::string ssp_type(fmi::VariableType type) {
  if (type == fmi::VariableType::binary || type == fmi::VariableType::clock) return "";
  switch (fmi::port_kind(type)) {
    case PortKind::real: return "Real";
    case PortKind::integer: return "Integer";
    case PortKind::boolean: return "Boolean";
    case PortKind::string: return "String";
    case PortKind::enumeration: return "Enumeration";
  }
  return "";
}

/// A number as the shortest text that reads back to the same double (a round trip is bitwise).
std::string number_text(double value) { return fmt::format("{}", value); }

/// Writes one scenario's SSD.
class SsdWriter {
 public:
  SsdWriter(const Scenario& scenario, const io::Json& document, const std::map<std::string, std::string>& sources)
      : scenario_(scenario), document_(document), sources_(sources) {}

  std::string write() {
    for (const SystemSpec& spec : scenario_.systems) {
      if (!spec.csv.empty()) continue;  // a signal table: its columns are Real outputs
      if (spec.fmu.empty()) {
        throw Error(
            fmt::format("scenario '{}': system '{}' is the built-in model '{}': only FMUs and CSV "
                        "sources can be exported to SSP",
                        scenario_.file.string(), spec.name, spec.model));
      }
      descriptions_.emplace(spec.name, fmi::read_model_description(spec.fmu));
    }
    pugi::xml_node top = xml_.append_child("ssd:SystemStructureDescription");
    top.append_attribute("xmlns:ssd") = kSsdNamespace;
    top.append_attribute("xmlns:ssc") = kSscNamespace;
    top.append_attribute("xmlns:ssv") = kSsvNamespace;
    top.append_attribute("version") = "1.0";
    top.append_attribute("name") = scenario_.name.c_str();
    top.append_attribute("generationTool") = "cosima";
    pugi::xml_node root = top.append_child("ssd:System");
    root.append_attribute("name") = "root";
    write_constant_inputs(root);
    pugi::xml_node elements = root.append_child("ssd:Elements");
    for (const SystemSpec& spec : scenario_.systems) write_component(elements, spec);
    write_connections(root);
    write_annotation(root);
    if (!enumerations_.empty()) write_enumerations(top);
    pugi::xml_node experiment = top.append_child("ssd:DefaultExperiment");
    experiment.append_attribute("startTime") = number_text(scenario_.run.start).c_str();
    experiment.append_attribute("stopTime") = number_text(scenario_.run.stop).c_str();
    std::ostringstream out;
    xml_.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
    return out.str();
  }

 private:
  /// The FMU variable of `system` named `name`; nullptr when there is none (or the system is a table).
  const fmi::ScalarVariable* variable(const std::string& system, const std::string& name) const {
    const auto found = descriptions_.find(system);
    if (found == descriptions_.end()) return nullptr;
    const fmi::ModelDescription& md = found->second;
    const int index = md.find(name);
    return index < 0 ? nullptr : &md.variables[static_cast<std::size_t>(index)];
  }

  /// ssc:Real, ssc:Integer, ... of a variable (nothing for a type SSP 1.0 lacks or an unknown port).
  void write_type(pugi::xml_node parent, const std::string& system, const std::string& port, const char* prefix) {
    const fmi::ScalarVariable* v = variable(system, port);
    if (v == nullptr) return;
    const std::string type = ssp_type(v->type);
    if (type.empty()) return;
    pugi::xml_node element = parent.append_child(fmt::format("{}:{}", prefix, type).c_str());
    if (type == "Enumeration") {
      element.append_attribute("name") = v->declared_type.c_str();
      enumerations_.emplace(system, v->declared_type);
    }
  }

  /// One connector per port a connection or constant uses (SSD: Connectors), kind from the FMU's causality.
  void write_component(pugi::xml_node elements, const SystemSpec& spec) {
    pugi::xml_node component = elements.append_child("ssd:Component");
    component.append_attribute("name") = spec.name.c_str();
    const bool table = !spec.csv.empty();
    component.append_attribute("type") = table ? ssp::kCsvType.data() : "application/x-fmu-sharedlibrary";
    component.append_attribute("source") = sources_.at(spec.name).c_str();
    if (spec.interface) {
      component.append_attribute("implementation") =
          *spec.interface == fmi::FmiInterface::co_simulation ? "CoSimulation" : "ModelExchange";
    }
    std::set<std::string> ports;
    for (const ConnectionSpec& c : scenario_.connections) {
      for (const std::string& label : {c.from, c.to}) {
        if (const auto [system, port] = split_port(label, scenario_); system == spec.name) ports.insert(port);
      }
    }
    for (const auto& [label, value] : scenario_.constant_inputs) {
      if (const auto [system, port] = split_port(label, scenario_); system == spec.name) ports.insert(port);
    }
    if (!ports.empty()) {
      pugi::xml_node connectors = component.append_child("ssd:Connectors");
      for (const std::string& port : ports) {
        pugi::xml_node connector = connectors.append_child("ssd:Connector");
        connector.append_attribute("name") = port.c_str();
        const fmi::ScalarVariable* v = variable(spec.name, port);
        connector.append_attribute("kind") = v != nullptr                ? v->causality.c_str()
                                             : is_input(spec.name, port) ? "input"
                                                                         : "output";
        if (table) connector.append_child("ssc:Real");
        write_type(connector, spec.name, port, "ssc");
      }
    }
    if (!spec.parameters.empty()) {
      pugi::xml_node set = parameter_set(component, spec.name);
      for (const auto& [name, value] : spec.parameters) write_parameter(set, spec.name, name, value);
    }
  }

  bool is_input(const std::string& system, const std::string& port) const {
    const std::string label = fmt::format("{}.{}", system, port);
    for (const ConnectionSpec& c : scenario_.connections) {
      if (c.to == label) return true;
    }
    return scenario_.constant_inputs.contains(label);
  }

  /// An inline ssd:ParameterBindings/ssd:ParameterBinding/ssd:ParameterValues/ssv:ParameterSet, its ssv:Parameters.
  static pugi::xml_node parameter_set(pugi::xml_node element, const std::string& name) {
    pugi::xml_node set = element.append_child("ssd:ParameterBindings")
                             .append_child("ssd:ParameterBinding")
                             .append_child("ssd:ParameterValues")
                             .append_child("ssv:ParameterSet");
    set.append_attribute("version") = "1.0";
    set.append_attribute("name") = name.c_str();
    return set.append_child("ssv:Parameters");
  }

  /// One ssv:Parameter, typed as the FMU declares the variable (SSV: Parameter).
  void write_parameter(pugi::xml_node parameters, const std::string& system, const std::string& name,
                       const ScalarValue& value, const std::string& variable_name = "") {
    pugi::xml_node parameter = parameters.append_child("ssv:Parameter");
    parameter.append_attribute("name") = name.c_str();
    const fmi::ScalarVariable* v = variable(system, variable_name.empty() ? name : variable_name);
    std::string type = v != nullptr ? ssp_type(v->type) : "";
    if (const auto* text = std::get_if<std::string>(&value)) {
      if (type != "Enumeration") type = "String";
      parameter.append_child(fmt::format("ssv:{}", type).c_str()).append_attribute("value") = text->c_str();
      return;
    }
    if (const auto* whole = std::get_if<WideInteger>(&value)) {  // beyond 2^53: exact, as an integer
      parameter.append_child("ssv:Integer").append_attribute("value") = whole->text().c_str();
      return;
    }
    if (const auto* flag = std::get_if<bool>(&value)) {
      parameter.append_child("ssv:Boolean").append_attribute("value") = *flag ? "true" : "false";
      return;
    }
    const double number = std::get<double>(value);
    std::string text = number_text(number);
    if (type == "Boolean") {
      text = number != 0.0 ? "true" : "false";
    } else if (type == "Enumeration") {
      text.clear();
      if (const fmi::SimpleType* declared = descriptions_.at(system).type_of(*v)) {
        for (const auto& [item, item_value] : declared->items) {
          if (item_value == number) text = item;
        }
      }
      if (text.empty())
        throw Error(fmt::format("scenario '{}': systems.{}.parameters.{} = {} is no item of its Enumeration",
                                scenario_.file.string(), system, name, number));
    } else if ((type == "Integer" && std::trunc(number) != number) || type.empty() || type == "String") {
      type = "Real";  // a number for a variable SSP cannot type, or not whole for an Integer: as written
    }
    pugi::xml_node typed = parameter.append_child(fmt::format("ssv:{}", type).c_str());
    typed.append_attribute("value") = text.c_str();
    if (type == "Enumeration") typed.append_attribute("name") = v->declared_type.c_str();
  }

  /// A constant input is a root input connector with a bound value, connected to the input (SSP 1.0
  /// connectors have no start value: the binding gives it). Named "input:SYSTEM.PORT" so that the
  /// binding puns with no component variable (SSD: ParameterBindings, hierarchical names).
  void write_constant_inputs(pugi::xml_node root) {
    if (scenario_.constant_inputs.empty()) return;
    pugi::xml_node connectors = root.append_child("ssd:Connectors");
    for (const auto& [label, value] : scenario_.constant_inputs) {
      const auto [system, port] = split_port(label, scenario_);
      pugi::xml_node connector = connectors.append_child("ssd:Connector");
      connector.append_attribute("name") = ("input:" + label).c_str();
      connector.append_attribute("kind") = "input";
      write_type(connector, system, port, "ssc");
    }
    pugi::xml_node set = parameter_set(root, "constant inputs");
    for (const auto& [label, value] : scenario_.constant_inputs) {
      const auto [system, port] = split_port(label, scenario_);
      write_parameter(set, system, "input:" + label, value, port);
    }
  }

  void write_connections(pugi::xml_node root) {
    if (scenario_.connections.empty() && scenario_.constant_inputs.empty()) return;
    pugi::xml_node list = root.append_child("ssd:Connections");
    for (const ConnectionSpec& c : scenario_.connections) {
      const auto [from_system, from_port] = split_port(c.from, scenario_);
      const auto [to_system, to_port] = split_port(c.to, scenario_);
      pugi::xml_node connection = list.append_child("ssd:Connection");
      connection.append_attribute("startElement") = from_system.c_str();
      connection.append_attribute("startConnector") = from_port.c_str();
      connection.append_attribute("endElement") = to_system.c_str();
      connection.append_attribute("endConnector") = to_port.c_str();
      if (!c.transform.identity()) {  // SSC: LinearTransformation, target = factor·source + offset
        pugi::xml_node linear = connection.append_child("ssc:LinearTransformation");
        linear.append_attribute("factor") = number_text(c.transform.scale).c_str();
        linear.append_attribute("offset") = number_text(c.transform.offset).c_str();
      }
    }
    for (const auto& [label, value] : scenario_.constant_inputs) {
      const auto [system, port] = split_port(label, scenario_);
      pugi::xml_node connection = list.append_child("ssd:Connection");
      connection.append_attribute("startConnector") = ("input:" + label).c_str();
      connection.append_attribute("endElement") = system.c_str();
      connection.append_attribute("endConnector") = port.c_str();
    }
  }

  /// What SSP does not carry, for the reader to merge back (ssp_reader.hpp).
  void write_annotation(pugi::xml_node root) const {
    io::Json settings = io::Json::object();
    for (const char* key : {"name", "description", "method", "output", "log_level"}) {
      if (document_.contains(key)) settings[key] = document_.at(key);
    }
    for (const auto& [name, system] : document_.at("systems").items()) {
      io::Json extras = system;
      for (const char* key : {"fmu", "csv", "parameters", "interface"}) extras.erase(key);
      if (!extras.empty()) settings["systems"][name] = std::move(extras);
    }
    if (settings.empty()) return;
    pugi::xml_node annotation = root.append_child("ssd:Annotations").append_child("ssc:Annotation");
    annotation.append_attribute("type") = std::string(ssp::kScenarioAnnotation).c_str();
    annotation.append_child(pugi::node_cdata).set_value(settings.dump(2).c_str());
  }

  /// ssd:Enumerations: the declared types of the Enumeration connectors, from their FMUs.
  void write_enumerations(pugi::xml_node top) const {
    pugi::xml_node list = top.insert_child_after("ssd:Enumerations", top.child("ssd:System"));
    std::set<std::string> written;
    for (const auto& [system, type_name] : enumerations_) {
      if (!written.insert(type_name).second) continue;
      for (const fmi::SimpleType& type : descriptions_.at(system).types) {
        if (type.name != type_name) continue;
        pugi::xml_node enumeration = list.append_child("ssc:Enumeration");
        enumeration.append_attribute("name") = type.name.c_str();
        for (const auto& [item, value] : type.items) {
          pugi::xml_node entry = enumeration.append_child("ssc:Item");
          entry.append_attribute("name") = item.c_str();
          entry.append_attribute("value") = value;
        }
      }
    }
  }

  const Scenario& scenario_;
  const io::Json& document_;
  const std::map<std::string, std::string>& sources_;
  std::map<std::string, fmi::ModelDescription> descriptions_;
  std::set<std::pair<std::string, std::string>> enumerations_;  // (system, declared type)
  pugi::xml_document xml_;
};

/// A file name for a system's FMU in resources/: its name with anything but [A-Za-z0-9._-] as '_',
/// made unique.
std::map<std::string, std::string> resource_names(const Scenario& scenario) {
  std::map<std::string, std::string> sources;
  std::set<std::string> taken;
  for (const SystemSpec& spec : scenario.systems) {
    std::string base = spec.name;
    for (char& c : base) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '_' && c != '-') c = '_';
    }
    const char* extension = spec.csv.empty() ? "fmu" : "csv";
    std::string entry = fmt::format("resources/{}.{}", base, extension);
    for (int n = 2; !taken.insert(entry).second; ++n) entry = fmt::format("resources/{}_{}.{}", base, n, extension);
    sources[spec.name] = entry;
  }
  return sources;
}

/// A zip being written (minizip) to a temporary file beside `out`, renamed to `out` by close(): a
/// failed export leaves whatever was at `out` as it was and removes only its own temporary file. An
/// `out` that exists and is not a regular file (a device, a directory) is refused.
class ZipWriter {
 public:
  explicit ZipWriter(std::filesystem::path out) : out_(std::move(out)) {
    std::error_code error;
    const auto status = std::filesystem::status(out_, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
      throw Error(fmt::format("cannot write SSP '{}': it exists and is not a regular file", out_.string()));
    }
    const std::filesystem::path folder = out_.has_parent_path() ? out_.parent_path() : std::filesystem::path(".");
    std::string pattern = (folder / ("." + out_.filename().string() + ".cosima-XXXXXX")).string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw Error(fmt::format("cannot create SSP '{}': {}", out_.string(), std::strerror(errno)));
    const mode_t mask = umask(0);  // the permissions a file created in place would have had
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    ::close(fd);
    temporary_ = pattern;
    zip_ = zipOpen64(temporary_.c_str(), APPEND_STATUS_CREATE);
    if (zip_ == nullptr) {
      std::filesystem::remove(temporary_, error);
      throw Error(fmt::format("cannot create SSP '{}'", out_.string()));
    }
  }
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;
  ~ZipWriter() {
    if (zip_ != nullptr) zipClose(zip_, nullptr);
    std::error_code ignored;
    if (!temporary_.empty()) std::filesystem::remove(temporary_, ignored);
  }

  /// Adds an entry, deflated or stored, its bytes given by `write(append)`.
  template <class Write>
  void add(const std::string& name, bool deflate, std::uint64_t size, Write&& write) {
    constexpr unsigned long kUtf8Names = 1U << 11;  // general purpose bit 11 (APPNOTE §4.4.4)
    constexpr unsigned long kMadeByUnix = 3U << 8;
    zip_fileinfo info{};
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    info.tmz_date = {static_cast<uInt>(local.tm_sec),  static_cast<uInt>(local.tm_min),
                     static_cast<uInt>(local.tm_hour), static_cast<uInt>(local.tm_mday),
                     static_cast<uInt>(local.tm_mon),  static_cast<uInt>(local.tm_year + 1900)};
    constexpr unsigned long kRegularFile = 0100644U;  // st_mode rw-r--r--, in the high half for "made by Unix"
    info.external_fa = kRegularFile << 16U;
    const int zip64 = size >= 0xffffffffULL ? 1 : 0;
    if (zipOpenNewFileInZip4_64(zip_, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, deflate ? Z_DEFLATED : 0,
                                Z_DEFAULT_COMPRESSION, 0, -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, nullptr, 0,
                                kMadeByUnix, kUtf8Names, zip64) != ZIP_OK) {
      fail(name);
    }
    bool ok = true;
    write([&](const char* data, std::size_t bytes) {
      ok = ok && zipWriteInFileInZip(zip_, data, static_cast<unsigned>(bytes)) == ZIP_OK;
    });
    if (zipCloseFileInZip(zip_) != ZIP_OK || !ok) fail(name);
  }

  void close() {
    const int status = zipClose(zip_, nullptr);
    zip_ = nullptr;
    if (status != ZIP_OK) throw Error(fmt::format("cannot write SSP '{}': closing the archive", out_.string()));
    std::error_code error;
    std::filesystem::rename(temporary_, out_, error);
    if (error) throw Error(fmt::format("cannot write SSP '{}': {}", out_.string(), error.message()));
    temporary_.clear();
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("cannot write SSP '{}': {}", out_.string(), what));
  }

 private:
  std::filesystem::path out_;
  std::filesystem::path temporary_;  ///< the zip being written; empty once renamed to out_
  zipFile zip_ = nullptr;
};

}  // namespace

std::string write_ssd(const Scenario& scenario, const io::Json& document,
                      const std::map<std::string, std::string>& sources) {
  return SsdWriter(scenario, document, sources).write();
}

void export_ssp(const std::filesystem::path& scenario_file, const std::filesystem::path& out,
                const std::vector<std::string>& overrides) {
  ScenarioDocument read = read_scenario_document(scenario_file);
  for (const std::string& assignment : overrides) apply_override(read.document, assignment);
  const Scenario scenario = parse_scenario(read.document, scenario_file);
  const std::map<std::string, std::string> sources = resource_names(scenario);
  const std::string ssd = write_ssd(scenario, read.document, sources);

  // SSP 1.0 Packaging: SystemStructure.ssd at the root, the FMUs under resources/
  ZipWriter archive(out);
  archive.add("SystemStructure.ssd", true, ssd.size(), [&](auto&& append) { append(ssd.data(), ssd.size()); });
  for (const SystemSpec& spec : scenario.systems) {
    const std::string& entry = sources.at(spec.name);
    const std::filesystem::path& file = spec.csv.empty() ? spec.fmu : spec.csv;
    std::ifstream in(file, std::ios::binary);
    std::error_code size_error;
    const std::uint64_t size = std::filesystem::file_size(file, size_error);
    if (!in || size_error) archive.fail(fmt::format("{} from '{}'", entry, file.string()));
    archive.add(entry, !spec.csv.empty(), size, [&](auto&& append) {  // an FMU is stored: a zip already
      std::vector<char> buffer(1 << 16);
      while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
        append(buffer.data(), static_cast<std::size_t>(in.gcount()));
      }
    });
    if (in.bad()) archive.fail(fmt::format("{} from '{}'", entry, file.string()));
  }
  archive.close();
}

}  // namespace cosima::scenario
