#pragma once
// The SUNDIALS integrators, behind one class: the two packages' calls differ in their names only.
//
//   cvode   CVODE: BDF (orders 1–5), Newton with a dense LU. Its accuracy rests on its history (the
//           Nordsieck array of past steps), which CVODE 6 offers no API to save: a reset() — a
//           restored state, a discontinuity in the inputs — re-initializes it at order 1.
//   arkode  ARKODE's ARKStep, fully implicit: an L-stable diagonally implicit Runge–Kutta method of
//           order 5 (ARK548L2SA's DIRK table), Newton with a dense LU. A one-step method: everything
//           it carries from one step to the next is x and the next step size, which step_memory()
//           saves and a reset() keeps — so a rollback, or a restart, costs it nothing of its order.
//           cosima runs "cvode" systems with it under the methods that roll back (docs/design.md §4).
//
// Both stop exactly at t1 (SetStopTime: never past the step), locate state events by their root
// finding on the event indicators, and step one internal step at a time when the model wants to hear
// of each (fmi2CompletedIntegratorStep). A callback's exception is kept and rethrown once the solver
// returns; a non-finite right-hand side is recoverable (a smaller step) kMaxRecoverable times.
#include <exception>
#include <string>
#include <string_view>

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include "system/native/integrator.hpp"

namespace cosima {

/// The calls of one SUNDIALS package (sundials_integrator.cpp: CVODE's and ARKStep's).
struct SundialsPackage;

class SundialsIntegrator final : public Integrator {
 public:
  /// kind: "cvode" or "arkode".
  SundialsIntegrator(std::string_view kind, const IntegratorOptions& options);
  ~SundialsIntegrator() override;
  SundialsIntegrator(const SundialsIntegrator&) = delete;
  SundialsIntegrator& operator=(const SundialsIntegrator&) = delete;

  [[nodiscard]] std::string_view kind() const override;
  void reset() override;
  /// Nothing to forget: the right-hand side goes on continuously.
  void inputs_continued() override {}
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;
  /// arkode: the step size it would take next (0: its own estimate); cvode: none.
  [[nodiscard]] double step_memory() const override;
  void restore_step_memory(double memory) override;

 private:
  static int rhs_callback(double t, N_Vector y, N_Vector ydot, void* user_data);
  static int root_callback(double t, N_Vector y, double* gout, void* user_data);
  void allocate(Eigen::Index n, double t0);
  void release();
  /// The flag's name and where it happened, as a failure.
  [[nodiscard]] StepResult failed(int flag, double t) const;

  const SundialsPackage& package_;
  IntegratorOptions options_;
  SUNContext context_ = nullptr;
  void* memory_ = nullptr;
  N_Vector y_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
  Eigen::Index size_ = -1;
  bool needs_reinit_ = true;
  double t_last_ = 0.0;
  double next_step_ = 0.0;  ///< arkode: the step size to start from after a re-initialization (0: estimate)
  const StepRhs* current_ = nullptr;
  int roots_ = 0;                 ///< event indicators given to RootInit
  std::exception_ptr failure_;    ///< thrown inside a callback, rethrown after the solver returns
  std::string non_finite_;        ///< the last non-finite derivative, for the failure reason
  int recoverable_failures_ = 0;  ///< non-finite right-hand sides in this advance
  static constexpr int kMaxRecoverable = 100;
};

}  // namespace cosima
