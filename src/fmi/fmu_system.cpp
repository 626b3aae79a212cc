#include "fmi/fmu_system.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include <fmt/format.h>

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

bool is_exchanged(VariableType type) { return type != VariableType::string; }

}  // namespace

FmuSystem::FmuSystem(std::string name, const std::filesystem::path& fmu)
    : System(std::move(name)),
      archive_(fmu),
      library_(archive_.binary(), fmu.string()),
      f_(library_.functions()) {
  const ModelDescription& md = description();
  const auto& cs = md.co_simulation;
  if (cs.needs_execution_tool) {
    throw Error(fmt::format("FMU '{}' needs its execution tool (needsExecutionTool=true)", fmu.string()));
  }
  // ports, in the order of the description
  std::vector<int> input_of_variable(md.variables.size(), -1);
  for (std::size_t i = 0; i < md.variables.size(); ++i) {
    const ScalarVariable& v = md.variables[i];
    if (!is_exchanged(v.type)) continue;
    if (v.causality == "input") {
      input_of_variable[i] = static_cast<int>(inputs_.size());
      input_names_.push_back(v.name);
      inputs_.push_back({v.value_reference, v.type});
      if (v.type == VariableType::real) {
        real_input_vrs_.push_back(v.value_reference);
        real_input_index_.push_back(static_cast<int>(inputs_.size()) - 1);
      }
    } else if (v.causality == "output") {
      output_names_.push_back(v.name);
      outputs_.push_back({v.value_reference, v.type});
      if (v.type == VariableType::real) {
        real_output_vrs_.push_back(v.value_reference);
        real_output_index_.push_back(static_cast<int>(outputs_.size()) - 1);
      }
    }
  }
  // direct feedthrough from ModelStructure/Outputs (no dependencies attribute: depends on all)
  feedthrough_.assign(outputs_.size(), std::vector<bool>(inputs_.size(), true));
  for (const Unknown& unknown : md.outputs) {
    const ScalarVariable& v = md.variables[static_cast<std::size_t>(unknown.index - 1)];
    const int o = [&] {
      for (std::size_t k = 0; k < output_names_.size(); ++k) {
        if (output_names_[k] == v.name) return static_cast<int>(k);
      }
      return -1;
    }();
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
  callbacks_.allocateMemory = [](std::size_t n, std::size_t size) { return std::calloc(n, size); };
  callbacks_.freeMemory = std::free;
  callbacks_.stepFinished = nullptr;
  callbacks_.componentEnvironment = this;
  component_ = f_.instantiate(this->name().c_str(), fmi2CoSimulation, md.guid.c_str(), archive_.resource_uri().c_str(),
                              &callbacks_, fmi2False, fmi2False);
  if (component_ == nullptr) {
    throw Error(fmt::format("FMU '{}' (system '{}'): fmi2Instantiate failed{}", fmu.string(), this->name(), recent_log()));
  }
  // the step's scratch space, once
  for (std::size_t k = 0; k < real_input_vrs_.size(); ++k) {
    for (int order = 1; order <= kMaxInputDegree; ++order) {
      derivative_input_vrs_.push_back(real_input_vrs_[k]);
      derivative_orders_.push_back(order);
    }
  }
  derivative_values_.assign(derivative_input_vrs_.size(), 0.0);
  real_buffer_.reserve(64);
  int_buffer_.reserve(64);
}

FmuSystem::~FmuSystem() {
  if (component_ == nullptr) return;
  for (Saved& saved : saved_) {
    if (saved.state != nullptr && f_.free_fmu_state != nullptr) f_.free_fmu_state(component_, &saved.state);
  }
  if (initialized_ && !terminated_) f_.terminate(component_);
  f_.free_instance(component_);
}

void FmuSystem::on_log(fmi2Status status, const char* category, const std::string& message) {
  std::string line = fmt::format("[{}{}{}] {}", status_name(status), category != nullptr ? " " : "",
                                 category != nullptr ? category : "", message);
  if (status >= fmi2Warning) log(LogLevel::warning, fmt::format("system '{}': {}", name(), line));
  else log(LogLevel::debug, fmt::format("system '{}': {}", name(), line));
  log_.push_back(std::move(line));
  if (log_.size() > kLogLines) log_.pop_front();
}

std::string FmuSystem::recent_log() const {
  if (log_.empty()) return "";
  std::string text = "; FMU log:";
  for (const auto& line : log_) text += "\n  " + line;
  return text;
}

void FmuSystem::check(fmi2Status status, const char* call) const {
  if (status == fmi2OK || status == fmi2Warning) return;
  throw Error(fmt::format("FMU '{}' (system '{}'): {} returned {}{}", file().string(), name(), call,
                          status_name(status), recent_log()));
}

bool FmuSystem::output_depends_on_input(int output, int input) const {
  return feedthrough_[static_cast<std::size_t>(output)][static_cast<std::size_t>(input)];
}

void FmuSystem::set_parameter(const std::string& parameter, double value) {
  const int index = description().find(parameter);
  if (index < 0) {
    throw Error(fmt::format("FMU '{}' (system '{}') has no variable '{}'", file().string(), name(), parameter));
  }
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(index)];
  if (v.variability == "constant" || (v.causality != "parameter" && v.causality != "input" && v.initial != "exact" &&
                                      v.initial != "approx")) {
    throw Error(fmt::format("FMU '{}' (system '{}'): variable '{}' ({} {}) cannot be set", file().string(), name(),
                            parameter, v.causality, v.variability));
  }
  const fmi2ValueReference vr = v.value_reference;
  switch (v.type) {
    case VariableType::real: check(f_.set_real(component_, &vr, 1, &value), "fmi2SetReal"); break;
    case VariableType::integer:
    case VariableType::enumeration: {
      if (value != std::round(value) || f_.set_integer == nullptr) {
        throw Error(fmt::format("FMU '{}' (system '{}'): '{}' is an Integer, {} is not", file().string(), name(),
                                parameter, value));
      }
      const fmi2Integer i = static_cast<fmi2Integer>(value);
      check(f_.set_integer(component_, &vr, 1, &i), "fmi2SetInteger");
      break;
    }
    case VariableType::boolean: {
      if ((value != 0.0 && value != 1.0) || f_.set_boolean == nullptr) {
        throw Error(fmt::format("FMU '{}' (system '{}'): '{}' is a Boolean, give 0 or 1", file().string(), name(), parameter));
      }
      const fmi2Boolean b = value != 0.0 ? fmi2True : fmi2False;
      check(f_.set_boolean(component_, &vr, 1, &b), "fmi2SetBoolean");
      break;
    }
    case VariableType::string:
      throw Error(fmt::format("FMU '{}' (system '{}'): '{}' is a String", file().string(), name(), parameter));
  }
}

void FmuSystem::initialize(double t_start) {
  if (initialized_) throw Error(fmt::format("system '{}': initialized twice", name()));
  check(f_.setup_experiment(component_, fmi2False, 0.0, t_start, fmi2False, 0.0), "fmi2SetupExperiment");
  check(f_.enter_initialization_mode(component_), "fmi2EnterInitializationMode");
  check(f_.exit_initialization_mode(component_), "fmi2ExitInitializationMode");
  initialized_ = true;
  t_ = t_start;
}

void FmuSystem::read_ports(const std::vector<Port>& ports, Eigen::Ref<Eigen::VectorXd> values) const {
  for (std::size_t k = 0; k < ports.size(); ++k) {
    const Port& port = ports[k];
    switch (port.type) {
      case VariableType::real: {
        double v = 0.0;
        check(f_.get_real(component_, &port.vr, 1, &v), "fmi2GetReal");
        values(static_cast<Eigen::Index>(k)) = v;
        break;
      }
      case VariableType::integer:
      case VariableType::enumeration: {
        fmi2Integer v = 0;
        if (f_.get_integer == nullptr) throw Error(fmt::format("FMU '{}': no fmi2GetInteger", file().string()));
        check(f_.get_integer(component_, &port.vr, 1, &v), "fmi2GetInteger");
        values(static_cast<Eigen::Index>(k)) = v;
        break;
      }
      case VariableType::boolean: {
        fmi2Boolean v = 0;
        if (f_.get_boolean == nullptr) throw Error(fmt::format("FMU '{}': no fmi2GetBoolean", file().string()));
        check(f_.get_boolean(component_, &port.vr, 1, &v), "fmi2GetBoolean");
        values(static_cast<Eigen::Index>(k)) = v != 0 ? 1.0 : 0.0;
        break;
      }
      case VariableType::string: break;
    }
  }
}

void FmuSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  if (real_output_vrs_.size() == outputs_.size()) {  // all Real: one call
    real_buffer_.resize(real_output_vrs_.size());
    check(f_.get_real(component_, real_output_vrs_.data(), real_output_vrs_.size(), real_buffer_.data()), "fmi2GetReal");
    for (std::size_t k = 0; k < real_buffer_.size(); ++k) y(static_cast<Eigen::Index>(k)) = real_buffer_[k];
    return;
  }
  read_ports(outputs_, y);
}

void FmuSystem::apply_inputs(const InputPolynomials& polynomials) {
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    const Port& port = inputs_[k];
    const double value = polynomials(static_cast<Eigen::Index>(k), 0);
    switch (port.type) {
      case VariableType::real: check(f_.set_real(component_, &port.vr, 1, &value), "fmi2SetReal"); break;
      case VariableType::integer:
      case VariableType::enumeration: {
        const fmi2Integer i = static_cast<fmi2Integer>(std::lround(value));
        check(f_.set_integer(component_, &port.vr, 1, &i), "fmi2SetInteger");
        break;
      }
      case VariableType::boolean: {
        const fmi2Boolean b = value > 0.5 ? fmi2True : fmi2False;
        check(f_.set_boolean(component_, &port.vr, 1, &b), "fmi2SetBoolean");
        break;
      }
      case VariableType::string: break;
    }
  }
  if (!has(Capability::interpolate_inputs)) return;
  // d^k u/dt^k at the step start = k!·a_k; zeros are sent too when the previous step had some
  bool any = false;
  std::size_t slot = 0;
  for (std::size_t k = 0; k < real_input_vrs_.size(); ++k) {
    double factorial = 1.0;
    for (int order = 1; order <= kMaxInputDegree; ++order, ++slot) {
      factorial *= order;
      derivative_values_[slot] = factorial * polynomials(real_input_index_[k], order);
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
  if (terminated_) return {StepResult::Status::terminated, "the FMU terminated earlier"};
  const fmi2Boolean no_rollback = has(Capability::rollback) ? fmi2False : fmi2True;
  const fmi2Status status = f_.do_step(component_, t_, h, no_rollback);
  if (status == fmi2OK || status == fmi2Warning) {
    t_ += h;
    return StepResult::success();
  }
  if (status == fmi2Discard) {
    fmi2Boolean terminated = fmi2False;
    if (f_.get_boolean_status != nullptr) f_.get_boolean_status(component_, fmi2Terminated, &terminated);
    if (terminated == fmi2True) {
      double last = t_;
      if (f_.get_real_status != nullptr) f_.get_real_status(component_, fmi2LastSuccessfulTime, &last);
      terminated_ = true;
      return {StepResult::Status::terminated, fmt::format("FMU '{}' asked to terminate at t = {}{}",
                                                          file().string(), last, recent_log())};
    }
  }
  return StepResult::failure(fmt::format("FMU '{}': fmi2DoStep(t = {}, h = {}) returned {}{}", file().string(), t_, h,
                                         status_name(status), recent_log()));
}

void FmuSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  dy.setZero();
  real_buffer_.resize(real_output_vrs_.size());
  int_buffer_.assign(real_output_vrs_.size(), order);
  check(f_.get_real_output_derivatives(component_, real_output_vrs_.data(), real_output_vrs_.size(), int_buffer_.data(),
                                       real_buffer_.data()),
        "fmi2GetRealOutputDerivatives");
  for (std::size_t k = 0; k < real_output_vrs_.size(); ++k) dy(real_output_index_[k]) = real_buffer_[k];
}

StateId FmuSystem::do_save_state(StateId overwrite) {
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
  const Saved& saved = saved_.at(static_cast<std::size_t>(id));
  if (!saved.in_use) throw Error(fmt::format("system '{}': no saved state {}", name(), id));
  check(f_.set_fmu_state(component_, saved.state), "fmi2SetFMUstate");
  t_ = saved.t;
  derivatives_were_set_ = true;  // the restored FMU may carry input derivatives: reset them next time
}

void FmuSystem::do_release_state(StateId id) {
  Saved& saved = saved_.at(static_cast<std::size_t>(id));
  if (saved.state != nullptr) check(f_.free_fmu_state(component_, &saved.state), "fmi2FreeFMUstate");
  saved.state = nullptr;
  saved.in_use = false;
}

void FmuSystem::compute_states(Eigen::Ref<Eigen::VectorXd> x) const {
  real_buffer_.resize(state_vrs_.size());
  check(f_.get_real(component_, state_vrs_.data(), state_vrs_.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < state_vrs_.size(); ++k) x(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

void FmuSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  real_buffer_.resize(derivative_vrs_.size());
  check(f_.get_real(component_, derivative_vrs_.data(), derivative_vrs_.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < derivative_vrs_.size(); ++k) dx(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

const Linearization& FmuSystem::compute_linearization() {
  // Columns of [A B; C D] by directional derivatives along each state and Real input.
  const std::size_t nx = state_vrs_.size(), nu = real_input_vrs_.size(), ny = real_output_vrs_.size();
  std::vector<fmi2ValueReference> unknowns(derivative_vrs_);
  unknowns.insert(unknowns.end(), real_output_vrs_.begin(), real_output_vrs_.end());
  std::vector<fmi2ValueReference> knowns(state_vrs_);
  knowns.insert(knowns.end(), real_input_vrs_.begin(), real_input_vrs_.end());
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
    const auto col = static_cast<Eigen::Index>(is_state ? j : static_cast<std::size_t>(real_input_index_[j - nx]));
    for (std::size_t i = 0; i < nx; ++i) (is_state ? linearization_.A : linearization_.B)(static_cast<Eigen::Index>(i), col) = column[i];
    for (std::size_t i = 0; i < ny; ++i) {
      (is_state ? linearization_.C : linearization_.D)(real_output_index_[i], col) = column[nx + i];
    }
  }
  (void)nu;
  return linearization_;
}

std::string describe_fmu(const std::filesystem::path& fmu) {
  const FmuArchive archive(fmu);
  (void)archive.binary();  // a missing binary is an error here too
  const ModelDescription& md = archive.description();
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
    text += fmt::format("  {:<24} vr={:<4} {:<11} {:<10} {:<10} {}\n", v.name, v.value_reference, to_string(v.type),
                        v.causality, v.variability, v.start ? "start=" + *v.start : std::string());
  }
  return text;
}

}  // namespace cosima::fmi
