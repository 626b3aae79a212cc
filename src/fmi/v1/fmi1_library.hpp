#pragma once
// An FMI 1.0 FMU's shared library (fmi/common/shared_library.hpp) with its functions resolved
// (Fmi1Library). FMI 1.0 names every function <modelIdentifier>_fmiXxx (ME §3.1, CS §3.1), and Model
// Exchange and Co-Simulation are two sets of functions. A missing required function is an error; a
// missing optional one is null and turns its capability off.
#include <filesystem>
#include <string>

#include "fmi/common/model_description.hpp"
#include "fmi/common/shared_library.hpp"
#include "fmi/v1/fmi1_api.hpp"

namespace cosima::fmi {

struct Fmi1Functions {
  // both interfaces
  fmi1GetRealTYPE get_real = nullptr;
  fmi1SetRealTYPE set_real = nullptr;
  fmi1GetIntegerTYPE get_integer = nullptr;
  fmi1SetIntegerTYPE set_integer = nullptr;
  fmi1GetBooleanTYPE get_boolean = nullptr;
  fmi1SetBooleanTYPE set_boolean = nullptr;
  fmi1GetStringTYPE get_string = nullptr;
  fmi1SetStringTYPE set_string = nullptr;
  fmi1GetVersionTYPE get_version = nullptr;
  fmi1SetDebugLoggingTYPE set_debug_logging = nullptr;
  // Model Exchange
  fmi1InstantiateModelTYPE instantiate_model = nullptr;
  fmi1FreeModelInstanceTYPE free_model_instance = nullptr;
  fmi1SetTimeTYPE set_time = nullptr;
  fmi1SetContinuousStatesTYPE set_continuous_states = nullptr;
  fmi1CompletedIntegratorStepTYPE completed_integrator_step = nullptr;
  fmi1InitializeTYPE initialize = nullptr;
  fmi1GetDerivativesTYPE get_derivatives = nullptr;
  fmi1GetEventIndicatorsTYPE get_event_indicators = nullptr;
  fmi1EventUpdateTYPE event_update = nullptr;
  fmi1GetContinuousStatesTYPE get_continuous_states = nullptr;
  fmi1GetNominalContinuousStatesTYPE get_nominal_continuous_states = nullptr;
  fmi1GetStateValueReferencesTYPE get_state_value_references = nullptr;
  fmi1TerminateTYPE terminate = nullptr;
  // Co-Simulation
  fmi1InstantiateSlaveTYPE instantiate_slave = nullptr;
  fmi1InitializeSlaveTYPE initialize_slave = nullptr;
  fmi1TerminateSlaveTYPE terminate_slave = nullptr;
  fmi1FreeSlaveInstanceTYPE free_slave_instance = nullptr;
  fmi1DoStepTYPE do_step = nullptr;
  fmi1SetRealInputDerivativesTYPE set_real_input_derivatives = nullptr;
  fmi1GetRealOutputDerivativesTYPE get_real_output_derivatives = nullptr;
  fmi1GetRealStatusTYPE get_real_status = nullptr;
};

class Fmi1Library {
 public:
  /// `fmu` names the FMU in errors; `identifier` is the modelIdentifier every symbol starts with. The
  /// functions of `interface` are required, the other interface's are not resolved.
  Fmi1Library(const std::filesystem::path& shared_object, const std::string& fmu, const std::string& identifier,
              FmiInterface interface);
  Fmi1Library(const Fmi1Library&) = delete;
  Fmi1Library& operator=(const Fmi1Library&) = delete;
  [[nodiscard]] const Fmi1Functions& functions() const { return functions_; }

 private:
  SharedLibrary library_;
  Fmi1Functions functions_;
};

}  // namespace cosima::fmi
