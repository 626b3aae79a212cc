#include "ssp/ssp_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wide_integer.hpp"
#include "fmi/common/description_reader.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "io/json.hpp"
#include "ssp/osp_reader.hpp"

namespace cosima::ssp {

namespace {

// --- XML: SSP elements by local name (the ssd:/ssc:/ssv:/ssm: prefixes are
// conventional) ----------

std::string_view local_name(const pugi::xml_node& node) {
  const std::string_view name = node.name();
  const auto colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

pugi::xml_node child(const pugi::xml_node& parent, std::string_view name) {
  for (const pugi::xml_node& c : parent.children()) {
    if (c.type() == pugi::node_element && local_name(c) == name) return c;
  }
  return {};
}

std::vector<pugi::xml_node> children(const pugi::xml_node& parent, std::string_view name) {
  std::vector<pugi::xml_node> found;
  for (const pugi::xml_node& c : parent.children()) {
    if (c.type() == pugi::node_element && local_name(c) == name) found.push_back(c);
  }
  return found;
}

/// The SSP type elements (Common Content: Type Choice).
constexpr std::array<std::string_view, 17> kTypeNames = {
    "Real",   "Float64", "Float32", "Integer", "Int8",   "UInt8",       "Int16",  "UInt16", "Int32",
    "UInt32", "Int64",   "UInt64",  "Boolean", "String", "Enumeration", "Binary", "Clock"};

bool is_type_name(std::string_view name) {
  for (const std::string_view t : kTypeNames) {
    if (t == name) return true;
  }
  return false;
}

bool is_real_type(std::string_view type) { return type == "Real" || type == "Float64" || type == "Float32"; }

/// The one type element of a connector or parameter, or an empty node.
pugi::xml_node type_element(const pugi::xml_node& node) {
  for (const pugi::xml_node& c : node.children()) {
    if (c.type() == pugi::node_element && is_type_name(local_name(c))) return c;
  }
  return {};
}

// --- values and units
// -----------------------------------------------------------------------------

/// y ↦ scale·y + offset: a unit conversion, a LinearTransformation, or their
/// composition.
struct Affine {
  double scale = 1.0;
  double offset = 0.0;
  /// This, then `next`.
  [[nodiscard]] Affine then(const Affine& next) const {
    return {next.scale * scale, next.scale * offset + next.offset};
  }
  [[nodiscard]] double operator()(double y) const { return scale * y + offset; }
  [[nodiscard]] bool identity() const { return scale == 1.0 && offset == 0.0; }
};

/// An ssc:Unit: the exponents of kg m s A K mol cd rad, and the factor and
/// offset to SI (Common Content: Units, BaseUnit).
struct Unit {
  std::array<double, 8> exponents{};
  double factor = 1.0;
  double offset = 0.0;
  bool has_base_unit = true;  ///< false for an FMU's Unit without a BaseUnit: it
                              ///< converts to nothing
};
constexpr std::array<const char*, 8> kBaseUnits = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};

using Units = std::map<std::string, Unit, std::less<>>;

struct Connector {
  std::string name;
  std::string kind;
  std::string type;  ///< "Real", "Integer", ...; empty when not declared
  std::string unit;  ///< the SSD declaration's, else (a component's) the FMU's
                     ///< for the variable; empty: none
};

/// One value of a parameter set, after the binding's prefix and mapping.
struct ParameterValue {  // NOLINT(bugprone-exception-escape): reported on the
                         // implicit special members of this aggregate
  std::string name;
  io::Json value;
  std::string type;
  std::optional<Unit> unit;  ///< the parameter's unit, as its parameter set defines it
  std::string unit_name;
};

struct Element;

struct Endpoint {
  const Element* owner = nullptr;
  const Connector* connector = nullptr;
  auto operator<=>(const Endpoint&) const = default;
};

/// A connection with its data flow resolved: `from` feeds `to`.
struct Link {
  Endpoint from, to;
  Affine transformation;
  bool suppress_unit_conversion = false;
  std::size_t order = 0;  ///< in the SSD, depth first
};

/// A component or a system of the SSD (SSD: Common Model Element Type).
struct Element {
  std::string name;
  std::string path;  ///< the flattened, dotted name: "" for the root system,
                     ///< "sub.c" for c in sub
  bool is_system = false;
  int depth = 0;  ///< 0 for the root system
  std::vector<Connector> connectors;
  std::vector<pugi::xml_node> bindings;
  // components
  std::filesystem::path fmu;  ///< or, for a signal table (kCsvType), its CSV file
  bool csv = false;
  std::string implementation;
  std::optional<std::set<std::string>> variables;     ///< of the FMU; nullopt when unknown
  std::map<std::string, std::string> variable_units;  ///< the FMU's variables that declare a unit
  Units fmu_units;                                    ///< the FMU's UnitDefinitions
  // systems
  std::vector<Element*> elements;
  pugi::xml_node node;

  [[nodiscard]] const Connector* connector(std::string_view connector_name) const {
    for (const Connector& c : connectors) {
      if (c.name == connector_name) return &c;
    }
    return nullptr;
  }
  [[nodiscard]] std::string describe() const {
    if (path.empty()) return fmt::format("root system '{}'", name);
    return fmt::format("{} '{}'", is_system ? "system" : "component", path);
  }
};

std::string describe(const Endpoint& end) {
  if (end.owner->path.empty()) return fmt::format("connector '{}' of the root system", end.connector->name);
  return fmt::format("connector '{}.{}'", end.owner->path, end.connector->name);
}

/// Reads one SSD into a scenario document; every failure names the SSP and what
/// is at fault.
class SsdReader {
 public:
  SsdReader(const SsdResources& resources, std::string source) : resources_(resources), source_(std::move(source)) {}

  io::Json read(std::string_view text) {
    pugi::xml_document xml;
    const pugi::xml_parse_result parsed = xml.load_buffer(text.data(), text.size());
    if (!parsed)
      fail(fmt::format("SystemStructure.ssd is not well-formed XML: {} (at byte {})", parsed.description(),
                       parsed.offset));
    const pugi::xml_node top = xml.document_element();
    if (local_name(top) != "SystemStructureDescription") {
      fail(
          fmt::format("the root element of SystemStructure.ssd is <{}>, not "
                      "<ssd:SystemStructureDescription>",
                      top.name()));
    }
    const std::string version = top.attribute("version").value();
    if (version != "1.0" && version != "2.0") {
      fail(
          fmt::format("SystemStructureDescription version=\"{}\": cosima "
                      "reads SSP 1.0 (and 2.0 as far as 1.0 goes)",
                      version));
    }
    units_ = read_units(top);
    const pugi::xml_node root_node = child(top, "System");
    if (!root_node) fail("SystemStructureDescription has no <ssd:System>");
    root_ = read_system(root_node, nullptr);

    io::Json document = io::Json::object();
    if (const std::string name = top.attribute("name").value(); !name.empty()) document["name"] = name;
    if (const pugi::xml_node experiment = child(top, "DefaultExperiment")) {
      // SSD: DefaultExperiment — start and stop only (no step size in SSP)
      for (const auto& [attribute, key] : {std::pair{"startTime", "start"}, std::pair{"stopTime", "stop"}}) {
        if (const pugi::xml_attribute a = experiment.attribute(attribute))
          document[key] = number(a.value(), fmt::format("DefaultExperiment {}", attribute));
      }
    }
    collect_links(*root_);
    apply_bindings();
    document["systems"] = io::Json::object();
    for (const Element* component : components_) document["systems"][component->path] = system_entry(*component);
    std::vector<std::pair<std::size_t, io::Json>> connections;  // in the order of the connections into components
    io::Json inputs = io::Json::object();
    for (const Element* component : components_) {
      for (const Connector& connector : component->connectors) {
        resolve_inbound({component, &connector}, document["systems"][component->path], connections, inputs);
      }
    }
    std::stable_sort(connections.begin(), connections.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [order, connection] : connections) document["connections"].push_back(std::move(connection));
    if (!inputs.empty()) document["inputs"] = std::move(inputs);
    osp_settings(top, root_node, document);
    if (const std::optional<io::Json> settings = scenario_annotation(root_node)) document.merge_patch(*settings);
    return document;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}", source_, what)); }
  [[nodiscard]] const char* not_found() const {
    return resources_.confined ? "is not in the package" : "is not found beside the SSD";
  }

  double number(std::string_view text, const std::string& where) const {
    const std::optional<double> value = fmi::description::to_double(text);
    if (!value || !std::isfinite(*value)) fail(fmt::format("{} = \"{}\" is not a finite number", where, text));
    return *value;
  }

  // --- units (Common Content: Units) ---

  Units read_units(const pugi::xml_node& top) const {
    Units units;
    for (const pugi::xml_node& unit_node : children(child(top, "Units"), "Unit")) {
      const std::string name = unit_node.attribute("name").value();
      const pugi::xml_node base = child(unit_node, "BaseUnit");
      if (name.empty() || !base) fail("a <ssc:Unit> needs a name and a <ssc:BaseUnit>");
      Unit unit;
      for (std::size_t i = 0; i < kBaseUnits.size(); ++i) {
        if (const pugi::xml_attribute a = base.attribute(kBaseUnits[i])) {
          unit.exponents[i] = number(a.value(), fmt::format("unit '{}' exponent {}", name, kBaseUnits[i]));
        }
      }
      if (const pugi::xml_attribute a = base.attribute("factor"))
        unit.factor = number(a.value(), fmt::format("unit '{}' factor", name));
      if (const pugi::xml_attribute a = base.attribute("offset"))
        unit.offset = number(a.value(), fmt::format("unit '{}' offset", name));
      if (unit.factor == 0.0) fail(fmt::format("unit '{}' has factor 0", name));
      if (!units.emplace(name, unit).second) fail(fmt::format("unit '{}' is defined twice", name));
    }
    return units;
  }

  const Unit& unit_named(const Units& units, const std::string& name, const std::string& user) const {
    const auto found = units.find(name);
    if (found == units.end()) fail(fmt::format("{} has unit '{}', which no <ssc:Unit> defines", user, name));
    return found->second;
  }

  /// The definition of unit `name` of a connector or variable of `owner`: the
  /// SSD's ssd:Units, else (a component) its FMU's UnitDefinitions; `what`
  /// (naming both ends and units) is refused when there is none.
  const Unit& unit_of(const Element& owner, const std::string& name, const std::string& what) const {
    if (const auto found = units_.find(name); found != units_.end()) return found->second;
    if (!owner.is_system) {
      const auto found = owner.fmu_units.find(name);
      if (found != owner.fmu_units.end() && !found->second.has_base_unit) {
        fail(
            fmt::format("{}: the units are not convertible (unit '{}' of the "
                        "FMU of {} has no BaseUnit)",
                        what, name, owner.describe()));
      }
      if (found != owner.fmu_units.end()) return found->second;
    }
    fail(fmt::format("{}: unit '{}', which no <ssc:Unit> defines{}", what, name,
                     owner.is_system ? "" : fmt::format(" nor the FMU of {}", owner.describe())));
  }

  /// From `from` to `to`: u_to = (y·f_from + o_from − o_to) / f_to when the
  /// base-unit exponents agree.
  Affine conversion(const Unit& from, const Unit& to, const std::string& what) const {
    if (from.exponents != to.exponents)
      fail(fmt::format("{}: the units are not convertible (different base units)", what));
    return {from.factor / to.factor, (from.offset - to.offset) / to.factor};
  }

  // --- structure (SSD: System, Component, Connectors) ---

  Element& new_element(const pugi::xml_node& node, const Element* parent, bool is_system) {
    Element& e = storage_.emplace_back();
    e.name = node.attribute("name").value();
    if (e.name.empty())
      fail(fmt::format("a <{}> in {} has no name", node.name(), parent ? parent->describe() : "the SSD"));
    e.is_system = is_system;
    e.node = node;
    if (parent != nullptr) {
      e.path = parent->path.empty() ? e.name : parent->path + "." + e.name;
      e.depth = parent->depth + 1;
    }
    for (const pugi::xml_node& c : children(child(node, "Connectors"), "Connector")) {
      Connector connector;
      connector.name = c.attribute("name").value();
      connector.kind = c.attribute("kind").value();
      if (connector.name.empty()) fail(fmt::format("{} has a connector without a name", e.describe()));
      if (e.connector(connector.name) != nullptr)
        fail(fmt::format("{} declares connector '{}' twice", e.describe(), connector.name));
      if (const pugi::xml_node type = type_element(c)) {
        connector.type = std::string(local_name(type));
        connector.unit = type.attribute("unit").value();
      }
      if (child(c, "Dimension"))
        fail(fmt::format("{}: array connectors are not supported", describe({&e, &connector})));
      e.connectors.push_back(std::move(connector));
    }
    for (const pugi::xml_node& b : children(child(node, "ParameterBindings"), "ParameterBinding"))
      e.bindings.push_back(b);
    return e;
  }

  /// Systems nested deeper than this are refused. Every walk of the tree is
  /// iterative, so the bound is not the stack's: it keeps the flattened dotted
  /// names (which grow with the depth) small.
  static constexpr int kMaxSystemDepth = 256;

  /// A system being read: its element nodes are taken one at a time so that a
  /// nested system is read completely before its next sibling (depth first,
  /// document order), without recursion.
  struct SystemFrame {
    Element* system;
    pugi::xml_node next;  ///< the next node of its <ssd:Elements>
    std::set<std::string> names;
  };

  Element* read_system(const pugi::xml_node& node, const Element* parent) {
    Element& root = new_element(node, parent, true);
    std::vector<SystemFrame> open{{&root, child(node, "Elements").first_child(), {}}};
    while (!open.empty()) {
      SystemFrame& frame = open.back();
      if (!frame.next) {
        open.pop_back();
        continue;
      }
      const pugi::xml_node n = frame.next;
      frame.next = n.next_sibling();
      if (n.type() != pugi::node_element) continue;
      Element* system = frame.system;
      Element* element = read_element(n, *system);
      if (!frame.names.insert(element->name).second)
        fail(fmt::format("{} has two elements named '{}'", system->describe(), element->name));
      system->elements.push_back(element);
      if (element->is_system) open.push_back({element, child(n, "Elements").first_child(), {}});
    }
    return &root;
  }

  /// One element of `system`: a component, or a nested system whose own
  /// elements the caller reads.
  Element* read_element(const pugi::xml_node& n, const Element& system) {
    const std::string_view kind = local_name(n);
    if (kind == "Component") return &read_component(n, system);
    if (kind != "System") {
      fail(
          fmt::format("{} contains a <{}> named '{}': cosima imports "
                      "components (FMUs) and systems only",
                      system.describe(), n.name(), n.attribute("name").value()));
    }
    if (system.depth + 1 > kMaxSystemDepth)
      fail(fmt::format("{} nests systems deeper than {} levels", system.describe(), kMaxSystemDepth));
    return &new_element(n, &system, true);
  }

  /// SSD: Component — an FMU from the package, or a signal table (a CSV file of the package, as
  /// cosima exports its CSV sources: SSP 1.0 leaves the component types beyond FMUs to the tools).
  Element& read_component(const pugi::xml_node& node, const Element& system) {
    Element& component = new_element(node, &system, false);
    const std::string type =
        node.attribute("type") ? node.attribute("type").value() : "application/x-fmu-sharedlibrary";
    if (type != "application/x-fmu-sharedlibrary" && type != kCsvType) {
      fail(
          fmt::format("{} has type '{}': cosima imports FMUs "
                      "(application/x-fmu-sharedlibrary) and signal tables ({}) only",
                      component.describe(), type, kCsvType));
    }
    component.csv = type == kCsvType;
    if (!node.attribute("source"))
      fail(fmt::format("{} has no source (an FMU of the package, e.g. resources/x.fmu)", component.describe()));
    const std::string source = node.attribute("source").value();
    const std::string path = package_path(source, component.describe());
    const std::optional<std::filesystem::path> file = resources_.file ? resources_.file(path) : std::nullopt;
    if (!file) fail(fmt::format("{}: source '{}' {}", component.describe(), source, not_found()));
    component.fmu = *file;
    if (component.csv) {
      components_.push_back(&component);
      return component;
    }
    const std::string implementation = node.attribute("implementation").value();
    if (implementation == "CoSimulation") {
      component.implementation = "cs";
    } else if (implementation == "ModelExchange") {
      component.implementation = "me";
    } else if (!implementation.empty() && implementation != "any") {
      fail(
          fmt::format("{}: implementation '{}' is not supported "
                      "(CoSimulation, ModelExchange or any)",
                      component.describe(), implementation));
    }
    if (const std::shared_ptr<const fmi::ModelDescription> md =
            resources_.description ? resources_.description(component.fmu) : nullptr) {
      take_fmu_units(component, *md);
    }
    components_.push_back(&component);
    return component;
  }

  /// The FMU's variables, their units and UnitDefinitions; a connector whose
  /// declaration has no unit takes its variable's.
  static void take_fmu_units(Element& component, const fmi::ModelDescription& md) {
    component.variables.emplace();
    for (const fmi::ScalarVariable& v : md.variables) {
      component.variables->insert(v.name);
      if (!v.unit.empty()) component.variable_units.emplace(v.name, v.unit);
    }
    for (const fmi::UnitDefinition& definition : md.units) {
      Unit& unit = component.fmu_units[definition.name];
      std::copy(definition.exponents.begin(), definition.exponents.end(), unit.exponents.begin());
      unit.factor = definition.factor;
      unit.offset = definition.offset;
      unit.has_base_unit = definition.has_base_unit;
    }
    for (Connector& connector : component.connectors) {
      const auto declared = component.variable_units.find(connector.name);
      if (connector.unit.empty() && declared != component.variable_units.end() &&
          (connector.type.empty() || is_real_type(connector.type))) {
        connector.unit = declared->second;
      }
    }
  }

  /// A relative URI of the package as a path inside it (SSD: Component source;
  /// packaging): percent- decoded; a scheme, a fragment, an absolute path or a
  /// ".." segment is refused.
  std::string package_path(const std::string& uri, const std::string& user) const {
    std::string decoded;
    for (std::size_t i = 0; i < uri.size(); ++i) {
      if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) != 0 &&
          std::isxdigit(static_cast<unsigned char>(uri[i + 2])) != 0) {
        decoded += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += uri[i];
      }
    }
    const auto first_separator = uri.find_first_of("/?#");
    const bool has_scheme = uri.find(':') < first_separator;
    bool climbs = false;
    for (const auto& part : std::filesystem::path(decoded)) climbs = climbs || part == "..";
    if (has_scheme || uri.find_first_of("?#") != std::string::npos || decoded.empty() ||
        decoded.find('\0') != std::string::npos) {
      fail(fmt::format("{}: source '{}' is not a relative path{}", user, uri,
                       resources_.confined ? " inside the package" : " or a file path"));
    }
    // a bare SSD's sources are files the user names: they may leave its folder
    if (resources_.confined && (decoded.front() == '/' || climbs))
      fail(fmt::format("{}: source '{}' is not a relative path inside the package", user, uri));
    return std::filesystem::path(decoded).lexically_normal().string();
  }

  // --- connections (SSD: Connections, Allowed Connections, Transformation
  // Choice) ---

  enum class Role { source, destination };

  /// Whether a connector gives or takes the value, seen from inside `system`:
  /// an element's output gives, the system's own input gives (to its inside).
  Role role(const Endpoint& end, const Element& system) const {
    const std::string& kind = end.connector->kind;
    const bool own = end.owner == &system;
    if (kind == "input" || kind == "parameter" || kind == "structuralParameter")
      return own ? Role::source : Role::destination;
    if (kind == "output" || kind == "calculatedParameter" || kind == "local" || kind == "constant") {
      return own ? Role::destination : Role::source;
    }
    fail(
        fmt::format("{} has kind '{}': cosima connects input, output, "
                    "parameter, calculatedParameter, local and constant "
                    "connectors",
                    describe(end), kind));
  }

  Endpoint endpoint(const Element& system, const pugi::xml_node& connection, const char* element_attribute,
                    const char* connector_attribute) const {
    const Element* owner = &system;
    if (const pugi::xml_attribute element = connection.attribute(element_attribute)) {
      owner = nullptr;
      for (const Element* e : system.elements) {
        if (e->name == element.value()) owner = e;
      }
      if (owner == nullptr) {
        std::string known;
        for (const Element* e : system.elements) known += (known.empty() ? "" : ", ") + e->name;
        fail(
            fmt::format("a connection in {} names element '{}', which it does "
                        "not contain (elements: {})",
                        system.describe(), element.value(), known.empty() ? "none" : known));
      }
    }
    const std::string connector_name = connection.attribute(connector_attribute).value();
    const Connector* connector = owner->connector(connector_name);
    if (connector == nullptr) {
      fail(
          fmt::format("a connection in {} names connector '{}' of {}, which "
                      "declares no such connector",
                      system.describe(), connector_name, owner == &system ? "the system itself" : owner->describe()));
    }
    return {owner, connector};
  }

  /// The connection's transformation as y ↦ factor·y + offset; mappings that
  /// are not the identity are refused.
  Affine transformation(const pugi::xml_node& connection, const Link& link) const {
    const std::string what = fmt::format("the connection from {} to {}", describe(link.from), describe(link.to));
    Affine affine;
    if (const pugi::xml_node linear = child(connection, "LinearTransformation")) {
      for (const Endpoint& end : {link.from, link.to}) {
        if (!end.connector->type.empty() && !is_real_type(end.connector->type)) {
          fail(
              fmt::format("{}: a LinearTransformation applies to Real "
                          "connectors, and {} is {}",
                          what, describe(end), end.connector->type));
        }
      }
      if (const pugi::xml_attribute a = linear.attribute("factor")) affine.scale = number(a.value(), what + ": factor");
      if (const pugi::xml_attribute a = linear.attribute("offset"))
        affine.offset = number(a.value(), what + ": offset");
    }
    for (const char* mapping :
         {"BooleanMappingTransformation", "IntegerMappingTransformation", "EnumerationMappingTransformation"}) {
      for (const pugi::xml_node& entry : children(child(connection, mapping), "MapEntry")) {
        if (std::string_view(entry.attribute("source").value()) != entry.attribute("target").value()) {
          fail(fmt::format("{}: a {} that changes values ({} → {}) is not supported", what, mapping,
                           entry.attribute("source").value(), entry.attribute("target").value()));
        }
      }
    }
    return affine;
  }

  /// The links of every system, each system's connections before its
  /// subsystems' (depth first).
  void collect_links(const Element& root) {
    std::vector<const Element*> pending{&root};
    while (!pending.empty()) {
      const Element& system = *pending.back();
      pending.pop_back();
      collect_links_of(system);
      for (auto e = system.elements.rbegin(); e != system.elements.rend(); ++e) {
        if ((*e)->is_system) pending.push_back(*e);
      }
    }
  }

  void collect_links_of(const Element& system) {
    for (const pugi::xml_node& connection : children(child(system.node, "Connections"), "Connection")) {
      const Endpoint start = endpoint(system, connection, "startElement", "startConnector");
      const Endpoint end = endpoint(system, connection, "endElement", "endConnector");
      const Role start_role = role(start, system);
      if (start_role == role(end, system)) {
        fail(
            fmt::format("the connection between {} ({}) and {} ({}) in {} has "
                        "no direction: both {}",
                        describe(start), start.connector->kind, describe(end), end.connector->kind, system.describe(),
                        start_role == Role::source ? "give a value" : "take a value"));
      }
      Link link = start_role == Role::source ? Link{start, end} : Link{end, start};
      link.transformation = transformation(connection, link);
      link.suppress_unit_conversion = connection.attribute("suppressUnitConversion").as_bool(false);
      link.order = inbound_.size();
      if (!inbound_.emplace(link.to, link).second) {
        fail(fmt::format("{} has more than one inbound connection", describe(link.to)));
      }
    }
  }

  /// Follows the connections into a component connector back to the component
  /// output (or the bound system connector) they start from, composing unit
  /// conversions and transformations on the way.
  void resolve_inbound(const Endpoint& target, io::Json& target_system,
                       std::vector<std::pair<std::size_t, io::Json>>& connections, io::Json& inputs) const {
    std::vector<const Link*> path;  // target first
    Endpoint at = target;
    for (auto in = inbound_.find(at); in != inbound_.end(); in = inbound_.find(at)) {
      path.push_back(&in->second);
      at = in->second.from;
      if (!at.owner->is_system) break;
      if (path.size() > inbound_.size()) fail(fmt::format("the connections into {} form a loop", describe(target)));
    }
    if (target.connector->kind == "input") {
      // a parameter binding to a component's input gives its value while
      // nothing connected drives it (SSP 1.0 §5.6: a binding sets the start
      // value of the variable)
      const std::string& name = target.connector->name;
      const bool bound = target_system.contains("parameters") && target_system["parameters"].is_object() &&
                         target_system["parameters"].contains(name);
      if (bound) {
        io::Json& parameters = target_system["parameters"];
        if (path.empty()) inputs[fmt::format("{}.{}", target.owner->path, name)] = parameters[name];
        parameters.erase(name);
        if (parameters.empty()) target_system.erase("parameters");
      }
    }
    if (path.empty()) return;
    // forward, from the source: convert into each declared unit on the way (a
    // connector without a unit carries the one before it), then transform
    Affine total;
    const Connector* unit_holder = at.connector;
    Endpoint unit_end = at;
    for (auto link = path.rbegin(); link != path.rend(); ++link) {
      const Connector& to = *(*link)->to.connector;
      if (!(*link)->suppress_unit_conversion && !to.unit.empty() && !unit_holder->unit.empty() &&
          to.unit != unit_holder->unit) {
        const std::string what = fmt::format("{} (unit {}) feeds {} (unit {})", describe(unit_end), unit_holder->unit,
                                             describe((*link)->to), to.unit);
        total = total.then(conversion(unit_of(*unit_end.owner, unit_holder->unit, what),
                                      unit_of(*(*link)->to.owner, to.unit, what), what));
      }
      total = total.then((*link)->transformation);
      if (!to.unit.empty()) {
        unit_holder = &to;
        unit_end = (*link)->to;
      }
    }
    const std::string target_name = fmt::format("{}.{}", target.owner->path, target.connector->name);
    if (!at.owner->is_system) {
      io::Json connection = {{"from", fmt::format("{}.{}", at.owner->path, at.connector->name)}, {"to", target_name}};
      const std::string& from_type = at.connector->type;
      const std::string& to_type = target.connector->type;
      if (!from_type.empty() && !to_type.empty() && from_type != to_type &&
          !(is_real_type(from_type) && is_real_type(to_type))) {
        connection["convert"] = true;  // SSD Allowed Connections: conversions between types are
                                       // implementation-defined
      }
      if (total.scale != 1.0) connection["scale"] = total.scale;
      if (total.offset != 0.0) connection["offset"] = total.offset;
      connections.emplace_back(path.front()->order, std::move(connection));
      return;
    }
    // a system connector nothing feeds: its value is a parameter binding's, or
    // there is none
    const auto bound = connector_values_.find(at);
    if (bound == connector_values_.end()) {
      fail(
          fmt::format("{} feeds {} but nothing feeds it: SSP 1.0 connectors "
                      "have no start value; connect it or bind a "
                      "value to it with a ParameterBinding",
                      describe(at), describe(target)));
    }
    io::Json value = bound->second.value;
    if (value.is_number() && !total.identity()) value = total(value.get<double>());
    if (target.connector->kind == "input") {
      inputs[target_name] = std::move(value);
    } else {
      target_system["parameters"][target.connector->name] = std::move(value);
    }
  }

  // --- parameters (SSD: ParameterBindings; SSV; SSM) ---

  struct Binding {
    io::Json value;
    std::pair<int, long> priority{};  ///< (−depth of the binding, its order): the largest wins
  };

  /// The parameter set of one binding: from its source file or inline, with
  /// prefix and mapping applied.
  std::vector<ParameterValue> binding_values(const pugi::xml_node& binding, const Element& owner) const {
    const std::string where = fmt::format("a ParameterBinding of {}", owner.describe());
    const std::string type = binding.attribute("type").value();
    if (!type.empty() && type != "application/x-ssp-parameter-set") {
      fail(
          fmt::format("{} has type '{}': cosima reads SSP parameter sets "
                      "(application/x-ssp-parameter-set)",
                      where, type));
    }
    if (const std::string base = binding.attribute("sourceBase").value(); !base.empty() && base != "SSD") {
      fail(
          fmt::format("{} has sourceBase=\"{}\": only sources relative to the "
                      "SSD are supported",
                      where, base));
    }
    pugi::xml_document file;
    pugi::xml_node set;
    if (binding.attribute("source")) {
      const std::string source = binding.attribute("source").value();
      set = load(file, source, where, "ParameterSet");
    } else {
      set = child(child(binding, "ParameterValues"), "ParameterSet");
      if (!set)
        fail(
            fmt::format("{} has neither a source nor inline "
                        "<ssd:ParameterValues><ssv:ParameterSet>",
                        where));
    }
    const Units set_units = binding.attribute("source") ? read_units(set) : units_;
    const std::string prefix = binding.attribute("prefix").value();
    std::vector<ParameterValue> values;
    for (const pugi::xml_node& p : children(child(set, "Parameters"), "Parameter")) {
      values.push_back(parameter_value(p, set_units, where));
      values.back().name = prefix + values.back().name;
    }
    if (const pugi::xml_node mapping = child(binding, "ParameterMapping")) return mapped(values, mapping, where);
    return values;
  }

  pugi::xml_node load(pugi::xml_document& file, const std::string& source, const std::string& user,
                      std::string_view root) const {
    const std::string path = package_path(source, user);
    const std::optional<std::string> text = resources_.text ? resources_.text(path) : std::nullopt;
    if (!text) fail(fmt::format("{}: source '{}' {}", user, source, not_found()));
    const pugi::xml_parse_result parsed = file.load_buffer(text->data(), text->size());
    if (!parsed)
      fail(fmt::format("'{}' is not well-formed XML: {} (at byte {})", source, parsed.description(), parsed.offset));
    const pugi::xml_node top = file.document_element();
    if (local_name(top) != root)
      fail(fmt::format("the root element of '{}' is <{}>, not <{}>", source, top.name(), root));
    return top;
  }

  /// SSV: Parameter — one typed value.
  ParameterValue parameter_value(const pugi::xml_node& p, const Units& units, const std::string& where) const {
    ParameterValue result;
    result.name = p.attribute("name").value();
    const pugi::xml_node typed = type_element(p);
    if (result.name.empty() || !typed)
      fail(fmt::format("{}: a <ssv:Parameter> needs a name and a type element", where));
    const std::string what = fmt::format("{}: parameter '{}'", where, result.name);
    if (child(p, "Dimension")) fail(fmt::format("{} is an array: not supported", what));
    result.type = std::string(local_name(typed));
    std::string text = typed.attribute("value").value();
    if (!typed.attribute("value")) {
      const pugi::xml_node value = child(typed, "Value");
      if (!value) fail(fmt::format("{} has no value", what));
      text = value.text().get();
    }
    if (is_real_type(result.type)) {
      result.value = number(text, what);
      result.unit_name = typed.attribute("unit").value();
      if (!result.unit_name.empty()) result.unit = unit_named(units, result.unit_name, what);
    } else if (result.type == "Boolean") {
      const std::string_view word = fmi::description::trim(text);
      if (word != "true" && word != "false" && word != "1" && word != "0")
        fail(fmt::format("{} = \"{}\" is not a Boolean", what, text));
      result.value = word == "true" || word == "1";
    } else if (result.type == "String" || result.type == "Enumeration" || result.type == "Binary") {
      result.value = text;  // an Enumeration by item name (SSV: Enumeration)
    } else if (result.type == "Clock") {
      fail(fmt::format("{} is a Clock: not supported", what));
    } else {
      // exact over the 64-bit range (FMI 3.0 Int64 / UInt64); the system checks its own type's range
      const std::optional<WideInteger> whole = WideInteger::parse(fmi::description::trim(text));
      const bool is_unsigned = result.type.starts_with("UInt");
      if (!whole || (is_unsigned && whole->negative()))
        fail(fmt::format("{} = \"{}\" is not {} integer from -2^63 to 2^64 - 1", what, text,
                         is_unsigned ? "a non-negative" : "an"));
      if (whole->negative())
        result.value = *whole->as_int64();
      else
        result.value = *whole->as_uint64();
    }
    return result;
  }

  /// SSM: only mapped parameters apply, by their target names (after an
  /// optional LinearTransformation).
  std::vector<ParameterValue> mapped(const std::vector<ParameterValue>& values, const pugi::xml_node& mapping_node,
                                     const std::string& where) const {
    pugi::xml_document file;
    pugi::xml_node mapping = child(mapping_node, "ParameterMapping");
    if (mapping_node.attribute("source"))
      mapping = load(file, mapping_node.attribute("source").value(), where, "ParameterMapping");
    if (!mapping)
      fail(
          fmt::format("{}: its ParameterMapping has neither a source nor an "
                      "inline <ssm:ParameterMapping>",
                      where));
    std::vector<ParameterValue> result;
    for (const pugi::xml_node& entry : children(mapping, "MappingEntry")) {
      const std::string source = entry.attribute("source").value();
      const std::string target = entry.attribute("target").value();
      const std::string what = fmt::format("{}: mapping '{}' → '{}'", where, source, target);
      if (child(entry, "BooleanMappingTransformation") || child(entry, "IntegerMappingTransformation") ||
          child(entry, "EnumerationMappingTransformation")) {
        fail(fmt::format("{}: only name mappings and LinearTransformations are supported", what));
      }
      for (const ParameterValue& value : values) {
        if (value.name != source) continue;
        ParameterValue renamed = value;
        renamed.name = target;
        if (const pugi::xml_node linear = child(entry, "LinearTransformation")) {
          if (!renamed.value.is_number())
            fail(fmt::format("{}: a LinearTransformation applies to Real parameters", what));
          Affine affine;
          if (const pugi::xml_attribute a = linear.attribute("factor"))
            affine.scale = number(a.value(), what + ": factor");
          if (const pugi::xml_attribute a = linear.attribute("offset"))
            affine.offset = number(a.value(), what + ": offset");
          renamed.value = affine(renamed.value.get<double>());
        }
        result.push_back(std::move(renamed));
      }
    }
    return result;
  }

  /// Applies one value by its hierarchical name relative to `element` (SSD:
  /// ParameterBindings — to a system's own connector, into an element whose
  /// name and a dot begin it — to all of them when names pun — or to a
  /// component's variable).
  void apply(const Element& element, const std::string& name, const ParameterValue& value,
             const std::pair<int, long>& priority) {
    auto keep = [&](Binding& binding, io::Json converted) {
      if (binding.value.is_null() || priority > binding.priority) binding = {std::move(converted), priority};
    };
    if (!element.is_system) {
      if (element.variables && !element.variables->contains(name)) return;  // not a variable of this FMU: ignored
      keep(parameters_[{&element, name}], converted_to_connector(element, name, value));
      return;
    }
    if (const Connector* connector = element.connector(name))
      keep(connector_values_[{&element, connector}], value.value);
    for (const Element* e : element.elements) {
      if (name.size() > e->name.size() + 1 && name.starts_with(e->name) && name[e->name.size()] == '.') {
        apply(*e, name.substr(e->name.size() + 1), value, priority);
      }
    }
  }

  /// A Real parameter with a unit, set on a component connector that declares
  /// another unit, is converted. Without a connector, the unit the FMU declares
  /// for the variable counts.
  io::Json converted_to_connector(const Element& component, const std::string& name,
                                  const ParameterValue& value) const {
    const Connector* connector = component.connector(name);
    std::string unit = connector != nullptr ? connector->unit : "";
    std::string target = connector != nullptr ? describe({&component, connector}) : "";
    if (connector == nullptr) {
      if (const auto declared = component.variable_units.find(name); declared != component.variable_units.end()) {
        unit = declared->second;
        target = fmt::format("variable '{}.{}'", component.path, name);
      }
    }
    if (!value.unit || unit.empty() || unit == value.unit_name) return value.value;
    const std::string what =
        fmt::format("parameter '{}' (unit {}) for {} (unit {})", value.name, value.unit_name, target, unit);
    return conversion(*value.unit, unit_of(component, unit, what), what)(value.value.get<double>());
  }

  void apply_bindings() {
    long order = 0;
    for (const Element& element : storage_) {
      for (const pugi::xml_node& binding : element.bindings) {
        const std::pair<int, long> priority{-element.depth, order++};
        for (const ParameterValue& value : binding_values(binding, element))
          apply(element, value.name, value, priority);
      }
    }
  }

  io::Json system_entry(const Element& component) const {
    io::Json entry = {{component.csv ? "csv" : "fmu", component.fmu.string()}};
    if (!component.implementation.empty()) entry["interface"] = component.implementation;
    for (const auto& [key, binding] : parameters_) {
      if (key.first == &component) entry["parameters"][key.second] = binding.value;
    }
    return entry;
  }

  /// The annotation settles how the package runs, never what it loads: a
  /// system's file ("fmu", "csv") or kind ("model") comes from the SSD's
  /// elements and their checked sources alone — a path here could reach outside
  /// the package (a library loaded, its constructor run).
  void refuse_file_settings(const io::Json& settings) const {
    if (!settings.contains("systems")) return;
    const io::Json& systems = settings["systems"];
    if (!systems.is_object()) fail(fmt::format("the {} annotation: 'systems' must be an object", kScenarioAnnotation));
    for (const auto& [name, system] : systems.items()) {
      if (!system.is_object()) continue;
      for (const char* key : {"fmu", "csv", "model"}) {
        if (system.contains(key)) {
          fail(
              fmt::format("the {} annotation sets 'systems.{}.{}': what a "
                          "system loads comes from the SSD's "
                          "elements, not from an annotation",
                          kScenarioAnnotation, name, key));
        }
      }
    }
  }

  /// The cosima settings of the root system (ssc:Annotation
  /// type="org.cosima.scenario"): a JSON object.
  std::optional<io::Json> scenario_annotation(const pugi::xml_node& root_system) const {
    for (const pugi::xml_node& annotation : children(child(root_system, "Annotations"), "Annotation")) {
      if (annotation.attribute("type").value() != kScenarioAnnotation) continue;
      std::string text;
      for (const pugi::xml_node& part : annotation.children()) {
        if (part.type() == pugi::node_pcdata || part.type() == pugi::node_cdata) text += part.value();
      }
      io::Json settings =
          io::parse_json(text, fmt::format("{}: the {} annotation of the root system", source_, kScenarioAnnotation));
      if (!settings.is_object()) {
        fail(fmt::format("the {} annotation of the root system is not a JSON object", kScenarioAnnotation));
      }
      refuse_file_settings(settings);
      return settings;
    }
    return std::nullopt;
  }

  // --- OSP's annotations (libcosim's SSP reading) ---

  /// The elements inside the com.opensimulationplatform annotations of `owner`.
  static std::vector<pugi::xml_node> osp_annotations(const pugi::xml_node& owner) {
    std::vector<pugi::xml_node> found;
    for (const pugi::xml_node& annotation : children(child(owner, "Annotations"), "Annotation")) {
      if (annotation.attribute("type").value() != kOspAnnotation) continue;
      for (const pugi::xml_node& c : annotation.children()) {
        if (c.type() == pugi::node_element) found.push_back(c);
      }
    }
    return found;
  }

  void warn_unread(const pugi::xml_node& element, const std::string& where) const {
    log(LogLevel::warning, fmt::format("{}: the {} annotation of {} holds <{}>, which cosima does not read: ignored",
                                       source_, kOspAnnotation, where, element.name()));
  }

  /// The base step of osp:FixedStepAlgorithm in the DefaultExperiment's annotations, if any.
  std::optional<double> osp_base_step(const pugi::xml_node& top) const {
    std::optional<double> base;
    for (const pugi::xml_node& e : osp_annotations(child(top, "DefaultExperiment"))) {
      if (local_name(e) != "Algorithm") {
        warn_unread(e, "the DefaultExperiment");
        continue;
      }
      for (const pugi::xml_node& algorithm : children(e, "FixedStepAlgorithm")) {
        base = number(algorithm.attribute("baseStepSize").value(), "osp:FixedStepAlgorithm baseStepSize");
        if (!(*base > 0.0)) fail(fmt::format("osp:FixedStepAlgorithm baseStepSize = {} must be positive", *base));
        if (algorithm.attribute("numWorkerThreads")) {
          log(LogLevel::warning, fmt::format("{}: osp:FixedStepAlgorithm numWorkerThreads ignored (cosima run "
                                             "--executor threads:N)",
                                             source_));
        }
      }
      for (const pugi::xml_node& other : e.children()) {
        if (other.type() == pugi::node_element && local_name(other) != "FixedStepAlgorithm")
          fail(fmt::format("the {} annotation names algorithm <{}>: cosima runs osp:FixedStepAlgorithm (as Jacobi)",
                           kOspAnnotation, other.name()));
      }
    }
    return base;
  }

  /// OSP's settings (annotation com.opensimulationplatform): osp:FixedStepAlgorithm's baseStepSize
  /// → method.dt, each component's osp:StepSizeHint → method.rates (a whole multiple of it).
  void osp_settings(const pugi::xml_node& top, const pugi::xml_node& root_system, io::Json& document) const {
    for (const pugi::xml_node& e : osp_annotations(top)) warn_unread(e, "the SSD");
    for (const pugi::xml_node& e : osp_annotations(root_system)) warn_unread(e, "the root system");
    const std::optional<double> base = osp_base_step(top);
    if (base) document["method"]["dt"] = *base;
    for (const Element* component : components_) {
      for (const pugi::xml_node& e : osp_annotations(component->node)) {
        if (local_name(e) != "StepSizeHint") {
          warn_unread(e, component->describe());
          continue;
        }
        const double hint = number(e.attribute("value").value(), component->describe() + ": osp:StepSizeHint");
        if (!base) {
          log(LogLevel::warning, fmt::format("{}: osp:StepSizeHint of {} ignored: no osp:FixedStepAlgorithm gives "
                                             "a base step",
                                             source_, component->describe()));
          continue;
        }
        const std::optional<long long> rate = step_rate(hint, *base);
        if (!rate)
          fail(
              fmt::format("{}: osp:StepSizeHint {} is not a whole multiple of the baseStepSize {}: cosima steps a "
                          "system every k base steps (method.rates)",
                          component->describe(), hint, *base));
        if (*rate != 1) document["method"]["rates"][component->path] = *rate;
      }
    }
  }

  const SsdResources& resources_;
  std::string source_;
  Units units_;
  std::deque<Element> storage_;  // every element, in document order (depth first)
  Element* root_ = nullptr;
  std::vector<const Element*> components_;
  std::map<Endpoint, Link> inbound_;
  std::map<std::pair<const Element*, std::string>, Binding> parameters_;
  std::map<Endpoint, Binding> connector_values_;
};

std::optional<std::string> read_text_file(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

io::Json parse_ssd(std::string_view ssd, const SsdResources& resources, const std::string& source) {
  return SsdReader(resources, source).read(ssd);
}

namespace {

/// The SSD files at `root` (a package's root, or a folder), sorted.
std::vector<std::string> ssds_under(const std::filesystem::path& root) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    std::string extension = entry.path().extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension == ".ssd" && entry.is_regular_file(error)) found.push_back(entry.path().filename().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

/// The file name of the SSD that `name` picks at `root` (empty: SystemStructure.ssd; ".ssd" added when
/// missing); refused, listing the SSDs there, when there is none such.
std::string chosen_ssd(const std::filesystem::path& root, const std::string& name, const std::string& source) {
  std::string file = name.empty() ? std::string("SystemStructure.ssd") : name;
  if (file.find_first_of("/\\") != std::string::npos || file == "." || file == "..")
    throw Error(fmt::format("{}: --ssd '{}' names an SSD at the package's root by its file name", source, name));
  if (!file.ends_with(".ssd")) file += ".ssd";
  std::error_code error;
  if (!std::filesystem::is_regular_file(root / file, error)) {
    std::string known;
    for (const std::string& ssd : ssds_under(root)) known += (known.empty() ? "" : ", ") + ssd;
    throw Error(fmt::format("{} has no {} (SSDs: {})", source, name.empty() ? file : fmt::format("SSD '{}'", name),
                            known.empty() ? "none" : known));
  }
  return file;
}

/// The SSD `ssd_name` whose files are under `root` (a package unpacked, a folder as it is, or a bare
/// SSD's folder, whose sources may leave it: not `confined`).
SspImport read_ssd_under(const std::filesystem::path& root, const std::string& ssd_name, const std::string& source,
                         std::shared_ptr<const void> owner, bool confined) {
  const std::optional<std::string> ssd = read_text_file(root / ssd_name);
  if (!ssd) throw Error(fmt::format("{} has no {}", source, ssd_name));
  std::vector<std::filesystem::path> files = {(root / ssd_name).lexically_normal()};
  SsdResources resources;
  resources.text = [&](const std::string& path) {
    std::optional<std::string> text = read_text_file(root / path);
    if (text) files.push_back((root / path).lexically_normal());
    return text;
  };
  resources.file = [&](const std::string& path) -> std::optional<std::filesystem::path> {
    if (!std::filesystem::is_regular_file(root / path)) return std::nullopt;
    return (root / path).lexically_normal();
  };
  resources.description = [](const std::filesystem::path& fmu) {
    return std::make_shared<const fmi::ModelDescription>(fmi::read_model_description(fmu));
  };
  resources.confined = confined;
  io::Json document = parse_ssd(*ssd, resources, source);
  return {std::move(document), std::move(owner), std::move(files)};
}

/// How errors name an SSD of a package or folder: "SSP 'x.ssp'", and the SSD when it is not the default.
std::string ssd_source(const std::string& kind, const std::filesystem::path& where, const std::string& ssd) {
  const std::string source = fmt::format("{} '{}'", kind, where.string());
  return ssd == "SystemStructure.ssd" ? source : fmt::format("{} ({})", source, ssd);
}

}  // namespace

SspImport read_ssp(const std::filesystem::path& ssp, const std::string& ssd_name) {
  auto directory = std::make_shared<fmi::TemporaryDirectory>("cosima-ssp");
  fmi::unpack_zip(ssp, directory->path(), {},
                  "SSP");  // SSP 1.0 Packaging: a zip, entries checked as an FMU's
  const std::filesystem::path root = directory->path();
  const std::string ssd = chosen_ssd(root, ssd_name, fmt::format("SSP '{}'", ssp.string()));
  return read_ssd_under(root, ssd, ssd_source("SSP", ssp, ssd), std::move(directory), true);
}

SspImport read_ssd(const std::filesystem::path& ssd, const std::string& ssd_name) {
  if (std::filesystem::is_directory(ssd)) {  // (absolute: the FMU paths of the document are used as they are)
    const std::filesystem::path root = std::filesystem::absolute(ssd);
    const std::string file = chosen_ssd(root, ssd_name, fmt::format("SSP folder '{}'", ssd.string()));
    return read_ssd_under(root, file, ssd_source("SSP folder", ssd, file), nullptr, true);
  }
  if (!ssd_name.empty()) {
    throw Error(fmt::format("SSD '{}': --ssd '{}' picks an SSD of an SSP package or folder, and this is one SSD",
                            ssd.string(), ssd_name));
  }
  const std::filesystem::path folder = std::filesystem::absolute(ssd).parent_path();
  return read_ssd_under(folder, ssd.filename().string(), fmt::format("SSD '{}'", ssd.string()), nullptr, false);
}

bool is_ssd(const std::filesystem::path& file) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) {
    return std::filesystem::is_regular_file(file / "SystemStructure.ssd", error);
  }
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".ssd";
}

bool is_ssp_file(const std::filesystem::path& file) {
  if (file.extension() == ".ssp") return true;
  // sniff only a regular file: a pipe (/dev/stdin) read here would be lost to
  // the JSON reader
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return false;
  std::ifstream in(file, std::ios::binary);
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  return in.gcount() == 4 && magic == std::array<char, 4>{'P', 'K', '\x03', '\x04'};
}

}  // namespace cosima::ssp
