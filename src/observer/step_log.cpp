#include "observer/step_log.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

namespace {
std::int64_t total_integrations(const ModularModel& model) {
  std::int64_t total = 0;
  for (int s = 0; s < model.system_count(); ++s) total += model.system(s).integrations();
  return total;
}
}  // namespace

void StepLog::on_start(const ModularModel& model, double /*t*/) { integrations_ = total_integrations(model); }

void StepLog::on_step(const ModularModel& model, double t, const StepReport& report) {
  const std::int64_t now = total_integrations(model);
  rows_.push_back({t, report.h, report.iterations, report.rejected, now - integrations_, report.estimate_gap,
                   report.defect, report.connection_defect, report.output_defect});
  integrations_ = now;
}

void StepLog::write_csv(const std::filesystem::path& path) const {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
  out << "time,step,iterations,rejected,integrations,estimate_gap,defect,connection_defect,output_defect\n";
  const auto cell = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{:.6e}", v); };
  for (const Row& r : rows_) {
    out << fmt::format("{:.17g},{:.17g},{},{},{},{},{},{},{}\n", r.t, r.h, r.iterations, r.rejected, r.integrations,
                       cell(r.estimate_gap), cell(r.defect), cell(r.connection_defect), cell(r.output_defect));
  }
}

}  // namespace cosima
