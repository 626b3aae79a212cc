#include "fmi/common/fmu_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/array_element.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/watcher.hpp"
#include "fmi/common/description_reader.hpp"

namespace cosima::fmi {

namespace {
constexpr std::size_t kLogLines = 20;

/// Whether the batches of one kind are one batch of Reals listing `ports` ports in port order, none negated.
bool one_real_batch(const std::vector<FmuInstance::TypedPorts>& of_kind, std::size_t ports) {
  if (of_kind.size() != 1 || of_kind.front().access != VariableType::real) return false;
  const FmuInstance::TypedPorts& batch = of_kind.front();
  if (batch.vrs.size() != ports || batch.ports.size() != ports || !batch.signs.empty()) return false;
  for (std::size_t k = 0; k < ports; ++k) {
    if (batch.ports[k] != static_cast<int>(k)) return false;
  }
  return true;
}

/// Appends v's sign to batch.signs once any variable of the batch is a negated alias (FMI 1.0).
void note_sign(FmuInstance::TypedPorts& batch, const ScalarVariable& v) {
  if (v.negated_alias && batch.signs.empty()) batch.signs.assign(batch.vrs.size() - 1, 1.0);
  if (v.negated_alias || !batch.signs.empty()) batch.signs.push_back(v.negated_alias ? -1.0 : 1.0);
}
}  // namespace

// (no tail call: the leak suppression needs this frame on the allocation's stack)
extern "C" COSIMA_NO_TAIL_CALL void* fmu_allocate_memory(std::size_t n, std::size_t size) {
  return std::calloc(n, size);
}

FmuInstance::FmuInstance(std::string system, const std::filesystem::path& fmu, FmiInterface interface,
                         const ApiNames& api)
    : system_(std::move(system)),
      api_(api),
      interface_(interface),
      archive_(shared_archive(fmu)),
      file_text_(fmu.string()) {
  if (capabilities().needs_execution_tool) {
    throw Error(fmt::format("FMU '{}' needs its execution tool (needsExecutionTool=true)", fmu.string()));
  }
  const std::vector<ScalarVariable>& variables = description().variables;
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (variables[i].duplicate_of < 0) continue;
    const ScalarVariable& first = variables[static_cast<std::size_t>(variables[i].duplicate_of)];
    log(LogLevel::warning,
        fmt::format("{}: '{}' is declared twice (variables {} and {}, valueReferences {} and {}; names are unique in "
                    "FMI): the first declaration is used, and a scenario that sets it is refused",
                    where(), first.name, variables[i].duplicate_of + 1, i + 1, first.value_reference,
                    variables[i].value_reference));
  }
  start_watcher();                                   // before the first foreign call
  watch_names(system_.c_str(), file_text_.c_str());  // the watcher cannot read this process's heap
}

FmuInstance::~FmuInstance() { forget_names(system_.c_str()); }

std::filesystem::path FmuInstance::library_path(FmiInterface interface) {
  std::filesystem::path shared = archive_->binary(interface);
  if (!capabilities().only_once_per_process || archive_.use_count() == 1) return shared;
  own_library_.emplace("cosima-library");
  std::filesystem::path copy = own_library_->path() / shared.filename();
  std::filesystem::copy_file(shared, copy);
  return copy;
}

void FmuInstance::lay_out() {
  const ModelDescription& md = description();
  // ports in the order of the description, an array's elements in turn; batched by access type
  std::map<std::pair<int, VariableType>, TypedPorts> batches;  // (0 out / 1 continuous in / 2 discrete in, type)
  std::vector<std::vector<int>> input_ports_of(md.variables.size()), output_ports_of(md.variables.size());
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    const ScalarVariable& v = md.variables[i];
    const bool input = v.causality == "input";
    if (!input && v.causality != "output") continue;
    std::vector<Port>& ports = input ? inputs_ : outputs_;
    const std::size_t elements = md.element_count(v);
    const bool text = v.type == VariableType::string || v.type == VariableType::binary;
    const PortInfo first = md.port_info(v);
    const int role = !input ? 0 : first.continuous ? 1 : 2;
    TypedPorts* batch = nullptr;
    if (!text && v.type != VariableType::clock) {
      batch = &batches[{role, access_type(v.type)}];
      batch->access = access_type(v.type);
      batch->vrs.push_back(v.value_reference);
      note_sign(*batch, v);
    }
    for (std::size_t e = 0; e < elements; ++e) {
      const int port = static_cast<int>(ports.size());
      (input ? input_ports_of : output_ports_of)[i].push_back(port);
      if (batch != nullptr) batch->ports.push_back(port);
      (input ? input_names_ : output_names_).push_back(md.element_name(v, e));
      ports.push_back({v.value_reference, v.type, md.port_info(v, e), e, static_cast<int>(i)});
    }
  }
  for (auto& [key, batch] : batches) {
    const bool real = batch.access == VariableType::real;
    if (key.first == 0) {
      if (real) real_out_ = batch;
      out_.push_back(batch);
      continue;
    }
    all_in_.push_back(batch);
    if (key.first == 1) {
      continuous_in_.push_back(batch);
      if (real) real_in_ = batch;
    } else {
      discrete_in_.push_back(batch);
    }
  }
  inputs_one_real_ = one_real_batch(all_in_, inputs_.size());
  for (const Port& port : inputs_) wide_inputs_.push_back(port.info.wide_start);
  wide_given_.assign(inputs_.size(), 0);
  outputs_one_real_ = one_real_batch(out_, outputs_.size());
  // direct feedthrough from ModelStructure outputs (no dependencies attribute: depends on all)
  feedthrough_.assign(outputs_.size(), std::vector<bool>(inputs_.size(), true));
  for (const Unknown& unknown : md.outputs) {
    if (!unknown.dependencies) continue;
    for (const int o : output_ports_of[static_cast<std::size_t>(unknown.index - 1)]) {
      feedthrough_[static_cast<std::size_t>(o)].assign(inputs_.size(), false);
      for (const int dependency : *unknown.dependencies) {
        for (const int in : input_ports_of[static_cast<std::size_t>(dependency - 1)]) {
          feedthrough_[static_cast<std::size_t>(o)][static_cast<std::size_t>(in)] = true;
        }
      }
    }
  }
  // states from the derivatives' list, in its order (FMI 2.0 §3.1, FMI 3.0 §2.4.8: the order of x)
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& derivative = md.variables[static_cast<std::size_t>(d.index - 1)];
    const ScalarVariable& state = md.variables[static_cast<std::size_t>(*derivative.derivative_of - 1)];
    if (md.element_count(state) != md.element_count(derivative)) {
      throw Error(fmt::format("FMU '{}': state '{}' and its derivative '{}' differ in size", file().string(),
                              state.name, derivative.name));
    }
    for (std::size_t e = 0; e < md.element_count(state); ++e) state_names_.push_back(md.element_name(state, e));
    state_vrs_.push_back(state.value_reference);
    derivative_vrs_.push_back(derivative.value_reference);
  }
}

void FmuInstance::require_calls(const OptionalCalls& calls) const {
  const auto uses = [](const std::vector<TypedPorts>& batches, VariableType access) {
    return std::any_of(batches.begin(), batches.end(), [&](const TypedPorts& b) { return b.access == access; });
  };
  const auto is_text = [](const Port& p) { return p.type == VariableType::string; };
  const bool texts =
      std::any_of(inputs_.begin(), inputs_.end(), is_text) || std::any_of(outputs_.begin(), outputs_.end(), is_text);
  const std::pair<bool, const void*> needs[] = {{uses(all_in_, VariableType::integer), calls.set_integer},
                                                {uses(out_, VariableType::integer), calls.get_integer},
                                                {uses(all_in_, VariableType::boolean), calls.set_boolean},
                                                {uses(out_, VariableType::boolean), calls.get_boolean},
                                                {texts, calls.get_string},
                                                {texts, calls.set_string}};
  static constexpr const char* kNames[] = {"SetInteger", "GetInteger", "SetBoolean",
                                           "GetBoolean", "GetString",  "SetString"};
  for (std::size_t k = 0; k < std::size(needs); ++k) {
    if (needs[k].first && needs[k].second == nullptr) {
      throw Error(
          fmt::format("FMU '{}': binary lacks {}{}, needed by its ports", file().string(), prefix(), kNames[k]));
    }
  }
}

namespace {

/// The variable a state's value reference names: the first Real that is not a negated alias (value
/// references are shared by aliases and, across types, in FMI 1.0 and 2.0); nullptr for none.
const ScalarVariable* state_variable(const ModelDescription& md, unsigned int vr) {
  for (const ScalarVariable& v : md.variables) {
    if (v.value_reference == vr && description::is_float_type(v.type) && !v.negated_alias) return &v;
  }
  return nullptr;
}

}  // namespace

Eigen::VectorXd FmuInstance::state_nominals() const {
  const ModelDescription& md = description();
  Eigen::VectorXd nominals = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(state_names_.size()));
  Eigen::Index k = 0;
  for (const unsigned int vr : state_vrs_) {
    const ScalarVariable* state = state_variable(md, vr);
    const double nominal = state != nullptr ? std::abs(state->nominal.value_or(1.0)) : 1.0;
    const std::size_t elements = state != nullptr ? md.element_count(*state) : 1;
    for (std::size_t e = 0; e < elements; ++e) nominals(k++) = nominal > 0.0 ? nominal : 1.0;
  }
  return nominals;
}

Eigen::VectorXd FmuInstance::state_starts() const {
  const ModelDescription& md = description();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(state_names_.size()));
  Eigen::Index k = 0;
  for (const unsigned int vr : state_vrs_) {
    const ScalarVariable* state = state_variable(md, vr);
    if (state == nullptr) {
      ++k;  // a state without a variable (FMI 1.0): its value comes from the FMU after initialization
      continue;
    }
    for (std::size_t e = 0; e < md.element_count(*state); ++e) x(k++) = md.port_info(*state, e).start.value_or(0.0);
  }
  return x;
}

// --- health and log ------------------------------------------------------------------------------

std::string FmuInstance::status_text(CallStatus status) const {
  static constexpr const char* kNames[] = {"OK", "Warning", "Discard", "Error", "Fatal"};
  const auto index = static_cast<std::size_t>(status);
  return fmt::format("{}{}", prefix(), index < std::size(kNames) ? kNames[index] : "Error");
}

void FmuInstance::on_log(CallStatus status, const char* category, const std::string& message) {
  std::string line = fmt::format("[{}{}{}] {}", status_text(status), category != nullptr ? " " : "",
                                 category != nullptr ? category : "", message);
  log(status >= CallStatus::warning ? LogLevel::warning : LogLevel::debug,
      fmt::format("system '{}': {}", system_, line));
  log_.push_back(std::move(line));
  if (log_.size() > kLogLines) log_.pop_front();
}

std::string FmuInstance::where() const { return fmt::format("FMU '{}' (system '{}')", file().string(), system_); }

std::string FmuInstance::recent_log() const {
  if (log_.empty()) return "";
  std::string text = "; FMU log:";
  for (const auto& line : log_) text += "\n  " + line;
  return text;
}

void FmuInstance::ensure_usable(const char* call) const {
  if (health_ == Health::ok && archive_->fatal()) {
    // Fatal corrupts every instance of the FMU (FMI 2.0 §2.1.3, FMI 3.0 §2.2.3): its library is shared
    health_ = Health::fatal;
    health_call_ = "a call of another instance of the same FMU";
  }
  if (health_ == Health::ok) return;
  throw Error(fmt::format("{}: {} not called: {} returned {} earlier, after which the FMU may not be used ({})",
                          where(), call, health_call_,
                          status_text(health_ == Health::fatal ? CallStatus::fatal : CallStatus::error),
                          api_.unusable_after_error));
}

void FmuInstance::record(CallStatus status, const char* call) const {
  if (status == CallStatus::error || status == CallStatus::fatal) {
    health_ = status == CallStatus::fatal ? Health::fatal : Health::error;
    health_call_ = call;
    if (status == CallStatus::fatal) archive_->mark_fatal();
  }
}

void FmuInstance::check(CallStatus status, const char* call) const {
  if (status == CallStatus::ok || status == CallStatus::warning) return;
  record(status, call);
  throw Error(fmt::format("{}: {} returned {}{}", where(), call, status_text(status), recent_log()));
}

bool FmuInstance::output_depends_on_input(int output, int input) const {
  return feedthrough_[static_cast<std::size_t>(output)][static_cast<std::size_t>(input)];
}

// --- values --------------------------------------------------------------------------------------

const ScalarVariable& FmuInstance::settable(const std::string& parameter, bool element) const {
  const int index = description().find(parameter);
  if (index < 0) throw Error(fmt::format("{} has no variable '{}'", where(), parameter));
  if (description().declared_twice(parameter)) {
    throw Error(
        fmt::format("{}: '{}' is declared twice in its modelDescription.xml (see the warning): which "
                    "declaration a value is for would be a guess",
                    where(), parameter));
  }
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(index)];
  // FMI 2.0 §2.2.7, FMI 3.0 §2.4.7.4: before initialization, variables with initial exact/approx,
  // parameters (structural ones too) and inputs
  if (v.variability == "constant" || (v.causality != "parameter" && v.causality != "structuralParameter" &&
                                      v.causality != "input" && v.initial != "exact" && v.initial != "approx")) {
    throw Error(fmt::format("{}: variable '{}' ({} {}) cannot be set", where(), parameter, v.causality, v.variability));
  }
  if (!v.dimensions.empty() && !element) {
    throw Error(fmt::format("{}: variable '{}' is an array; set its elements, e.g. '{}'", where(), parameter,
                            description().element_name(v, 0)));
  }
  if (v.causality == "structuralParameter") {
    // the ports of arrays are laid out at the structural parameters' start values (FMI 3.0 §2.4.7.2)
    throw Error(fmt::format("{}: '{}' is a structural parameter; cosima runs the FMU with it at its start value {}",
                            where(), parameter, v.start.value_or("-")));
  }
  return v;
}

namespace {

/// "A[2,1]" → ("A", {2, 1}); nullopt when the name has no index list.
std::optional<std::pair<std::string, std::vector<std::size_t>>> split_element(const std::string& name) {
  const auto open = name.find('[');
  if (open == std::string::npos || open == 0 || name.back() != ']') return std::nullopt;
  std::vector<std::size_t> indices;
  std::size_t begin = open + 1;
  while (begin < name.size()) {
    const std::size_t end = std::min(name.find(',', begin), name.size() - 1);
    const std::string digits = name.substr(begin, end - begin);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    indices.push_back(std::stoul(digits));
    begin = end + 1;
  }
  return std::pair{name.substr(0, open), indices};
}

}  // namespace

void FmuInstance::set_parameter(const std::string& parameter, double value, double t) {
  if (description().find(parameter) < 0) {
    if (const auto element = split_element(parameter)) {
      // one element of an array parameter (FMI 3.0), e.g. "A[2,1]": 1-based, row-major
      const ScalarVariable& v = settable(element->first, true);
      const std::vector<std::size_t> shape = description().shape(v);
      std::size_t flat = 0;
      bool inside = element->second.size() == shape.size();
      for (std::size_t d = 0; inside && d < shape.size(); ++d) {
        inside = element->second[d] >= 1 && element->second[d] <= shape[d];
        flat = flat * shape[d] + element->second[d] - 1;
      }
      if (!inside) {
        throw Error(fmt::format("{}: '{}' is not an element of '{}' ({} to {})", where(), parameter, v.name,
                                description().element_name(v, 0),
                                description().element_name(v, description().element_count(v) - 1)));
      }
      check_value(description().port_info(v, flat), value, fmt::format("{}: parameter '{}'", where(), parameter));
      give({.variable = &v, .element = flat, .is_element = true, .number = value}, t);
      return;
    }
  }
  const ScalarVariable& v = settable(parameter);
  if (v.type == VariableType::string || v.type == VariableType::binary) {
    throw Error(fmt::format("{}: parameter '{}' is a {}; give it a text, not {}", where(), parameter,
                            description().type_name(v.type), value));
  }
  check_value(description().port_info(v), value, fmt::format("{}: parameter '{}'", where(), parameter));
  give({.variable = &v, .number = value}, t);
}

void FmuInstance::set_string_parameter(const std::string& parameter, const std::string& value, double t) {
  const ScalarVariable& v = settable(parameter);
  if (v.type != VariableType::string && v.type != VariableType::binary) {  // an Enumeration by item name
    const double number =
        description().port_info(v).enumeration_value(value, fmt::format("{}: parameter '{}'", where(), parameter));
    set_parameter(parameter, number, t);
    return;
  }
  give({.variable = &v, .text = value}, t);
}

void FmuInstance::give(GivenValue value, double t) {
  if (!initialized_ && !in_initialization_) {
    given_.push_back(std::move(value));
    return;
  }
  const ForeignCallScope in = enter(value.text ? api_.set_string : api_.set_values, t);
  apply(value);
}

void FmuInstance::apply(const GivenValue& value) {
  const ScalarVariable& v = *value.variable;
  if (value.text) {
    set_text(v, nullptr, *value.text);
  } else if (value.wide) {
    set_wide(v, *value.wide);
  } else if (value.is_element) {
    set_element(v, value.element, value.number);
  } else {
    set_scalar(v, value.number);
  }
}

void FmuInstance::apply_given_values(double t) {
  for (const GivenValue& value : given_) {
    const ForeignCallScope in = enter(value.text ? api_.set_string : api_.set_values, t);
    apply(value);
  }
}

std::optional<std::string> FmuInstance::changed_value(const GivenValue& given) const {
  const ScalarVariable& v = *given.variable;
  if (given.text) {
    const Port port{v.value_reference, v.type, description().port_info(v), 0,
                    static_cast<int>(&v - description().variables.data())};
    std::string now = get_text(port);
    if (now == *given.text) return std::nullopt;
    return fmt::format("\"{}\"", now);
  }
  if (given.wide) {
    const WideInteger now = get_wide(v);
    if (now.text() == given.wide->text()) return std::nullopt;
    return now.text();
  }
  Eigen::VectorXd now(1);
  for (const TypedPorts& batch : variable_batches({v.name})) get_typed(batch, now);
  double expected = given.number;
  if (v.type == VariableType::float32) expected = static_cast<float>(expected);  // what the FMU can hold
  if (v.type == VariableType::boolean) expected = expected != 0.0 ? 1.0 : 0.0;
  if (now(0) == expected || (std::isnan(now(0)) && std::isnan(expected))) return std::nullopt;
  return fmt::format("{}", now(0));
}

void FmuInstance::check_given_values() const {
  for (const GivenValue& given : given_) {
    const ScalarVariable& v = *given.variable;
    // an input is the master's to set; an approximate start (initial="approx", FMI 1.0 fixed="false") is a
    // guess the FMU may improve in Initialization Mode; an array element is read back with its array
    if (v.causality == "input" || v.initial == "approx" || given.is_element) continue;
    const ForeignCallScope in = enter("GetXXX (the values given, read back)", start_time_);
    const std::optional<std::string> now = changed_value(given);
    if (!now) continue;
    const std::string set = given.text   ? fmt::format("\"{}\"", *given.text)
                            : given.wide ? given.wide->text()
                                         : fmt::format("{}", given.number);
    log(LogLevel::warning,
        fmt::format("{}: {} '{}' was given {} but reads {} after initialization: the FMU changed "
                    "it, and the run used the FMU's value",
                    where(), v.causality == "parameter" ? "parameter" : "start value of", v.name, set, *now));
  }
}

std::string FmuInstance::string_output(int output, double t) const {
  const Port& port = outputs_.at(static_cast<std::size_t>(output));
  if (port.info.kind != PortKind::string) {
    throw Error(fmt::format("system '{}': output '{}' is not a String output here", system_,
                            output_names_[static_cast<std::size_t>(output)]));
  }
  const ForeignCallScope in = enter(api_.get_string, t);
  return get_text(port);
}

void FmuInstance::set_string_input(int input, const std::string& value, double t) {
  const Port& port = inputs_.at(static_cast<std::size_t>(input));
  if (port.info.kind != PortKind::string) {
    throw Error(fmt::format("system '{}': input '{}' is not a String input here", system_,
                            input_names_[static_cast<std::size_t>(input)]));
  }
  const ForeignCallScope in = enter(api_.set_string, t);
  set_text(description().variables[static_cast<std::size_t>(port.variable)], &port, value);
}

double FmuInstance::integral_input(double value, int input) const {
  const double nearest = std::nearbyint(value);
  if (std::abs(value - nearest) <= 1e-9 * std::max(1.0, std::abs(value))) value = nearest;
  const PortInfo& info = inputs_[static_cast<std::size_t>(input)].info;
  if (const std::string why = illegal_value(info, value); !why.empty()) {  // formatted only when refused
    throw Error(fmt::format("{}: input '{}' ({}): {}", where(), input_names_[static_cast<std::size_t>(input)],
                            describe(info), why));
  }
  return value;
}

namespace {

bool is_wide(VariableType type) { return type == VariableType::int64 || type == VariableType::uint64; }

/// "outside the range of its type [MIN, MAX]" of a 64-bit integer type.
std::string outside_wide_type(VariableType type) {
  return type == VariableType::int64 ? "outside the range of its type [-9223372036854775808, 9223372036854775807]"
                                     : "outside the range of its type [0, 18446744073709551615]";
}

/// Why a 64-bit variable of this type and declared range cannot take the value, or "" when it can.
/// The declared range is compared in doubles: a bound within one rounding of the value counts as met.
std::string why_not_wide(VariableType type, const PortInfo& info, const WideInteger& value) {
  if ((type == VariableType::int64 && !value.as_int64()) || (type == VariableType::uint64 && !value.as_uint64()))
    return outside_wide_type(type);
  const double number = value.to_double();
  if (number < info.min || number > info.max) return fmt::format("outside its range [{}, {}]", info.min, info.max);
  return {};
}

}  // namespace

void FmuInstance::check_wide(const ScalarVariable& v, const PortInfo& info, const WideInteger& value,
                             std::string_view role) const {
  const std::string why = why_not_wide(v.type, info, value);
  if (why.empty()) return;
  throw Error(fmt::format("{}: {} '{}' ({}): {} is {}", where(), role, v.name, description().type_name(v.type),
                          value.text(), why));
}

WideInteger FmuInstance::wide_input(double value, int input) const {
  const auto i = static_cast<std::size_t>(input);
  if (const std::optional<WideInteger>& kept = wide_inputs_[i]; kept && kept->to_double() == value) return *kept;
  const double whole = integral_input(value, input);
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(inputs_[i].variable)];
  const std::optional<WideInteger> exact = WideInteger::of_double(whole);
  if (!exact) {  // 2^64 passes the range check in doubles (UInt64's maximum rounds up to it)
    throw Error(fmt::format("{}: input '{}' ({}): {:.17g} is {}", where(), input_names_[i],
                            description().type_name(v.type), whole, outside_wide_type(v.type)));
  }
  check_wide(v, inputs_[i].info, *exact, "input");
  // an input given exact values (set_wide_input) and now another double: a value the method computed
  if (std::abs(whole) < 9007199254740992.0 || wide_given_[i] != 1) return *exact;
  wide_given_[i] = 2;
  log(LogLevel::warning,
      fmt::format("{}: {} input '{}' is given {:.17g}, not the double of the exact value it was given last ({}): it "
                  "takes that double's integer, which may be a rounding of the value meant (said once per input)",
                  where(), description().type_name(v.type), input_names_[i], whole, wide_inputs_[i]->text()));
  return *exact;
}

std::optional<WideInteger> FmuInstance::wide_value(const std::string& name, double t) const {
  const int at = description().find(name);
  if (at < 0) return std::nullopt;
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(at)];
  if (!is_wide(v.type) || !v.dimensions.empty()) return std::nullopt;
  const ForeignCallScope in = enter(v.type == VariableType::int64 ? "fmi3GetInt64" : "fmi3GetUInt64", t);
  return get_wide(v);
}

void FmuInstance::set_wide_parameter(const std::string& name, WideInteger value, double t) {
  const int at = description().find(name);
  const ScalarVariable* v = at >= 0 ? &description().variables[static_cast<std::size_t>(at)] : nullptr;
  if (v == nullptr || !is_wide(v->type) || !v->dimensions.empty()) {
    if (!value.exact_in_double()) {
      throw Error(
          fmt::format("{}: parameter '{}' is given {}, which only a 64-bit integer variable (Int64, UInt64) "
                      "holds exactly{}",
                      where(), name, value.text(),
                      v != nullptr ? fmt::format("; it is {}", description().type_name(v->type)) : ""));
    }
    set_parameter(name, value.to_double(), t);
    return;
  }
  (void)settable(name);
  check_wide(*v, description().port_info(*v), value, "parameter");
  give({.variable = v, .wide = value}, t);
}

void FmuInstance::set_wide_input(int input, WideInteger value, double t) {
  const auto i = static_cast<std::size_t>(input);
  const Port& port = inputs_[i];
  if (!port.info.wide) return;
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(port.variable)];
  check_wide(v, port.info, value, "input");
  wide_inputs_[i] = value;
  wide_given_[i] = std::max<char>(wide_given_[i], 1);
  // Model Exchange takes discrete inputs in Event Mode only: there set_inputs sets the value kept
  const bool takes_inputs_now = interface_ == FmiInterface::co_simulation || in_initialization_;
  if (!takes_inputs_now || !v.dimensions.empty()) return;
  const ForeignCallScope in = enter(api_.set_values, t);
  set_wide(v, value);
}

WideInteger FmuInstance::get_wide(const ScalarVariable& variable) const {
  throw Error(fmt::format("{}: '{}' is no 64-bit integer of this FMI version", where(), variable.name));
}

void FmuInstance::set_wide(const ScalarVariable& variable, WideInteger /*value*/) {
  throw Error(fmt::format("{}: '{}' is no 64-bit integer of this FMI version", where(), variable.name));
}

namespace {

bool recordable(const ScalarVariable& v) {
  return v.duplicate_of < 0 && v.dimensions.empty() && v.type != VariableType::string &&
         v.type != VariableType::binary && v.type != VariableType::clock;
}

}  // namespace

std::vector<std::string> FmuInstance::variable_names() const {
  std::vector<std::string> names;
  for (const ScalarVariable& v : description().variables) {
    if (recordable(v)) names.push_back(v.name);
  }
  return names;
}

std::string FmuInstance::variable_description(std::string_view name) const {
  const ModelDescription& md = description();
  int index = md.find(std::string(name));
  if (const std::size_t open = name.find('[');
      index < 0 && open != std::string_view::npos && element_suffix(name, name.substr(0, open))) {
    index = md.find(std::string(name.substr(0, open)));  // an FMI 3.0 array's element
  }
  if (index < 0) return {};
  const ScalarVariable& v = md.variables[static_cast<std::size_t>(index)];
  if (v.unit.empty()) return v.description;
  return v.description.empty() ? "[" + v.unit + "]" : v.description + " [" + v.unit + "]";
}

std::vector<FmuInstance::TypedPorts> FmuInstance::variable_batches(const std::vector<std::string>& names) const {
  std::map<VariableType, TypedPorts> by_type;
  for (std::size_t slot = 0; slot < names.size(); ++slot) {
    const int index = description().find(names[slot]);
    if (index < 0 || !recordable(description().variables[static_cast<std::size_t>(index)])) {
      throw Error(fmt::format("{}: no numeric scalar variable '{}' to record", where(), names[slot]));
    }
    const ScalarVariable& v = description().variables[static_cast<std::size_t>(index)];
    TypedPorts& batch = by_type[access_type(v.type)];
    batch.access = access_type(v.type);
    batch.vrs.push_back(v.value_reference);
    note_sign(batch, v);
    batch.ports.push_back(static_cast<int>(slot));
  }
  std::vector<TypedPorts> batches;
  batches.reserve(by_type.size());
  for (auto& [type, batch] : by_type) batches.push_back(std::move(batch));
  reserve_scratch(names.size());
  return batches;
}

void FmuInstance::get_outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  std::size_t numeric = 0;
  for (const TypedPorts& batch : out_) {
    get_typed(batch, y);
    numeric += batch.ports.size();
  }
  if (numeric < outputs_.size()) {
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (outputs_[k].info.kind == PortKind::string || outputs_[k].type == VariableType::clock) {
        y(static_cast<Eigen::Index>(k)) = 0.0;  // exchanged by name
      }
    }
  }
}

void FmuInstance::set_inputs(PortValues u, Inputs which) {
  for (const TypedPorts& batch : input_batches(which)) set_typed(batch, u);
  inputs_set(u, which);
}

void FmuInstance::linearize(Linearization& out) const {
  // Columns of [A B; C D] by directional derivatives along each state and continuous Float64 input.
  const auto nx = static_cast<Eigen::Index>(state_names_.size());
  const auto n_in = static_cast<Eigen::Index>(inputs_.size()), n_out = static_cast<Eigen::Index>(outputs_.size());
  const std::size_t n_known = state_names_.size() + real_in_.ports.size();
  const std::size_t ny = real_out_.ports.size();
  LinearizationWork& work = linearization_work_;  // built at the first call: no allocation per step
  if (work.seed.size() != n_known) {
    work.unknowns = derivative_vrs_;
    work.unknowns.insert(work.unknowns.end(), real_out_.vrs.begin(), real_out_.vrs.end());
    work.knowns = state_vrs_;
    work.knowns.insert(work.knowns.end(), real_in_.vrs.begin(), real_in_.vrs.end());
    work.seed.assign(n_known, 0.0);
    work.column.resize(state_names_.size() + ny);
  }
  const std::vector<unsigned int>& unknowns = work.unknowns;
  const std::vector<unsigned int>& knowns = work.knowns;
  std::vector<double>& seed = work.seed;
  std::vector<double>& column = work.column;
  out.A.setZero(nx, nx);
  out.B.setZero(nx, n_in);
  out.C.setZero(n_out, nx);
  out.D.setZero(n_out, n_in);
  for (std::size_t j = 0; j < n_known; ++j) {
    seed[j] = 1.0;
    directional_derivative(unknowns, knowns, seed, column);
    seed[j] = 0.0;
    const bool is_state = j < state_names_.size();
    const auto col =
        static_cast<Eigen::Index>(is_state ? j : static_cast<std::size_t>(real_in_.ports[j - state_names_.size()]));
    for (Eigen::Index i = 0; i < nx; ++i) (is_state ? out.A : out.B)(i, col) = column[static_cast<std::size_t>(i)];
    for (std::size_t i = 0; i < ny; ++i) {
      (is_state ? out.C : out.D)(real_out_.ports[i], col) = column[state_names_.size() + i];
    }
  }
}

}  // namespace cosima::fmi
