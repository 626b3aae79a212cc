#include "system/native/sundials_integrator.hpp"

#include <arkode/arkode.h>
#include <arkode/arkode_arkstep.h>
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

using RhsFunction = int (*)(double, N_Vector, N_Vector, void*);
using RootFunction = int (*)(double, N_Vector, double*, void*);
using MessageFunction = void (*)(int, const char*, const char*, char*, void*);

/// One package's calls, in the signatures both share (CVRhsFn and ARKRhsFn are the same type).
struct SundialsPackage {
  const char* kind;
  void* (*create)(RhsFunction f, double t0, N_Vector y, SUNContext context);  ///< created and initialized
  int (*reinit)(void* memory, RhsFunction f, double t0, N_Vector y);
  int (*scalar_tolerances)(void* memory, double rtol, double atol);
  int (*vector_tolerances)(void* memory, double rtol, N_Vector atol);
  int (*set_user_data)(void* memory, void* data);
  int (*set_message_handler)(void* memory, MessageFunction handler, void* data);
  int (*set_linear_solver)(void* memory, SUNLinearSolver solver, SUNMatrix matrix);
  int (*set_max_steps)(void* memory, long steps);
  int (*set_max_step)(void* memory, double h);
  int (*root_init)(void* memory, int roots, RootFunction g);
  int (*set_stop_time)(void* memory, double t);
  int (*evolve)(void* memory, double t_out, N_Vector y, double* t_reached, int task);
  int (*set_init_step)(void* memory, double h);   ///< nullptr: the package keeps no step memory
  int (*get_next_step)(void* memory, double* h);  ///< nullptr: idem
  char* (*flag_name)(long flag);
  void (*free)(void** memory);
  int normal, one_step, root_return, tstop_return;  ///< the package's task and return codes
};

namespace {

constexpr long kMaxSteps = 1'000'000;  ///< per advance
constexpr int kArkodeOrder = 5;        ///< ARKStep's implicit table of this order (ARK548L2SA's DIRK)

const SundialsPackage kCvode{
    .kind = "cvode",
    .create = [](RhsFunction f, double t0, N_Vector y, SUNContext context) -> void* {
      void* memory = CVodeCreate(CV_BDF, context);
      if (memory != nullptr && CVodeInit(memory, f, t0, y) < 0) CVodeFree(&memory);
      return memory;
    },
    .reinit = [](void* memory, RhsFunction /*f*/, double t0, N_Vector y) { return CVodeReInit(memory, t0, y); },
    .scalar_tolerances = CVodeSStolerances,
    .vector_tolerances = CVodeSVtolerances,
    .set_user_data = CVodeSetUserData,
    .set_message_handler = CVodeSetErrHandlerFn,
    .set_linear_solver = CVodeSetLinearSolver,
    .set_max_steps = CVodeSetMaxNumSteps,
    .set_max_step = CVodeSetMaxStep,
    .root_init = CVodeRootInit,
    .set_stop_time = CVodeSetStopTime,
    .evolve = CVode,
    .set_init_step = nullptr,
    .get_next_step = nullptr,
    .flag_name = CVodeGetReturnFlagName,
    .free = CVodeFree,
    .normal = CV_NORMAL,
    .one_step = CV_ONE_STEP,
    .root_return = CV_ROOT_RETURN,
    .tstop_return = CV_TSTOP_RETURN,
};

const SundialsPackage kArkode{
    .kind = "arkode",
    .create = [](RhsFunction f, double t0, N_Vector y, SUNContext context) -> void* {
      void* memory = ARKStepCreate(nullptr, f, t0, y, context);  // f implicit: the whole system is stiff
      if (memory != nullptr && ARKStepSetOrder(memory, kArkodeOrder) < 0) ARKStepFree(&memory);
      return memory;
    },
    .reinit = [](void* memory, RhsFunction f, double t0,
                 N_Vector y) { return ARKStepReInit(memory, nullptr, f, t0, y); },
    .scalar_tolerances = ARKStepSStolerances,
    .vector_tolerances = ARKStepSVtolerances,
    .set_user_data = ARKStepSetUserData,
    .set_message_handler = ARKStepSetErrHandlerFn,
    .set_linear_solver = ARKStepSetLinearSolver,
    .set_max_steps = ARKStepSetMaxNumSteps,
    .set_max_step = ARKStepSetMaxStep,
    .root_init = ARKStepRootInit,
    .set_stop_time = ARKStepSetStopTime,
    .evolve = ARKStepEvolve,
    .set_init_step = ARKStepSetInitStep,
    .get_next_step = ARKStepGetCurrentStep,
    .flag_name = ARKStepGetReturnFlagName,
    .free = ARKStepFree,
    .normal = ARK_NORMAL,
    .one_step = ARK_ONE_STEP,
    .root_return = ARK_ROOT_RETURN,
    .tstop_return = ARK_TSTOP_RETURN,
};

const SundialsPackage& package_of(std::string_view kind) {
  if (kind == "cvode") return kCvode;
  if (kind == "arkode") return kArkode;
  throw Error(fmt::format("no SUNDIALS integrator '{}' (cvode, arkode)", kind));
}

/// The package's name of a flag (it allocates the string; the caller frees it).
std::string flag_text(const SundialsPackage& package, int flag) {
  char* name = package.flag_name(flag);
  std::string text = name != nullptr ? name : "unknown flag";
  std::free(name);  // NOLINT(cppcoreguidelines-no-malloc): SUNDIALS allocates it with malloc
  return text;
}

/// The solvers' own messages go to the debug log: their failures come back as reasons anyway.
void solver_message(int code, const char* module, const char* function, char* message, void* /*data*/) {
  if (log_level() < LogLevel::debug) return;
  log(LogLevel::debug, fmt::format("{} {} ({}): {}", module != nullptr ? module : "SUNDIALS",
                                   function != nullptr ? function : "", code, message != nullptr ? message : ""));
}

}  // namespace

SundialsIntegrator::SundialsIntegrator(std::string_view kind, const IntegratorOptions& options)
    : package_(package_of(kind)), options_(options) {
  if (SUNContext_Create(nullptr, &context_) != 0) throw Error("SUNDIALS: SUNContext_Create failed");
}

SundialsIntegrator::~SundialsIntegrator() {
  release();
  SUNContext_Free(&context_);
}

std::string_view SundialsIntegrator::kind() const { return package_.kind; }

void SundialsIntegrator::reset() {
  // a one-step method restarts from the step size it had reached (the error test shortens it where
  // the restart is a discontinuity); a second reset before the restart keeps that size, which a
  // restore may have set (restore_step_memory): a repeated step starts as the step it repeats
  if (!needs_reinit_ && package_.get_next_step != nullptr && memory_ != nullptr) {
    (void)package_.get_next_step(memory_, &next_step_);
  }
  needs_reinit_ = true;
}

double SundialsIntegrator::step_memory() const { return package_.get_next_step != nullptr ? next_step_ : 0.0; }

void SundialsIntegrator::restore_step_memory(double memory) {
  if (package_.set_init_step == nullptr) return;
  next_step_ = memory;
  needs_reinit_ = true;
}

void SundialsIntegrator::release() {
  if (memory_ != nullptr) package_.free(&memory_);
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

// The callbacks run inside the solver's C frames: an exception must not cross them. It is kept and
// rethrown once the solver returns (a negative return makes it stop at once).
int SundialsIntegrator::rhs_callback(double t, N_Vector y, N_Vector ydot, void* user_data) {
  auto* self = static_cast<SundialsIntegrator*>(user_data);
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
  // positive: recoverable, the solver retries with a smaller step (a trial point outside the model's
  // domain). A right-hand side that stays non-finite makes it creep towards that time with ever
  // smaller steps: after kMaxRecoverable failures in one advance it is an error.
  return ++self->recoverable_failures_ > kMaxRecoverable ? -1 : 1;
}

int SundialsIntegrator::root_callback(double t, N_Vector y, double* gout, void* user_data) {
  auto* self = static_cast<SundialsIntegrator*>(user_data);
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

namespace {
void check(const SundialsPackage& package, int flag, const char* call) {
  if (flag < 0) throw Error(fmt::format("{}: {} failed ({})", package.kind, call, flag_text(package, flag)));
}
}  // namespace

void SundialsIntegrator::allocate(Eigen::Index n, double t0) {
  release();
  y_ = N_VNew_Serial(n, context_);
  if (y_ != nullptr) memory_ = package_.create(rhs_callback, t0, y_, context_);
  if (y_ == nullptr || memory_ == nullptr) throw Error(fmt::format("{}: allocation failed", package_.kind));
  check(package_, package_.set_user_data(memory_, this), "SetUserData");
  check(package_, package_.set_message_handler(memory_, solver_message, nullptr), "SetErrHandlerFn");
  if (options_.state_atol.size() == n) {  // the solver keeps a copy of the vector
    N_Vector atol = N_VNew_Serial(n, context_);
    if (atol == nullptr) throw Error(fmt::format("{}: allocation failed", package_.kind));
    std::copy(options_.state_atol.data(), options_.state_atol.data() + n, N_VGetArrayPointer(atol));
    const int flag = package_.vector_tolerances(memory_, options_.rtol, atol);
    N_VDestroy(atol);
    check(package_, flag, "SVtolerances");
  } else {
    check(package_, package_.scalar_tolerances(memory_, options_.rtol, options_.atol), "SStolerances");
  }
  matrix_ = SUNDenseMatrix(n, n, context_);
  solver_ = SUNLinSol_Dense(y_, matrix_, context_);
  check(package_, package_.set_linear_solver(memory_, solver_, matrix_), "SetLinearSolver");
  check(package_, package_.set_max_steps(memory_, kMaxSteps), "SetMaxNumSteps");
  if (options_.max_step > 0.0) check(package_, package_.set_max_step(memory_, options_.max_step), "SetMaxStep");
  size_ = n;
}

StepResult SundialsIntegrator::failed(int flag, double t) const {
  return StepResult::failure(fmt::format("{}: {} at t = {}{}", package_.kind, flag_text(package_, flag), t,
                                         non_finite_.empty() ? "" : " (" + non_finite_ + ")"));
}

StepResult SundialsIntegrator::advance(const StepRhs& rhs, double t0, double t1, Eigen::VectorXd& x) {
  stop_ = {t1};
  const Eigen::Index n = x.size();
  if (n == 0) return advance_without_states(rhs, t0, t1, x);
  if (t1 <= t0) return StepResult::success();
  current_ = &rhs;
  if (size_ != n) {
    allocate(n, t0);
    needs_reinit_ = true;
  }
  if (roots_ != rhs.indicator_count()) {  // root finding on the event indicators
    roots_ = rhs.indicator_count();
    check(package_, package_.root_init(memory_, roots_, roots_ > 0 ? root_callback : nullptr), "RootInit");
  }
  if (needs_reinit_ || t0 != t_last_) {
    if (log_level() >= LogLevel::debug) {
      log(LogLevel::debug, fmt::format("{}: restarts at t = {} ({})", package_.kind, t0,
                                       needs_reinit_ ? "reset" : fmt::format("last at {}", t_last_)));
    }
    std::copy(x.data(), x.data() + n, N_VGetArrayPointer(y_));
    check(package_, package_.reinit(memory_, rhs_callback, t0, y_), "ReInit");
    if (package_.set_init_step != nullptr) check(package_, package_.set_init_step(memory_, next_step_), "SetInitStep");
    needs_reinit_ = false;
  }
  check(package_, package_.set_stop_time(memory_, t1), "SetStopTime");
  double t_reached = t0;
  const bool report_steps = rhs.wants_step_reports();
  int flag = 0;
  failure_ = nullptr;
  non_finite_.clear();
  recoverable_failures_ = 0;
  for (long steps = 0;; ++steps) {
    if (steps == kMaxSteps) {
      current_ = nullptr;
      needs_reinit_ = true;
      return StepResult::failure(
          fmt::format("{}: more than {} steps on [{}, {}], at t = {}", package_.kind, kMaxSteps, t0, t1, t_reached));
    }
    // one internal step at a time when the model wants to hear of each (fmi2CompletedIntegratorStep)
    flag = package_.evolve(memory_, t1, y_, &t_reached, report_steps ? package_.one_step : package_.normal);
    if (flag < 0 || flag == package_.root_return || !report_steps) break;
    std::copy(N_VGetArrayPointer(y_), N_VGetArrayPointer(y_) + n, x.data());
    const IntegratorStepReport report = rhs.step_completed(t_reached, x);
    if (report.enter_event_mode || report.terminate) {
      stop_ = {t_reached, false, report.enter_event_mode, report.terminate};
      break;
    }
    if (flag == package_.tstop_return || t_reached >= t1) break;
  }
  current_ = nullptr;
  if (failure_) {
    needs_reinit_ = true;
    std::rethrow_exception(std::exchange(failure_, nullptr));
  }
  if (flag < 0) {
    needs_reinit_ = true;
    return failed(flag, t_reached);
  }
  if (flag == package_.root_return) stop_ = {t_reached, true, false, false};
  std::copy(N_VGetArrayPointer(y_), N_VGetArrayPointer(y_) + n, x.data());
  t_last_ = t_reached;
  if (package_.get_next_step != nullptr) (void)package_.get_next_step(memory_, &next_step_);
  return StepResult::success();
}

}  // namespace cosima
