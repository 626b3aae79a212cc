#include "observer/step_log.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::observer {

namespace {
std::int64_t total_integrations(const model::ModularModel& model) {
  std::int64_t total = 0;
  for (int s = 0; s < model.system_count(); ++s) total += model.system(s).integrations();
  return total;
}
}  // namespace

namespace {
constexpr const char* kHeader =
    "time,step,iterations,rejected,integrations,estimate_gap,defect,connection_defect,output_defect,coupling_error,at_"
    "step_floor\n";
}  // namespace

StepLog::StepLog(const std::optional<std::filesystem::path>& csv, bool keep_in_memory) : keep_(keep_in_memory) {
  if (csv) {
    stream_ = std::make_unique<CsvStream>(*csv);
    stream_->header(kHeader);
  }
}

void StepLog::on_start(const model::ModularModel& model, double /*t*/) { integrations_ = total_integrations(model); }

void StepLog::on_step(const model::ModularModel& model, double t, const methods::StepReport& report) {
  const std::int64_t now = total_integrations(model);
  const Row row{t,
                report.h,
                report.iterations,
                report.rejected,
                now - integrations_,
                report.estimate_gap,
                report.defect,
                report.connection_defect,
                report.output_defect,
                report.coupling_error,
                report.at_step_floor};
  integrations_ = now;
  if (stream_) {
    format_row(stream_->buffer(), row);
    stream_->row_done();
  }
  if (keep_) rows_.push_back(row);
}

void StepLog::on_end(const model::ModularModel& /*model*/, double /*t*/) {
  if (stream_) stream_->finish();
}

void StepLog::format_row(std::string& out, const Row& r) {
  const auto cell = [&](double v) {
    out += ',';
    if (!std::isnan(v)) fmt::format_to(std::back_inserter(out), "{:.6e}", v);
  };
  append_number(out, r.t);
  out += ',';
  append_number(out, r.h);
  fmt::format_to(std::back_inserter(out), ",{},{},{}", r.iterations, r.rejected, r.integrations);
  cell(r.estimate_gap);
  cell(r.defect);
  cell(r.connection_defect);
  cell(r.output_defect);
  cell(r.coupling_error);
  out += r.at_step_floor ? ",1\n" : ",0\n";
}

void StepLog::write_csv(const std::filesystem::path& path) const {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
  out << kHeader;
  std::string row;
  for (const Row& r : rows_) {
    row.clear();
    format_row(row, r);
    out << row;
  }
}

}  // namespace cosima::observer
