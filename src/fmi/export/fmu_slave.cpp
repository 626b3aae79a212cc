// The slave side of the export kit: the FMI 2.0 Co-Simulation functions over a NativeSystem.
// Compiled into every project FMU together with one generated make_exported_model().
//
// State machine (FMI 2.0 §4.2.4), a call outside its states is refused with fmi2Error:
//   instantiated --fmi2EnterInitializationMode--> initialization --fmi2ExitInitializationMode-->
//   stepping --fmi2Terminate--> terminated;  fmi2Error from a step --> failed;  fmi2Reset --> instantiated
#include <algorithm>
#include <cmath>
#include <fstream>
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

enum Phase : unsigned { instantiated = 1, initialization = 2, stepping = 4, terminated = 8, failed = 16 };
constexpr unsigned kAnyPhase = instantiated | initialization | stepping | terminated | failed;

class Slave {
 public:
  Slave(std::string instance, const fmi2CallbackFunctions* callbacks)
      : instance_(std::move(instance)), callbacks_(*callbacks), model_(make_exported_model()),
        table_(make_variable_table(*model_, SolverDefaults{})) {
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
      build_system();
      phase_ = initialization;
      return fmi2OK;
    });
  }
  fmi2Status exit_initialization() {
    if (!allowed(initialization, "fmi2ExitInitializationMode")) return fmi2Error;
    return guarded([&] {
      build_system();  // parameters and inputs set in initialization mode take effect
      phase_ = stepping;
      return fmi2OK;
    });
  }
  fmi2Status terminate() {
    if (!allowed(stepping | failed, "fmi2Terminate")) return fmi2Error;
    phase_ = terminated;
    return fmi2OK;
  }
  fmi2Status reset() {
    system_.reset();
    model_ = make_exported_model();
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
    if (!allowed(instantiated | initialization | stepping, "fmi2SetReal")) return fmi2Error;
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
    if (!allowed(stepping, "fmi2DoStep")) return fmi2Error;
    if (std::abs(t - system_->time()) > 1e-9 * std::max(1.0, std::abs(t))) {
      return error(fmt::format("fmi2DoStep: currentCommunicationPoint {} is not the FMU's time {}", t, system_->time()));
    }
    if (!(h > 0.0)) return error(fmt::format("fmi2DoStep: communicationStepSize {} must be positive", h));
    return guarded([&] {
      const StepResult result = system_->do_step(h);
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
    StateId id;
    InputPolynomials inputs;
  };
  fmi2Status get_state(fmi2FMUstate* state) {
    if (!allowed(stepping, "fmi2GetFMUstate")) return fmi2Error;
    if (!exported_flags().can_get_and_set_state) return error("fmi2GetFMUstate: canGetAndSetFMUstate is false");
    return guarded([&] {
      auto* saved = static_cast<SavedState*>(*state);
      if (saved == nullptr) {
        saved = new SavedState{system_->save_state(), inputs_};
        *state = saved;
      } else {
        system_->save_state(saved->id);
        saved->inputs = inputs_;
      }
      return fmi2OK;
    });
  }
  fmi2Status set_state(fmi2FMUstate state) {
    if (!allowed(stepping | failed, "fmi2SetFMUstate")) return fmi2Error;
    if (!exported_flags().can_get_and_set_state) return error("fmi2SetFMUstate: canGetAndSetFMUstate is false");
    if (state == nullptr) return error("fmi2SetFMUstate: null state");
    return guarded([&] {
      const auto* saved = static_cast<const SavedState*>(state);
      system_->restore_state(saved->id);
      inputs_ = saved->inputs;
      phase_ = stepping;
      return fmi2OK;
    });
  }
  fmi2Status free_state(fmi2FMUstate* state) {
    if (state == nullptr || *state == nullptr) return fmi2OK;
    auto* saved = static_cast<SavedState*>(*state);
    if (system_) system_->release_state(saved->id);
    delete saved;
    *state = nullptr;
    return fmi2OK;
  }

  fmi2Status directional_derivative(const fmi2ValueReference unknowns[], std::size_t n_unknown,
                                    const fmi2ValueReference knowns[], std::size_t n_known, const fmi2Real dv_known[],
                                    fmi2Real dv_unknown[]) {
    if (!allowed(initialization | stepping, "fmi2GetDirectionalDerivative")) return fmi2Error;
    return guarded([&] {
      const Linearization& lin = system_->linearize();
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

 private:
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
  std::unique_ptr<OdeModel> model_;
  VariableTable table_;
  SolverDefaults solver_;
  double start_ = 0.0;
  Phase phase_ = instantiated;
  InputPolynomials inputs_;
  std::unique_ptr<NativeSystem> system_;
  Eigen::VectorXd buffer_;
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
  if (type != fmi2CoSimulation) return refuse("this FMU supports Co-Simulation only");
  try {
    auto model = cosima::fmu_export::make_exported_model();
    const std::string expected = cosima::fmu_export::model_guid(*model);
    if (guid == nullptr || expected != guid) return refuse(fmt::format("GUID mismatch: expected {}", expected));
    return new Slave(instance, callbacks);
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
