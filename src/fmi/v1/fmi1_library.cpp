#include "fmi/v1/fmi1_library.hpp"

namespace cosima::fmi {

namespace {

void resolve_model_exchange(const auto& resolve, Fmi1Functions& f) {  // ME §3.2
  resolve(f.instantiate_model, "fmiInstantiateModel", true);
  resolve(f.free_model_instance, "fmiFreeModelInstance", true);
  resolve(f.set_time, "fmiSetTime", true);
  resolve(f.set_continuous_states, "fmiSetContinuousStates", true);
  resolve(f.completed_integrator_step, "fmiCompletedIntegratorStep", true);
  resolve(f.initialize, "fmiInitialize", true);
  resolve(f.get_derivatives, "fmiGetDerivatives", true);
  resolve(f.get_event_indicators, "fmiGetEventIndicators", true);
  resolve(f.event_update, "fmiEventUpdate", true);
  resolve(f.get_continuous_states, "fmiGetContinuousStates", true);
  resolve(f.get_nominal_continuous_states, "fmiGetNominalContinuousStates", false);
  resolve(f.get_state_value_references, "fmiGetStateValueReferences", true);
  resolve(f.terminate, "fmiTerminate", true);
}

void resolve_co_simulation(const auto& resolve, Fmi1Functions& f) {  // CS §3.3 – §3.5
  resolve(f.instantiate_slave, "fmiInstantiateSlave", true);
  resolve(f.initialize_slave, "fmiInitializeSlave", true);
  resolve(f.terminate_slave, "fmiTerminateSlave", true);
  resolve(f.free_slave_instance, "fmiFreeSlaveInstance", true);
  resolve(f.do_step, "fmiDoStep", true);
  resolve(f.set_real_input_derivatives, "fmiSetRealInputDerivatives", false);
  resolve(f.get_real_output_derivatives, "fmiGetRealOutputDerivatives", false);
  resolve(f.get_real_status, "fmiGetRealStatus", false);
}

}  // namespace

Fmi1Library::Fmi1Library(const std::filesystem::path& shared_object, const std::string& fmu,
                         const std::string& identifier, FmiInterface interface)
    : library_(shared_object, fmu) {
  const auto resolve = [&](auto& slot, const char* function, bool required) {
    library_.resolve(slot, (identifier + "_" + function).c_str(), required);
  };
  Fmi1Functions& f = functions_;
  resolve(f.get_real, "fmiGetReal", true);
  resolve(f.set_real, "fmiSetReal", true);
  resolve(f.get_integer, "fmiGetInteger", false);
  resolve(f.set_integer, "fmiSetInteger", false);
  resolve(f.get_boolean, "fmiGetBoolean", false);
  resolve(f.set_boolean, "fmiSetBoolean", false);
  resolve(f.get_string, "fmiGetString", false);
  resolve(f.set_string, "fmiSetString", false);
  resolve(f.get_version, "fmiGetVersion", false);
  resolve(f.set_debug_logging, "fmiSetDebugLogging", false);
  if (interface == FmiInterface::model_exchange) {
    resolve_model_exchange(resolve, f);
  } else {
    resolve_co_simulation(resolve, f);
  }
}

}  // namespace cosima::fmi
