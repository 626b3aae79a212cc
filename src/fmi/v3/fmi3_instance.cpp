#include "fmi/v3/fmi3_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/slots.hpp"

namespace cosima::fmi {

using fmi::ScalarVariable;
using fmi::VariableType;

namespace {

extern "C" void fmi3_log_message(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category,
                                 fmi3String message) {
  auto* fmu = static_cast<Fmi3Instance*>(environment);
  const std::string text = message != nullptr ? message : "";
  if (fmu != nullptr) {
    fmu->on_log(call_status(status), category, text);
  } else {
    log(LogLevel::warning, fmt::format("FMI 3.0 instance: {}", text));
  }
}

/// fmi3InstantiateXXX through a frame that tests/lsan.supp names: the instance's memory is the FMU's
/// to free in fmi3FreeInstance — and, after fmi3Fatal, nobody's (the standard forbids every call).
template <class Instantiate, class... Arguments>
COSIMA_NO_TAIL_CALL fmi3Instance fmi3_instantiate_fmu(Instantiate instantiate, Arguments... arguments) {
  fmi3Instance instance = instantiate(arguments...);
  return instance;
}

std::string to_hex(const fmi3Byte* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4U];
    text += kDigits[bytes[i] & 0xFU];
  }
  return text;
}

/// Hexadecimal text (an optional 0x, two digits per byte) to bytes; nullopt when it is not.
std::optional<std::vector<fmi3Byte>> from_hex(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<fmi3Byte> bytes;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int high = digit(text[i]), low = digit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<fmi3Byte>(high * 16 + low));
  }
  return bytes;
}

}  // namespace

CallStatus call_status(fmi3Status status) {
  switch (status) {
    case fmi3OK: return CallStatus::ok;
    case fmi3Warning: return CallStatus::warning;
    case fmi3Discard: return CallStatus::discard;
    case fmi3Fatal: return CallStatus::fatal;
    default: return CallStatus::error;
  }
}

namespace {
const fmi::FmuInstance::ApiNames kFmi3Names{.prefix = "fmi3",
                                            .unusable_after_error = "FMI 3.0 §2.2.3",
                                            .set_values = "fmi3SetXXX",
                                            .set_string = "fmi3SetString",
                                            .get_string = "fmi3GetString",
                                            .update_discrete_states = "fmi3UpdateDiscreteStates"};
}  // namespace

Fmi3Instance::Fmi3Instance(const std::string& system, const std::filesystem::path& fmu, FmiInterface interface)
    : FmuInstance(system, fmu, interface, kFmi3Names), library_(library_path(interface), fmu.string()) {
  refuse_clocks();
  lay_out();
  const bool cs = interface == FmiInterface::co_simulation;
  resolve_functions(cs);
  check_typed_calls();
  const fmi::ModelDescription& md = description();
  std::size_t widest = std::max({inputs().size(), outputs().size(), state_names().size(),
                                 static_cast<std::size_t>(md.event_indicator_count), std::size_t{1}});
  scratch_.assign(8 * widest, std::byte{0});
  orders_.assign(widest, 0);
  instantiate(cs);
  rearm_crash_handlers();  // an FMU may install its own SIGSEGV handler when instantiated
}

void Fmi3Instance::refuse_clocks() const {
  const fmi::ModelDescription& md = description();
  if (const std::vector<std::string> clocks = md.clock_names(); !clocks.empty()) {
    std::string names;
    for (const std::string& name : clocks) names += (names.empty() ? "" : ", ") + name;
    throw Error(
        fmt::format("FMU '{}': cosima does not import FMI 3.0 Clocks (clock variables: {}); run it with a "
                    "master that supports Clocks and Scheduled Execution",
                    file_text(), names));
  }
}

void Fmi3Instance::resolve_functions(bool cs) {
  const fmi::ModelDescription& md = description();
  // the functions: the common ones and those of the interface are required (FMI 3.0 §2.3)
  Fmi3Functions& f = f_;
  library_.resolve(f.free_instance, "fmi3FreeInstance", true);
  library_.resolve(f.enter_initialization_mode, "fmi3EnterInitializationMode", true);
  library_.resolve(f.exit_initialization_mode, "fmi3ExitInitializationMode", true);
  library_.resolve(f.terminate, "fmi3Terminate", true);
  library_.resolve(f.get_float64, "fmi3GetFloat64", true);
  library_.resolve(f.set_float64, "fmi3SetFloat64", true);
  // the other typed calls: required when a port or parameter of that type needs them
  library_.resolve(f.get_float32, "fmi3GetFloat32", false);
  library_.resolve(f.set_float32, "fmi3SetFloat32", false);
  library_.resolve(f.get_int8, "fmi3GetInt8", false);
  library_.resolve(f.set_int8, "fmi3SetInt8", false);
  library_.resolve(f.get_uint8, "fmi3GetUInt8", false);
  library_.resolve(f.set_uint8, "fmi3SetUInt8", false);
  library_.resolve(f.get_int16, "fmi3GetInt16", false);
  library_.resolve(f.set_int16, "fmi3SetInt16", false);
  library_.resolve(f.get_uint16, "fmi3GetUInt16", false);
  library_.resolve(f.set_uint16, "fmi3SetUInt16", false);
  library_.resolve(f.get_int32, "fmi3GetInt32", false);
  library_.resolve(f.set_int32, "fmi3SetInt32", false);
  library_.resolve(f.get_uint32, "fmi3GetUInt32", false);
  library_.resolve(f.set_uint32, "fmi3SetUInt32", false);
  library_.resolve(f.get_int64, "fmi3GetInt64", false);
  library_.resolve(f.set_int64, "fmi3SetInt64", false);
  library_.resolve(f.get_uint64, "fmi3GetUInt64", false);
  library_.resolve(f.set_uint64, "fmi3SetUInt64", false);
  library_.resolve(f.get_boolean, "fmi3GetBoolean", false);
  library_.resolve(f.set_boolean, "fmi3SetBoolean", false);
  library_.resolve(f.get_string, "fmi3GetString", false);
  library_.resolve(f.set_string, "fmi3SetString", false);
  library_.resolve(f.get_binary, "fmi3GetBinary", false);
  library_.resolve(f.set_binary, "fmi3SetBinary", false);
  library_.resolve(f.get_fmu_state, "fmi3GetFMUState", false);
  library_.resolve(f.set_fmu_state, "fmi3SetFMUState", false);
  library_.resolve(f.free_fmu_state, "fmi3FreeFMUState", false);
  library_.resolve(f.get_directional_derivative, "fmi3GetDirectionalDerivative", false);
  if (cs) {
    library_.resolve(f.instantiate_co_simulation, "fmi3InstantiateCoSimulation", true);
    library_.resolve(f.do_step, "fmi3DoStep", true);
    library_.resolve(f.get_output_derivatives, "fmi3GetOutputDerivatives", false);
  } else {  // FMI 3.0 §3.3
    library_.resolve(f.instantiate_model_exchange, "fmi3InstantiateModelExchange", true);
    library_.resolve(f.enter_continuous_time_mode, "fmi3EnterContinuousTimeMode", true);
    library_.resolve(f.completed_integrator_step, "fmi3CompletedIntegratorStep", true);
    library_.resolve(f.set_time, "fmi3SetTime", true);
    library_.resolve(f.set_continuous_states, "fmi3SetContinuousStates", true);
    library_.resolve(f.get_continuous_state_derivatives, "fmi3GetContinuousStateDerivatives", true);
    library_.resolve(f.get_event_indicators, "fmi3GetEventIndicators", true);
    library_.resolve(f.get_continuous_states, "fmi3GetContinuousStates", true);
  }
  const auto& co_simulation = md.co_simulation;
  event_mode_used_ = cs && co_simulation->has_event_mode;
  const bool needs_event_calls = !cs || event_mode_used_;
  library_.resolve(f.enter_event_mode, "fmi3EnterEventMode", needs_event_calls);
  library_.resolve(f.update_discrete_states, "fmi3UpdateDiscreteStates", needs_event_calls);
  library_.resolve(f.enter_step_mode, "fmi3EnterStepMode", event_mode_used_);
}

void Fmi3Instance::check_typed_calls() const {
  const fmi::ModelDescription& md = description();
  const Fmi3Functions& f = f_;
  // every typed call the ports and parameters use must be there
  auto need = [&](VariableType type, const void* get, const void* set) {
    const auto used = [&](const std::vector<Port>& ports) {
      return std::any_of(ports.begin(), ports.end(), [&](const Port& p) { return access_type(p.type) == type; });
    };
    if (used(outputs()) && get == nullptr) {
      throw Error(
          fmt::format("FMU '{}': binary lacks fmi3Get{}, needed by its outputs", file_text(), md.type_name(type)));
    }
    if (used(inputs()) && set == nullptr) {
      throw Error(
          fmt::format("FMU '{}': binary lacks fmi3Set{}, needed by its inputs", file_text(), md.type_name(type)));
    }
  };
  need(VariableType::float32, reinterpret_cast<const void*>(f.get_float32),
       reinterpret_cast<const void*>(f.set_float32));
  need(VariableType::int8, reinterpret_cast<const void*>(f.get_int8), reinterpret_cast<const void*>(f.set_int8));
  need(VariableType::uint8, reinterpret_cast<const void*>(f.get_uint8), reinterpret_cast<const void*>(f.set_uint8));
  need(VariableType::int16, reinterpret_cast<const void*>(f.get_int16), reinterpret_cast<const void*>(f.set_int16));
  need(VariableType::uint16, reinterpret_cast<const void*>(f.get_uint16), reinterpret_cast<const void*>(f.set_uint16));
  need(VariableType::integer, reinterpret_cast<const void*>(f.get_int32), reinterpret_cast<const void*>(f.set_int32));
  need(VariableType::uint32, reinterpret_cast<const void*>(f.get_uint32), reinterpret_cast<const void*>(f.set_uint32));
  need(VariableType::int64, reinterpret_cast<const void*>(f.get_int64), reinterpret_cast<const void*>(f.set_int64));
  need(VariableType::uint64, reinterpret_cast<const void*>(f.get_uint64), reinterpret_cast<const void*>(f.set_uint64));
  need(VariableType::boolean, reinterpret_cast<const void*>(f.get_boolean),
       reinterpret_cast<const void*>(f.set_boolean));
  need(VariableType::string, reinterpret_cast<const void*>(f.get_string), reinterpret_cast<const void*>(f.set_string));
  need(VariableType::binary, reinterpret_cast<const void*>(f.get_binary), reinterpret_cast<const void*>(f.set_binary));
}

void Fmi3Instance::instantiate(bool cs) {
  const fmi::ModelDescription& md = description();
  const Fmi3Functions& f = f_;
  // instantiate (FMI 3.0 §2.3.1): resourcePath is a native path ending in a separator
  resource_path_ = (archive().directory() / "resources").string() + "/";
  const bool logging_on = log_level() >= LogLevel::debug;
  const ForeignCallScope in(this->system().c_str(), file_text(),
                            cs ? "fmi3InstantiateCoSimulation" : "fmi3InstantiateModelExchange", 0.0);
  if (cs) {
    // declared is not proven: an FMU that refuses what it declares (hasEventMode, and early return
    // with it) is instantiated again with less — early return first, then Event Mode, as FMI 3.0
    // §4.2.1 lets every Co-Simulation FMU run without either
    instance_ = instantiate_co_simulation(event_mode_used_, event_mode_used_, logging_on);
    if (instance_ == nullptr && event_mode_used_) {
      instance_ = instantiate_co_simulation(true, false, logging_on);
      if (instance_ != nullptr) {
        log(LogLevel::warning, fmt::format("{}: fmi3InstantiateCoSimulation refused earlyReturnAllowed = true; "
                                           "instantiated again without early return",
                                           where()));
      }
    }
    if (instance_ == nullptr && event_mode_used_) {
      log(LogLevel::warning,
          fmt::format("{}: fmi3InstantiateCoSimulation refused eventModeUsed = true although the FMU "
                      "declares hasEventMode; instantiated again without Event Mode{}",
                      where(), recent_log()));
      event_mode_used_ = false;
      instance_ = instantiate_co_simulation(false, false, logging_on);
    }
  } else {
    instance_ = fmi3_instantiate_fmu(f.instantiate_model_exchange, this->system().c_str(), md.guid.c_str(),
                                     resource_path_.c_str(), false, logging_on,
                                     static_cast<fmi3InstanceEnvironment>(this), &fmi3_log_message);
  }
  if (instance_ == nullptr) {
    throw Error(fmt::format("{}: {} failed{}", where(),
                            cs ? "fmi3InstantiateCoSimulation" : "fmi3InstantiateModelExchange", recent_log()));
  }
}

fmi3Instance Fmi3Instance::instantiate_co_simulation(bool event_mode, bool early_return_allowed, bool logging_on) {
  return fmi3_instantiate_fmu(f_.instantiate_co_simulation, this->system().c_str(), description().guid.c_str(),
                              resource_path_.c_str(), false, logging_on, event_mode, early_return_allowed,
                              static_cast<const fmi3ValueReference*>(nullptr), std::size_t{0},
                              static_cast<fmi3InstanceEnvironment>(this), &fmi3_log_message,
                              static_cast<fmi3IntermediateUpdateCallback>(nullptr));
}

Fmi3Instance::~Fmi3Instance() {
  if (instance_ == nullptr || health() == Health::fatal) return;  // after fmi3Fatal: no call at all
  const ForeignCallScope in(system().c_str(), file_text(), "fmi3Terminate/fmi3FreeInstance", last_time());
  if (health() == Health::ok) {
    for (Saved& saved : saved_) {
      if (saved.state != nullptr) f_.free_fmu_state(instance_, &saved.state);
    }
    if (terminate_due()) f_.terminate(instance_);
  }
  f_.free_instance(instance_);  // after fmi3Error only this
}

VariableType Fmi3Instance::access_type(VariableType type) const {
  return type == VariableType::enumeration ? VariableType::int64 : type;
}

template <class T>
T* Fmi3Instance::scratch(std::size_t n) const {
  if (scratch_.size() < n * sizeof(T)) scratch_.resize(n * sizeof(T));
  return reinterpret_cast<T*>(scratch_.data());  // NOLINT: raw storage for one call's values
}

void Fmi3Instance::enter_initialization(double t_start, std::optional<double> tolerance) {
  apply_given_values(t_start);
  const ForeignCallScope in = enter("fmi3EnterInitializationMode", t_start);
  check(f_.enter_initialization_mode(instance_, tolerance.has_value(), tolerance.value_or(0.0), t_start, false, 0.0),
        "fmi3EnterInitializationMode");
  set_in_initialization(true, t_start);
}

void Fmi3Instance::leave_initialization() {
  const ForeignCallScope in = enter("fmi3ExitInitializationMode", start_time());
  check(f_.exit_initialization_mode(instance_), "fmi3ExitInitializationMode");
  set_in_initialization(false, start_time());
  set_initialized();       // Terminate is due from here on, not in Initialization Mode
  rearm_crash_handlers();  // ... or when initialized
  if (event_mode_used_) {
    // FMI 3.0 §4.2: with eventModeUsed, Co-Simulation leaves Initialization Mode into Event Mode
    DiscreteUpdate update;
    update.needs_update = true;
    for (int iteration = 0; update.needs_update; ++iteration) {
      if (iteration == 1000) throw Error(fmt::format("{}: the initial event iteration did not converge", where()));
      update = update_discrete_states();
    }
    if (update.terminate) {
      throw Error(fmt::format("{}: the FMU asked to terminate during initialization (terminateSimulation){}", where(),
                              recent_log()));
    }
    enter_step_mode();
  }
}

// --- values --------------------------------------------------------------------------------------

namespace {

/// One typed get into y by port; T is the call's C type.
template <class T>
fmi3Status get_into(fmi3GetTYPE<T> get, fmi3Instance instance, const fmi::FmuInstance::TypedPorts& batch, T* buffer,
                    Eigen::Ref<Eigen::VectorXd> y) {
  const fmi3Status status = get(instance, batch.vrs.data(), batch.vrs.size(), buffer, batch.ports.size());
  if (status <= fmi3Warning) {
    for (std::size_t k = 0; k < batch.ports.size(); ++k) y(batch.ports[k]) = static_cast<double>(buffer[k]);
  }
  return status;
}

}  // namespace

void Fmi3Instance::get_typed(const TypedPorts& batch, Eigen::Ref<Eigen::VectorXd> y) const {
  const std::size_t n = batch.ports.size();
  fmi3Status status = fmi3OK;
  const char* call = "fmi3GetFloat64";
  switch (batch.access) {
    case VariableType::real: status = get_into(f_.get_float64, instance_, batch, scratch<fmi3Float64>(n), y); break;
    case VariableType::float32:
      call = "fmi3GetFloat32";
      status = get_into(f_.get_float32, instance_, batch, scratch<fmi3Float32>(n), y);
      break;
    case VariableType::int8:
      call = "fmi3GetInt8";
      status = get_into(f_.get_int8, instance_, batch, scratch<fmi3Int8>(n), y);
      break;
    case VariableType::uint8:
      call = "fmi3GetUInt8";
      status = get_into(f_.get_uint8, instance_, batch, scratch<fmi3UInt8>(n), y);
      break;
    case VariableType::int16:
      call = "fmi3GetInt16";
      status = get_into(f_.get_int16, instance_, batch, scratch<fmi3Int16>(n), y);
      break;
    case VariableType::uint16:
      call = "fmi3GetUInt16";
      status = get_into(f_.get_uint16, instance_, batch, scratch<fmi3UInt16>(n), y);
      break;
    case VariableType::integer:
      call = "fmi3GetInt32";
      status = get_into(f_.get_int32, instance_, batch, scratch<fmi3Int32>(n), y);
      break;
    case VariableType::uint32:
      call = "fmi3GetUInt32";
      status = get_into(f_.get_uint32, instance_, batch, scratch<fmi3UInt32>(n), y);
      break;
    case VariableType::int64:
      call = "fmi3GetInt64";
      status = get_into(f_.get_int64, instance_, batch, scratch<fmi3Int64>(n), y);
      break;
    case VariableType::uint64:
      call = "fmi3GetUInt64";
      status = get_into(f_.get_uint64, instance_, batch, scratch<fmi3UInt64>(n), y);
      break;
    case VariableType::boolean:
      call = "fmi3GetBoolean";
      status = get_into(f_.get_boolean, instance_, batch, scratch<fmi3Boolean>(n), y);
      break;
    default: return;
  }
  check(status, call);
}

namespace {

/// One typed set from u by port; `convert` makes the C value of a port's double.
template <class T, class Convert>
fmi3Status set_from(fmi3SetTYPE<T> set, fmi3Instance instance, const fmi::FmuInstance::TypedPorts& batch, T* buffer,
                    fmi::PortValues u, const Convert& convert) {
  for (std::size_t k = 0; k < batch.ports.size(); ++k) buffer[k] = convert(u(batch.ports[k]), batch.ports[k]);
  return set(instance, batch.vrs.data(), batch.vrs.size(), buffer, batch.ports.size());
}

}  // namespace

void Fmi3Instance::set_typed(const TypedPorts& batch, fmi::PortValues u) {
  const std::size_t n = batch.ports.size();
  auto integral = [this](auto tag) {
    return [this](double value, int port) { return static_cast<decltype(tag)>(integral_input(value, port)); };
  };
  fmi3Status status = fmi3OK;
  const char* call = "fmi3SetFloat64";
  switch (batch.access) {
    case VariableType::real:
      status = set_from(f_.set_float64, instance_, batch, scratch<fmi3Float64>(n), u, [](double v, int) { return v; });
      break;
    case VariableType::float32:
      call = "fmi3SetFloat32";
      status = set_from(f_.set_float32, instance_, batch, scratch<fmi3Float32>(n), u,
                        [](double v, int) { return static_cast<fmi3Float32>(v); });
      break;
    case VariableType::int8:
      call = "fmi3SetInt8";
      status = set_from(f_.set_int8, instance_, batch, scratch<fmi3Int8>(n), u, integral(fmi3Int8{}));
      break;
    case VariableType::uint8:
      call = "fmi3SetUInt8";
      status = set_from(f_.set_uint8, instance_, batch, scratch<fmi3UInt8>(n), u, integral(fmi3UInt8{}));
      break;
    case VariableType::int16:
      call = "fmi3SetInt16";
      status = set_from(f_.set_int16, instance_, batch, scratch<fmi3Int16>(n), u, integral(fmi3Int16{}));
      break;
    case VariableType::uint16:
      call = "fmi3SetUInt16";
      status = set_from(f_.set_uint16, instance_, batch, scratch<fmi3UInt16>(n), u, integral(fmi3UInt16{}));
      break;
    case VariableType::integer:
      call = "fmi3SetInt32";
      status = set_from(f_.set_int32, instance_, batch, scratch<fmi3Int32>(n), u, integral(fmi3Int32{}));
      break;
    case VariableType::uint32:
      call = "fmi3SetUInt32";
      status = set_from(f_.set_uint32, instance_, batch, scratch<fmi3UInt32>(n), u, integral(fmi3UInt32{}));
      break;
    case VariableType::int64:
      call = "fmi3SetInt64";
      status = set_from(f_.set_int64, instance_, batch, scratch<fmi3Int64>(n), u,
                        [this](double v, int port) { return *wide_input(v, port).as_int64(); });
      break;
    case VariableType::uint64:
      call = "fmi3SetUInt64";
      status = set_from(f_.set_uint64, instance_, batch, scratch<fmi3UInt64>(n), u,
                        [this](double v, int port) { return *wide_input(v, port).as_uint64(); });
      break;
    case VariableType::boolean:
      call = "fmi3SetBoolean";
      status = set_from(f_.set_boolean, instance_, batch, scratch<fmi3Boolean>(n), u,
                        [this](double v, int port) { return integral_input(v, port) != 0.0; });
      break;
    default: return;
  }
  check(status, call);
}

void Fmi3Instance::set_scalar(const ScalarVariable& v, double value) {
  // the value was checked against the parameter's type and range (FmuInstance::set_parameter)
  auto set = [&](auto function, auto typed, const char* call) {
    if (function == nullptr) throw Error(fmt::format("{}: binary lacks {}", where(), call));
    check(function(instance_, &v.value_reference, 1, &typed, 1), call);
  };
  switch (access_type(v.type)) {
    case VariableType::real: set(f_.set_float64, value, "fmi3SetFloat64"); break;
    case VariableType::float32: set(f_.set_float32, static_cast<fmi3Float32>(value), "fmi3SetFloat32"); break;
    case VariableType::int8: set(f_.set_int8, static_cast<fmi3Int8>(value), "fmi3SetInt8"); break;
    case VariableType::uint8: set(f_.set_uint8, static_cast<fmi3UInt8>(value), "fmi3SetUInt8"); break;
    case VariableType::int16: set(f_.set_int16, static_cast<fmi3Int16>(value), "fmi3SetInt16"); break;
    case VariableType::uint16: set(f_.set_uint16, static_cast<fmi3UInt16>(value), "fmi3SetUInt16"); break;
    case VariableType::integer: set(f_.set_int32, static_cast<fmi3Int32>(value), "fmi3SetInt32"); break;
    case VariableType::uint32: set(f_.set_uint32, static_cast<fmi3UInt32>(value), "fmi3SetUInt32"); break;
    case VariableType::int64:
    case VariableType::uint64: {  // 2^63 and 2^64 pass a range check in doubles: not a value of the type
      const std::optional<WideInteger> whole = WideInteger::of_double(value);
      if (!whole) {
        throw Error(fmt::format("{}: '{}' ({}): {:.17g} is outside the range of its type", where(), v.name,
                                description().type_name(v.type), value));
      }
      check_wide(v, description().port_info(v), *whole, "variable");
      set_wide(v, *whole);
      break;
    }
    case VariableType::boolean: set(f_.set_boolean, static_cast<fmi3Boolean>(value != 0.0), "fmi3SetBoolean"); break;
    default:
      throw Error(
          fmt::format("{}: cannot set '{}' ({}) from a number", where(), v.name, description().type_name(v.type)));
  }
}

WideInteger Fmi3Instance::get_wide(const ScalarVariable& v) const {
  if (v.type == VariableType::int64 ? f_.get_int64 == nullptr : f_.get_uint64 == nullptr) {
    throw Error(fmt::format("{}: binary lacks {} (to read '{}')", where(),
                            v.type == VariableType::int64 ? "fmi3GetInt64" : "fmi3GetUInt64", v.name));
  }
  if (v.type == VariableType::int64) {
    fmi3Int64 value = 0;
    check(f_.get_int64(instance_, &v.value_reference, 1, &value, 1), "fmi3GetInt64");
    return WideInteger::of(value);
  }
  fmi3UInt64 value = 0;
  check(f_.get_uint64(instance_, &v.value_reference, 1, &value, 1), "fmi3GetUInt64");
  return WideInteger::of(value);
}

void Fmi3Instance::set_wide(const ScalarVariable& v, WideInteger value) {
  // the caller checked that the value is one of the type's
  if (v.type == VariableType::int64 ? f_.set_int64 == nullptr : f_.set_uint64 == nullptr) {
    throw Error(fmt::format("{}: binary lacks {} (to set '{}')", where(),
                            v.type == VariableType::int64 ? "fmi3SetInt64" : "fmi3SetUInt64", v.name));
  }
  if (v.type == VariableType::int64) {
    const fmi3Int64 typed = *value.as_int64();
    check(f_.set_int64(instance_, &v.value_reference, 1, &typed, 1), "fmi3SetInt64");
    return;
  }
  const fmi3UInt64 typed = *value.as_uint64();
  check(f_.set_uint64(instance_, &v.value_reference, 1, &typed, 1), "fmi3SetUInt64");
}

void Fmi3Instance::set_element(const ScalarVariable& v, std::size_t element, double value) {
  if (v.type != VariableType::real) {
    throw Error(fmt::format("{}: '{}' is a {} array; cosima sets elements of Float64 arrays only", where(), v.name,
                            description().type_name(v.type)));
  }
  auto [it, fresh] = array_parameters_.try_emplace(v.value_reference);
  std::vector<double>& values = it->second;
  if (fresh) {
    const std::size_t n = description().element_count(v);
    values.resize(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = description().port_info(v, k).start.value_or(0.0);
  }
  values[element] = value;
  check(f_.set_float64(instance_, &v.value_reference, 1, values.data(), values.size()), "fmi3SetFloat64");
}

std::string Fmi3Instance::get_text(const Port& port) const {
  if (port.type == VariableType::binary) {
    const ScalarVariable& v = description().variables[static_cast<std::size_t>(port.variable)];
    const std::size_t n = description().element_count(v);
    std::vector<std::size_t> sizes(n, 0);
    std::vector<fmi3Binary> values(n, nullptr);
    check(f_.get_binary(instance_, &port.vr, 1, sizes.data(), values.data(), n), "fmi3GetBinary");
    return values[port.element] != nullptr ? to_hex(values[port.element], sizes[port.element]) : std::string();
  }
  const ScalarVariable& v = description().variables[static_cast<std::size_t>(port.variable)];
  const std::size_t n = description().element_count(v);
  std::vector<fmi3String> values(n, nullptr);
  check(f_.get_string(instance_, &port.vr, 1, values.data(), n), "fmi3GetString");
  return values[port.element] != nullptr ? std::string(values[port.element]) : std::string();
}

void Fmi3Instance::set_text(const ScalarVariable& v, const Port* port, const std::string& value) {
  const std::size_t n = description().element_count(v);
  if (n != 1) {
    // an element of a text array: the others keep their values, read first
    if (port == nullptr) throw Error(fmt::format("{}: '{}' is an array", where(), v.name));
  }
  const std::size_t element = port != nullptr ? port->element : 0;
  if (v.type == VariableType::binary) {
    const auto bytes = from_hex(value);
    if (!bytes) {
      throw Error(fmt::format("{}: '{}' is a Binary; \"{}\" is not hexadecimal bytes (e.g. 0a1b2c)", where(),
                              port != nullptr ? description().element_name(v, element) : v.name, value));
    }
    std::vector<std::size_t> sizes(n, 0);
    std::vector<fmi3Binary> values(n, nullptr);
    if (n != 1) check(f_.get_binary(instance_, &v.value_reference, 1, sizes.data(), values.data(), n), "fmi3GetBinary");
    std::vector<std::vector<fmi3Byte>> copies(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (values[k] != nullptr) copies[k].assign(values[k], values[k] + sizes[k]);
    }
    copies[element] = *bytes;
    for (std::size_t k = 0; k < n; ++k) {
      sizes[k] = copies[k].size();
      values[k] = copies[k].data();
    }
    check(f_.set_binary(instance_, &v.value_reference, 1, sizes.data(), values.data(), n), "fmi3SetBinary");
    return;
  }
  std::vector<fmi3String> values(n, nullptr);
  std::vector<std::string> copies(n);
  if (n != 1) {
    check(f_.get_string(instance_, &v.value_reference, 1, values.data(), n), "fmi3GetString");
    for (std::size_t k = 0; k < n; ++k) copies[k] = values[k] != nullptr ? values[k] : "";
  }
  copies[element] = value;
  for (std::size_t k = 0; k < n; ++k) values[k] = copies[k].c_str();
  check(f_.set_string(instance_, &v.value_reference, 1, values.data(), n), "fmi3SetString");
}

void Fmi3Instance::get_reals(const std::vector<unsigned int>& vrs, Eigen::Ref<Eigen::VectorXd> values) const {
  if (vrs.empty()) return;
  check(f_.get_float64(instance_, vrs.data(), vrs.size(), values.data(), static_cast<std::size_t>(values.size())),
        "fmi3GetFloat64");
}

// --- FMU state -----------------------------------------------------------------------------------

bool Fmi3Instance::can_save_state() const {
  return capabilities().can_get_and_set_state && f_.get_fmu_state != nullptr && f_.set_fmu_state != nullptr &&
         f_.free_fmu_state != nullptr;
}

int Fmi3Instance::save_state(int overwrite, double t) {
  const ForeignCallScope in = enter("fmi3GetFMUState", t);
  const int slot = acquire_slot(saved_, overwrite);
  if (slot < 0) throw Error(fmt::format("system '{}': no saved FMU state {}", system(), overwrite));
  Saved& saved = saved_[static_cast<std::size_t>(slot)];
  check(f_.get_fmu_state(instance_, &saved.state), "fmi3GetFMUState");  // reuses saved.state when set
  saved.in_use = true;
  return slot;
}

void Fmi3Instance::restore_state(int slot, double t) {
  const ForeignCallScope in = enter("fmi3SetFMUState", t);
  const Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (!saved.in_use) throw Error(fmt::format("system '{}': no saved state {}", system(), slot));
  check(f_.set_fmu_state(instance_, saved.state), "fmi3SetFMUState");
}

void Fmi3Instance::release_state(int slot) {
  Saved& saved = saved_.at(static_cast<std::size_t>(slot));
  if (saved.state != nullptr && healthy()) check(f_.free_fmu_state(instance_, &saved.state), "fmi3FreeFMUState");
  saved.state = nullptr;
  saved.in_use = false;
}

bool Fmi3Instance::provides_linearization() const {
  return capabilities().provides_directional_derivative && f_.get_directional_derivative != nullptr &&
         !state_vrs().empty();
}

void Fmi3Instance::directional_derivative(const std::vector<unsigned int>& unknowns,
                                          const std::vector<unsigned int>& knowns, const std::vector<double>& seed,
                                          std::vector<double>& sensitivity) const {
  check(f_.get_directional_derivative(instance_, unknowns.data(), unknowns.size(), knowns.data(), knowns.size(),
                                      seed.data(), seed.size(), sensitivity.data(), sensitivity.size()),
        "fmi3GetDirectionalDerivative");
}

// --- Co-Simulation (FMI 3.0 §4.2) ----------------------------------------------------------------

Fmi3Instance::DoStep Fmi3Instance::do_step(double t, double h, bool no_set_state_prior) {
  DoStep result;
  fmi3Boolean event_handling_needed = false, terminate = false, early_return = false;
  fmi3Float64 last = t;
  const fmi3Status status =
      f_.do_step(instance_, t, h, no_set_state_prior, &event_handling_needed, &terminate, &early_return, &last);
  result.status = call_status(status);
  result.event_handling_needed = event_handling_needed;
  result.terminate = terminate;
  result.early_return = early_return;
  result.last_successful_time = early_return || status == fmi3Discard ? last : t + h;
  return result;
}

void Fmi3Instance::enter_step_mode() { check(f_.enter_step_mode(instance_), "fmi3EnterStepMode"); }

void Fmi3Instance::get_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  const TypedPorts& real_out = real_outputs();
  const std::size_t n = real_out.ports.size();
  dy.setZero();  // held (non-Float64) outputs have none
  if (real_out.vrs.empty()) return;
  std::fill_n(orders_.begin(), real_out.vrs.size(), order);
  auto* values = scratch<fmi3Float64>(n);
  check(f_.get_output_derivatives(instance_, real_out.vrs.data(), real_out.vrs.size(), orders_.data(), values, n),
        "fmi3GetOutputDerivatives");
  for (std::size_t k = 0; k < n; ++k) {
    if (outputs()[static_cast<std::size_t>(real_out.ports[k])].info.continuous) dy(real_out.ports[k]) = values[k];
  }
}

}  // namespace cosima::fmi
