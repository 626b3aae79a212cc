#include "methods/coupling_error.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "methods/sweep_plan.hpp"

namespace cosima::methods {

namespace {

/// A step whose defect is this fraction of its signal's scale or more carried nothing of the signal.
constexpr double kUninformed = 0.5;

/// Shifts four samples left by one, dropping the oldest, and puts `newest` last.
void push_back_sample(std::array<double, 4>& samples, double newest) {
  samples[0] = samples[1];
  samples[1] = samples[2];
  samples[2] = samples[3];
  samples[3] = newest;
}

/// RMS of a defect whose square integrates to `square` over `time`.
double rms_of(double square, double time) { return time > 0.0 ? std::sqrt(square / time) : 0.0; }

}  // namespace

void CouplingErrorMonitor::configure(const model::ModularModel& model, const AccuracyOptions& options) {
  options_ = options;
  model_ = &model;
  diverging_.clear();
  links_.clear();
  const std::vector<char> on_cycle = plan_sweeps(model).on_cycle;
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = model.input_sources()[static_cast<std::size_t>(g)];
    if (source < 0 || model.input_held(g)) continue;  // constants and held (discrete) inputs have no defect
    const model::LinearTransform& transform = model.input_transform(g);
    const int system = model.system_of_output(source);
    const std::optional<double> nominal =
        model.system(system).output_info(source - model.output_offset(system)).nominal;
    links_.push_back({.input = g,
                      .output = source,
                      .scale = transform.scale,
                      .offset = transform.offset,
                      .nominal = std::abs(transform.scale * nominal.value_or(0.0)),
                      .in_loop = on_cycle[static_cast<std::size_t>(system)] != 0});
  }
  totals_.assign(links_.size(), Totals{});
  start_known_ = false;
  recorded_ = false;
  past_count_ = 0;
  time_ = 0.0;
  tracked_ = true;
}

void CouplingErrorMonitor::set_start_outputs(ConstVectorView y) {
  if (!tracked_) return;
  const Link* const links = links_.data();  // once per step: plain pointers, as record()
  Totals* const all = totals_.data();
  for (std::size_t c = 0; c < links_.size(); ++c) all[c].start = links[c].scale * y[links[c].output] + links[c].offset;
  start_known_ = true;
}

void CouplingErrorMonitor::watch_divergence(std::size_t link, double t, double mean_square) {
  Totals& totals = totals_[link];
  if (!links_[link].in_loop) return;  // a source outside every loop (a table) cannot amplify the coupling's error
  if (!(std::sqrt(mean_square) >= kUninformed * totals.signal) || !(totals.signal > 0.0)) {
    totals.streak = 0;
    return;
  }
  if (totals.streak++ == 0) {
    totals.streak_signal = totals.signal;
    totals.streak_time = t;
  }
  if (totals.streak < options_.diverging_steps || !(totals.signal >= options_.growth * totals.streak_signal) ||
      !diverging_.empty()) {
    return;
  }
  diverging_ = fmt::format(
      "the coupling diverges: the connection {} → {} has had a defect of at least half its signal's scale on every "
      "step since t = {:.6g} ({} steps), while the signal grew from {:.3g} to {:.3g} (an explicit scheme amplifying "
      "its own error: a smaller step, or an iterative method such as ifosmondi-jfm; \"allow_divergence\": true runs "
      "on)",
      model_->output_label(links_[link].output), model_->input_label(links_[link].input), totals.streak_time,
      totals.streak, totals.streak_signal, totals.signal);
}

double CouplingErrorMonitor::fourth_derivative(const Totals& totals, double h, double u1) const {
  if (past_count_ < 4) return 0.0;
  // |y⁗| = 24 |u[t0, …, t4]|, the divided differences in place
  std::array<double, 5> d{totals.past[0], totals.past[1], totals.past[2], totals.past[3], u1};
  const std::array<double, 5> times{past_times_[0], past_times_[1], past_times_[2], past_times_[3], past_times_[3] + h};
  for (std::size_t order = 1; order < 5; ++order) {
    for (std::size_t i = 4; i >= order; --i) d[i] = (d[i] - d[i - 1]) / (times[i] - times[i - order]);
  }
  return 24.0 * std::abs(d[4]);
}

std::pair<double, double> CouplingErrorMonitor::interior(Totals& totals, double h, double u1) const {
  const double fourth = fourth_derivative(totals, h, u1);
  push_back_sample(totals.past, u1);
  const double h4 = h * h * h * h;
  const double rms = fourth * h4 / (24.0 * std::sqrt(630.0));
  return {rms * rms, fourth * h4 / 384.0};
}

double CouplingErrorMonitor::step_error(double h, ConstVectorView u_start, ConstVectorView u_end, ConstVectorView y_end,
                                        bool hermite, double tol, double atol) {
  double worst = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t c = 0; c < links_.size(); ++c) {
    const Link& link = links_[c];
    Totals& totals = totals_[c];
    const double y1 = link.scale * y_end(link.output) + link.offset;
    // the attempts' scale (trial_signal) is kept apart from the run's (signal, accepted steps only)
    if (std::isfinite(y1)) {
      totals.trial_signal =
          std::max({totals.trial_signal, totals.signal, std::abs(y1), start_known_ ? std::abs(totals.start) : 0.0});
    }
    const double weight = (atol >= 0.0 ? atol : tol * link.nominal) + tol * totals.trial_signal;
    if (!(weight > 0.0)) continue;  // no scale yet: nothing to be relative to
    // the step's own defect. Held inputs: δ linear between the ends (a Gauss–Seidel input taken from
    // the step's end has its defect at the start). Hermite inputs: δ rising linearly from 0 to the
    // end's (the start's is the gap the previous step left, which no shorter step changes), and the
    // interpolation error inside
    const double d1 = u_end(link.input) - y1;
    double square = hermite ? d1 * d1 / 3.0 : ends(totals, u_start(link.input), u_end(link.input), y1).mean_square;
    if (hermite && past_count_ == 4) {
      const double rms = fourth_derivative(totals, h, u_end(link.input)) * h * h * h * h / (24.0 * std::sqrt(630.0));
      square += rms * rms;
    } else if (hermite) {  // no y⁗ yet: the defect of holding the input over the step bounds it
      const double change = u_end(link.input) - u_start(link.input);
      square += change * change / 3.0;
    }
    const double error = std::sqrt(square) / weight;
    worst = std::isnan(worst) ? error : std::max(worst, error);
  }
  return worst;
}

void CouplingErrorMonitor::record(double t, double h, ConstVectorView u_start, ConstVectorView u_end,
                                  ConstVectorView y_end, bool hermite) {
  if (!tracked_) return;
  const double* const u0 = u_start.data();
  const double* const u1 = u_end.data();
  const double* const y = y_end.data();
  const std::size_t n = links_.size();
  const Link* const links = links_.data();
  Totals* const all = totals_.data();
  for (std::size_t c = 0; c < n; ++c) {  // once per step and connection: kept lean
    const Link& link = links[c];
    Totals& totals = all[c];
    const double y1 = link.scale * y[link.output] + link.offset;
    const auto [mean_square, d0, d1] = ends(totals, u0[link.input], u1[link.input], y1);
    totals.square += mean_square * h;
    totals.max = std::max(totals.max, std::max(std::abs(d0), std::abs(d1)));
    totals.signal = std::max(totals.signal, std::abs(y1));
    totals.last = mean_square;
    totals.start = y1;
  }
  for (std::size_t c = 0; hermite && c < n; ++c) {  // and the Hermite interpolant's error inside the step
    Totals& totals = all[c];
    if (past_count_ == 0) totals.past[3] = u0[links[c].input];
    const auto [square, max] = interior(totals, h, u1[links[c].input]);
    totals.square += square * h;
    totals.last += square;
    totals.max = std::max(totals.max, max);
  }
  recorded_ = true;
  if (hermite) {
    if (past_count_ == 0) past_times_[3] = t;
    push_back_sample(past_times_, t + h);
    past_count_ = std::min(std::max(past_count_, 1) + 1, 4);  // the first step brings its start too
  }
  for (std::size_t c = 0; c < n; ++c) watch_divergence(c, t, all[c].last);
  time_ += h;
  start_known_ = true;
}

double CouplingErrorMonitor::last_step() const {
  if (!recorded_) return std::numeric_limits<double>::quiet_NaN();
  double worst = 0.0;
  for (const Totals& totals : totals_) {
    if (totals.last > 0.0) worst = std::max(worst, std::sqrt(totals.last) / totals.signal);
  }
  return worst;
}

CouplingErrorReport CouplingErrorMonitor::report(const model::ModularModel& model) const {
  CouplingErrorReport report;
  report.tracked = tracked_;
  if (!tracked_) return report;
  double sum_relative = 0.0;
  const ConnectionError* worst = nullptr;
  int over = 0;
  for (std::size_t c = 0; c < links_.size(); ++c) {
    const Totals& totals = totals_[c];
    ConnectionError error{.output = model.output_label(links_[c].output),
                          .input = model.input_label(links_[c].input),
                          .rms = rms_of(totals.square, time_),
                          .max = totals.max,
                          .scale = totals.signal};
    sum_relative += error.relative(error.rms) * error.relative(error.rms);
    report.max_relative = std::max(report.max_relative, error.relative(error.max));
    report.connections.push_back(std::move(error));
  }
  report.rms_relative = links_.empty() ? 0.0 : std::sqrt(sum_relative / static_cast<double>(links_.size()));
  for (const ConnectionError& error : report.connections) {
    if (!(error.relative(error.rms) > options_.threshold)) continue;
    ++over;
    if (worst == nullptr || error.relative(error.rms) > worst->relative(worst->rms)) worst = &error;
  }
  if (over > 0) {
    report.warnings.push_back(
        fmt::format("coupling error: {} connection{} exceed{} accuracy.threshold = {:g}, the worst {} → {} with an RMS "
                    "connection defect of {:.3g} relative to its signal's scale {:.3g} (a smaller step or an iterative "
                    "method lowers it; see the stats' \"coupling_error\")",
                    over, over > 1 ? "s" : "", over > 1 ? "" : "s", options_.threshold, worst->output, worst->input,
                    worst->relative(worst->rms), worst->scale));
  }
  if (!diverging_.empty()) report.warnings.push_back("coupling error: " + diverging_);
  report.accuracy_warning = !report.warnings.empty();
  return report;
}

}  // namespace cosima::methods
