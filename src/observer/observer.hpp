#pragma once
// Observers watch a run without taking part in it (libcosim's observer idea): the driver calls
// them at the start, after every completed macro-step and at the end. A step that ends on an event
// (a system announced one there) is seen twice: on_step with the outputs at their left limits, then,
// once the event is handled, on_discontinuity with their right limits.
#include "methods/coupling_method.hpp"
#include "model/modular_model.hpp"

namespace cosima::observer {

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_start(const model::ModularModel& /*model*/, double /*t*/) {}
  virtual void on_step(const model::ModularModel& /*model*/, double /*t*/, const methods::StepReport& /*report*/) {}
  /// After on_step(t), when the outputs jumped to their right limits at an event at t.
  virtual void on_discontinuity(const model::ModularModel& /*model*/, double /*t*/) {}
  virtual void on_end(const model::ModularModel& /*model*/, double /*t*/) {}
  /// Whether on_step reads the step's diagnostics that cost the driver work to fill in
  /// (StepReport::coupling_error).
  [[nodiscard]] virtual bool reads_step_diagnostics() const { return false; }
};

}  // namespace cosima::observer
