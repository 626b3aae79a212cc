#include "model/modular_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/array_element.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/suggest.hpp"

namespace cosima::model {

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}
}  // namespace

int ModularModel::add_system(std::unique_ptr<System> system) {
  const std::string& name = system->name();
  if (name.empty() || name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos) {
    throw Error(fmt::format("system name '{}' must be non-empty, and its '.'s must separate names", name));
  }
  if (system_index(system->name()) >= 0) throw Error(fmt::format("two systems are named '{}'", system->name()));
  system_names_.push_back(name);
  systems_.push_back(std::move(system));
  system_by_name_.append(systems_.size(), [this](std::size_t k) -> const std::string& { return system_names_[k]; });
  finalized_ = false;
  return system_count() - 1;
}

int ModularModel::system_index(std::string_view name) const {
  const std::size_t at =
      system_by_name_.find(name, [this](std::size_t k) -> const std::string& { return system_names_[k]; });
  return at == PositionIndex::npos ? -1 : static_cast<int>(at);
}

void ModularModel::LabelSplits::push_back(const LabelSplit& split) {
  if (size_ < inline_.size()) {
    inline_[size_++] = split;
    return;
  }
  if (more_.empty()) more_.assign(inline_.begin(), inline_.end());
  more_.push_back(split);
  ++size_;
}

ModularModel::LabelSplits ModularModel::split_label(std::string_view label) const {
  LabelSplits splits;
  for (auto dot = label.rfind('.'); dot != std::string_view::npos && dot > 0; dot = label.rfind('.', dot - 1)) {
    if (const int s = system_index(label.substr(0, dot)); s >= 0) splits.push_back({s, label.substr(dot + 1)});
  }
  return splits;
}

PortRef ModularModel::resolve(std::string_view label, const LabelSplits& splits, bool want_output) const {
  if (label.find('.') == std::string_view::npos) {
    throw Error(fmt::format("port '{}' must be written 'system.port'", label));
  }
  if (splits.empty()) {
    std::vector<std::string> names;
    for (const auto& sys : systems_) names.push_back(sys->name());
    const std::string_view given = label.substr(0, label.find('.'));
    throw Error(fmt::format("port '{}': no system '{}' (systems: {}){}", label, given, join(names),
                            did_you_mean(given, names)));
  }
  // nested systems have dotted names: the longest system name under which the port exists
  const auto exists = [&](const LabelSplit& split) {
    return system(split.system).output_index(split.port) >= 0 || system(split.system).input_index(split.port) >= 0;
  };
  const auto found = std::find_if(splits.begin(), splits.end(), exists);
  const auto [s, port_name] = found != splits.end() ? *found : splits.front();
  const std::string& system_name = system(s).name();
  const System& sys = system(s);
  const int out = sys.output_index(port_name);
  const int in = sys.input_index(port_name);
  if (want_output) {
    if (out >= 0) return {s, out};
    if (in >= 0) {
      throw Error(fmt::format("port '{}' is an input; a connection goes from an output to an input", label));
    }
    throw Error(fmt::format("system '{}' has no output '{}' (outputs: {}){}", system_name, port_name,
                            join(sys.output_names()), did_you_mean(port_name, sys.output_names())));
  }
  if (in >= 0) return {s, in};
  if (out >= 0) {
    throw Error(
        fmt::format("port '{}' is an output; a connection goes to an input (output connected to output)", label));
  }
  throw Error(fmt::format("system '{}' has no input '{}' (inputs: {}){}", system_name, port_name,
                          join(sys.input_names()), did_you_mean(port_name, sys.input_names())));
}

namespace {

/// The element suffixes "[…]" of the array port `base` among `names` (an FMI 3.0 array variable is
/// one port per element, named base[i] or base[i,j]), in port order.
std::vector<std::string> array_elements(const std::vector<std::string>& names, std::string_view base) {
  std::vector<std::string> suffixes;
  for (const std::string& name : names) {
    if (const auto suffix = element_suffix(name, base)) suffixes.emplace_back(*suffix);
  }
  return suffixes;
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> ModularModel::array_connection(
    std::string_view output, const LabelSplits& out_splits, std::string_view input,
    const LabelSplits& in_splits) const {
  if (out_splits.size() != 1 || in_splits.size() != 1) return std::nullopt;  // not a system, or ambiguous
  const System& from = system(out_splits.front().system);
  const System& to = system(in_splits.front().system);
  const std::string_view out_port = out_splits.front().port, in_port = in_splits.front().port;
  if (from.output_index(out_port) >= 0 || to.input_index(in_port) >= 0) return std::nullopt;
  const std::vector<std::string> out_elements = array_elements(from.output_names(), out_port);
  const std::vector<std::string> in_elements = array_elements(to.input_names(), in_port);
  if (out_elements.empty() || in_elements.empty()) return std::nullopt;
  if (out_elements != in_elements) {
    throw Error(
        fmt::format("connection {} -> {}: the arrays differ in shape ({} has {} elements, {} to {}; {} has {}, "
                    "{} to {})",
                    output, input, output, out_elements.size(), out_elements.front(), out_elements.back(), input,
                    in_elements.size(), in_elements.front(), in_elements.back()));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(out_elements.size());
  for (const std::string& suffix : out_elements)
    pairs.emplace_back(std::string(output) + suffix, std::string(input) + suffix);
  return pairs;
}

void ModularModel::connect(std::string_view output, std::string_view input, bool convert, LinearTransform transform) {
  // whole arrays of equal shape: element by element
  const LabelSplits out_splits = split_label(output), in_splits = split_label(input);
  if (const auto pairs = array_connection(output, out_splits, input, in_splits)) {
    for (const auto& [from, to] : *pairs) connect(from, to, convert, transform);
    return;
  }
  if (!std::isfinite(transform.scale) || !std::isfinite(transform.offset)) {
    throw Error(fmt::format("connection {} -> {}: scale {} and offset {} must be finite", output, input,
                            transform.scale, transform.offset));
  }
  const PortRef from = resolve(output, out_splits, true), to = resolve(input, in_splits, false);
  const PortInfo& out = system(from.system).output_info(from.port);
  const PortInfo& in = system(to.system).input_info(to.port);
  const bool same_type = out.kind == in.kind && (out.kind != PortKind::enumeration || out.declared_type.empty() ||
                                                 in.declared_type.empty() || out.declared_type == in.declared_type);
  if (!same_type) {
    const auto conversion = conversion_between(out, in);
    if (!convert || !conversion) {
      throw Error(fmt::format("connection {} ({}) -> {} ({}): the types differ{}", output, describe(out), input,
                              describe(in),
                              conversion ? "; ask for the conversion explicitly with \"convert\": true"
                                         : "; no conversion exists between them"));
    }
  }
  if (out.kind == PortKind::string) {
    if (!transform.identity()) {
      throw Error(fmt::format("connection {} -> {}: a String connection takes no scale or offset", output, input));
    }
    string_links_.push_back({from, to, false, {}});
    connections_.push_back({from, to, false, {}});  // drives the input (its numeric slot stays unused)
  } else {
    connections_.push_back({from, to, convert && !same_type, transform});
    if (out.wide && in.wide && same_type && transform.identity()) wide_links_.push_back({from, to, false, {}});
    if (out.wide && !transform.identity()) {
      log(LogLevel::warning, fmt::format("connection {} -> {}: its linear transformation is computed in doubles, which "
                                         "round 64-bit integers beyond 2^53",
                                         output, input));
    }
  }
  finalized_ = false;
}

void ModularModel::set_constant_input(std::string_view input, double value) {
  const PortRef to = resolve(input, false);
  const PortInfo& info = system(to.system).input_info(to.port);
  check_value(info, value, fmt::format("constant input '{}'", input));
  // a 64-bit input takes the integer the double is, exactly (beyond 2^53 its nearest double is many)
  if (const auto whole = WideInteger::of_double(value); info.wide && whole) wide_constants_.emplace_back(to, *whole);
  constants_pending_.emplace_back(to, value);
  finalized_ = false;
}

void ModularModel::set_constant_input(std::string_view input, bool value) {
  const PortRef to = resolve(input, false);
  const PortInfo& info = system(to.system).input_info(to.port);
  if (info.kind != PortKind::boolean) {
    throw Error(fmt::format("constant input '{}' ({}) is given {}, a Boolean value; give it a number", input,
                            describe(info), value));
  }
  set_constant_input(input, value ? 1.0 : 0.0);
}

void ModularModel::set_constant_input(std::string_view input, const std::string& text) {
  const PortRef to = resolve(input, false);
  const PortInfo& info = system(to.system).input_info(to.port);
  if (info.kind != PortKind::string) {  // an Enumeration by item name, else refused by name
    set_constant_input(input, info.enumeration_value(text, fmt::format("constant input '{}'", input)));
    return;
  }
  string_constants_.emplace_back(to, text);
  constants_pending_.emplace_back(to, 0.0);
  finalized_ = false;
}

void ModularModel::set_constant_input(std::string_view input, WideInteger value) {
  const PortRef to = resolve(input, false);
  const PortInfo& info = system(to.system).input_info(to.port);
  if (!info.wide && !value.exact_in_double()) {
    throw Error(
        fmt::format("constant input '{}' ({}) is given {}, which only a 64-bit integer input (Int64, UInt64) "
                    "holds exactly",
                    input, describe(info), value.text()));
  }
  const bool is_signed = info.integer_min < 0.0;  // Int64, else UInt64
  if (info.wide && !(is_signed ? value.as_int64().has_value() : value.as_uint64().has_value())) {
    throw Error(fmt::format("constant input '{}' ({}): {} is outside the range of its type {}", input, describe(info),
                            value.text(),
                            is_signed ? "[-9223372036854775808, 9223372036854775807]" : "[0, 18446744073709551615]"));
  }
  const std::size_t before = wide_constants_.size();
  set_constant_input(input, value.to_double());
  wide_constants_.resize(before);  // the value itself, not the integer its nearest double is
  if (info.wide) wide_constants_.emplace_back(to, value);
}

void ModularModel::exchange_strings() {
  for (const auto& [to, text] : string_constants_) system(to.system).set_string_input(to.port, text);
  // a String output may depend on a String input (feedthrough): sweep until nothing changes, at
  // most once per link (the longest chain)
  string_values_.resize(string_links_.size());
  for (std::size_t sweep = 0; sweep <= string_links_.size(); ++sweep) {
    bool changed = false;
    for (std::size_t k = 0; k < string_links_.size(); ++k) {
      const auto& link = string_links_[k];
      std::string value = system(link.from.system).string_output(link.from.port);
      if (string_values_[k] && *string_values_[k] == value) continue;
      system(link.to.system).set_string_input(link.to.port, value);
      string_values_[k] = std::move(value);
      changed = true;
    }
    if (!changed) return;
  }
}

void ModularModel::exchange_wide() {
  set_wide_constants();
  // as exchange_strings: along direct feedthrough, until nothing changes
  wide_values_.resize(wide_links_.size());
  for (std::size_t sweep = 0; sweep <= wide_links_.size(); ++sweep) {
    bool changed = false;
    for (std::size_t k = 0; k < wide_links_.size(); ++k) changed = hand_over_wide(k) || changed;
    if (!changed) return;
  }
}

void ModularModel::hand_over_wide_into(int system_index) {
  wide_values_.resize(wide_links_.size());
  for (std::size_t k = 0; k < wide_links_.size(); ++k) {
    if (wide_links_[k].to.system == system_index) (void)hand_over_wide(k);
  }
}

bool ModularModel::hand_over_wide(std::size_t link_index) {
  const PendingConnection& link = wide_links_[link_index];
  const System& from = system(link.from.system);
  const std::optional<WideInteger> value =
      from.wide_value(from.output_names()[static_cast<std::size_t>(link.from.port)]);
  if (!value || wide_values_[link_index] == value) return false;
  system(link.to.system).set_wide_input(link.to.port, *value);
  wide_values_[link_index] = value;
  return true;
}

void ModularModel::set_wide_constants() {
  if (wide_constants_set_) return;
  for (const auto& [to, value] : wide_constants_) system(to.system).set_wide_input(to.port, value);
  wide_constants_set_ = true;
}

namespace {
constexpr int kUndriven = -2;  ///< input_sources_ of an input nothing drives (yet)
}  // namespace

void ModularModel::finalize() {
  lay_out_ports();
  wire_inputs();
  collect_transforms();
  mark_held_inputs();
  hold_undriven_at_start_values();
  input_infos_.clear();  // they point into the systems: read during finalize() only
  output_infos_.clear();
  finalized_ = true;
}

void ModularModel::lay_out_ports() {
  // one pass over the systems: each is an object of its own, and at 10⁵ systems every pass over
  // them misses the cache once per system; the later steps read the port infos gathered here
  input_offsets_.assign(1, 0);
  output_offsets_.assign(1, 0);
  input_owner_.clear();
  output_owner_.clear();
  input_infos_.clear();
  output_infos_.clear();
  has_feedthrough_ = false;
  for (std::size_t s = 0; s < systems_.size(); ++s) {
    const System& sys = *systems_[s];
    const int inputs = sys.input_count(), outputs = sys.output_count();
    has_feedthrough_ = has_feedthrough_ || sys.has_feedthrough();
    for (int i = 0; i < inputs; ++i) input_infos_.push_back(&sys.input_info(i));
    for (int o = 0; o < outputs; ++o) output_infos_.push_back(&sys.output_info(o));
    input_offsets_.push_back(input_offsets_.back() + inputs);
    output_offsets_.push_back(output_offsets_.back() + outputs);
    input_owner_.resize(static_cast<std::size_t>(input_offsets_.back()), static_cast<int>(s));
    output_owner_.resize(static_cast<std::size_t>(output_offsets_.back()), static_cast<int>(s));
  }
}

void ModularModel::wire_inputs() {
  input_sources_.assign(static_cast<std::size_t>(total_inputs()), kUndriven);
  constants_.setZero(total_inputs());
  auto describe_driver = [&](int source) { return source == -1 ? std::string("a constant") : output_label(source); };
  auto drive = [&](PortRef to, int source, double constant) {
    const int global = input_offset(to.system) + to.port;
    int& slot = input_sources_[static_cast<std::size_t>(global)];
    if (slot != kUndriven) {
      throw Error(fmt::format("input '{}' is driven twice (by {} and by {})", input_label(global),
                              describe_driver(slot), describe_driver(source)));
    }
    slot = source;
    constants_(global) = constant;
  };
  for (const auto& c : connections_) drive(c.to, output_offset(c.from.system) + c.from.port, 0.0);
  for (const auto& [to, value] : constants_pending_) drive(to, -1, value);
}

void ModularModel::collect_transforms() {
  // linear transformations and the conversions asked for
  transforms_.clear();
  transform_of_input_.assign(static_cast<std::size_t>(total_inputs()), LinearTransform{});
  for (const auto& c : connections_) {
    if (c.transform.identity()) continue;
    const int input = input_offset(c.to.system) + c.to.port;
    transforms_.emplace_back(input, c.transform);
    transform_of_input_[static_cast<std::size_t>(input)] = c.transform;
  }
  conversions_.clear();
  for (const auto& c : connections_) {
    if (!c.convert) continue;
    const auto conversion =
        conversion_between(system(c.from.system).output_info(c.from.port), system(c.to.system).input_info(c.to.port));
    conversions_.emplace_back(input_offset(c.to.system) + c.to.port, conversion.value_or(Conversion::none));
  }
}

void ModularModel::mark_held_inputs() {
  // the inputs held over a macro-step: discrete or not Real, or fed by such an output
  held_.assign(static_cast<std::size_t>(total_inputs()), 0);
  held_of_system_.assign(systems_.size(), {});
  for (int i = 0; i < total_inputs(); ++i) {
    const int s = system_of_input(i);
    const PortInfo& in = *input_infos_[static_cast<std::size_t>(i)];
    bool held = in.kind != PortKind::real || !in.continuous;
    if (const int source = input_sources_[static_cast<std::size_t>(i)]; source >= 0) {
      const PortInfo& out = *output_infos_[static_cast<std::size_t>(source)];
      held = held || out.kind != PortKind::real || !out.continuous;
    }
    if (!held) continue;
    held_[static_cast<std::size_t>(i)] = 1;
    held_of_system_[static_cast<std::size_t>(s)].push_back(i - input_offset(s));
  }
}

void ModularModel::hold_undriven_at_start_values() {
  // FMI 2.0 §2.2.7 and FMI 3.0 §2.4.7 give every input a start value: an unconnected one keeps it
  std::vector<std::string> undriven;
  at_start_values_.clear();
  for (int i = 0; i < total_inputs(); ++i) {
    if (input_sources_[static_cast<std::size_t>(i)] != kUndriven) continue;
    const PortInfo& info = *input_infos_[static_cast<std::size_t>(i)];
    const bool has_start = info.kind == PortKind::string || info.start.has_value();
    if (strict_inputs_ || !has_start) {
      undriven.push_back(input_label(i));
      continue;
    }
    input_sources_[static_cast<std::size_t>(i)] = -1;
    constants_(i) = info.start.value_or(0.0);
    at_start_values_.push_back(input_label(i));
  }
  if (!undriven.empty()) {
    throw Error(fmt::format("unconnected input{}: {} ({}connect each input to an output or give it a constant)",
                            undriven.size() > 1 ? "s" : "", join(undriven),
                            strict_inputs_ ? "strict inputs: " : "no start value declared: "));
  }
}

int ModularModel::system_of_input(int global_input) const {
  return input_owner_[static_cast<std::size_t>(global_input)];
}

int ModularModel::system_of_output(int global_output) const {
  return output_owner_[static_cast<std::size_t>(global_output)];
}

std::string ModularModel::input_label(int global_input) const {
  const int s = system_of_input(global_input);
  return system(s).name() + "." + system(s).input_names()[static_cast<std::size_t>(global_input - input_offset(s))];
}

std::string ModularModel::output_label(int global_output) const {
  const int s = system_of_output(global_output);
  return system(s).name() + "." + system(s).output_names()[static_cast<std::size_t>(global_output - output_offset(s))];
}

void ModularModel::gather_outputs(Eigen::VectorXd& y_all) const {
  y_all.resize(total_outputs());
  for (int s = 0; s < system_count(); ++s) {
    system(s).outputs(y_all.segment(output_offset(s), system(s).output_count()));
  }
}

void ModularModel::dispatch(const Eigen::VectorXd& y_all, Eigen::VectorXd& u_all) const {
  u_all.resize(total_inputs());
  for (int i = 0; i < total_inputs(); ++i) {
    const int source = input_sources_[static_cast<std::size_t>(i)];
    u_all(i) = source >= 0 ? y_all(source) : constants_(i);
  }
  for (const auto& [input, transform] : transforms_) u_all(input) = transform.apply(u_all(input));
  for (const auto& [input, conversion] : conversions_) u_all(input) = convert(conversion, u_all(input));
}

void ModularModel::dispatch_to(int system, const Eigen::VectorXd& y_all, Eigen::VectorXd& u_all) const {
  const int first = input_offset(system), last = input_offset(system + 1);
  for (int i = first; i < last; ++i) {
    const int source = input_sources_[static_cast<std::size_t>(i)];
    u_all(i) = source >= 0 ? y_all(source) : constants_(i);
  }
  for (const auto& [input, transform] : transforms_) {
    if (input >= first && input < last) u_all(input) = transform.apply(u_all(input));
  }
  for (const auto& [input, conversion] : conversions_) {
    if (input >= first && input < last) u_all(input) = convert(conversion, u_all(input));
  }
}

void ModularModel::dispatch_derivatives(const Eigen::VectorXd& dy_all, Eigen::VectorXd& du_all) const {
  du_all.resize(total_inputs());
  for (int i = 0; i < total_inputs(); ++i) {
    const int source = input_sources_[static_cast<std::size_t>(i)];
    du_all(i) = source >= 0 && held_[static_cast<std::size_t>(i)] == 0 ? dy_all(source) : 0.0;
  }
  for (const auto& [input, transform] : transforms_) du_all(input) *= transform.scale;
}

std::vector<std::string> ModularModel::find_algebraic_loop() const {
  // Port graph: output → input (connection), input → output of the same system (feedthrough).
  // Nodes: outputs 0..n_out−1, inputs n_out..n_out+n_in−1. Depth-first search for a back edge.
  const int n_out = total_outputs();
  const int nodes = n_out + total_inputs();
  std::vector<std::vector<int>> edges(static_cast<std::size_t>(nodes));
  for (int i = 0; i < total_inputs(); ++i) {
    const int source = input_sources_[static_cast<std::size_t>(i)];
    if (source >= 0) edges[static_cast<std::size_t>(source)].push_back(n_out + i);
    const int s = system_of_input(i);
    for (int o = 0; o < system(s).output_count(); ++o) {
      if (system(s).output_depends_on_input(o, i - input_offset(s))) {
        edges[static_cast<std::size_t>(n_out) + static_cast<std::size_t>(i)].push_back(output_offset(s) + o);
      }
    }
  }
  // Depth-first search with an explicit stack (a chain of 10⁵ systems must not overflow the call stack).
  enum class Mark : char { unvisited, active, done };
  std::vector<Mark> mark(static_cast<std::size_t>(nodes), Mark::unvisited);
  std::vector<std::pair<int, std::size_t>> stack;  // node, next edge to follow
  std::vector<std::string> loop;
  auto label = [&](int node) { return node < n_out ? output_label(node) : input_label(node - n_out); };
  for (int root = 0; root < nodes && loop.empty(); ++root) {
    if (mark[static_cast<std::size_t>(root)] != Mark::unvisited) continue;
    mark[static_cast<std::size_t>(root)] = Mark::active;
    stack.emplace_back(root, 0);
    while (!stack.empty() && loop.empty()) {
      auto& [node, next_edge] = stack.back();
      const auto& out = edges[static_cast<std::size_t>(node)];
      if (next_edge == out.size()) {
        mark[static_cast<std::size_t>(node)] = Mark::done;
        stack.pop_back();
        continue;
      }
      const int next = out[next_edge++];
      if (mark[static_cast<std::size_t>(next)] == Mark::active) {
        const auto start =
            std::find_if(stack.begin(), stack.end(), [&](const auto& entry) { return entry.first == next; });
        for (auto it = start; it != stack.end(); ++it) loop.push_back(label(it->first));
        loop.push_back(label(next));
      } else if (mark[static_cast<std::size_t>(next)] == Mark::unvisited) {
        mark[static_cast<std::size_t>(next)] = Mark::active;
        stack.emplace_back(next, 0);
      }
    }
  }
  return loop;
}

}  // namespace cosima::model
