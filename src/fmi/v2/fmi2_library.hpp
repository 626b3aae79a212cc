#pragma once
// An FMI 2.0 FMU's shared library (fmi/common/shared_library.hpp) with its fmi2 functions resolved
// (Fmi2Library). A missing required function is an error; a missing optional one
// is null and turns its capability off.
#include <filesystem>
#include <string>

#include "fmi/common/model_description.hpp"
#include "fmi/common/shared_library.hpp"
#include "fmi/v2/fmi2_api.hpp"

namespace cosima::fmi {

struct Fmi2Functions {
  // required by both interfaces
  fmi2InstantiateTYPE instantiate = nullptr;
  fmi2FreeInstanceTYPE free_instance = nullptr;
  fmi2SetupExperimentTYPE setup_experiment = nullptr;
  fmi2EnterInitializationModeTYPE enter_initialization_mode = nullptr;
  fmi2ExitInitializationModeTYPE exit_initialization_mode = nullptr;
  fmi2TerminateTYPE terminate = nullptr;
  fmi2GetRealTYPE get_real = nullptr;
  fmi2SetRealTYPE set_real = nullptr;
  // required by the interface in use
  fmi2DoStepTYPE do_step = nullptr;
  fmi2EnterEventModeTYPE enter_event_mode = nullptr;
  fmi2NewDiscreteStatesTYPE new_discrete_states = nullptr;
  fmi2EnterContinuousTimeModeTYPE enter_continuous_time_mode = nullptr;
  fmi2CompletedIntegratorStepTYPE completed_integrator_step = nullptr;
  fmi2SetTimeTYPE set_time = nullptr;
  fmi2SetContinuousStatesTYPE set_continuous_states = nullptr;
  fmi2GetDerivativesTYPE get_derivatives = nullptr;
  fmi2GetEventIndicatorsTYPE get_event_indicators = nullptr;
  fmi2GetContinuousStatesTYPE get_continuous_states = nullptr;
  fmi2GetNominalsOfContinuousStatesTYPE get_nominals_of_continuous_states = nullptr;
  // optional
  fmi2GetVersionTYPE get_version = nullptr;
  fmi2GetIntegerTYPE get_integer = nullptr;
  fmi2SetIntegerTYPE set_integer = nullptr;
  fmi2GetBooleanTYPE get_boolean = nullptr;
  fmi2SetBooleanTYPE set_boolean = nullptr;
  fmi2GetStringTYPE get_string = nullptr;
  fmi2SetStringTYPE set_string = nullptr;
  fmi2SetDebugLoggingTYPE set_debug_logging = nullptr;
  fmi2GetFMUstateTYPE get_fmu_state = nullptr;
  fmi2SetFMUstateTYPE set_fmu_state = nullptr;
  fmi2FreeFMUstateTYPE free_fmu_state = nullptr;
  fmi2GetDirectionalDerivativeTYPE get_directional_derivative = nullptr;
  fmi2SetRealInputDerivativesTYPE set_real_input_derivatives = nullptr;
  fmi2GetRealOutputDerivativesTYPE get_real_output_derivatives = nullptr;
  fmi2GetBooleanStatusTYPE get_boolean_status = nullptr;
  fmi2GetRealStatusTYPE get_real_status = nullptr;
};

class Fmi2Library {
 public:
  /// `fmu` names the FMU in errors. The functions of `interface` are required, the other's are not
  /// resolved.
  Fmi2Library(const std::filesystem::path& shared_object, const std::string& fmu, FmiInterface interface);
  Fmi2Library(const Fmi2Library&) = delete;
  Fmi2Library& operator=(const Fmi2Library&) = delete;
  [[nodiscard]] const Fmi2Functions& functions() const { return functions_; }

 private:
  SharedLibrary library_;
  Fmi2Functions functions_;
};

}  // namespace cosima::fmi
