#include "simulation/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "system/emulation/emulated_system.hpp"

namespace cosima::simulation {

namespace {

/// The earliest time event the systems announce, +∞ when none or when some system cannot vary its
/// step to land on it. `announcing`: the systems that may announce events (System::announces_events).
double next_event_time(const model::ModularModel& model, const std::vector<const System*>& announcing) {
  double earliest = std::numeric_limits<double>::infinity();
  for (const System* system : announcing) earliest = std::min(earliest, system->next_event_time());
  if (std::isinf(earliest)) return earliest;
  for (int s = 0; s < model.system_count(); ++s) {
    if (!model.system(s).has(Capability::variable_step)) return std::numeric_limits<double>::infinity();
  }
  return earliest;
}

bool any_event_pending(const std::vector<const System*>& announcing) {
  return std::any_of(announcing.begin(), announcing.end(),
                     [](const System* system) { return system->event_pending(); });
}

/// Throws Error when the run's interval or step cannot be simulated.
void check_run_options(const RunOptions& options) {
  if (!(options.stop > options.start)) {
    throw Error(fmt::format("stop time {} must be after start time {}", options.stop, options.start));
  }
  if (!(options.dt > 0.0) || !std::isfinite(options.dt))
    throw Error(fmt::format("step dt = {} must be positive", options.dt));
  // below this, t + dt is t (a run that never advances) or the run takes more than 10¹² steps
  const double smallest =
      1e-12 * std::max({options.stop - options.start, std::abs(options.start), std::abs(options.stop)});
  if (options.dt < smallest) {
    throw Error(fmt::format("step dt = {} is below {:.3g}, 1e-12 of the run [{}, {}]: give a larger dt", options.dt,
                            smallest, options.start, options.stop));
  }
}

/// What each system provides and what is emulated or stood in for, warning about the latter.
std::vector<SystemCapabilities> capabilities_of(const model::ModularModel& model,
                                                const methods::CouplingMethod& method) {
  std::vector<SystemCapabilities> capabilities;
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    const CapabilitySet emulated = system.emulated_capabilities();
    capabilities.push_back({system.name(), system.capabilities().without(emulated), emulated,
                            system.emulation_substeps(), method.stand_in(system), system.emulated_derivatives()});
    if (!capabilities.back().stand_in.empty()) {
      log(LogLevel::warning,
          fmt::format("system '{}': {} {}", system.name(), method.name(), capabilities.back().stand_in));
    }
    if (emulated.empty()) continue;
    if (emulated.has(Capability::interpolate_inputs))
      capabilities.back().inputs = held_inputs(system.emulation_substeps());
    log(LogLevel::warning,
        fmt::format("system '{}' lacks {} that {} reads: cosima emulates it ({}{} sub-step{} per macro-step{}{}; "
                    "see the stats' \"capabilities\")",
                    system.name(), emulated.describe(), method.name(),
                    emulated.has(Capability::rollback)
                        ? "rollback by running ahead: a step retried shorter reads its outputs interpolated; "
                        : "",
                    system.emulation_substeps(), system.emulation_substeps() == 1 ? "" : "s",
                    capabilities.back().inputs.empty() ? "" : ", inputs " + capabilities.back().inputs,
                    emulated.has(Capability::output_derivatives)
                        ? fmt::format(", output derivatives up to order {} {}", system.max_output_derivative_order(),
                                      capabilities.back().derivatives)
                        : ""));
  }
  return capabilities;
}

void warn_inputs_at_start_values(const model::ModularModel& model) {
  const auto& held = model.inputs_at_start_values();
  if (held.empty()) return;
  std::string list;
  for (const auto& label : held) list += (list.empty() ? "" : ", ") + label;
  log(LogLevel::warning,
      fmt::format("{} unconnected input{} held at {} start value{}: {}", held.size(), held.size() > 1 ? "s" : "",
                  held.size() > 1 ? "their" : "its", held.size() > 1 ? "s" : "", list));
}

/// The end of the next step from t: the next grid point (or the method's proposal), without a
/// sliver before the stop, shortened to the next announced time event.
double next_step_end(const model::ModularModel& model, const methods::CouplingMethod& method, const RunOptions& options,
                     const std::vector<const System*>& announcing, double t, double grid_point, double tiny) {
  double t_next = method.chooses_step() ? t + std::min(method.proposed_step(), options.stop - t) : grid_point;
  // do not leave a sliver at the end (absolute, or relative to the step)
  if (options.stop - t_next < std::max(tiny, 1e-6 * (t_next - t))) t_next = options.stop;
  // land on the next announced time event (when every system can shorten its step for it)
  if (const double event = next_event_time(model, announcing); event > t + tiny && event < t_next - tiny)
    t_next = event;
  if (!(t_next > t) || !std::isfinite(t_next)) {
    throw Error(fmt::format("{}: the step from t = {} to {} is not a positive finite step", method.name(), t, t_next));
  }
  return t_next;
}

/// Adds a step's report to the run's counts (a step held at its floor warns once).
void account(RunStatistics& stats, const methods::StepReport& report, const methods::CouplingMethod& method, double t,
             double asked, double tiny) {
  if (!(report.h >= 0.0) || !std::isfinite(report.h) || report.h > asked + tiny ||
      (report.h == 0.0 && !report.terminated)) {
    throw Error(
        fmt::format("{}: took a step of h = {} from t = {} (asked for at most {})", method.name(), report.h, t, asked));
  }
  stats.rejected_steps += report.rejected;
  stats.iterations += report.iterations;
  if (!std::isnan(report.estimate_gap)) {
    stats.max_estimate_gap = std::isnan(stats.max_estimate_gap) ? report.estimate_gap
                                                                : std::max(stats.max_estimate_gap, report.estimate_gap);
  }
  if (report.at_step_floor && stats.steps_at_step_floor++ == 0) {
    log(LogLevel::warning,
        fmt::format(
            "{}: from t = {} the step is held at its minimum h = {:.3g} although the error "
            "asks for less: the error is no longer controlled there (method.dt_min, h_min under defect-jacobi; the "
            "step log's at_step_floor column marks those steps)",
            method.name(), t, report.h));
  }
}

/// The counts gathered from the systems at the end, and the closing warning.
void finish(RunStatistics& stats, const model::ModularModel& model, const methods::CouplingMethod& method, double t) {
  for (int s = 0; s < model.system_count(); ++s) {
    stats.integrations += model.system(s).integrations();
    stats.integration_time_s += model.system(s).integration_seconds();
  }
  stats.end_time = t;
  if (stats.steps_at_step_floor > 1) {
    log(LogLevel::warning,
        fmt::format("{}: {} steps were held at the minimum step", method.name(), stats.steps_at_step_floor));
  }
  stats.method_totals = method.totals();
  stats.coupling_error = method.coupling_error().report(model);
  for (const std::string& warning : stats.coupling_error.warnings) log(LogLevel::warning, warning);
}

/// A step a system ended before its end (fmi2Terminated / fmiDiscard at fmiLastSuccessfulTime t_e,
/// StepResult::step_completed false): the run ends at t_N, the last communication point every system
/// reached — unless every system now stands at one time t_e > t_N (one system alone, as FMPy and fmusim
/// run an FMU), whose values are then the run's last row: the step becomes t_e − t_N.
bool stopped_together(const model::ModularModel& model, double t, double tiny, methods::StepReport& report) {
  if (model.system_count() == 0) return false;
  const double t_e = model.system(0).time();
  if (!(t_e > t + tiny)) return false;
  for (int s = 1; s < model.system_count(); ++s) {
    if (model.system(s).time() != t_e) return false;
  }
  report.h = t_e - t;
  return true;
}

/// The systems that may announce events: asked about them at every step.
std::vector<const System*> announcing_systems(const model::ModularModel& model) {
  std::vector<const System*> announcing;
  for (int s = 0; s < model.system_count(); ++s) {
    if (model.system(s).announces_events()) announcing.push_back(&model.system(s));
  }
  return announcing;
}

}  // namespace

RunStatistics simulate(model::ModularModel& model, methods::CouplingMethod& method, const RunOptions& options,
                       const std::vector<observer::Observer*>& observers) {
  check_run_options(options);
  const auto wall_start = std::chrono::steady_clock::now();
  method.check(model);
  RunStatistics stats;
  stats.capabilities = capabilities_of(model, method);
  warn_inputs_at_start_values(model);
  for (int s = 0; s < model.system_count(); ++s) model.system(s).reset_counters();
  exec::SequentialExecutor in_this_thread;
  exec::Executor& executor = options.executor != nullptr ? *options.executor : in_this_thread;
  executor.attach(model);
  method.set_executor(executor);
  method.set_stop_time(options.stop);
  method.track_coupling_error(model, options.accuracy);
  method.initialize(model, options.start);
  model.exchange_at_communication_point();
  for (observer::Observer* observer : observers) observer->on_start(model, options.start);

  const std::vector<const System*> announcing = announcing_systems(model);
  const bool diagnostics = method.coupling_error().tracked() &&
                           std::any_of(observers.begin(), observers.end(),
                                       [](const observer::Observer* o) { return o->reads_step_diagnostics(); });
  stats.method = std::string(method.name());
  stats.initialization = method.initialization();
  stats.inputs_at_start_values = model.inputs_at_start_values();
  double t = options.start;
  const double tiny = 1e-12 * std::max(1.0, std::abs(options.stop));
  std::int64_t grid_index = 0;
  while (t < options.stop - tiny) {
    if (const int signal = stop_requested(); signal != 0) {  // SIGINT / SIGTERM: stop at this communication point
      stats.terminated_early = true;
      stats.interrupted_by = signal;
      stats.termination_reason = fmt::format("interrupted by {} at t = {}", stop_signal_name(signal), t);
      break;
    }
    const double grid_point = std::min(options.start + static_cast<double>(grid_index + 1) * options.dt, options.stop);
    const double t_next = next_step_end(model, method, options, announcing, t, grid_point, tiny);
    methods::StepReport report = method.step(model, t, t_next - t);
    if (diagnostics) report.coupling_error = method.coupling_error().last_step();
    account(stats, report, method, t, t_next - t, tiny);
    if (report.terminated) {
      stats.terminated_early = true;
      stats.termination_reason = report.reason;
      if (const int signal = stop_requested(); signal != 0 && report.h == 0.0) {  // inside the step's iteration
        stats.interrupted_by = signal;
        stats.termination_reason = fmt::format("interrupted by {} at t = {}", stop_signal_name(signal), t);
      }
      if (report.h == 0.0 && !stopped_together(model, t, tiny, report)) break;  // else the step is kept
    }
    ++stats.macro_steps;
    t = report.h == t_next - t ? t_next : t + report.h;
    if (t >= grid_point - tiny) ++grid_index;
    bool last = report.terminated;
    const bool event = !last && any_event_pending(announcing);
    report.ends_on_event = event;
    for (observer::Observer* observer : observers) observer->on_step(model, t, report);  // left limits at an event
    if (const std::string& diverging = method.coupling_error().diverging();
        !diverging.empty() && !options.accuracy.allow_divergence) {
      throw Error(fmt::format("{} at t = {:.6g}: {}", method.name(), t, diverging));  // the rows so far are on disk
    }
    if (event) {                       // a system asking to stop at its event ends the run here
      method.forget_coupling_start();  // the outputs move to their right limits
      if (std::string reason = method.handle_discontinuity(model, t); !reason.empty()) {
        stats.terminated_early = true;
        stats.termination_reason = std::move(reason);
        last = true;
      }
      for (observer::Observer* observer : observers) observer->on_discontinuity(model, t);
    }
    if (last) break;
    model.exchange_at_communication_point();
  }
  for (observer::Observer* observer : observers) observer->on_end(model, t);
  finish(stats, model, method, t);
  stats.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return stats;
}

}  // namespace cosima::simulation
