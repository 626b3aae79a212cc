#pragma once
// The FMU's shared library: dlopen'd, with its fmi2 functions resolved. A missing required function
// is an error; a missing optional one is null and turns its capability off.
#include <filesystem>
#include <string>

#include "fmi/fmi2_api.hpp"

namespace cosima::fmi {

struct Fmi2Functions {
  // required for Co-Simulation
  fmi2InstantiateTYPE instantiate = nullptr;
  fmi2FreeInstanceTYPE free_instance = nullptr;
  fmi2SetupExperimentTYPE setup_experiment = nullptr;
  fmi2EnterInitializationModeTYPE enter_initialization_mode = nullptr;
  fmi2ExitInitializationModeTYPE exit_initialization_mode = nullptr;
  fmi2TerminateTYPE terminate = nullptr;
  fmi2GetRealTYPE get_real = nullptr;
  fmi2SetRealTYPE set_real = nullptr;
  fmi2DoStepTYPE do_step = nullptr;
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

class FmuLibrary {
 public:
  /// `fmu` names the FMU in errors.
  FmuLibrary(const std::filesystem::path& shared_object, const std::string& fmu);
  ~FmuLibrary();
  FmuLibrary(const FmuLibrary&) = delete;
  FmuLibrary& operator=(const FmuLibrary&) = delete;
  [[nodiscard]] const Fmi2Functions& functions() const { return functions_; }

 private:
  void* handle_ = nullptr;
  Fmi2Functions functions_;
};

}  // namespace cosima::fmi
