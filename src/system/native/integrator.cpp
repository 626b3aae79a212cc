#include "system/native/integrator.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "system/native/cvode_integrator.hpp"
#include "system/native/dopri5.hpp"
#include "system/native/euler.hpp"
#include "system/native/exact_lti.hpp"

namespace cosima {

std::string_view integrator_kinds() { return "dopri5, cvode, euler, exact"; }

std::unique_ptr<Integrator> make_integrator(std::string_view kind, const IntegratorOptions& options) {
  if (kind == "dopri5") return std::make_unique<Dopri5>(options);
  if (kind == "cvode") return std::make_unique<CvodeIntegrator>(options);
  if (kind == "euler") return std::make_unique<ForwardEuler>(options);
  if (kind == "exact") return std::make_unique<ExactLti>();
  throw Error(fmt::format("unknown integrator '{}' (known: {})", kind, integrator_kinds()));
}

}  // namespace cosima
