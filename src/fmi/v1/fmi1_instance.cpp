#include "fmi/v1/fmi1_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/log.hpp"
#include "fmi/common/fmu_archive.hpp"

namespace cosima::fmi {

namespace {

// FMI 1.0's logger gets the fmiComponent, not an environment pointer of the importer's: the
// instances are found by component, and during instantiation (before the component exists) by thread.
struct Registry {
  std::mutex mutex;
  std::unordered_map<fmi1Component, Fmi1Instance*> instances;
};
/// Never destroyed: an instance may be released after the static objects are gone.
Registry& registry() {
  static auto* const kRegistry = new Registry;
  return *kRegistry;
}
thread_local Fmi1Instance* t_instantiating = nullptr;

Fmi1Instance* instance_of(fmi1Component component) {
  if (component != nullptr) {
    Registry& r = registry();
    const std::scoped_lock lock(r.mutex);
    if (const auto it = r.instances.find(component); it != r.instances.end()) return it->second;
  }
  return t_instantiating;
}

extern "C" void fmu1_logger(fmi1Component component, fmi1String instance, fmi1Status status, fmi1String category,
                            fmi1String message, ...) {
  char text[2048];
  va_list args;
  va_start(args, message);
  std::vsnprintf(text, sizeof text, message != nullptr ? message : "", args);  // NOLINT: FMI's printf-style logger
  va_end(args);
  if (Fmi1Instance* fmu = instance_of(component)) {
    fmu->on_log(call_status(status), category, text);
  } else {
    log(LogLevel::warning, fmt::format("FMU instance '{}': {}", instance != nullptr ? instance : "?", text));
  }
}

/// fmiCallbackFunctions.stepFinished: only called after fmiPending, which cosima never asks for.
extern "C" void fmu1_step_finished(fmi1Component /*component*/, fmi1Status /*status*/) {}

const FmuInstance::ApiNames kFmi1Names{.prefix = "fmi",
                                       .unusable_after_error = "FMI 1.0: fmiError and fmiFatal end an instance",
                                       .set_values = "fmiSetXXX",
                                       .set_string = "fmiSetString",
                                       .get_string = "fmiGetString",
                                       .update_discrete_states = "fmiEventUpdate"};

const void* address(auto function) { return reinterpret_cast<const void*>(function); }

}  // namespace

const char* status_name(fmi1Status status) {
  switch (status) {
    case fmi1OK: return "fmiOK";
    case fmi1Warning: return "fmiWarning";
    case fmi1Discard: return "fmiDiscard";
    case fmi1Error: return "fmiError";
    case fmi1Fatal: return "fmiFatal";
    case fmi1Pending: return "fmiPending";
  }
  return "unknown status";
}

CallStatus call_status(fmi1Status status) {
  switch (status) {
    case fmi1OK: return CallStatus::ok;
    case fmi1Warning: return CallStatus::warning;
    case fmi1Discard: return CallStatus::discard;
    case fmi1Fatal: return CallStatus::fatal;
    default: return CallStatus::error;
  }
}

Fmi1Instance::Fmi1Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface)
    : FmuInstance(system, fmu, interface, kFmi1Names),
      library_(library_path(interface), fmu.string(), capabilities().model_identifier, interface),
      f_(library_.functions()),
      model_exchange_(interface == FmiInterface::model_exchange) {
  lay_out();
  require_calls({address(f_.get_integer), address(f_.set_integer), address(f_.get_boolean), address(f_.set_boolean),
                 address(f_.get_string), address(f_.set_string)});
  instantiate();
  inputs_now_.resize(static_cast<Eigen::Index>(inputs().size()));
  for (std::size_t i = 0; i < inputs().size(); ++i)
    inputs_now_(static_cast<Eigen::Index>(i)) = inputs()[i].info.start.value_or(0.0);
  const std::size_t widest = std::max({inputs().size(), outputs().size(),
                                       static_cast<std::size_t>(description().continuous_state_count), std::size_t{1}});
  real_buffer_.assign(widest, 0.0);
  int_buffer_.assign(widest, 0);
  bool_buffer_.assign(widest, fmi1False);
  if (model_exchange_) name_states();
}

void Fmi1Instance::instantiate() {
  const ModelDescription& md = description();
  const fmi1Boolean logging_on = log_level() >= LogLevel::debug ? fmi1True : fmi1False;
  t_instantiating = this;
  if (model_exchange_) {
    const ForeignCallScope in(system().c_str(), file_text(), "fmiInstantiateModel", 0.0);
    component_ = f_.instantiate_model(system().c_str(), md.guid.c_str(), {fmu1_logger, fmu_allocate_memory, std::free},
                                      logging_on);
  } else {  // CS §3.3: fmuLocation is the URI of the unpacked FMU's folder
    const std::string location = file_uri(archive().directory());
    const ForeignCallScope in(system().c_str(), file_text(), "fmiInstantiateSlave", 0.0);
    component_ = f_.instantiate_slave(system().c_str(), md.guid.c_str(), location.c_str(),
                                      "application/x-fmu-sharedlibrary", 0.0, fmi1False, fmi1False,
                                      {fmu1_logger, fmu_allocate_memory, std::free, fmu1_step_finished}, logging_on);
  }
  t_instantiating = nullptr;
  if (component_ == nullptr) {
    throw Error(fmt::format("{}: {} failed{}", where(), model_exchange_ ? "fmiInstantiateModel" : "fmiInstantiateSlave",
                            recent_log()));
  }
  Registry& r = registry();
  const std::scoped_lock lock(r.mutex);
  r.instances[component_] = this;
  rearm_crash_handlers();  // an FMU may install its own SIGSEGV handler when instantiated
}

void Fmi1Instance::name_states() {
  const auto nx = static_cast<std::size_t>(description().continuous_state_count);
  if (nx == 0) return;
  // an FMU that leaves them unset has states without variables (a stub is not rare)
  std::vector<unsigned int> vrs(nx, fmi1UndefinedValueReference);
  {
    // the names are only names (the states move through fmiGet/SetContinuousStates): an FMU that does
    // not implement the call (the Reference FMUs return fmiError, "Not implemented") runs with x[k]
    const ForeignCallScope in = enter("fmiGetStateValueReferences", 0.0);
    if (const fmi1Status status = f_.get_state_value_references(component_, vrs.data(), nx);
        status != fmi1OK && status != fmi1Warning) {
      log(LogLevel::info, fmt::format("{}: fmiGetStateValueReferences returned {}: its states are named x[1] … x[{}]",
                                      where(), status_name(status), nx));
      vrs.assign(nx, fmi1UndefinedValueReference);
    }
  }
  std::vector<std::string> names;
  for (std::size_t k = 0; k < nx; ++k) {
    const auto named =
        std::find_if(description().variables.begin(), description().variables.end(), [&](const ScalarVariable& v) {
          return v.value_reference == vrs[k] && v.type == VariableType::real && !v.alias && v.duplicate_of < 0;
        });
    names.push_back(named != description().variables.end() && vrs[k] != fmi1UndefinedValueReference
                        ? named->name
                        : fmt::format("x[{}]", k + 1));
  }
  set_states(std::move(names), std::move(vrs));
}

Fmi1Instance::~Fmi1Instance() { release(); }

void Fmi1Instance::release() {
  if (component_ == nullptr) return;
  {
    Registry& r = registry();
    const std::scoped_lock lock(r.mutex);
    r.instances.erase(component_);
  }
  const fmi1Component component = std::exchange(component_, nullptr);
  if (health() == Health::fatal) return;  // after fmiFatal: no call at all
  const ForeignCallScope in(system().c_str(), file_text(), "fmiTerminate/fmiFree…Instance", last_time());
  // FMI 1.0 CS: an initialized slave is terminated before it is freed, also after fmiError (the state
  // machine allows fmiTerminateSlave from the error state); FMI 1.0 ME terminates only a healthy one
  if (model_exchange_ ? terminate_due() : was_initialized()) {
    if (model_exchange_)
      f_.terminate(component);
    else
      f_.terminate_slave(component);
  }
  if (model_exchange_)
    f_.free_model_instance(component);
  else
    f_.free_slave_instance(component);
}

VariableType Fmi1Instance::access_type(VariableType type) const {
  return type == VariableType::enumeration ? VariableType::integer : type;
}

void Fmi1Instance::enter_initialization(double t_start, std::optional<double> tolerance) {
  t_start_ = t_start;
  tolerance_ = tolerance;
  apply_given_values(t_start);
  initialize_now();
  set_in_initialization(true, t_start);
}

void Fmi1Instance::initialize_now() {
  if (model_exchange_) {  // ME §2.6: the time, then fmiInitialize
    ForeignCallScope in = enter("fmiSetTime", t_start_);
    check(f_.set_time(component_, t_start_), "fmiSetTime");
    in.now("fmiInitialize");
    initial_events_ = {};
    check(f_.initialize(component_, tolerance_ ? fmi1True : fmi1False, tolerance_.value_or(0.0), &initial_events_),
          "fmiInitialize");
    initial_update_due_ = true;
  } else {  // CS §3.4: no stop time, so that a run may be extended
    const ForeignCallScope in = enter("fmiInitializeSlave", t_start_);
    check(f_.initialize_slave(component_, t_start_, fmi1False, 0.0), "fmiInitializeSlave");
  }
  set_initialized();  // fmiTerminate is due from here on
  rearm_crash_handlers();
  initialized_with_ = inputs_now_;
  ++initializations_;
}

void Fmi1Instance::inputs_set(PortValues /*u*/, Inputs /*which*/) {
  if (in_initialization_mode() && (inputs_now_.array() != initialized_with_.array()).any()) initialize_again();
}

void Fmi1Instance::initialize_again() {
  log(LogLevel::debug, fmt::format("{}: initialized again with the exchanged inputs (FMI 1.0 has no "
                                   "Initialization Mode)",
                                   where()));
  release();
  instantiate();
  apply_given_values(t_start_);
  for (const TypedPorts& batch : input_batches(Inputs::all)) set_typed(batch, inputs_now_);
  initialize_now();
}

void Fmi1Instance::leave_initialization() { set_in_initialization(false, start_time()); }

// --- values --------------------------------------------------------------------------------------

void Fmi1Instance::set_scalar(const ScalarVariable& v, double value) {
  const fmi1ValueReference vr = v.value_reference;
  if (v.negated_alias) value = -value;
  switch (access_type(v.type)) {
    case VariableType::real: check(f_.set_real(component_, &vr, 1, &value), "fmiSetReal"); break;
    case VariableType::integer: {
      if (f_.set_integer == nullptr) throw Error(fmt::format("{}: binary lacks fmiSetInteger", where()));
      const auto i = static_cast<fmi1Integer>(value);
      check(f_.set_integer(component_, &vr, 1, &i), "fmiSetInteger");
      break;
    }
    case VariableType::boolean: {
      if (f_.set_boolean == nullptr) throw Error(fmt::format("{}: binary lacks fmiSetBoolean", where()));
      const fmi1Boolean b = value != 0.0 ? fmi1True : fmi1False;
      check(f_.set_boolean(component_, &vr, 1, &b), "fmiSetBoolean");
      break;
    }
    default: break;  // Strings are refused before
  }
}

void Fmi1Instance::set_element(const ScalarVariable& v, std::size_t /*element*/, double /*value*/) {
  throw Error(fmt::format("{}: '{}' is not an array (FMI 1.0 has none)", where(), v.name));
}

void Fmi1Instance::set_text(const ScalarVariable& v, const Port* /*port*/, const std::string& value) {
  if (f_.set_string == nullptr) throw Error(fmt::format("{}: binary lacks fmiSetString", where()));
  const fmi1String text = value.c_str();
  check(f_.set_string(component_, &v.value_reference, 1, &text), "fmiSetString");
}

std::string Fmi1Instance::get_text(const Port& port) const {
  fmi1String text = nullptr;
  check(f_.get_string(component_, &port.vr, 1, &text), "fmiGetString");
  return text != nullptr ? std::string(text) : std::string();
}

void Fmi1Instance::reserve_scratch(std::size_t count) const {
  if (real_buffer_.size() >= count) return;
  real_buffer_.resize(count, 0.0);
  int_buffer_.resize(count, 0);
  bool_buffer_.resize(count, fmi1False);
}

void Fmi1Instance::get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const {
  const std::size_t n = batch.vrs.size();
  switch (batch.access) {
    case VariableType::real:
      check(f_.get_real(component_, batch.vrs.data(), n, real_buffer_.data()), "fmiGetReal");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = real_buffer_[k];
      break;
    case VariableType::integer:
      check(f_.get_integer(component_, batch.vrs.data(), n, int_buffer_.data()), "fmiGetInteger");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = int_buffer_[k];
      break;
    case VariableType::boolean:
      check(f_.get_boolean(component_, batch.vrs.data(), n, bool_buffer_.data()), "fmiGetBoolean");
      for (std::size_t k = 0; k < n; ++k) y(batch.ports[k]) = bool_buffer_[k] != fmi1False ? 1.0 : 0.0;
      break;
    default: break;
  }
  for (std::size_t k = 0; k < batch.signs.size(); ++k) y(batch.ports[k]) *= batch.signs[k];
}

void Fmi1Instance::set_typed(const TypedPorts& batch, PortValues u) {
  const std::size_t n = batch.vrs.size();
  if (in_initialization_mode()) {  // what inputs_set compares; after initialization nothing re-initializes
    for (std::size_t k = 0; k < n; ++k) inputs_now_(batch.ports[k]) = u(batch.ports[k]);
  }
  const auto value = [&](std::size_t k) {
    return batch.signs.empty() ? u(batch.ports[k]) : batch.signs[k] * u(batch.ports[k]);
  };
  switch (batch.access) {
    case VariableType::real:
      for (std::size_t k = 0; k < n; ++k) real_buffer_[k] = value(k);
      check(f_.set_real(component_, batch.vrs.data(), n, real_buffer_.data()), "fmiSetReal");
      break;
    case VariableType::integer:
      for (std::size_t k = 0; k < n; ++k) {
        int_buffer_[k] = static_cast<fmi1Integer>(integral_input(u(batch.ports[k]), batch.ports[k]));
        if (!batch.signs.empty()) int_buffer_[k] *= static_cast<fmi1Integer>(batch.signs[k]);
      }
      check(f_.set_integer(component_, batch.vrs.data(), n, int_buffer_.data()), "fmiSetInteger");
      break;
    case VariableType::boolean:
      for (std::size_t k = 0; k < n; ++k) {
        bool_buffer_[k] = integral_input(u(batch.ports[k]), batch.ports[k]) != 0.0 ? fmi1True : fmi1False;
      }
      check(f_.set_boolean(component_, batch.vrs.data(), n, bool_buffer_.data()), "fmiSetBoolean");
      break;
    default: break;
  }
}

void Fmi1Instance::get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const {
  if (vrs.empty()) return;
  check(f_.get_real(component_, vrs.data(), vrs.size(), real_buffer_.data()), "fmiGetReal");
  for (std::size_t k = 0; k < vrs.size(); ++k) values(static_cast<Eigen::Index>(k)) = real_buffer_[k];
}

// --- what FMI 1.0 does not have -----------------------------------------------------------------

int Fmi1Instance::save_state(int /*overwrite*/, double /*t*/) {
  throw Error(fmt::format("{}: FMI 1.0 has no FMU state to save", where()));
}

void Fmi1Instance::restore_state(int /*slot*/, double /*t*/) {
  throw Error(fmt::format("{}: FMI 1.0 has no FMU state to restore", where()));
}

void Fmi1Instance::release_state(int /*slot*/) {}

void Fmi1Instance::directional_derivative(const std::vector<unsigned int>& /*unknowns*/,
                                          const std::vector<unsigned int>& /*knowns*/,
                                          const std::vector<double>& /*seed*/,
                                          std::vector<double>& /*sensitivity*/) const {
  throw Error(fmt::format("{}: FMI 1.0 has no directional derivatives", where()));
}

}  // namespace cosima::fmi
