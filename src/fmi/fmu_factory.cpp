#include "fmi/fmu_factory.hpp"

#include "fmi/common/me_model.hpp"
#include "fmi/v1/cs/fmi1_cs_system.hpp"
#include "fmi/v1/fmi1_instance.hpp"
#include "fmi/v2/cs/fmi2_cs_system.hpp"
#include "fmi/v2/fmi2_instance.hpp"
#include "fmi/v3/cs/fmi3_cs_system.hpp"
#include "fmi/v3/fmi3_instance.hpp"

namespace cosima::fmi {

std::unique_ptr<FmuInstance> instantiate_fmu(const std::string& system, const std::filesystem::path& fmu,
                                             FmiInterface interface) {
  const ModelDescription md = read_model_description(fmu);
  if (md.is_fmi3()) return std::make_unique<Fmi3Instance>(system, fmu, interface);
  if (md.is_fmi1()) return std::make_unique<Fmi1Instance>(system, fmu, interface);
  return std::make_unique<Fmi2Instance>(system, fmu, interface);
}

std::unique_ptr<System> make_cs_system(const std::string& name, const std::filesystem::path& fmu,
                                       const ModelDescription& description) {
  if (description.is_fmi3()) return std::make_unique<Fmi3CsSystem>(name, fmu);
  if (description.is_fmi1()) return std::make_unique<Fmi1CsSystem>(name, fmu);
  return std::make_unique<Fmi2CsSystem>(name, fmu);
}

namespace {

std::unique_ptr<MeModel> me_model(const std::string& name, const std::filesystem::path& fmu,
                                  const IntegratorOptions& options) {
  return std::make_unique<MeModel>(instantiate_fmu(name, fmu, FmiInterface::model_exchange), options);
}

std::unique_ptr<NativeSystem> native_system(const std::string& name, std::unique_ptr<MeModel> model,
                                            std::unique_ptr<Integrator> integrator, const IntegratorOptions& options) {
  auto system = std::make_unique<NativeSystem>(name, std::move(model), std::move(integrator));
  system->set_max_events_per_step(options.max_events_per_step);
  return system;
}

}  // namespace

std::unique_ptr<NativeSystem> make_me_system(const std::string& name, const std::filesystem::path& fmu,
                                             const IntegratorMaker& make_integrator, IntegratorOptions options) {
  auto model = me_model(name, fmu, options);
  if (!options.atol_given) options.state_atol = 1e-2 * options.rtol * model->instance().state_nominals();
  std::unique_ptr<Integrator> integrator = make_integrator(options);
  return native_system(name, std::move(model), std::move(integrator), options);
}

std::unique_ptr<NativeSystem> make_me_system(const std::string& name, const std::filesystem::path& fmu,
                                             std::unique_ptr<Integrator> integrator, const IntegratorOptions& options) {
  return native_system(name, me_model(name, fmu, options), std::move(integrator), options);
}

}  // namespace cosima::fmi
