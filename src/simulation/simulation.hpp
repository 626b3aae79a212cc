#pragma once
// The driver: initializes the method, walks time from start to stop and tells the observers.
// Fixed-step methods follow the grid t_N = start + N·dt (no accumulated drift); variable-step
// methods propose their own step, clipped to stop.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "methods/coupling_method.hpp"
#include "model/modular_model.hpp"
#include "observer/observer.hpp"

namespace cosima::simulation {

struct RunOptions {
  double start = 0.0;
  double stop = 1.0;
  double dt = 1e-2;                    ///< macro-step of fixed-step methods, initial/reference step of the others
  exec::Executor* executor = nullptr;  ///< nullptr: sequential, in this thread
  methods::AccuracyOptions accuracy;   ///< when the coupling error warns (methods/coupling_error.hpp)
};

/// What one system brought to the run: its own capabilities and those cosima emulated for it.
struct SystemCapabilities {
  std::string system;
  CapabilitySet native, emulated;
  int substeps = 1;         ///< integrations per macro-step the emulation spends
  std::string stand_in;     ///< how the method stands in for what it cannot read (CouplingMethod::stand_in)
  std::string derivatives;  ///< where emulated output derivatives come from (System::emulated_derivatives)
  std::string inputs;       ///< how emulated input interpolation holds the inputs (held_inputs)
};

struct RunStatistics {
  std::string method;
  std::string method_choice;                        ///< why "auto" chose `method` (empty when it was named)
  std::vector<std::string> guessed;                 ///< values the run chose itself (Scenario::guessed)
  std::vector<SystemCapabilities> capabilities;     ///< one per system, in model order
  methods::InitializationReport initialization;     ///< how the initial values were made consistent
  std::vector<std::string> inputs_at_start_values;  ///< unconnected inputs (ModularModel::inputs_at_start_values)
  std::int64_t macro_steps = 0;
  std::int64_t rejected_steps = 0;
  std::int64_t iterations = 0;
  std::int64_t integrations = 0;         ///< do_step calls over all systems
  std::int64_t steps_at_step_floor = 0;  ///< steps taken at the method's minimum with the error too large
  double wall_time_s = 0.0;
  double integration_time_s = 0.0;  ///< time spent inside the systems' do_step (sampled, System::integration_seconds)
  double end_time = 0.0;
  /// Largest StepReport::estimate_gap of the run (COSTARICA, MISSILES); NaN when nothing was estimated.
  double max_estimate_gap = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, double>> method_totals;  ///< CouplingMethod::totals()
  methods::CouplingErrorReport coupling_error;                ///< the connection defect of the run, per connection
  bool terminated_early = false;
  std::string termination_reason;
  int interrupted_by = 0;  ///< SIGINT / SIGTERM that stopped the run, or 0
};

RunStatistics simulate(model::ModularModel& model, methods::CouplingMethod& method, const RunOptions& options,
                       const std::vector<observer::Observer*>& observers = {});

}  // namespace cosima::simulation
