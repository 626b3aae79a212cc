// Building the systems and the model a scenario describes (the parsing is in scenario.cpp, which
// links without the numerics so that the fuzzers stay small).
#include <variant>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fmi/fmu_system.hpp"
#include "models/registry.hpp"
#include "scenario/scenario.hpp"
#include "system/native/native_system.hpp"

namespace cosima {

std::unique_ptr<System> build_system(const SystemSpec& spec) {
  std::unique_ptr<System> system;
  if (!spec.fmu.empty()) {
    system = std::make_unique<fmi::FmuSystem>(spec.name, spec.fmu);
    for (const auto& [parameter, value] : spec.parameters) {
      if (const auto* text = std::get_if<std::string>(&value)) system->set_string_parameter(parameter, *text);
      else system->set_parameter(parameter, std::get<double>(value));
    }
  } else {
    auto ode = models::make_model(spec.model);
    for (const auto& [parameter, value] : spec.parameters) {
      try {
        if (std::holds_alternative<std::string>(value)) {
          throw Error(fmt::format("parameter '{}' is a number; \"{}\" is a text", parameter, std::get<std::string>(value)));
        }
        ode->set_parameter(parameter, std::get<double>(value));
      } catch (const Error& e) {
        throw Error(fmt::format("system '{}': {}", spec.name, e.what()));
      }
    }
    std::unique_ptr<Integrator> integrator;
    try {
      integrator = make_integrator(spec.integrator, spec.integrator_options);
    } catch (const Error& e) {
      throw Error(fmt::format("system '{}': {}", spec.name, e.what()));
    }
    auto native = std::make_unique<NativeSystem>(spec.name, std::move(ode), std::move(integrator));
    native->set_step_cost(spec.step_cost);
    system = std::move(native);
  }
  for (Capability c : kAllCapabilities) {
    if (spec.withheld.has(c)) system->withhold(c);
  }
  return system;
}

ModularModel build_model(const Scenario& scenario, const SystemMaker& make) {
  ModularModel model;
  for (const SystemSpec& spec : scenario.systems) model.add_system(make ? make(spec) : build_system(spec));
  for (const auto& c : scenario.connections) model.connect(c.from, c.to, c.convert);
  for (const auto& [port, value] : scenario.constant_inputs) {
    std::visit([&, &port = port](const auto& v) { model.set_constant_input(port, v); }, value);
  }
  model.finalize();
  return model;
}

}  // namespace cosima
