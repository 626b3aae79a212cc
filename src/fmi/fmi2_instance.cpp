#include "fmi/fmi2_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/slots.hpp"
#include "core/log.hpp"

namespace cosima::fmi {

namespace {

constexpr std::size_t kLogLines = 20;


extern "C" void fmu_logger(fmi2ComponentEnvironment environment, fmi2String instance, fmi2Status status,
                           fmi2String category, fmi2String message, ...) {
  char text[2048];
  va_list args;
  va_start(args, message);
  std::vsnprintf(text, sizeof text, message != nullptr ? message : "", args);  // NOLINT: FMI's printf-style logger
  va_end(args);
  auto* system = static_cast<Fmi2Instance*>(environment);
  if (system != nullptr) {
    system->on_log(status, category, text);
  } else {
    log(LogLevel::warning, fmt::format("FMU instance '{}': {}", instance != nullptr ? instance : "?", text));
  }
}

/// The FMU's memory (fmi2CallbackFunctions.allocateMemory): the FMU's to free — and, after
/// fmi2Fatal, nobody's (the standard forbids even fmi2FreeInstance). tests/lsan.supp names it.
// (no tail call: the suppression needs this frame on the allocation's stack)
#if defined(__clang__)
#define COSIMA_NO_TAIL_CALL __attribute__((noinline, disable_tail_calls))
#else
#define COSIMA_NO_TAIL_CALL __attribute__((noinline, optimize("no-optimize-sibling-calls")))
#endif
extern "C" COSIMA_NO_TAIL_CALL void* fmu_allocate_memory(std::size_t n, std::size_t size) {
  return std::calloc(n, size);
}

/// A value that travels as a double, as the fmi2Integer it stands for. The master only hands over
/// integral values (types are checked at connection); a solver's rounding noise is tolerated.
/// The message is formatted only when the value is refused: this runs at every step.
template <class Describe>
fmi2Integer to_fmi_integer(double value, const PortInfo& info, const Describe& what) {
  const double nearest = std::nearbyint(value);
  if (std::abs(value - nearest) <= 1e-9 * std::max(1.0, std::abs(value))) value = nearest;
  if (const std::string why = illegal_value(info, value); !why.empty()) {
    throw Error(fmt::format("{} ({}): {}", what(), describe(info), why));
  }
  return static_cast<fmi2Integer>(value);
}

}  // namespace

const char* status_name(fmi2Status status) {
  switch (status) {
    case fmi2OK: return "fmi2OK";
    case fmi2Warning: return "fmi2Warning";
    case fmi2Discard: return "fmi2Discard";
    case fmi2Error: return "fmi2Error";
    case fmi2Fatal: return "fmi2Fatal";
    case fmi2Pending: return "fmi2Pending";
  }
  return "unknown status";
}

Fmi2Instance::Fmi2Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface)
    : system_(system),
      interface_(interface),
      archive_(fmu),
      library_(archive_.binary(interface), fmu.string(), interface),
      f_(library_.functions()),
      file_text_(fmu.string()) {
  const ModelDescription& md = description();
  if (capabilities().needs_execution_tool) {
    throw Error(fmt::format("FMU '{}' needs its execution tool (needsExecutionTool=true)", fmu.string()));
  }
  // ports, in the order of the description, batched by FMI type
  auto batch_of = [&](const ScalarVariable& v, bool input) -> TypedPorts* {
    switch (v.type) {
      case VariableType::real:
        if (!input) return &real_out_;
        return v.variability == "continuous" ? &real_in_ : &real_discrete_in_;
      case VariableType::integer:
      case VariableType::enumeration: return input ? &integer_in_ : &integer_out_;
      case VariableType::boolean: return input ? &boolean_in_ : &boolean_out_;
      case VariableType::string: return nullptr;
    }
    return nullptr;
  };
  std::vector<int> input_of_variable(md.variables.size(), -1), output_of_variable(md.variables.size(), -1);
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    const ScalarVariable& v = md.variables[i];
    const bool input = v.causality == "input";
    if (!input && v.causality != "output") continue;
    std::vector<Port>& ports = input ? inputs_ : outputs_;
    (input ? input_of_variable : output_of_variable)[i] = static_cast<int>(ports.size());
    if (TypedPorts* batch = batch_of(v, input)) {
      batch->vrs.push_back(v.value_reference);
      batch->ports.push_back(static_cast<int>(ports.size()));
    }
    (input ? input_names_ : output_names_).push_back(v.name);
    ports.push_back({v.value_reference, v.type, md.port_info(v)});
  }
  // every function the ports need must be there
  auto need = [&](bool needed, const void* function, const char* symbol) {
    if (needed && function == nullptr) {
      throw Error(fmt::format("FMU '{}': binary lacks {}, needed by its ports", fmu.string(), symbol));
    }
  };
  need(!integer_in_.vrs.empty(), reinterpret_cast<const void*>(f_.set_integer), "fmi2SetInteger");
  need(!integer_out_.vrs.empty(), reinterpret_cast<const void*>(f_.get_integer), "fmi2GetInteger");
  need(!boolean_in_.vrs.empty(), reinterpret_cast<const void*>(f_.set_boolean), "fmi2SetBoolean");
  need(!boolean_out_.vrs.empty(), reinterpret_cast<const void*>(f_.get_boolean), "fmi2GetBoolean");
  auto is_string = [](const Port& p) { return p.type == VariableType::string; };
  const bool has_strings = std::any_of(inputs_.begin(), inputs_.end(), is_string) ||
                           std::any_of(outputs_.begin(), outputs_.end(), is_string);
  need(has_strings, reinterpret_cast<const void*>(f_.get_string), "fmi2GetString");
  need(has_strings, reinterpret_cast<const void*>(f_.set_string), "fmi2SetString");
  // direct feedthrough from ModelStructure/Outputs (no dependencies attribute: depends on all)
  feedthrough_.assign(outputs_.size(), std::vector<bool>(inputs_.size(), true));
  for (const Unknown& unknown : md.outputs) {
    const int o = output_of_variable[static_cast<std::size_t>(unknown.index - 1)];
    if (o < 0 || !unknown.dependencies) continue;
    feedthrough_[static_cast<std::size_t>(o)].assign(inputs_.size(), false);
    for (int dependency : *unknown.dependencies) {
      const int in = input_of_variable[static_cast<std::size_t>(dependency - 1)];
      if (in >= 0) feedthrough_[static_cast<std::size_t>(o)][static_cast<std::size_t>(in)] = true;
    }
  }
  // states from ModelStructure/Derivatives, in their order (FMI 2.0 §3.1: the order of x)
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& derivative = md.variables[static_cast<std::size_t>(d.index - 1)];
    const ScalarVariable& state = md.variables[static_cast<std::size_t>(*derivative.derivative_of - 1)];
    state_names_.push_back(state.name);
    state_vrs_.push_back(state.value_reference);
    derivative_vrs_.push_back(derivative.value_reference);
  }

  callbacks_.logger = fmu_logger;
  callbacks_.allocateMemory = fmu_allocate_memory;
  callbacks_.freeMemory = std::free;
  callbacks_.stepFinished = nullptr;
  callbacks_.componentEnvironment = this;
  const fmi2Boolean logging_on = log_level() >= LogLevel::debug ? fmi2True : fmi2False;
  const ForeignCallScope in(system_.c_str(), file_text_.c_str(), "fmi2Instantiate", 0.0);
  component_ = f_.instantiate(system_.c_str(), interface == FmiInterface::co_simulation ? fmi2CoSimulation : fmi2ModelExchange,
                              md.guid.c_str(), archive_.resource_uri().c_str(), &callbacks_, fmi2False, logging_on);
  if (component_ == nullptr) throw Error(fmt::format("{}: fmi2Instantiate failed{}", where(), recent_log()));
  const std::size_t widest = std::max({inputs_.size(), outputs_.size(), state_vrs_.size(), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  int_buffer_.assign(widest, 0);
  bool_buffer_.assign(widest, fmi2False);
}

Fmi2Instance::~Fmi2Instance() {
  if (component_ == nullptr || health_ == Health::fatal) return;  // after fmi2Fatal: no call at all
  const ForeignCallScope in(system_.c_str(), file_text_.c_str(), "fmi2Terminate/fmi2FreeInstance", 0.0);
  if (health_ == Health::ok) {
    for (Saved& saved : saved_) {
      if (saved.state != nullptr) f_.free_fmu_state(component_, &saved.state);
    }
    if (initialized_) f_.terminate(component_);
  }
  f_.free_instance(component_);  // after fmi2Error only this
}

void Fmi2Instance::on_log(fmi2Status status, const char* category, const std::string& message) {
  std::string line = fmt::format("[{}{}{}] {}", status_name(status), category != nullptr ? " " : "",
                                 category != nullptr ? category : "", message);
  log(status >= fmi2Warning ? LogLevel::warning : LogLevel::debug, fmt::format("system '{}': {}", system_, line));
  log_.push_back(std::move(line));
  if (log_.size() > kLogLines) log_.pop_front();
}

std::string Fmi2Instance::where() const { return fmt::format("FMU '{}' (system '{}')", file().string(), system_); }

std::string Fmi2Instance::recent_log() const {
  if (log_.empty()) return "";
  std::string text = "; FMU log:";
  for (const auto& line : log_) text += "\n  " + line;
  return text;
}

ForeignCallScope Fmi2Instance::enter(const char* call, double t) const {
  ensure_usable(call);
  return {system_.c_str(), file_text_.c_str(), call, t};
}

void Fmi2Instance::ensure_usable(const char* call) const {
  if (health_ == Health::ok) return;
  throw Error(fmt::format("{}: {} not called: {} returned {} earlier, after which the FMU may not be used (FMI 2.0 "
                          "§2.1.3)",
                          where(), call, health_call_, health_ == Health::fatal ? "fmi2Fatal" : "fmi2Error"));
}

void Fmi2Instance::record(fmi2Status status, const char* call) const {
  if (status == fmi2Error || status == fmi2Fatal) {
    health_ = status == fmi2Fatal ? Health::fatal : Health::error;
    health_call_ = call;
  }
}

void Fmi2Instance::check(fmi2Status status, const char* call) const {
  if (status == fmi2OK || status == fmi2Warning) return;
  record(status, call);
  throw Error(fmt::format("{}: {} returned {}{}", where(), call, status_name(status), recent_log()));
}

bool Fmi2Instance::has_discrete_inputs() const {
  return !real_discrete_in_.vrs.empty() || !integer_in_.vrs.empty() || !boolean_in_.vrs.empty();
}

bool Fmi2Instance::output_depends_on_input(int output, int input) const {
  return feedthrough_[static_cast<std::size_t>(output)][static_cast<std::size_t>(input)];
}

const ScalarVariable& Fmi2Instance::settable(const std::string& parameter) const {
  const int index = description().find(parameter);
  if (index < 0) throw Error(fmt::format("{} has no variable '{}'", where(), parameter));
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(index)];
  // FMI 2.0 §2.2.7: before initialization, variables with initial exact/approx, parameters and inputs
  if (v.variability == "constant" || (v.causality != "parameter" && v.causality != "input" && v.initial != "exact" &&
                                      v.initial != "approx")) {
    throw Error(fmt::format("{}: variable '{}' ({} {}) cannot be set", where(), parameter, v.causality, v.variability));
  }
  return v;
}

void Fmi2Instance::set_parameter(const std::string& parameter, double value, double t) {
  const ScalarVariable& v = settable(parameter);
  const ForeignCallScope in = enter("fmi2SetXXX", t);
  const fmi2ValueReference vr = v.value_reference;
  if (v.type == VariableType::string) {
    throw Error(fmt::format("{}: parameter '{}' is a String; give it a text, not {}", where(), parameter, value));
  }
  check_value(description().port_info(v), value, fmt::format("{}: parameter '{}'", where(), parameter));
  switch (v.type) {
    case VariableType::real: check(f_.set_real(component_, &vr, 1, &value), "fmi2SetReal"); break;
    case VariableType::integer:
    case VariableType::enumeration: {
      if (f_.set_integer == nullptr) throw Error(fmt::format("{}: binary lacks fmi2SetInteger", where()));
      const auto i = static_cast<fmi2Integer>(value);
      check(f_.set_integer(component_, &vr, 1, &i), "fmi2SetInteger");
      break;
    }
    case VariableType::boolean: {
      if (f_.set_boolean == nullptr) throw Error(fmt::format("{}: binary lacks fmi2SetBoolean", where()));
      const fmi2Boolean b = value != 0.0 ? fmi2True : fmi2False;
      check(f_.set_boolean(component_, &vr, 1, &b), "fmi2SetBoolean");
      break;
    }
    case VariableType::string: break;  // refused above
  }
}

void Fmi2Instance::set_string_parameter(const std::string& parameter, const std::string& value, double t) {
  const ScalarVariable& v = settable(parameter);
  const ForeignCallScope in = enter("fmi2SetString", t);
  if (v.type != VariableType::string) {
    throw Error(fmt::format("{}: parameter '{}' ({}): \"{}\" is a String", where(), parameter,
                            describe(description().port_info(v)), value));
  }
  if (f_.set_string == nullptr) throw Error(fmt::format("{}: binary lacks fmi2SetString", where()));
  const fmi2String text = value.c_str();
  check(f_.set_string(component_, &v.value_reference, 1, &text), "fmi2SetString");
}

std::string Fmi2Instance::string_output(int output, double t) const {
  const Port& port = outputs_.at(static_cast<std::size_t>(output));
  if (port.type != VariableType::string) {
    throw Error(fmt::format("system '{}': output '{}' is not a String output here", system_, output_names_[static_cast<std::size_t>(output)]));
  }
  const ForeignCallScope in = enter("fmi2GetString", t);
  fmi2String text = nullptr;
  check(f_.get_string(component_, &port.vr, 1, &text), "fmi2GetString");
  return text != nullptr ? std::string(text) : std::string();
}

void Fmi2Instance::set_string_input(int input, const std::string& value, double t) {
  const Port& port = inputs_.at(static_cast<std::size_t>(input));
  if (port.type != VariableType::string) {
    throw Error(fmt::format("system '{}': input '{}' is not a String input here", system_, input_names_[static_cast<std::size_t>(input)]));
  }
  const ForeignCallScope in = enter("fmi2SetString", t);
  const fmi2String text = value.c_str();
  check(f_.set_string(component_, &port.vr, 1, &text), "fmi2SetString");
}

void Fmi2Instance::get_outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  if (!real_out_.vrs.empty()) {
    check(f_.get_real(component_, real_out_.vrs.data(), real_out_.vrs.size(), real_buffer_.data()), "fmi2GetReal");
    for (std::size_t k = 0; k < real_out_.vrs.size(); ++k) y(real_out_.ports[k]) = real_buffer_[k];
  }
  if (!integer_out_.vrs.empty()) {
    check(f_.get_integer(component_, integer_out_.vrs.data(), integer_out_.vrs.size(), int_buffer_.data()),
          "fmi2GetInteger");
    for (std::size_t k = 0; k < integer_out_.vrs.size(); ++k) y(integer_out_.ports[k]) = int_buffer_[k];
  }
  if (!boolean_out_.vrs.empty()) {
    check(f_.get_boolean(component_, boolean_out_.vrs.data(), boolean_out_.vrs.size(), bool_buffer_.data()),
          "fmi2GetBoolean");
    for (std::size_t k = 0; k < boolean_out_.vrs.size(); ++k) y(boolean_out_.ports[k]) = bool_buffer_[k] != fmi2False ? 1.0 : 0.0;
  }
  if (real_out_.vrs.size() + integer_out_.vrs.size() + boolean_out_.vrs.size() < outputs_.size()) {
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (outputs_[k].type == VariableType::string) y(static_cast<Eigen::Index>(k)) = 0.0;  // exchanged by name
    }
  }
}

void Fmi2Instance::set_typed_inputs(const TypedPorts& ports, VariableType type, PortValues u) {
  const std::size_t n = ports.vrs.size();
  if (n == 0) return;
  for (std::size_t k = 0; k < n; ++k) {
    const int port = ports.ports[k];
    const double value = u(port);
    if (type == VariableType::real) {
      real_buffer_[k] = value;
    } else {
      const fmi2Integer integer = to_fmi_integer(value, inputs_[static_cast<std::size_t>(port)].info, [&] {
        return fmt::format("{}: input '{}'", where(), input_names_[static_cast<std::size_t>(port)]);
      });
      if (type == VariableType::boolean) bool_buffer_[k] = integer != 0 ? fmi2True : fmi2False;
      else int_buffer_[k] = integer;
    }
  }
  if (type == VariableType::real) check(f_.set_real(component_, ports.vrs.data(), n, real_buffer_.data()), "fmi2SetReal");
  else if (type == VariableType::boolean) check(f_.set_boolean(component_, ports.vrs.data(), n, bool_buffer_.data()), "fmi2SetBoolean");
  else check(f_.set_integer(component_, ports.vrs.data(), n, int_buffer_.data()), "fmi2SetInteger");
}

void Fmi2Instance::set_inputs(PortValues u, Inputs which) {
  if (which != Inputs::discrete) set_typed_inputs(real_in_, VariableType::real, u);
  if (which == Inputs::continuous) return;
  set_typed_inputs(real_discrete_in_, VariableType::real, u);
  set_typed_inputs(integer_in_, VariableType::integer, u);
  set_typed_inputs(boolean_in_, VariableType::boolean, u);
}

void Fmi2Instance::get_reals(const std::vector<fmi2ValueReference>& vrs, Eigen::Ref<Eigen::VectorXd> values) const {
  if (vrs.empty()) return;
  check(f_.get_real(component_, vrs.data(), vrs.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < vrs.size(); ++k) values(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

bool Fmi2Instance::can_save_state() const {
  return capabilities().can_get_and_set_state && f_.get_fmu_state != nullptr && f_.set_fmu_state != nullptr &&
         f_.free_fmu_state != nullptr;
}

int Fmi2Instance::save_state(int overwrite, double t) {
  const ForeignCallScope in = enter("fmi2GetFMUstate", t);
  const int slot = acquire_slot(saved_, overwrite);
  if (slot < 0) throw Error(fmt::format("system '{}': no saved FMU state {}", system_, overwrite));
  Saved& saved = saved_[static_cast<std::size_t>(slot)];
  check(f_.get_fmu_state(component_, &saved.state), "fmi2GetFMUstate");  // reuses saved.state when set
  saved.in_use = true;
  return slot;
}

void Fmi2Instance::restore_state(int slot, double t) {
  const ForeignCallScope in = enter("fmi2SetFMUstate", t);
  const Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (!saved.in_use) throw Error(fmt::format("system '{}': no saved state {}", system_, slot));
  check(f_.set_fmu_state(component_, saved.state), "fmi2SetFMUstate");
}

void Fmi2Instance::release_state(int slot) {
  Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (saved.state != nullptr && health_ == Health::ok) check(f_.free_fmu_state(component_, &saved.state), "fmi2FreeFMUstate");
  saved.state = nullptr;
  saved.in_use = false;
}

bool Fmi2Instance::provides_linearization() const {
  return capabilities().provides_directional_derivative && f_.get_directional_derivative != nullptr &&
         !state_vrs_.empty();
}

void Fmi2Instance::linearize(Linearization& out) const {
  // Columns of [A B; C D] by directional derivatives along each state and continuous Real input.
  const std::size_t nx = state_vrs_.size(), ny = real_out_.vrs.size();
  std::vector<fmi2ValueReference> unknowns(derivative_vrs_);
  unknowns.insert(unknowns.end(), real_out_.vrs.begin(), real_out_.vrs.end());
  std::vector<fmi2ValueReference> knowns(state_vrs_);
  knowns.insert(knowns.end(), real_in_.vrs.begin(), real_in_.vrs.end());
  const auto n_in = static_cast<Eigen::Index>(inputs_.size()), n_out = static_cast<Eigen::Index>(outputs_.size());
  out.A.setZero(static_cast<Eigen::Index>(nx), static_cast<Eigen::Index>(nx));
  out.B.setZero(static_cast<Eigen::Index>(nx), n_in);
  out.C.setZero(n_out, static_cast<Eigen::Index>(nx));
  out.D.setZero(n_out, n_in);
  const double seed = 1.0;
  std::vector<double> column(unknowns.size());
  for (std::size_t j = 0; j < knowns.size(); ++j) {
    check(f_.get_directional_derivative(component_, unknowns.data(), unknowns.size(), &knowns[j], 1, &seed,
                                        column.data()),
          "fmi2GetDirectionalDerivative");
    const bool is_state = j < nx;
    const auto col = static_cast<Eigen::Index>(is_state ? j : static_cast<std::size_t>(real_in_.ports[j - nx]));
    for (std::size_t i = 0; i < nx; ++i) (is_state ? out.A : out.B)(static_cast<Eigen::Index>(i), col) = column[i];
    for (std::size_t i = 0; i < ny; ++i) (is_state ? out.C : out.D)(real_out_.ports[i], col) = column[nx + i];
  }
}

}  // namespace cosima::fmi
