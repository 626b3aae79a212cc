#include "methods/coupling_method.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "exec/executor.hpp"
#include "methods/coupling_buffers.hpp"

namespace cosima::methods {

std::string CouplingMethod::handle_discontinuity(model::ModularModel& model, double t) {
  CouplingBuffers buffers;  // a method without interface state between steps: only the systems move
  buffers.resize(model);
  Eigen::VectorXd u = Eigen::VectorXd::Zero(model.total_inputs());
  return restart_at_discontinuity(model, executor(), buffers, u, nullptr, t).terminated;
}

CapabilitySet CouplingMethod::wanted(const System& system) const {
  CapabilitySet set;
  for (const CapabilityNeed& need : needs(system)) set.add(need.capability);
  return set;
}

void CouplingMethod::check_needs(const model::ModularModel& model, std::string_view hint,
                                 const std::function<std::vector<CapabilityNeed>(int)>& needs_of) const {
  std::string missing;
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    std::string lacks;
    for (const CapabilityNeed& need : needs_of ? needs_of(s) : needs(system)) {
      if (system.has(need.capability)) continue;
      lacks += fmt::format("{}{} ({}){}", lacks.empty() ? "" : ", ", to_string(need.capability),
                           fmi_flag(need.capability), need.why);
    }
    if (!lacks.empty())
      missing += fmt::format("{}system '{}' lacks {}", missing.empty() ? "" : "; ", system.name(), lacks);
  }
  if (!missing.empty()) throw CapabilityError(fmt::format("method '{}' cannot run: {}{}", name(), missing, hint));
}

}  // namespace cosima::methods
