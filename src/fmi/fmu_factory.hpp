#pragma once
// The one place where an FMU file becomes cosima objects by its FMI version and interface: the
// version's instance (fmi/v1, fmi/v2, fmi/v3), its Co-Simulation system, and the Model Exchange adapter
// (fmi/common/me_model.hpp) over either instance. Nothing else branches on the version: a new
// version adds its folder and one branch to each function here.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "fmi/common/fmu_instance.hpp"
#include "system/native/integrator.hpp"
#include "system/native/native_system.hpp"
#include "system/system.hpp"

namespace cosima::fmi {

/// Loads and instantiates the FMU's `interface`, of the FMI version its description declares.
/// `system` names it in errors.
std::unique_ptr<FmuInstance> instantiate_fmu(const std::string& system, const std::filesystem::path& fmu,
                                             FmiInterface interface);

/// A System stepping the FMU's Co-Simulation interface (Fmi1CsSystem, Fmi2CsSystem, Fmi3CsSystem); `description`
/// is the FMU's, already read by the caller.
std::unique_ptr<System> make_cs_system(const std::string& name, const std::filesystem::path& fmu,
                                       const ModelDescription& description);

using IntegratorMaker = std::function<std::unique_ptr<Integrator>(const IntegratorOptions&)>;
/// A NativeSystem integrating the Model Exchange interface of `fmu` with the integrator that
/// `make_integrator` makes of `options`. Unless options.atol_given, the absolute tolerance is per
/// state: 1e-2·rtol·|nominal| (the states' declared nominals).
std::unique_ptr<NativeSystem> make_me_system(const std::string& name, const std::filesystem::path& fmu,
                                             const IntegratorMaker& make_integrator, IntegratorOptions options);
/// A NativeSystem integrating the Model Exchange interface of `fmu` with `integrator`.
std::unique_ptr<NativeSystem> make_me_system(const std::string& name, const std::filesystem::path& fmu,
                                             std::unique_ptr<Integrator> integrator, const IntegratorOptions& options);

}  // namespace cosima::fmi
