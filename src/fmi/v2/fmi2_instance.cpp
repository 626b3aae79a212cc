#include "fmi/v2/fmi2_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/slots.hpp"

namespace cosima::fmi {

namespace {

extern "C" void fmu_logger(fmi2ComponentEnvironment environment, fmi2String instance, fmi2Status status,
                           fmi2String category, fmi2String message, ...) {
  char text[2048];
  va_list args;
  va_start(args, message);
  std::vsnprintf(text, sizeof text, message != nullptr ? message : "", args);  // NOLINT: FMI's printf-style logger
  va_end(args);
  auto* fmu = static_cast<Fmi2Instance*>(environment);
  if (fmu != nullptr) {
    fmu->on_log(call_status(status), category, text);
  } else {
    log(LogLevel::warning, fmt::format("FMU instance '{}': {}", instance != nullptr ? instance : "?", text));
  }
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

CallStatus call_status(fmi2Status status) {
  switch (status) {
    case fmi2OK: return CallStatus::ok;
    case fmi2Warning: return CallStatus::warning;
    case fmi2Discard: return CallStatus::discard;
    case fmi2Fatal: return CallStatus::fatal;
    default: return CallStatus::error;
  }
}

namespace {
const FmuInstance::ApiNames kFmi2Names{.prefix = "fmi2",
                                       .unusable_after_error = "FMI 2.0 §2.1.3",
                                       .set_values = "fmi2SetXXX",
                                       .set_string = "fmi2SetString",
                                       .get_string = "fmi2GetString",
                                       .update_discrete_states = "fmi2NewDiscreteStates"};
}  // namespace

Fmi2Instance::Fmi2Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface)
    : FmuInstance(system, fmu, interface, kFmi2Names),
      library_(library_path(interface), fmu.string(), interface),
      f_(library_.functions()) {
  const ModelDescription& md = description();
  lay_out();
  require_calls({reinterpret_cast<const void*>(f_.get_integer), reinterpret_cast<const void*>(f_.set_integer),
                 reinterpret_cast<const void*>(f_.get_boolean), reinterpret_cast<const void*>(f_.set_boolean),
                 reinterpret_cast<const void*>(f_.get_string), reinterpret_cast<const void*>(f_.set_string)});
  callbacks_.logger = fmu_logger;
  callbacks_.allocateMemory = fmu_allocate_memory;
  callbacks_.freeMemory = std::free;
  callbacks_.stepFinished = nullptr;
  callbacks_.componentEnvironment = this;
  const fmi2Boolean logging_on = log_level() >= LogLevel::debug ? fmi2True : fmi2False;
  const ForeignCallScope in(this->system().c_str(), file_text(), "fmi2Instantiate", 0.0);
  component_ = f_.instantiate(this->system().c_str(),
                              interface == FmiInterface::co_simulation ? fmi2CoSimulation : fmi2ModelExchange,
                              md.guid.c_str(), archive().resource_uri().c_str(), &callbacks_, fmi2False, logging_on);
  if (component_ == nullptr) throw Error(fmt::format("{}: fmi2Instantiate failed{}", where(), recent_log()));
  rearm_crash_handlers();  // an FMU may install its own SIGSEGV handler when instantiated
  const std::size_t widest = std::max({inputs().size(), outputs().size(), state_names().size(), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  int_buffer_.assign(widest, 0);
  bool_buffer_.assign(widest, fmi2False);
}

Fmi2Instance::~Fmi2Instance() {
  if (component_ == nullptr || health() == Health::fatal) return;  // after fmi2Fatal: no call at all
  const ForeignCallScope in(system().c_str(), file_text(), "fmi2Terminate/fmi2FreeInstance", last_time());
  if (health() == Health::ok) {
    for (Saved& saved : saved_) {
      if (saved.state != nullptr) f_.free_fmu_state(component_, &saved.state);
    }
    if (terminate_due()) f_.terminate(component_);
  }
  f_.free_instance(component_);  // after fmi2Error only this
}

VariableType Fmi2Instance::access_type(VariableType type) const {
  return type == VariableType::enumeration ? VariableType::integer : type;
}

void Fmi2Instance::enter_initialization(double t_start, std::optional<double> tolerance) {
  ForeignCallScope in = enter("fmi2SetupExperiment", t_start);
  check(f_.setup_experiment(component_, tolerance ? fmi2True : fmi2False, tolerance.value_or(0.0), t_start, fmi2False,
                            0.0),
        "fmi2SetupExperiment");
  apply_given_values(t_start);  // after fmi2SetupExperiment, which some FMUs reset their parameters in
  in.now("fmi2EnterInitializationMode");
  check(f_.enter_initialization_mode(component_), "fmi2EnterInitializationMode");
  set_in_initialization(true, t_start);
}

void Fmi2Instance::leave_initialization() {
  const ForeignCallScope in = enter("fmi2ExitInitializationMode", start_time());
  check(f_.exit_initialization_mode(component_), "fmi2ExitInitializationMode");
  set_in_initialization(false, start_time());
  set_initialized();       // Terminate is due from here on, not in Initialization Mode
  rearm_crash_handlers();  // ... or when initialized
}

// --- values --------------------------------------------------------------------------------------

void Fmi2Instance::set_scalar(const ScalarVariable& v, double value) {
  const fmi2ValueReference vr = v.value_reference;
  switch (access_type(v.type)) {
    case VariableType::real: check(f_.set_real(component_, &vr, 1, &value), "fmi2SetReal"); break;
    case VariableType::integer: {
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
    default: break;  // Strings are refused before
  }
}

void Fmi2Instance::set_element(const ScalarVariable& v, std::size_t /*element*/, double /*value*/) {
  throw Error(fmt::format("{}: '{}' is not an array (FMI 2.0 has none)", where(), v.name));
}

void Fmi2Instance::set_text(const ScalarVariable& v, const Port* /*port*/, const std::string& value) {
  if (f_.set_string == nullptr) throw Error(fmt::format("{}: binary lacks fmi2SetString", where()));
  const fmi2String text = value.c_str();
  check(f_.set_string(component_, &v.value_reference, 1, &text), "fmi2SetString");
}

std::string Fmi2Instance::get_text(const Port& port) const {
  fmi2String text = nullptr;
  check(f_.get_string(component_, &port.vr, 1, &text), "fmi2GetString");
  return text != nullptr ? std::string(text) : std::string();
}

void Fmi2Instance::reserve_scratch(std::size_t count) const {
  if (real_buffer_.size() >= count) return;
  real_buffer_.resize(count, 0.0);
  int_buffer_.resize(count, 0);
  bool_buffer_.resize(count, fmi2False);
}

void Fmi2Instance::get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const {
  const std::size_t n = batch.vrs.size();
  switch (batch.access) {
    case VariableType::real:
      check(f_.get_real(component_, batch.vrs.data(), n, real_buffer_.data()), "fmi2GetReal");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = real_buffer_[k];
      break;
    case VariableType::integer:
      check(f_.get_integer(component_, batch.vrs.data(), n, int_buffer_.data()), "fmi2GetInteger");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = int_buffer_[k];
      break;
    case VariableType::boolean:
      check(f_.get_boolean(component_, batch.vrs.data(), n, bool_buffer_.data()), "fmi2GetBoolean");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = bool_buffer_[k] != fmi2False ? 1.0 : 0.0;
      break;
    default: break;
  }
}

void Fmi2Instance::set_typed(const TypedPorts& batch, PortValues u) {
  const std::size_t n = batch.vrs.size();
  switch (batch.access) {
    case VariableType::real:
      for (std::size_t k = 0; k < n; ++k) real_buffer_[k] = u(batch.ports[k]);
      check(f_.set_real(component_, batch.vrs.data(), n, real_buffer_.data()), "fmi2SetReal");
      break;
    case VariableType::integer:
      for (std::size_t k = 0; k < n; ++k)
        int_buffer_[k] = static_cast<fmi2Integer>(integral_input(u(batch.ports[k]), batch.ports[k]));
      check(f_.set_integer(component_, batch.vrs.data(), n, int_buffer_.data()), "fmi2SetInteger");
      break;
    case VariableType::boolean:
      for (std::size_t k = 0; k < n; ++k) {
        bool_buffer_[k] = integral_input(u(batch.ports[k]), batch.ports[k]) != 0.0 ? fmi2True : fmi2False;
      }
      check(f_.set_boolean(component_, batch.vrs.data(), n, bool_buffer_.data()), "fmi2SetBoolean");
      break;
    default: break;
  }
}

void Fmi2Instance::get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const {
  if (vrs.empty()) return;
  check(f_.get_real(component_, vrs.data(), vrs.size(), real_buffer_.data()), "fmi2GetReal");
  for (std::size_t k = 0; k < vrs.size(); ++k) values(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

// --- FMU state -----------------------------------------------------------------------------------

bool Fmi2Instance::can_save_state() const {
  return capabilities().can_get_and_set_state && f_.get_fmu_state != nullptr && f_.set_fmu_state != nullptr &&
         f_.free_fmu_state != nullptr;
}

int Fmi2Instance::save_state(int overwrite, double t) {
  const ForeignCallScope in = enter("fmi2GetFMUstate", t);
  const int slot = acquire_slot(saved_, overwrite);
  if (slot < 0) throw Error(fmt::format("system '{}': no saved FMU state {}", system(), overwrite));
  Saved& saved = saved_[static_cast<std::size_t>(slot)];
  check(f_.get_fmu_state(component_, &saved.state), "fmi2GetFMUstate");  // reuses saved.state when set
  saved.in_use = true;
  return slot;
}

void Fmi2Instance::restore_state(int slot, double t) {
  const ForeignCallScope in = enter("fmi2SetFMUstate", t);
  const Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (!saved.in_use) throw Error(fmt::format("system '{}': no saved state {}", system(), slot));
  check(f_.set_fmu_state(component_, saved.state), "fmi2SetFMUstate");
}

void Fmi2Instance::release_state(int slot) {
  Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (saved.state != nullptr && healthy()) check(f_.free_fmu_state(component_, &saved.state), "fmi2FreeFMUstate");
  saved.state = nullptr;
  saved.in_use = false;
}

bool Fmi2Instance::provides_linearization() const {
  return capabilities().provides_directional_derivative && f_.get_directional_derivative != nullptr &&
         !state_vrs().empty();
}

void Fmi2Instance::directional_derivative(const std::vector<unsigned int>& unknowns,
                                          const std::vector<unsigned int>& knowns, const std::vector<double>& seed,
                                          std::vector<double>& sensitivity) const {
  check(f_.get_directional_derivative(component_, unknowns.data(), unknowns.size(), knowns.data(), knowns.size(),
                                      seed.data(), sensitivity.data()),
        "fmi2GetDirectionalDerivative");
}

}  // namespace cosima::fmi
