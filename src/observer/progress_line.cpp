#include "observer/progress_line.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cosima::observer {

namespace {

constexpr double kCheckPeriod = 0.01;  ///< seconds between clock readings the stride aims at
double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// "1:02:03", "4:05" or "6 s".
void format_duration(double seconds, char* text, std::size_t size) {
  const auto whole = static_cast<long long>(std::max(0.0, std::round(seconds)));
  if (whole >= 3600) {
    std::snprintf(text, size, "%lld:%02lld:%02lld", whole / 3600, whole / 60 % 60, whole % 60);
  } else if (whole >= 60) {
    std::snprintf(text, size, "%lld:%02lld", whole / 60, whole % 60);
  } else {
    std::snprintf(text, size, "%lld s", whole);
  }
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* stream, bool terminal, double start, double stop)
    : stream_(stream), terminal_(terminal), start_(start), stop_(stop) {}

void ProgressLine::on_start(const model::ModularModel& /*model*/, double /*t*/) {
  began_ = last_check_ = last_draw_ = seconds_now();
}

void ProgressLine::on_step(const model::ModularModel& /*model*/, double t, const methods::StepReport& /*report*/) {
  ++steps_;
  if (--until_check_ > 0) return;
  const double now = seconds_now();
  // aim at one reading per kCheckPeriod: cheap steps read the clock rarely, slow ones at every step
  const double since = now - last_check_;
  if (since < 0.5 * kCheckPeriod) {
    stride_ = std::min<std::int64_t>(stride_ * 2, 1 << 20);
  } else if (since > 2.0 * kCheckPeriod) {
    stride_ = std::max<std::int64_t>(stride_ / 2, 1);
  }
  until_check_ = stride_;
  last_check_ = now;
  const double period = terminal_ ? 0.25 : 1.0;
  if (now - last_draw_ < period) return;
  last_draw_ = now;
  draw(t, now - began_);
}

void ProgressLine::on_end(const model::ModularModel& /*model*/, double t) {
  if (!terminal_) {  // a file or pipe keeps its lines: the last says where and how fast the run ended
    draw(t, seconds_now() - began_);
    return;
  }
  if (updates_ > 0) {
    std::fputs("\r\x1b[K", stream_);  // the summary follows; the line has done its work
    std::fflush(stream_);
  }
}

void ProgressLine::draw(double t, double elapsed) {
  const double span = stop_ - start_;
  const double done = span > 0.0 ? std::clamp((t - start_) / span, 0.0, 1.0) : 1.0;
  const double rate = elapsed > 0.0 ? static_cast<double>(steps_) / elapsed : 0.0;
  char eta[32] = "?";
  if (done > 0.0) format_duration(elapsed * (1.0 - done) / done, eta, sizeof eta);
  std::fprintf(stream_, "%st = %.6g / %.6g  %5.1f %%  %.3g steps/s  ETA %s%s", terminal_ ? "\r" : "", t, stop_,
               100.0 * done, rate, eta, terminal_ ? "\x1b[K" : "\n");
  std::fflush(stream_);
  ++updates_;
}

}  // namespace cosima::observer
