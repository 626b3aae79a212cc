// The slave side of the export kit: the FMI 2.0 functions of both interfaces over one model.
// Compiled into every project FMU together with one generated make_exported_model().
//   Co-Simulation: a NativeSystem with the FMU's integrator steps the model (fmi2DoStep).
//   Model Exchange: the importer integrates; the slave evaluates f, g and the event indicators at
//   the (t, x, u) it was given, and applies the model's event handler in fmi2NewDiscreteStates.
//
// State machines, a call outside its states is refused with fmi2Error:
//   CS (FMI 2.0 §4.2.4): instantiated --fmi2EnterInitializationMode--> initialization
//     --fmi2ExitInitializationMode--> stepping --fmi2Terminate--> terminated;
//     fmi2Error from a step --> failed;  fmi2Reset --> instantiated
//   ME (FMI 2.0 §3.2.3): instantiated → initialization --fmi2ExitInitializationMode--> event_mode
//     --fmi2EnterContinuousTimeMode--> continuous_time --fmi2EnterEventMode--> event_mode …
//     --fmi2Terminate--> terminated
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "fmi/export/exported_model.hpp"
#include "fmi/export/variable_table.hpp"
#include "fmi/fmi2_api.hpp"
#include "system/native/native_system.hpp"

#define COSIMA_FMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace cosima::fmu_export {
namespace {

enum Phase : unsigned {
  instantiated = 1,
  initialization = 2,
  stepping = 4,  ///< CS: slaveInitialized
  terminated = 8,
  failed = 16,
  event_mode = 32,       ///< ME
  continuous_time = 64,  ///< ME
};
constexpr unsigned kRunning = stepping | event_mode | continuous_time;
constexpr unsigned kAnyPhase = instantiated | initialization | kRunning | terminated | failed;

class Slave {
 public:
  Slave(std::string instance, const fmi2CallbackFunctions* callbacks, bool model_exchange)
      : instance_(std::move(instance)), callbacks_(*callbacks), model_exchange_(model_exchange),
        model_(make_exported_model()), table_(make_variable_table(*model_, SolverDefaults{})) {
    inputs_.setZero(model_->input_count(), kInputCoefficients);
    buffer_.resize(std::max({model_->state_count(), model_->output_count(), 1}));
  }

  /// Refuses a call outside its phases; logs why.
  bool allowed(unsigned phases, const char* call) {
    if ((phase_ & phases) != 0U) return true;
    error(fmt::format("{} is not allowed in the current state (state {})", call, static_cast<unsigned>(phase_)));
    return false;
  }
  fmi2Status error(const std::string& message) {
    if (callbacks_.logger != nullptr) {
      callbacks_.logger(callbacks_.componentEnvironment, instance_.c_str(), fmi2Error, "error", "%s", message.c_str());
    }
    return fmi2Error;
  }

  const ExportedVariable* real_variable(fmi2ValueReference vr) const {
    if (vr >= static_cast<unsigned>(table_.real_count)) return nullptr;
    for (const auto& v : table_.variables) {
      if (v.is_real && v.vr == vr) return &v;
    }
    return nullptr;
  }

  fmi2Status setup_experiment(bool tolerance_defined, double tolerance, double start) {
    if (!allowed(instantiated, "fmi2SetupExperiment")) return fmi2Error;
    if (tolerance_defined) solver_.rtol = tolerance;
    start_ = start;
    return fmi2OK;
  }

  void build_system() {
    IntegratorOptions options;
    options.rtol = solver_.rtol;
    options.atol = solver_.atol;
    options.max_step = solver_.max_step;
    options.steps_per_call = solver_.steps_per_call;
    system_ = std::make_unique<NativeSystem>(instance_, model_->clone(), make_integrator(kSolverKinds[solver_.kind], options));
    system_->initialize(start_);
    system_->set_inputs(inputs_);
  }

  fmi2Status enter_initialization() {
    if (!allowed(instantiated, "fmi2EnterInitializationMode")) return fmi2Error;
    return guarded([&] {
      start();
      phase_ = initialization;
      return fmi2OK;
    });
  }
  fmi2Status exit_initialization() {
    if (!allowed(initialization, "fmi2ExitInitializationMode")) return fmi2Error;
    return guarded([&] {
      start();  // parameters and inputs set in initialization mode take effect
      phase_ = model_exchange_ ? event_mode : stepping;
      event_handled_ = true;  // nothing to handle at the start but the FMU's own initial event iteration
      return fmi2OK;
    });
  }
  /// CS: the system that steps; ME: the state the importer integrates.
  void start() {
    if (!model_exchange_) {
      build_system();
      return;
    }
    t_ = start_;
    x_ = model_->initial_state();
  }
  fmi2Status terminate() {
    if (!allowed(kRunning | failed, "fmi2Terminate")) return fmi2Error;
    phase_ = terminated;
    return fmi2OK;
  }
  fmi2Status reset() {
    system_.reset();
    model_ = make_exported_model();
    t_ = 0.0;
    inputs_.setZero();
    solver_ = SolverDefaults{};
    phase_ = instantiated;
    return fmi2OK;
  }

  fmi2Status get_real(const fmi2ValueReference vr[], std::size_t n, fmi2Real value[]) {
    if (!allowed(kAnyPhase, "fmi2GetReal")) return fmi2Error;
    return guarded([&] {
      for (std::size_t k = 0; k < n; ++k) {
        const ExportedVariable* v = real_variable(vr[k]);
        if (v == nullptr) return error(fmt::format("fmi2GetReal: no Real variable with value reference {}", vr[k]));
        switch (v->role) {
          case Role::parameter: value[k] = model_->parameter(v->name); break;
          case Role::solver_real: value[k] = v->index == 0 ? solver_.rtol : v->index == 1 ? solver_.atol : solver_.max_step; break;
          case Role::input: value[k] = inputs_(v->index, 0); break;
          case Role::output:
          case Role::state:
          case Role::derivative:
            if (model_exchange_) {
              if (phase_ == instantiated) {
                return error(fmt::format("fmi2GetReal: '{}' is not computed before initialization", v->name));
              }
              value[k] = me_value(*v);
              break;
            }
            if (!system_) return error(fmt::format("fmi2GetReal: '{}' is not computed before initialization", v->name));
            if (v->role == Role::output) {
              buffer_.resize(model_->output_count());
              system_->outputs(buffer_);
            } else if (v->role == Role::state) {
              buffer_.resize(model_->state_count());
              system_->states(buffer_);
            } else {
              buffer_.resize(model_->state_count());
              system_->state_derivatives(buffer_);
            }
            value[k] = buffer_(v->index);
            break;
          case Role::solver_integer: break;
        }
      }
      return fmi2OK;
    });
  }

  fmi2Status set_real(const fmi2ValueReference vr[], std::size_t n, const fmi2Real value[]) {
    if (!allowed(instantiated | initialization | kRunning, "fmi2SetReal")) return fmi2Error;
    return guarded([&] {
      bool inputs_changed = false;
      for (std::size_t k = 0; k < n; ++k) {
        const ExportedVariable* v = real_variable(vr[k]);
        if (v == nullptr) return error(fmt::format("fmi2SetReal: no Real variable with value reference {}", vr[k]));
        const bool fixed_phase = (phase_ & (instantiated | initialization)) != 0U;
        switch (v->role) {
          case Role::parameter:
            if (!fixed_phase) return error(fmt::format("fmi2SetReal: parameter '{}' is fixed after initialization", v->name));
            model_->set_parameter(v->name, value[k]);
            break;
          case Role::solver_real:
            if (!fixed_phase) return error(fmt::format("fmi2SetReal: '{}' is fixed after initialization", v->name));
            (v->index == 0 ? solver_.rtol : v->index == 1 ? solver_.atol : solver_.max_step) = value[k];
            break;
          case Role::input:
            inputs_.row(v->index).setZero();  // a new value: derivatives must be set again
            inputs_(v->index, 0) = value[k];
            inputs_changed = true;
            break;
          default: return error(fmt::format("fmi2SetReal: '{}' is calculated and cannot be set", v->name));
        }
      }
      if (inputs_changed && system_) system_->set_inputs(inputs_);
      return fmi2OK;
    });
  }

  fmi2Status get_integer(const fmi2ValueReference vr[], std::size_t n, fmi2Integer value[]) {
    if (!allowed(kAnyPhase, "fmi2GetInteger")) return fmi2Error;
    for (std::size_t k = 0; k < n; ++k) {
      if (vr[k] == 0) value[k] = solver_.kind;
      else if (vr[k] == 1) value[k] = solver_.steps_per_call;
      else return error(fmt::format("fmi2GetInteger: no Integer variable with value reference {}", vr[k]));
    }
    return fmi2OK;
  }
  fmi2Status set_integer(const fmi2ValueReference vr[], std::size_t n, const fmi2Integer value[]) {
    if (!allowed(instantiated | initialization, "fmi2SetInteger")) return fmi2Error;
    for (std::size_t k = 0; k < n; ++k) {
      if (vr[k] == 0) {
        if (value[k] < 0 || value[k] > 3) return error(fmt::format("solver_kind {} is not 0..3", value[k]));
        solver_.kind = value[k];
      } else if (vr[k] == 1) {
        if (value[k] < 1) return error("solver_steps_per_call must be ≥ 1");
        solver_.steps_per_call = value[k];
      } else {
        return error(fmt::format("fmi2SetInteger: no Integer variable with value reference {}", vr[k]));
      }
    }
    return fmi2OK;
  }

  fmi2Status do_step(double t, double h) {
    if (model_exchange_) return error("fmi2DoStep: instantiated for Model Exchange");
    if (!allowed(stepping, "fmi2DoStep")) return fmi2Error;
    if (std::abs(t - system_->time()) > 1e-9 * std::max(1.0, std::abs(t))) {
      return error(fmt::format("fmi2DoStep: currentCommunicationPoint {} is not the FMU's time {}", t, system_->time()));
    }
    if (!(h > 0.0)) return error(fmt::format("fmi2DoStep: communicationStepSize {} must be positive", h));
    return guarded([&] {
      StepResult result = system_->do_step(h);
      // FMI 2.0 Co-Simulation has no event mode: an event at the communication point is handled
      // inside fmi2DoStep, and the outputs are the right limits
      if (result.ok()) result = system_->handle_pending_events();
      if (result.ok()) return fmi2OK;
      phase_ = failed;
      return error(result.reason);
    });
  }

  fmi2Status set_input_derivatives(const fmi2ValueReference vr[], std::size_t n, const fmi2Integer order[],
                                   const fmi2Real value[]) {
    if (!allowed(instantiated | initialization | stepping, "fmi2SetRealInputDerivatives")) return fmi2Error;
    return guarded([&] {
      for (std::size_t k = 0; k < n; ++k) {
        const ExportedVariable* v = real_variable(vr[k]);
        if (v == nullptr || v->role != Role::input) {
          return error(fmt::format("fmi2SetRealInputDerivatives: value reference {} is not an input", vr[k]));
        }
        if (order[k] < 1 || order[k] > kMaxInputDegree) {
          return error(fmt::format("fmi2SetRealInputDerivatives: order {} not in 1..{}", order[k], kMaxInputDegree));
        }
        double factorial = 1.0;
        for (int j = 2; j <= order[k]; ++j) factorial *= j;
        inputs_(v->index, order[k]) = value[k] / factorial;  // a_k = u^(k)/k!
      }
      if (system_) system_->set_inputs(inputs_);
      return fmi2OK;
    });
  }

  fmi2Status get_output_derivatives(const fmi2ValueReference vr[], std::size_t n, const fmi2Integer order[],
                                    fmi2Real value[]) {
    if (!allowed(stepping | terminated | failed, "fmi2GetRealOutputDerivatives")) return fmi2Error;
    return guarded([&] {
      for (std::size_t k = 0; k < n; ++k) {
        const ExportedVariable* v = real_variable(vr[k]);
        if (v == nullptr || v->role != Role::output) {
          return error(fmt::format("fmi2GetRealOutputDerivatives: value reference {} is not an output", vr[k]));
        }
        buffer_.resize(model_->output_count());
        system_->output_derivatives(order[k], buffer_);
        value[k] = buffer_(v->index);
      }
      return fmi2OK;
    });
  }

  struct SavedState {
    StateId id = -1;  ///< CS: the system's snapshot
    InputPolynomials inputs;
    double t = 0.0;  ///< ME: time, states and mode
    Eigen::VectorXd x;
    Phase phase = stepping;
  };
  fmi2Status get_state(fmi2FMUstate* state) {
    if (!allowed(kRunning, "fmi2GetFMUstate")) return fmi2Error;
    if (!exported_flags().can_get_and_set_state) return error("fmi2GetFMUstate: canGetAndSetFMUstate is false");
    return guarded([&] {
      auto* saved = static_cast<SavedState*>(*state);
      if (saved == nullptr) {
        saved = new SavedState;
        *state = saved;
      }
      if (!model_exchange_) saved->id = saved->id < 0 ? system_->save_state() : (system_->save_state(saved->id), saved->id);
      saved->inputs = inputs_;
      saved->t = t_;
      saved->x = x_;
      saved->phase = phase_;
      return fmi2OK;
    });
  }
  fmi2Status set_state(fmi2FMUstate state) {
    if (!allowed(kRunning | failed, "fmi2SetFMUstate")) return fmi2Error;
    if (!exported_flags().can_get_and_set_state) return error("fmi2SetFMUstate: canGetAndSetFMUstate is false");
    if (state == nullptr) return error("fmi2SetFMUstate: null state");
    return guarded([&] {
      const auto* saved = static_cast<const SavedState*>(state);
      if (!model_exchange_) system_->restore_state(saved->id);
      inputs_ = saved->inputs;
      t_ = saved->t;
      x_ = saved->x;
      phase_ = saved->phase;
      return fmi2OK;
    });
  }
  fmi2Status free_state(fmi2FMUstate* state) {
    if (state == nullptr || *state == nullptr) return fmi2OK;
    auto* saved = static_cast<SavedState*>(*state);
    if (system_ && saved->id >= 0) system_->release_state(saved->id);
    delete saved;
    *state = nullptr;
    return fmi2OK;
  }

  fmi2Status directional_derivative(const fmi2ValueReference unknowns[], std::size_t n_unknown,
                                    const fmi2ValueReference knowns[], std::size_t n_known, const fmi2Real dv_known[],
                                    fmi2Real dv_unknown[]) {
    if (!allowed(initialization | kRunning, "fmi2GetDirectionalDerivative")) return fmi2Error;
    return guarded([&] {
      const Linearization& lin = model_exchange_ ? me_linearization() : system_->linearize();
      for (std::size_t i = 0; i < n_unknown; ++i) {
        const ExportedVariable* u = real_variable(unknowns[i]);
        if (u == nullptr || (u->role != Role::derivative && u->role != Role::output)) {
          return error(fmt::format("fmi2GetDirectionalDerivative: unknown {} is not a derivative or an output", unknowns[i]));
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < n_known; ++j) {
          const ExportedVariable* k = real_variable(knowns[j]);
          if (k == nullptr || (k->role != Role::state && k->role != Role::input)) {
            return error(fmt::format("fmi2GetDirectionalDerivative: known {} is not a state or an input", knowns[j]));
          }
          const Eigen::MatrixXd& block = u->role == Role::derivative ? (k->role == Role::state ? lin.A : lin.B)
                                                                     : (k->role == Role::state ? lin.C : lin.D);
          sum += block(u->index, k->index) * dv_known[j];
        }
        dv_unknown[i] = sum;
      }
      return fmi2OK;
    });
  }

  [[nodiscard]] double time() const { return system_ ? system_->time() : start_; }

  // --- Model Exchange (FMI 2.0 §3.2) ---------------------------------------------------------------
  [[nodiscard]] bool model_exchange() const { return model_exchange_; }
  fmi2Status set_time(double t) {
    if (!allowed(event_mode | continuous_time, "fmi2SetTime")) return fmi2Error;
    t_ = t;
    return fmi2OK;
  }
  fmi2Status set_continuous_states(const fmi2Real x[], std::size_t nx) {
    if (!allowed(continuous_time, "fmi2SetContinuousStates") || !sized(nx, x_.size(), "fmi2SetContinuousStates")) {
      return fmi2Error;
    }
    std::copy(x, x + nx, x_.data());
    return fmi2OK;
  }
  fmi2Status get_continuous_states(fmi2Real x[], std::size_t nx) {
    if (!allowed(initialization | kRunning | terminated, "fmi2GetContinuousStates") ||
        !sized(nx, x_.size(), "fmi2GetContinuousStates")) {
      return fmi2Error;
    }
    std::copy(x_.data(), x_.data() + nx, x);
    return fmi2OK;
  }
  fmi2Status get_nominals(fmi2Real x[], std::size_t nx) {
    if (!allowed(kAnyPhase, "fmi2GetNominalsOfContinuousStates") || !sized(nx, model_->state_count(), "fmi2GetNominalsOfContinuousStates")) {
      return fmi2Error;
    }
    std::fill(x, x + nx, 1.0);
    return fmi2OK;
  }
  fmi2Status get_derivatives(fmi2Real dx[], std::size_t nx) {
    if (!allowed(initialization | kRunning | terminated, "fmi2GetDerivatives") || !sized(nx, x_.size(), "fmi2GetDerivatives")) {
      return fmi2Error;
    }
    return guarded([&] {
      Eigen::Map<Eigen::VectorXd> out(dx, static_cast<Eigen::Index>(nx));
      model_->derivatives(t_, x_, me_inputs(), out);
      return fmi2OK;
    });
  }
  fmi2Status get_event_indicators(fmi2Real z[], std::size_t nz) {
    if (!allowed(initialization | kRunning | terminated, "fmi2GetEventIndicators") ||
        !sized(nz, model_->event_indicator_count(), "fmi2GetEventIndicators")) {
      return fmi2Error;
    }
    return guarded([&] {
      Eigen::Map<Eigen::VectorXd> out(z, static_cast<Eigen::Index>(nz));
      model_->event_indicators(t_, x_, me_inputs(), out);
      return fmi2OK;
    });
  }
  fmi2Status enter_event_mode() {
    if (!allowed(continuous_time | event_mode, "fmi2EnterEventMode")) return fmi2Error;
    phase_ = event_mode;
    event_handled_ = false;
    return fmi2OK;
  }
  /// The model's event handler, once per entry into Event Mode: a native model needs no iteration.
  fmi2Status new_discrete_states(fmi2EventInfo* info) {
    if (!allowed(event_mode, "fmi2NewDiscreteStates")) return fmi2Error;
    return guarded([&] {
      *info = fmi2EventInfo{};
      if (!event_handled_) {
        EventCause cause;
        cause.time_event = t_ >= announced_time_event_;
        cause.state_event = true;  // the model checks its own conditions
        Eigen::VectorXd x = x_;
        const EventOutcome outcome = model_->handle_event(t_, x, me_inputs(), cause);
        info->valuesOfContinuousStatesChanged = outcome.states_changed || x != x_ ? fmi2True : fmi2False;
        info->terminateSimulation = outcome.terminate ? fmi2True : fmi2False;
        x_ = x;
        event_handled_ = true;
      }
      announced_time_event_ = model_->next_time_event(t_);
      info->nextEventTimeDefined = std::isfinite(announced_time_event_) ? fmi2True : fmi2False;
      info->nextEventTime = info->nextEventTimeDefined != fmi2False ? announced_time_event_ : 0.0;
      return fmi2OK;
    });
  }
  fmi2Status enter_continuous_time_mode() {
    if (!allowed(event_mode, "fmi2EnterContinuousTimeMode")) return fmi2Error;
    phase_ = continuous_time;
    return fmi2OK;
  }
  fmi2Status completed_integrator_step(fmi2Boolean* enter_event_mode, fmi2Boolean* terminate_simulation) {
    if (!allowed(continuous_time, "fmi2CompletedIntegratorStep")) return fmi2Error;
    *enter_event_mode = fmi2False;
    *terminate_simulation = fmi2False;
    return fmi2OK;
  }

 private:
  bool sized(std::size_t n, Eigen::Index expected, const char* call) {
    if (static_cast<Eigen::Index>(n) == expected) return true;
    error(fmt::format("{}: {} values given, the model has {}", call, n, expected));
    return false;
  }
  /// u as a contiguous vector (inputs_ is row-major): copied into a member, no allocation per call.
  const Eigen::VectorXd& me_inputs() {
    me_u_ = inputs_.col(0);
    return me_u_;
  }
  /// An output, state or derivative at the (t, x, u) the importer set (Model Exchange).
  double me_value(const ExportedVariable& v) {
    const Eigen::VectorXd& u = me_inputs();
    switch (v.role) {
      case Role::state: return x_(v.index);
      case Role::derivative:
        buffer_.resize(model_->state_count());
        model_->derivatives(t_, x_, u, buffer_);
        return buffer_(v.index);
      default:
        buffer_.resize(model_->output_count());
        model_->outputs(t_, x_, u, buffer_);
        return buffer_(v.index);
    }
  }
  const Linearization& me_linearization() {
    const Eigen::VectorXd& u = me_inputs();
    if (!model_->jacobians(t_, x_, u, me_jacobians_)) finite_difference_jacobians(*model_, t_, x_, u, me_jacobians_);
    return me_jacobians_;
  }

  template <class Action>
  fmi2Status guarded(Action action) {
    try {
      return action();
    } catch (const std::exception& e) {
      return error(e.what());
    }
  }

  std::string instance_;
  fmi2CallbackFunctions callbacks_;
  bool model_exchange_;
  std::unique_ptr<OdeModel> model_;
  VariableTable table_;
  SolverDefaults solver_;
  double start_ = 0.0;
  Phase phase_ = instantiated;
  InputPolynomials inputs_;
  std::unique_ptr<NativeSystem> system_;
  Eigen::VectorXd buffer_;
  // Model Exchange: what the importer set, and the event bookkeeping
  double t_ = 0.0;
  Eigen::VectorXd x_, me_u_;
  double announced_time_event_ = std::numeric_limits<double>::infinity();
  bool event_handled_ = false;
  Linearization me_jacobians_;
};

Slave* slave(fmi2Component c) { return static_cast<Slave*>(c); }

}  // namespace
}  // namespace cosima::fmu_export

using cosima::fmu_export::Slave;
using cosima::fmu_export::slave;

COSIMA_FMI_EXPORT const char* fmi2GetTypesPlatform() { return "default"; }
COSIMA_FMI_EXPORT const char* fmi2GetVersion() { return "2.0"; }
COSIMA_FMI_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component, fmi2Boolean, std::size_t, const fmi2String[]) { return fmi2OK; }

COSIMA_FMI_EXPORT fmi2Component fmi2Instantiate(fmi2String instance, fmi2Type type, fmi2String guid, fmi2String,
                                                const fmi2CallbackFunctions* callbacks, fmi2Boolean, fmi2Boolean) {
  if (callbacks == nullptr || instance == nullptr) return nullptr;
  auto refuse = [&](const std::string& why) -> fmi2Component {
    if (callbacks->logger != nullptr) callbacks->logger(callbacks->componentEnvironment, instance, fmi2Error, "error", "%s", why.c_str());
    return nullptr;
  };
  if (type != fmi2CoSimulation && type != fmi2ModelExchange) return refuse("unknown fmi2Type");
  try {
    auto model = cosima::fmu_export::make_exported_model();
    const std::string expected = cosima::fmu_export::model_guid(*model);
    if (guid == nullptr || expected != guid) return refuse(fmt::format("GUID mismatch: expected {}", expected));
    return new Slave(instance, callbacks, type == fmi2ModelExchange);
  } catch (const std::exception& e) {
    return refuse(e.what());
  }
}
COSIMA_FMI_EXPORT void fmi2FreeInstance(fmi2Component c) { delete slave(c); }
COSIMA_FMI_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolerance_defined, fmi2Real tolerance,
                                                 fmi2Real start, fmi2Boolean, fmi2Real) {
  return slave(c)->setup_experiment(tolerance_defined != 0, tolerance, start);
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c) { return slave(c)->enter_initialization(); }
COSIMA_FMI_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c) { return slave(c)->exit_initialization(); }
COSIMA_FMI_EXPORT fmi2Status fmi2Terminate(fmi2Component c) { return slave(c)->terminate(); }
COSIMA_FMI_EXPORT fmi2Status fmi2Reset(fmi2Component c) { return slave(c)->reset(); }
COSIMA_FMI_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], std::size_t n, fmi2Real v[]) {
  return slave(c)->get_real(vr, n, v);
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], std::size_t n, const fmi2Real v[]) {
  return slave(c)->set_real(vr, n, v);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], std::size_t n, fmi2Integer v[]) {
  return slave(c)->get_integer(vr, n, v);
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                            const fmi2Integer v[]) {
  return slave(c)->set_integer(vr, n, v);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference[], std::size_t n, fmi2Boolean[]) {
  return n == 0 ? fmi2OK : slave(c)->error("this FMU has no Boolean variables");
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference[], std::size_t n, const fmi2Boolean[]) {
  return n == 0 ? fmi2OK : slave(c)->error("this FMU has no Boolean variables");
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference[], std::size_t n, fmi2String[]) {
  return n == 0 ? fmi2OK : slave(c)->error("this FMU has no String variables");
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference[], std::size_t n, const fmi2String[]) {
  return n == 0 ? fmi2OK : slave(c)->error("this FMU has no String variables");
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* s) { return slave(c)->get_state(s); }
COSIMA_FMI_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s) { return slave(c)->set_state(s); }
COSIMA_FMI_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* s) { return slave(c)->free_state(s); }
COSIMA_FMI_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate, std::size_t*) {
  return slave(c)->error("canSerializeFMUstate is false");
}
COSIMA_FMI_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate, fmi2Byte[], std::size_t) {
  return slave(c)->error("canSerializeFMUstate is false");
}
COSIMA_FMI_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte[], std::size_t, fmi2FMUstate*) {
  return slave(c)->error("canSerializeFMUstate is false");
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], std::size_t nu,
                                                          const fmi2ValueReference k[], std::size_t nk,
                                                          const fmi2Real dk[], fmi2Real du[]) {
  return slave(c)->directional_derivative(u, nu, k, nk, dk, du);
}
COSIMA_FMI_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                                         const fmi2Integer order[], const fmi2Real value[]) {
  return slave(c)->set_input_derivatives(vr, n, order, value);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], std::size_t n,
                                                          const fmi2Integer order[], fmi2Real value[]) {
  return slave(c)->get_output_derivatives(vr, n, order, value);
}
COSIMA_FMI_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean) {
  return slave(c)->do_step(t, h);
}
COSIMA_FMI_EXPORT fmi2Status fmi2CancelStep(fmi2Component c) { return slave(c)->error("fmi2DoStep is synchronous"); }
COSIMA_FMI_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind, fmi2Status*) {
  return slave(c)->error("fmi2GetStatus: no asynchronous step");
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Real* value) {
  if (kind != fmi2LastSuccessfulTime) return slave(c)->error("fmi2GetRealStatus: only fmi2LastSuccessfulTime");
  *value = slave(c)->time();
  return fmi2OK;
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind, fmi2Integer*) {
  return slave(c)->error("fmi2GetIntegerStatus: no such status");
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Boolean* value) {
  if (kind != fmi2Terminated) return slave(c)->error("fmi2GetBooleanStatus: only fmi2Terminated");
  *value = fmi2False;
  return fmi2OK;
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind, fmi2String*) {
  return slave(c)->error("fmi2GetStringStatus: no such status");
}

// Model Exchange functions (FMI 2.0 §3.2.2)
COSIMA_FMI_EXPORT fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t) { return slave(c)->set_time(t); }
COSIMA_FMI_EXPORT fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], std::size_t nx) {
  return slave(c)->set_continuous_states(x, nx);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], std::size_t nx) {
  return slave(c)->get_continuous_states(x, nx);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], std::size_t nx) {
  return slave(c)->get_nominals(x, nx);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], std::size_t nx) {
  return slave(c)->get_derivatives(dx, nx);
}
COSIMA_FMI_EXPORT fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], std::size_t nz) {
  return slave(c)->get_event_indicators(z, nz);
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterEventMode(fmi2Component c) { return slave(c)->enter_event_mode(); }
COSIMA_FMI_EXPORT fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo* info) {
  return slave(c)->new_discrete_states(info);
}
COSIMA_FMI_EXPORT fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { return slave(c)->enter_continuous_time_mode(); }
COSIMA_FMI_EXPORT fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean, fmi2Boolean* enter_event_mode,
                                                         fmi2Boolean* terminate_simulation) {
  return slave(c)->completed_integrator_step(enter_event_mode, terminate_simulation);
}

/// Used by the build (cosima_fmu_describe) to write modelDescription.xml next to the binary.
COSIMA_FMI_EXPORT int cosima_fmu_write_model_description(const char* path, const char* model_identifier) {
  try {
    const auto model = cosima::fmu_export::make_exported_model();
    std::ofstream out(path);
    out << cosima::fmu_export::model_description_xml(*model, model_identifier,
                                                      cosima::fmu_export::exported_flags().can_get_and_set_state);
    return out ? 0 : 1;
  } catch (const std::exception&) {
    return 1;
  }
}
