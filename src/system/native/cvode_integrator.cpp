#include "system/native/cvode_integrator.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cstdlib>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"

namespace cosima {

namespace {
constexpr long kMaxCvodeSteps = 1'000'000;  ///< per advance
/// CVodeGetReturnFlagName's name (it allocates the string; the caller frees it).
std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string text = name != nullptr ? name : "unknown flag";
  std::free(name);  // NOLINT(cppcoreguidelines-no-malloc): SUNDIALS allocates it with malloc
  return text;
}

void check(int flag, const char* call) {
  if (flag < 0) throw Error(fmt::format("cvode: {} failed ({})", call, flag_name(flag)));
}

/// CVODE's own messages go to the debug log: its failures come back as reasons anyway.
void cvode_message(int code, const char* module, const char* function, char* message, void* /*data*/) {
  if (log_level() < LogLevel::debug) return;
  log(LogLevel::debug, fmt::format("{} {} ({}): {}", module != nullptr ? module : "CVODE",
                                   function != nullptr ? function : "", code, message != nullptr ? message : ""));
}
}  // namespace

CvodeIntegrator::CvodeIntegrator(const IntegratorOptions& options) : options_(options) {
  if (SUNContext_Create(nullptr, &context_) != 0) throw Error("cvode: SUNContext_Create failed");
}

CvodeIntegrator::~CvodeIntegrator() {
  release();
  SUNContext_Free(&context_);
}

void CvodeIntegrator::release() {
  if (memory_ != nullptr) CVodeFree(&memory_);
  if (solver_ != nullptr) SUNLinSolFree(solver_);
  if (matrix_ != nullptr) SUNMatDestroy(matrix_);
  if (y_ != nullptr) N_VDestroy(y_);
  memory_ = nullptr;
  solver_ = nullptr;
  matrix_ = nullptr;
  y_ = nullptr;
  size_ = -1;
  roots_ = 0;
}

// The callbacks run inside CVODE's C frames: an exception must not cross them. It is kept and
// rethrown once CVode returns (a negative return makes CVODE stop at once).
int CvodeIntegrator::rhs_callback(double t, N_Vector y, N_Vector ydot, void* user_data) {
  auto* self = static_cast<CvodeIntegrator*>(user_data);
  const auto n = static_cast<Eigen::Index>(N_VGetLength(y));
  Eigen::Map<const Eigen::VectorXd> x(N_VGetArrayPointer(y), n);
  Eigen::Map<Eigen::VectorXd> dx(N_VGetArrayPointer(ydot), n);
  try {
    (*self->current_)(t, x, dx);
  } catch (...) {
    self->failure_ = std::current_exception();
    return -1;
  }
  ++self->rhs_evaluations_;
  if (dx.allFinite()) return 0;
  self->non_finite_ = fmt::format("{} at t = {}", self->current_->non_finite(dx), t);
  // positive: recoverable, CVODE retries with a smaller step (a trial point outside the model's
  // domain). A right-hand side that stays non-finite makes CVODE creep towards that time with ever
  // smaller steps: after kMaxRecoverable failures in one advance it is an error.
  return ++self->recoverable_failures_ > kMaxRecoverable ? -1 : 1;
}

int CvodeIntegrator::root_callback(double t, N_Vector y, double* gout, void* user_data) {
  auto* self = static_cast<CvodeIntegrator*>(user_data);
  const auto n = static_cast<Eigen::Index>(N_VGetLength(y));
  Eigen::Map<const Eigen::VectorXd> x(N_VGetArrayPointer(y), n);
  Eigen::Map<Eigen::VectorXd> z(gout, self->roots_);
  try {
    self->current_->indicators(t, x, z);
  } catch (...) {
    self->failure_ = std::current_exception();
    return -1;
  }
  return 0;
}

void CvodeIntegrator::allocate(Eigen::Index n, double t0) {
  release();
  y_ = N_VNew_Serial(n, context_);
  memory_ = CVodeCreate(CV_BDF, context_);
  if (y_ == nullptr || memory_ == nullptr) throw Error("cvode: allocation failed");
  check(CVodeInit(memory_, rhs_callback, t0, y_), "CVodeInit");
  check(CVodeSetUserData(memory_, this), "CVodeSetUserData");
  check(CVodeSetErrHandlerFn(memory_, cvode_message, nullptr), "CVodeSetErrHandlerFn");
  if (options_.state_atol.size() == n) {  // CVODE keeps a copy of the vector
    N_Vector atol = N_VNew_Serial(n, context_);
    if (atol == nullptr) throw Error("cvode: allocation failed");
    std::copy(options_.state_atol.data(), options_.state_atol.data() + n, N_VGetArrayPointer(atol));
    const int flag = CVodeSVtolerances(memory_, options_.rtol, atol);
    N_VDestroy(atol);
    check(flag, "CVodeSVtolerances");
  } else {
    check(CVodeSStolerances(memory_, options_.rtol, options_.atol), "CVodeSStolerances");
  }
  matrix_ = SUNDenseMatrix(n, n, context_);
  solver_ = SUNLinSol_Dense(y_, matrix_, context_);
  check(CVodeSetLinearSolver(memory_, solver_, matrix_), "CVodeSetLinearSolver");
  check(CVodeSetMaxNumSteps(memory_, kMaxCvodeSteps), "CVodeSetMaxNumSteps");
  if (options_.max_step > 0.0) check(CVodeSetMaxStep(memory_, options_.max_step), "CVodeSetMaxStep");
  size_ = n;
}

StepResult CvodeIntegrator::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  stop_ = {t1};
  const Eigen::Index n = x.size();
  if (n == 0) return advance_without_states(rhs, t0, t1, x);
  if (t1 <= t0) return StepResult::success();
  current_ = &rhs;
  if (size_ != n) {
    allocate(n, t0);
    needs_reinit_ = true;
  }
  if (roots_ != rhs.indicator_count()) {  // CVODE's rootfinding on the event indicators
    roots_ = rhs.indicator_count();
    check(CVodeRootInit(memory_, roots_, roots_ > 0 ? root_callback : nullptr), "CVodeRootInit");
  }
  if (needs_reinit_ || t0 != t_last_) {
    std::copy(x.data(), x.data() + n, N_VGetArrayPointer(y_));
    check(CVodeReInit(memory_, t0, y_), "CVodeReInit");
    needs_reinit_ = false;
  }
  check(CVodeSetStopTime(memory_, t1), "CVodeSetStopTime");
  double t_reached = t0;
  const bool report_steps = rhs.wants_step_reports();
  int flag = CV_SUCCESS;
  failure_ = nullptr;
  non_finite_.clear();
  recoverable_failures_ = 0;
  for (long steps = 0;; ++steps) {
    if (steps == kMaxCvodeSteps) {
      current_ = nullptr;
      needs_reinit_ = true;
      return StepResult::failure(
          fmt::format("cvode: more than {} steps on [{}, {}], at t = {}", kMaxCvodeSteps, t0, t1, t_reached));
    }
    // one internal step at a time when the model wants to hear of each (fmi2CompletedIntegratorStep)
    flag = CVode(memory_, t1, y_, &t_reached, report_steps ? CV_ONE_STEP : CV_NORMAL);
    if (flag < 0 || flag == CV_ROOT_RETURN || !report_steps) break;
    std::copy(N_VGetArrayPointer(y_), N_VGetArrayPointer(y_) + n, x.data());
    const IntegratorStepReport report = rhs.step_completed(t_reached, x);
    if (report.enter_event_mode || report.terminate) {
      stop_ = {t_reached, false, report.enter_event_mode, report.terminate};
      break;
    }
    if (flag == CV_TSTOP_RETURN || t_reached >= t1) break;
  }
  current_ = nullptr;
  if (failure_) {
    needs_reinit_ = true;
    std::rethrow_exception(std::exchange(failure_, nullptr));
  }
  if (flag < 0) {
    needs_reinit_ = true;
    return StepResult::failure(fmt::format("cvode: {} at t = {}{}", flag_name(flag), t_reached,
                                           non_finite_.empty() ? "" : " (" + non_finite_ + ")"));
  }
  if (flag == CV_ROOT_RETURN) stop_ = {t_reached, true, false, false};
  std::copy(N_VGetArrayPointer(y_), N_VGetArrayPointer(y_) + n, x.data());
  t_last_ = t_reached;
  return StepResult::success();
}

}  // namespace cosima
