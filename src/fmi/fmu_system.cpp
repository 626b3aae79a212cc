#include "fmi/fmu_system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include <fmt/format.h>

#include "core/crash.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace cosima::fmi {

namespace {

constexpr std::size_t kLogLines = 20;

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

extern "C" void fmu_logger(fmi2ComponentEnvironment environment, fmi2String instance, fmi2Status status,
                           fmi2String category, fmi2String message, ...) {
  char text[2048];
  va_list args;
  va_start(args, message);
  std::vsnprintf(text, sizeof text, message != nullptr ? message : "", args);  // NOLINT: FMI's printf-style logger
  va_end(args);
  auto* system = static_cast<FmuSystem*>(environment);
  if (system != nullptr) {
    system->on_log(status, category, text);
  } else {
    log(LogLevel::warning, fmt::format("FMU instance '{}': {}", instance != nullptr ? instance : "?", text));
  }
}

/// The FMU's memory (fmi2CallbackFunctions.allocateMemory): the FMU's to free — and, after
/// fmi2Fatal, nobody's (the standard forbids even fmi2FreeInstance). tests/lsan.supp names it.
// (no tail call: the suppression needs this frame on the allocation's stack)
extern "C" __attribute__((noinline, optimize("no-optimize-sibling-calls"))) void* fmu_allocate_memory(std::size_t n,
                                                                                                       std::size_t size) {
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

FmuSystem::FmuSystem(std::string name, const std::filesystem::path& fmu)
    : System(std::move(name)),
      archive_(fmu),
      library_(archive_.binary(), fmu.string()),
      f_(library_.functions()),
      file_text_(fmu.string()) {
  const ModelDescription& md = description();
  const auto& cs = md.co_simulation;
  if (cs.needs_execution_tool) {
    throw Error(fmt::format("FMU '{}' needs its execution tool (needsExecutionTool=true)", fmu.string()));
  }
  // ports, in the order of the description, batched by FMI type
  auto typed = [](TypedPorts& real, TypedPorts& integer, TypedPorts& boolean, VariableType type) -> TypedPorts* {
    switch (type) {
      case VariableType::real: return &real;
      case VariableType::integer:
      case VariableType::enumeration: return &integer;
      case VariableType::boolean: return &boolean;
      case VariableType::string: return nullptr;
    }
    return nullptr;
  };
  std::vector<int> input_of_variable(md.variables.size(), -1), output_of_variable(md.variables.size(), -1);
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    const ScalarVariable& v = md.variables[i];
    if (v.causality == "input") {
      input_of_variable[i] = static_cast<int>(inputs_.size());
      if (TypedPorts* batch = typed(real_in_, integer_in_, boolean_in_, v.type)) {
        batch->vrs.push_back(v.value_reference);
        batch->ports.push_back(static_cast<int>(inputs_.size()));
      }
      input_names_.push_back(v.name);
      inputs_.push_back({v.value_reference, v.type, md.port_info(v)});
    } else if (v.causality == "output") {
      output_of_variable[i] = static_cast<int>(outputs_.size());
      if (TypedPorts* batch = typed(real_out_, integer_out_, boolean_out_, v.type)) {
        batch->vrs.push_back(v.value_reference);
        batch->ports.push_back(static_cast<int>(outputs_.size()));
      }
      output_names_.push_back(v.name);
      outputs_.push_back({v.value_reference, v.type, md.port_info(v)});
    }
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
  const bool has_strings = std::any_of(inputs_.begin(), inputs_.end(), [](const Port& p) { return p.type == VariableType::string; }) ||
                           std::any_of(outputs_.begin(), outputs_.end(), [](const Port& p) { return p.type == VariableType::string; });
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
  // states from ModelStructure/Derivatives
  for (const Unknown& d : md.derivatives) {
    const ScalarVariable& derivative = md.variables[static_cast<std::size_t>(d.index - 1)];
    const ScalarVariable& state = md.variables[static_cast<std::size_t>(*derivative.derivative_of - 1)];
    state_names_.push_back(state.name);
    state_vrs_.push_back(state.value_reference);
    derivative_vrs_.push_back(derivative.value_reference);
  }
  // capabilities: declared flag AND the function present
  if (cs.can_interpolate_inputs && f_.set_real_input_derivatives != nullptr) capabilities_.add(Capability::interpolate_inputs);
  if (cs.max_output_derivative_order >= 1 && f_.get_real_output_derivatives != nullptr) {
    capabilities_.add(Capability::output_derivatives);
  }
  if (cs.can_get_and_set_state && f_.get_fmu_state != nullptr && f_.set_fmu_state != nullptr &&
      f_.free_fmu_state != nullptr) {
    capabilities_.add(Capability::rollback);
  }
  if (!state_vrs_.empty()) capabilities_.add(Capability::state_access);
  if (cs.provides_directional_derivative && f_.get_directional_derivative != nullptr && !state_vrs_.empty()) {
    capabilities_.add(Capability::linearization);
  }
  if (cs.can_handle_variable_step) capabilities_.add(Capability::variable_step);

  callbacks_.logger = fmu_logger;
  callbacks_.allocateMemory = fmu_allocate_memory;
  callbacks_.freeMemory = std::free;
  callbacks_.stepFinished = nullptr;
  callbacks_.componentEnvironment = this;
  const fmi2Boolean logging_on = log_level() >= LogLevel::debug ? fmi2True : fmi2False;
  const ForeignCallScope in(this->name().c_str(), file_text_.c_str(), "fmi2Instantiate", 0.0);
  component_ = f_.instantiate(this->name().c_str(), fmi2CoSimulation, md.guid.c_str(), archive_.resource_uri().c_str(),
                              &callbacks_, fmi2False, logging_on);
  if (component_ == nullptr) throw Error(fmt::format("{}: fmi2Instantiate failed{}", where(), recent_log()));
  // the step's scratch space, once
  for (fmi2ValueReference vr : real_in_.vrs) {
    for (int order = 1; order <= kMaxInputDegree; ++order) {
      derivative_input_vrs_.push_back(vr);
      derivative_orders_.push_back(order);
    }
  }
  derivative_values_.assign(derivative_input_vrs_.size(), 0.0);
  const std::size_t widest = std::max({inputs_.size(), outputs_.size(), state_vrs_.size(), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  int_buffer_.assign(widest, 0);
  bool_buffer_.assign(widest, fmi2False);
}

FmuSystem::~FmuSystem() {
  if (component_ == nullptr || health_ == Health::fatal) return;  // after fmi2Fatal: no call at all
  const ForeignCallScope in(name().c_str(), file_text_.c_str(), "fmi2Terminate/fmi2FreeInstance", t_);
  if (health_ == Health::ok) {
    for (Saved& saved : saved_) {
      if (saved.state != nullptr && f_.free_fmu_state != nullptr) f_.free_fmu_state(component_, &saved.state);
    }
    if (initialized_) f_.terminate(component_);
  }
  f_.free_instance(component_);  // after fmi2Error only this
}

void FmuSystem::on_log(fmi2Status status, const char* category, const std::string& message) {
  std::string line = fmt::format("[{}{}{}] {}", status_name(status), category != nullptr ? " " : "",
                                 category != nullptr ? category : "", message);
  log(status >= fmi2Warning ? LogLevel::warning : LogLevel::debug, fmt::format("system '{}': {}", name(), line));
  log_.push_back(std::move(line));
  if (log_.size() > kLogLines) log_.pop_front();
}

std::string FmuSystem::where() const { return fmt::format("FMU '{}' (system '{}')", file().string(), name()); }

std::string FmuSystem::recent_log() const {
  if (log_.empty()) return "";
  std::string text = "; FMU log:";
  for (const auto& line : log_) text += "\n  " + line;
  return text;
}

ForeignCallScope FmuSystem::enter(const char* call) const {
  ensure_usable(call);
  return {name().c_str(), file_text_.c_str(), call, t_};
}

void FmuSystem::ensure_usable(const char* call) const {
  if (health_ == Health::ok) return;
  throw Error(fmt::format("{}: {} not called: {} returned {} earlier, after which the FMU may not be used (FMI 2.0 "
                          "§2.1.3)",
                          where(), call, health_call_, health_ == Health::fatal ? "fmi2Fatal" : "fmi2Error"));
}

void FmuSystem::check(fmi2Status status, const char* call) const {
  if (status == fmi2OK || status == fmi2Warning) return;
  if (status == fmi2Error || status == fmi2Fatal) {
    health_ = status == fmi2Fatal ? Health::fatal : Health::error;
    health_call_ = call;
  }
  throw Error(fmt::format("{}: {} returned {}{}", where(), call, status_name(status), recent_log()));
}

const PortInfo& FmuSystem::input_info(int input) const { return inputs_[static_cast<std::size_t>(input)].info; }
const PortInfo& FmuSystem::output_info(int output) const { return outputs_[static_cast<std::size_t>(output)].info; }

bool FmuSystem::output_depends_on_input(int output, int input) const {
  return feedthrough_[static_cast<std::size_t>(output)][static_cast<std::size_t>(input)];
}

const ScalarVariable& FmuSystem::settable(const std::string& parameter) const {
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

void FmuSystem::set_parameter(const std::string& parameter, double value) {
  const ScalarVariable& v = settable(parameter);
  const ForeignCallScope in = enter("fmi2SetXXX");
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

void FmuSystem::set_string_parameter(const std::string& parameter, const std::string& value) {
  const ScalarVariable& v = settable(parameter);
  const ForeignCallScope in = enter("fmi2SetString");
  if (v.type != VariableType::string) {
    throw Error(fmt::format("{}: parameter '{}' ({}): \"{}\" is a String", where(), parameter,
                            describe(description().port_info(v)), value));
  }
  if (f_.set_string == nullptr) throw Error(fmt::format("{}: binary lacks fmi2SetString", where()));
  const fmi2String text = value.c_str();
  check(f_.set_string(component_, &v.value_reference, 1, &text), "fmi2SetString");
}

std::string FmuSystem::string_output(int output) const {
  const Port& port = outputs_.at(static_cast<std::size_t>(output));
  if (port.type != VariableType::string) return System::string_output(output);
  const ForeignCallScope in = enter("fmi2GetString");
  fmi2String text = nullptr;
  check(f_.get_string(component_, &port.vr, 1, &text), "fmi2GetString");
  return text != nullptr ? std::string(text) : std::string();
}

void FmuSystem::set_string_input(int input, const std::string& value) {
  const Port& port = inputs_.at(static_cast<std::size_t>(input));
  if (port.type != VariableType::string) {
    System::set_string_input(input, value);
    return;
  }
  const ForeignCallScope in = enter("fmi2SetString");
  const fmi2String text = value.c_str();
  check(f_.set_string(component_, &port.vr, 1, &text), "fmi2SetString");
}

void FmuSystem::initialize(double t_start) {
  if (initialized_) throw Error(fmt::format("system '{}': initialized twice", name()));
  const ForeignCallScope in = enter("fmi2SetupExperiment");
  check(f_.setup_experiment(component_, fmi2False, 0.0, t_start, fmi2False, 0.0), "fmi2SetupExperiment");
  check(f_.enter_initialization_mode(component_), "fmi2EnterInitializationMode");
  check(f_.exit_initialization_mode(component_), "fmi2ExitInitializationMode");
  initialized_ = true;
  t_ = t_start;
}

void FmuSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  const ForeignCallScope in = enter("fmi2GetXXX");
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

void FmuSystem::set_numeric_inputs(const TypedPorts& ports, VariableType type, const InputPolynomials& polynomials) {
  const std::size_t n = ports.vrs.size();
  if (n == 0) return;
  for (std::size_t k = 0; k < n; ++k) {
    const int port = ports.ports[k];
    const double value = polynomials(port, 0);
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

void FmuSystem::apply_inputs(const InputPolynomials& polynomials) {
  const ForeignCallScope in = enter("fmi2SetXXX");
  set_numeric_inputs(real_in_, VariableType::real, polynomials);
  set_numeric_inputs(integer_in_, VariableType::integer, polynomials);
  set_numeric_inputs(boolean_in_, VariableType::boolean, polynomials);
  if (!has(Capability::interpolate_inputs)) return;
  // d^k u/dt^k at the step start = k!·a_k; zeros are sent too when the previous step had some
  bool any = false;
  std::size_t slot = 0;
  for (const int port : real_in_.ports) {
    double factorial = 1.0;
    for (int order = 1; order <= kMaxInputDegree; ++order, ++slot) {
      factorial *= order;
      derivative_values_[slot] = factorial * polynomials(port, order);
      any = any || derivative_values_[slot] != 0.0;
    }
  }
  if (any || derivatives_were_set_) {
    check(f_.set_real_input_derivatives(component_, derivative_input_vrs_.data(), derivative_input_vrs_.size(),
                                        derivative_orders_.data(), derivative_values_.data()),
          "fmi2SetRealInputDerivatives");
  }
  derivatives_were_set_ = any;
}

StepResult FmuSystem::integrate(double h) {
  const ForeignCallScope in = enter("fmi2DoStep");
  if (stop_requested_) return {StepResult::Status::terminated, "the FMU asked to terminate earlier"};
  const fmi2Boolean no_rollback = has(Capability::rollback) ? fmi2False : fmi2True;
  const fmi2Status status = f_.do_step(component_, t_, h, no_rollback);
  if (status == fmi2OK || status == fmi2Warning) {
    t_ += h;
    return StepResult::success();
  }
  if (status == fmi2Discard) {
    // FMI 2.0 §4.2.3: fmi2Terminated asks to end the run; lastSuccessfulTime says how far it got
    fmi2Boolean terminated = fmi2False;
    if (f_.get_boolean_status != nullptr && f_.get_boolean_status(component_, fmi2Terminated, &terminated) != fmi2OK) {
      terminated = fmi2False;
    }
    if (terminated == fmi2True) {
      double last = t_;
      if (f_.get_real_status != nullptr && f_.get_real_status(component_, fmi2LastSuccessfulTime, &last) != fmi2OK) last = t_;
      stop_requested_ = true;
      const bool completed = last >= t_ + h - 1e-9 * std::max({1.0, std::abs(t_), h});
      t_ = completed ? t_ + h : last;
      StepResult result{StepResult::Status::terminated,
                        fmt::format("FMU '{}' asked to terminate at t = {} (fmi2Terminated){}", file().string(), last,
                                    recent_log())};
      result.step_completed = completed;
      return result;
    }
  }
  if (status == fmi2Error || status == fmi2Fatal) {
    health_ = status == fmi2Fatal ? Health::fatal : Health::error;
    health_call_ = "fmi2DoStep";
  }
  return StepResult::failure(fmt::format("FMU '{}': fmi2DoStep(t = {}, h = {}) returned {}{}", file().string(), t_, h,
                                         status_name(status), recent_log()));
}

void FmuSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  const ForeignCallScope in = enter("fmi2GetRealOutputDerivatives");
  dy.setZero();  // held (non-Real) outputs have none
  const std::size_t n = real_out_.vrs.size();
  std::fill_n(int_buffer_.begin(), n, order);
  check(f_.get_real_output_derivatives(component_, real_out_.vrs.data(), n, int_buffer_.data(), real_buffer_.data()),
        "fmi2GetRealOutputDerivatives");
  for (std::size_t k = 0; k < n; ++k) {
    if (outputs_[static_cast<std::size_t>(real_out_.ports[k])].info.continuous) dy(real_out_.ports[k]) = real_buffer_[k];
  }
}

StateId FmuSystem::do_save_state(StateId overwrite) {
  const ForeignCallScope in = enter("fmi2GetFMUstate");
  StateId id = overwrite;
  if (id < 0) {
    id = 0;
    while (id < static_cast<StateId>(saved_.size()) && saved_[static_cast<std::size_t>(id)].in_use) ++id;
    if (id == static_cast<StateId>(saved_.size())) saved_.emplace_back();
  }
  Saved& saved = saved_.at(static_cast<std::size_t>(id));
  check(f_.get_fmu_state(component_, &saved.state), "fmi2GetFMUstate");  // reuses saved.state when set
  saved.t = t_;
  saved.in_use = true;
  return id;
}

void FmuSystem::do_restore_state(StateId id) {
  const ForeignCallScope in = enter("fmi2SetFMUstate");
  const Saved& saved = saved_.at(static_cast<std::size_t>(id));
  if (!saved.in_use) throw Error(fmt::format("system '{}': no saved state {}", name(), id));
  check(f_.set_fmu_state(component_, saved.state), "fmi2SetFMUstate");
  t_ = saved.t;
  derivatives_were_set_ = true;  // the restored FMU may carry input derivatives: reset them next time
}

void FmuSystem::do_release_state(StateId id) {
  Saved& saved = saved_.at(static_cast<std::size_t>(id));
  if (saved.state != nullptr && health_ == Health::ok) check(f_.free_fmu_state(component_, &saved.state), "fmi2FreeFMUstate");
  saved.state = nullptr;
  saved.in_use = false;
}

void FmuSystem::compute_states(Eigen::Ref<Eigen::VectorXd> x) const {
  const ForeignCallScope in = enter("fmi2GetReal");
  check(f_.get_real(component_, state_vrs_.data(), state_vrs_.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < state_vrs_.size(); ++k) x(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

void FmuSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  const ForeignCallScope in = enter("fmi2GetReal");
  check(f_.get_real(component_, derivative_vrs_.data(), derivative_vrs_.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < derivative_vrs_.size(); ++k) dx(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

const Linearization& FmuSystem::compute_linearization() {
  const ForeignCallScope in = enter("fmi2GetDirectionalDerivative");
  // Columns of [A B; C D] by directional derivatives along each state and Real input.
  const std::size_t nx = state_vrs_.size(), ny = real_out_.vrs.size();
  std::vector<fmi2ValueReference> unknowns(derivative_vrs_);
  unknowns.insert(unknowns.end(), real_out_.vrs.begin(), real_out_.vrs.end());
  std::vector<fmi2ValueReference> knowns(state_vrs_);
  knowns.insert(knowns.end(), real_in_.vrs.begin(), real_in_.vrs.end());
  linearization_.A.setZero(static_cast<Eigen::Index>(nx), static_cast<Eigen::Index>(nx));
  linearization_.B.setZero(static_cast<Eigen::Index>(nx), input_count());
  linearization_.C.setZero(output_count(), static_cast<Eigen::Index>(nx));
  linearization_.D.setZero(output_count(), input_count());
  std::vector<double> seed(1, 1.0), column(unknowns.size());
  for (std::size_t j = 0; j < knowns.size(); ++j) {
    check(f_.get_directional_derivative(component_, unknowns.data(), unknowns.size(), &knowns[j], 1, seed.data(),
                                        column.data()),
          "fmi2GetDirectionalDerivative");
    const bool is_state = j < nx;
    const auto col = static_cast<Eigen::Index>(is_state ? j : static_cast<std::size_t>(real_in_.ports[j - nx]));
    for (std::size_t i = 0; i < nx; ++i) (is_state ? linearization_.A : linearization_.B)(static_cast<Eigen::Index>(i), col) = column[i];
    for (std::size_t i = 0; i < ny; ++i) (is_state ? linearization_.C : linearization_.D)(real_out_.ports[i], col) = column[nx + i];
  }
  return linearization_;
}

std::string describe_fmu(const std::filesystem::path& fmu) {
  const ModelDescription md = read_model_description(fmu);
  const auto& cs = md.co_simulation;
  std::string text = fmt::format("FMU         {}\nmodel       {} (FMI {}, {})\nidentifier  {}\nguid        {}\n",
                                 fmu.string(), md.model_name, md.fmi_version,
                                 md.generation_tool.empty() ? "unknown tool" : md.generation_tool, cs.model_identifier,
                                 md.guid);
  text += fmt::format(
      "capabilities canHandleVariableCommunicationStepSize={} canInterpolateInputs={} maxOutputDerivativeOrder={} "
      "canGetAndSetFMUstate={} providesDirectionalDerivative={}\n",
      cs.can_handle_variable_step, cs.can_interpolate_inputs, cs.max_output_derivative_order, cs.can_get_and_set_state,
      cs.provides_directional_derivative);
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  const auto& de = md.default_experiment;
  text += fmt::format("experiment  start={} stop={} tolerance={} step={}\n", opt(de.start_time), opt(de.stop_time),
                      opt(de.tolerance), opt(de.step_size));
  text += fmt::format("states      {}\nvariables   {}\n", md.derivatives.size(), md.variables.size());
  for (const ScalarVariable& v : md.variables) {
    const PortInfo info = md.port_info(v);
    text += fmt::format("  {:<24} vr={:<4} {:<28} {:<10} {:<10} {}\n", v.name, v.value_reference, describe(info),
                        v.causality, v.variability, v.start ? "start=" + *v.start : std::string());
  }
  if (!archive_has_entry(fmu, "binaries/linux64/" + cs.model_identifier + ".so")) {
    text += fmt::format("note        no linux64 binary (binaries/linux64/{}.so): cannot run here\n", cs.model_identifier);
  }
  return text;
}

}  // namespace cosima::fmi
