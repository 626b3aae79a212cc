#pragma once
// A live progress line on stderr: simulated time, percentage, macro-steps per second and the time
// left, redrawn a few times per second. On a terminal it rewrites one line ('\r'); elsewhere
// (--progress into a file or pipe) it writes a line per update, once a second, and one at the end.
//
// Cost in the loop: the clock is read only every `stride_` steps, and the stride adapts so that it
// is read about a hundred times a second, whatever a macro-step costs.
#include <cstdint>
#include <cstdio>

#include "observer/observer.hpp"

namespace cosima::observer {

class ProgressLine final : public Observer {
 public:
  /// `stream`: where the line goes; `terminal`: whether it is one (redraw in place).
  ProgressLine(std::FILE* stream, bool terminal, double start, double stop);
  void on_start(const model::ModularModel& model, double t) override;
  void on_step(const model::ModularModel& model, double t, const methods::StepReport& report) override;
  void on_end(const model::ModularModel& model, double t) override;
  /// Lines drawn so far (tests).
  [[nodiscard]] std::int64_t updates() const { return updates_; }

 private:
  void draw(double t, double elapsed);

  std::FILE* stream_;
  bool terminal_;
  double start_, stop_;
  double began_ = 0.0;       ///< steady_clock seconds at on_start
  double last_check_ = 0.0;  ///< when the clock was last read
  double last_draw_ = 0.0;
  std::int64_t steps_ = 0;
  std::int64_t stride_ = 1;  ///< steps between clock readings
  std::int64_t until_check_ = 1;
  std::int64_t updates_ = 0;
};

}  // namespace cosima::observer
