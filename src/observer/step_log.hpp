#pragma once
// Per-macro-step statistics for plots: time reached, step size, coupling iterations, rejected
// attempts, integrations (do_step calls over all systems, rejected attempts included), and the
// method's diagnostics: the gap between estimated and real outputs (COSTARICA, MISSILES), the
// defects (defect-jacobi) — empty cells when the method has none. Rows go to a CSV stream as the
// run goes and/or stay in memory.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "observer/csv_stream.hpp"
#include "observer/observer.hpp"

namespace cosima::observer {

class StepLog final : public Observer {
 public:
  struct Row {
    double t;
    double h;
    std::int64_t iterations;
    std::int64_t rejected;
    std::int64_t integrations;
    double estimate_gap;                              ///< NaN when nothing was estimated
    double defect, connection_defect, output_defect;  ///< NaN unless the method controls defects
    double coupling_error;                            ///< StepReport::coupling_error (NaN: not tracked)
    bool at_step_floor;                               ///< StepReport::at_step_floor
  };
  /// csv: stream the rows there (the file is created at once); keep_in_memory: for rows().
  explicit StepLog(const std::optional<std::filesystem::path>& csv = std::nullopt, bool keep_in_memory = true);
  void on_start(const model::ModularModel& model, double t) override;
  void on_step(const model::ModularModel& model, double t, const methods::StepReport& report) override;
  void on_end(const model::ModularModel& model, double t) override;
  [[nodiscard]] bool reads_step_diagnostics() const override { return true; }
  [[nodiscard]] const std::vector<Row>& rows() const { return rows_; }
  void write_csv(const std::filesystem::path& path) const;

 private:
  static void format_row(std::string& out, const Row& row);

  std::unique_ptr<CsvStream> stream_;
  bool keep_;
  std::vector<Row> rows_;
  std::int64_t integrations_ = 0;
};

}  // namespace cosima::observer
