#pragma once
#include <exception>
#include <string>

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include "system/native/integrator.hpp"

namespace cosima {

/// SUNDIALS CVODE (BDF, Newton iteration, dense direct linear solver). Re-initialised after every
/// reset() — new inputs or a restored state are discontinuities BDF history must not cross — and
/// stopped exactly at t1 (CVodeSetStopTime) so that it never integrates past the step.
class CvodeIntegrator final : public Integrator {
 public:
  explicit CvodeIntegrator(const IntegratorOptions& options);
  ~CvodeIntegrator() override;
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  [[nodiscard]] std::string_view kind() const override { return "cvode"; }
  void reset() override { needs_reinit_ = true; }
  StepResult advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) override;

 private:
  static int rhs_callback(double t, N_Vector y, N_Vector ydot, void* user_data);
  static int root_callback(double t, N_Vector y, double* gout, void* user_data);
  void allocate(Eigen::Index n, double t0);
  void release();

  IntegratorOptions options_;
  SUNContext context_ = nullptr;
  void* memory_ = nullptr;
  N_Vector y_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
  Eigen::Index size_ = -1;
  bool needs_reinit_ = true;
  double t_last_ = 0.0;
  const StepRhs* current_ = nullptr;
  int roots_ = 0;                 ///< event indicators given to CVodeRootInit
  std::exception_ptr failure_;    ///< thrown inside a callback, rethrown after CVode
  std::string non_finite_;        ///< the last non-finite derivative, for the failure reason
  int recoverable_failures_ = 0;  ///< non-finite right-hand sides in this advance
  static constexpr int kMaxRecoverable = 100;
};

}  // namespace cosima
