#include "nonlinear/snes_solver.hpp"
#include "nonlinear/snes_plugin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include "core/error.hpp"

namespace cosima::nonlinear {

void shutdown_petsc();

namespace {

/// Anderson's memory for n unknowns in the "anderson" preset: min(30, n), table 4's 30 at most.
Eigen::Index fitted_memory(Eigen::Index size) { return std::clamp<Eigen::Index>(size, 1, 30); }

/// Open MPI's session directory when PETSc starts MPI as a singleton: a private directory of ours
/// (OMPI_MCA_orte_tmpdir_base), removed at exit. Left to Open MPI's default place, TMPDIR, the
/// session directory (ompi.<host>.<uid>) outlives the process.
std::filesystem::path& mpi_session_base() {
  static std::filesystem::path base;
  return base;
}

/// Before PETSc starts MPI as a singleton (not under mpirun): a singleton of one serial process
/// needs no daemon, no network transport and no hardware discovery. Open MPI's defaults start an
/// orted and probe every transport: 0.5 s before the first solve (B3). Values the user set stay.
void configure_mpi_singleton() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr) return;  // mpirun's
#ifndef COSIMA_SANITIZED  // under LeakSanitizer its tracer dies of SIGSEGV at exit with an isolated singleton
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);  // no supporting daemon (0.18 s): this process never spawns
#endif
  setenv("OMPI_MCA_pml", "ob1", 0);
  setenv("OMPI_MCA_btl", "self", 0);  // the only peer is itself
  // Isolated (no daemon): one component per framework where several would be opened, probed and
  // dropped (≈ 10 ms of the ≈ 45 ms MPI_Init takes here); a serial solver on PETSC_COMM_SELF needs no
  // more. A singleton that starts a daemon (sanitized builds, or the user's choice) must not: the
  // daemon inherits the environment and needs its own state and errmgr components.
  const char* isolated = std::getenv("OMPI_MCA_ess_singleton_isolated");
  if (isolated == nullptr || std::string_view(isolated) != "1") return;
  setenv("OMPI_MCA_shmem", "mmap", 0);
  setenv("OMPI_MCA_state", "app", 0);
  setenv("OMPI_MCA_errmgr", "default_app", 0);
  setenv("OMPI_MCA_coll", "self,basic,libnbc", 0);
  setenv("OMPI_MCA_osc", "sm", 0);
  setenv("OMPI_MCA_reachable", "weighted", 0);
}

void use_private_mpi_session_directory() {
  if (std::getenv("OMPI_MCA_orte_tmpdir_base") != nullptr) return;  // the user chose one
  std::error_code ignored;                                          // no TMPDIR: Open MPI's default then
  std::string pattern = (std::filesystem::temp_directory_path(ignored) / "cosima-mpi-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return;  // Open MPI's default then
  mpi_session_base() = pattern;
  setenv("OMPI_MCA_orte_tmpdir_base", pattern.c_str(), 1);
}

/// PETSc is initialized once per process, on first use, and finalized at exit. Its errors are
/// returned as codes (no tracebacks on stderr) and turned into cosima errors.
void ensure_petsc() {
  static std::once_flag once;
  std::call_once(once, [] {
    PetscBool initialized = PETSC_FALSE;
    PetscInitialized(&initialized);
    if (initialized == PETSC_FALSE) {
      // The solvers are serial (PETSC_COMM_SELF). Under the MPI executor only rank 0 runs the
      // method, so PETSc must not make its initialization collective over all ranks.
      int mpi_initialized = 0;
      MPI_Initialized(&mpi_initialized);
      if (mpi_initialized != 0) {
        PETSC_COMM_WORLD = MPI_COMM_SELF;
      } else {  // PETSc starts MPI (a singleton)
        configure_mpi_singleton();
        use_private_mpi_session_directory();
      }
      if (PetscInitializeNoArguments() != 0) throw Error("PETSc could not be initialized");
      std::atexit(shutdown_petsc);
    }
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  });
}

}  // namespace

void shutdown_petsc() {
  PetscBool initialized = PETSC_FALSE, finalized = PETSC_FALSE;
  PetscInitialized(&initialized);
  PetscFinalized(&finalized);
  if (initialized == PETSC_TRUE && finalized == PETSC_FALSE) PetscFinalize();
  if (!mpi_session_base().empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(mpi_session_base(), ignored);
    mpi_session_base().clear();
  }
}

namespace {

void check(PetscErrorCode code, const char* call) {
  if (code == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  throw Error(fmt::format("PETSc: {} failed ({})", call, text != nullptr ? text : "unknown error"));
}

std::string reason_text(SNESConvergedReason reason) {
  switch (reason) {
    case SNES_DIVERGED_FUNCTION_DOMAIN: return "a system failed during the iteration";
    case SNES_DIVERGED_FUNCTION_COUNT: return "too many function evaluations";
    case SNES_DIVERGED_LINEAR_SOLVE: return "the linear solve failed";
    case SNES_DIVERGED_FNORM_NAN: return "the residual is not finite";
    case SNES_DIVERGED_MAX_IT: return "the iteration limit was reached";
    case SNES_DIVERGED_LINE_SEARCH: return "the line search failed";
    case SNES_DIVERGED_INNER: return "an inner solve failed";
    case SNES_DIVERGED_LOCAL_MIN: return "a local minimum was reached";
    case SNES_DIVERGED_DTOL: return "the residual grew past the divergence tolerance";
    default: return fmt::format("SNES stopped ({})", SNESConvergedReasons[reason]);
  }
}

}  // namespace

std::string SnesSolver::preset_options(const std::string& preset, Eigen::Index size) {
  // seed 001, Appendix A
  const std::string ngmres =
      " -snes_ngmres_restart_type difference -snes_ngmres_candidate false -snes_ngmres_approxfunc false"
      " -snes_ngmres_m 30 -snes_ngmres_restart_it 2 -snes_ngmres_gammaA 2 -snes_ngmres_gammaC 2"
      " -snes_ngmres_epsilonB 0.1 -snes_ngmres_deltaB 0.9 -snes_ngmres_single_reduction false"
      " -snes_ngmres_restart_fm_rise false";
  const std::string linesearch_common =
      " -snes_linesearch_norms true -snes_linesearch_maxstep 1e8 -snes_linesearch_minlambda 1e-12"
      " -snes_linesearch_damping 1 -snes_linesearch_rtol 1e-8 -snes_linesearch_atol 1e-15"
      " -snes_linesearch_ltol 1e-8 -snes_linesearch_keeplambda false";
  if (preset == "newtonls") {  // table 3
    return "-snes_type newtonls -snes_linesearch_type bt -snes_linesearch_order 3 -snes_linesearch_alpha 1e-4"
           " -snes_linesearch_max_it 40" +
           linesearch_common;
  }
  if (preset == "anderson" || preset == "anderson-paper") {
    // table 4 keeps m = 30 past iterates; on a problem of n < 30 unknowns more than n of them are
    // linearly dependent and the least-squares mixing stagnates (B1, n = 6: 34 iterations per step
    // at ε = 1e-6 with m = 30, 10 with m = 6), so "anderson" keeps min(30, n)
    // (β = 1 here; "anderson" adapts it per solve, snes_solver.hpp)
    const Eigen::Index memory = preset == "anderson" ? fitted_memory(size) : 30;
    return fmt::format(
        "-snes_type anderson -snes_anderson_m {} -snes_anderson_beta 1 -snes_anderson_restart_type none"
        " -snes_anderson_restart_it 2 -snes_anderson_restart 30",
        memory);
  }
  if (preset == "ngmres") return "-snes_type ngmres -snes_ngmres_select_type difference" + ngmres;  // table 5
  if (preset == "ngmres-ls") {                                                                      // table 6
    return "-snes_type ngmres -snes_ngmres_select_type linesearch" + ngmres +
           " -snes_linesearch_type basic -snes_linesearch_order 0 -snes_linesearch_max_it 1" + linesearch_common;
  }
  if (preset == "petsc") return "";
  throw Error(fmt::format("unknown PETSc preset '{}'", preset));  // (make_nonlinear_solver checks the name first)
}

SnesSolver::SnesSolver(const NonlinearOptions& options, Eigen::Index size) : options_(options), size_(size) {
  const std::string preset = preset_options(options.solver, size);  // validates the name first
  ensure_petsc();
  try {
    configure(preset);
  } catch (...) {
    release();  // a constructor that throws runs no destructor
    throw;
  }
  x_buffer_.resize(size);
  f_buffer_.resize(size);
  adapt_mixing_ =
      options.solver == "anderson" && options.petsc_options.find("-snes_anderson_beta") == std::string::npos;
  if (adapt_mixing_) {
    iterates_.resize(size, fitted_memory(size) + 1);
    residuals_.resize(size, fitted_memory(size) + 1);
    spans_.resize(static_cast<std::size_t>(iterates_.cols()));
    ritz_.resize(static_cast<std::size_t>(iterates_.cols()));
  }
}

void SnesSolver::configure(const std::string& preset) {
  const NonlinearOptions& options = options_;
  const Eigen::Index size = size_;
  check(PetscOptionsCreate(&database_), "PetscOptionsCreate");
  check(PetscOptionsInsertString(database_, (preset + " " + options.petsc_options).c_str()),
        "PetscOptionsInsertString");
  check(SNESCreate(PETSC_COMM_SELF, &snes_), "SNESCreate");
  check(PetscObjectSetOptions(reinterpret_cast<PetscObject>(snes_), database_), "PetscObjectSetOptions");
  check(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(size), &x_), "VecCreateSeq");
  check(VecDuplicate(x_, &f_), "VecDuplicate");
  check(VecDuplicate(x_, &f_initial_), "VecDuplicate");
  check(SNESSetFunction(snes_, f_, evaluate, this), "SNESSetFunction");
  check(MatCreateSNESMF(snes_, &jacobian_), "MatCreateSNESMF");
  check(SNESSetJacobian(snes_, jacobian_, jacobian_, MatMFFDComputeJacobian, nullptr), "SNESSetJacobian");
  KSP ksp = nullptr;
  PC pc = nullptr;
  check(SNESGetKSP(snes_, &ksp), "SNESGetKSP");
  check(PetscObjectSetOptions(reinterpret_cast<PetscObject>(ksp), database_), "PetscObjectSetOptions");
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, PCNONE), "PCSetType");
  SNESLineSearch linesearch = nullptr;
  check(SNESGetLineSearch(snes_, &linesearch), "SNESGetLineSearch");
  check(PetscObjectSetOptions(reinterpret_cast<PetscObject>(linesearch), database_), "PetscObjectSetOptions");
  check(PetscObjectSetOptions(reinterpret_cast<PetscObject>(jacobian_), database_), "PetscObjectSetOptions");
  check(SNESSetTolerances(snes_, 0.0, 0.0, 0.0, options.max_iterations, 100 * options.max_iterations * 50),
        "SNESSetTolerances");
  check(SNESSetConvergenceTest(snes_, converged, this, nullptr), "SNESSetConvergenceTest");
  check(SNESSetFromOptions(snes_), "SNESSetFromOptions (check method.petsc_options)");
}

SnesSolver::~SnesSolver() { release(); }

void SnesSolver::release() {
  if (jacobian_ != nullptr) MatDestroy(&jacobian_);
  if (x_ != nullptr) VecDestroy(&x_);
  if (f_ != nullptr) VecDestroy(&f_);
  if (f_initial_ != nullptr) VecDestroy(&f_initial_);
  if (snes_ != nullptr) SNESDestroy(&snes_);
  if (database_ != nullptr) PetscOptionsDestroy(&database_);
  jacobian_ = nullptr;
  x_ = f_ = f_initial_ = nullptr;
  snes_ = nullptr;
  database_ = nullptr;
}

bool SnesSolver::evaluate_into(Vec x, Vec f) {
  const PetscScalar* in = nullptr;
  VecGetArrayRead(x, &in);
  std::copy(in, in + size_, x_buffer_.data());
  VecRestoreArrayRead(x, &in);
  if (!evaluate_residual(*gamma_, x_buffer_, f_buffer_)) {
    evaluation_failed_ = true;
    return false;
  }
  record(x_buffer_, f_buffer_);
  PetscScalar* out = nullptr;
  VecGetArray(f, &out);
  std::copy(f_buffer_.data(), f_buffer_.data() + size_, out);
  VecRestoreArray(f, &out);
  return true;
}

void SnesSolver::record(const Eigen::VectorXd& x, const Eigen::VectorXd& gamma_x) {
  if (!adapt_mixing_) return;  // (Anderson evaluates γ at its iterates only)
  const Eigen::Index column = evaluations_++ % iterates_.cols();
  iterates_.col(column) = x;
  residuals_.col(column) = gamma_x;
}

PetscErrorCode SnesSolver::evaluate(SNES snes, Vec x, Vec f, void* context) {
  if (!static_cast<SnesSolver*>(context)->evaluate_into(x, f)) SNESSetFunctionDomainError(snes);
  return 0;
}

bool SnesSolver::converges_at(Vec x, Vec f, PetscReal f_norm) const {
  const PetscScalar *values = nullptr, *residual = nullptr;
  VecGetArrayRead(x, &values);
  VecGetArrayRead(f, &residual);
  const bool done = accepts(Eigen::Map<const Eigen::VectorXd>(values, size_),
                            Eigen::Map<const Eigen::VectorXd>(residual, size_), f_norm, options_);
  VecRestoreArrayRead(f, &residual);
  VecRestoreArrayRead(x, &values);
  return done;
}

PetscErrorCode SnesSolver::converged(SNES snes, PetscInt iteration, PetscReal /*x_norm*/, PetscReal /*step_norm*/,
                                     PetscReal f_norm, SNESConvergedReason* reason, void* context) {
  const auto* self = static_cast<const SnesSolver*>(context);
  *reason = SNES_CONVERGED_ITERATING;
  if (!std::isfinite(f_norm)) {
    *reason = SNES_DIVERGED_FNORM_NAN;
    return 0;
  }
  Vec solution = nullptr, function = nullptr;
  SNESGetSolution(snes, &solution);
  SNESGetFunction(snes, &function, nullptr, nullptr);
  if (self->converges_at(solution, function, f_norm)) {
    *reason = SNES_CONVERGED_FNORM_ABS;  // eq. 27
  } else if (iteration >= self->options_.max_iterations) {
    *reason = SNES_DIVERGED_MAX_IT;
  }
  return 0;
}

double SnesSolver::ritz_radius(Eigen::Index recorded, Eigen::Index last) {
  const Eigen::Index r = recorded - 1;
  StepSpan& span = spans_[static_cast<std::size_t>(r)];
  span.steps.resize(size_, r);  // (no allocation once sized)
  span.changes.resize(size_, r);
  for (Eigen::Index j = 0, column = 0; j < recorded; ++j) {
    if (j == last) continue;
    span.steps.col(column) = iterates_.col(j) - iterates_.col(last);
    span.changes.col(column) = span.steps.col(column) - (residuals_.col(j) - residuals_.col(last));
    ++column;
  }
  span.svd.compute(span.steps, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const auto& sigma = span.svd.singularValues();
  Eigen::Index rank = 0;
  while (rank < sigma.size() && sigma(rank) > 1e-8 * sigma(0)) ++rank;
  if (rank == 0) return std::numeric_limits<double>::quiet_NaN();
  RitzProblem& problem = ritz_[static_cast<std::size_t>(rank)];
  problem.projected.resize(rank, r);
  problem.ritz.resize(rank, rank);
  problem.projected.noalias() = span.svd.matrixU().leftCols(rank).transpose() * span.changes;
  problem.ritz.noalias() = problem.projected * span.svd.matrixV().leftCols(rank);
  for (Eigen::Index j = 0; j < rank; ++j) problem.ritz.col(j) /= sigma(j);
  problem.eigen.compute(problem.ritz, false);
  return problem.eigen.eigenvalues().cwiseAbs().maxCoeff();
}

void SnesSolver::adapt_mixing() {
  // Rayleigh–Ritz on the span of the steps Δx between the recorded iterates (all taken against the
  // last one): J_Ψ Δx = Δx − Δγ on an affine γ. With Δx = U Σ Vᵀ (rank r), J_Ψ U_r = (Δx − Δγ) V_r Σ_r⁻¹.
  const Eigen::Index recorded = std::min(evaluations_, iterates_.cols());
  if (recorded < 2) return;  // no step (converged on the initial guess)
  const Eigen::Index last = (evaluations_ - 1) % iterates_.cols();
  double rho = 0.0;
  if (recorded == 2) {  // one step: its Rayleigh quotient (the common case)
    const Eigen::Index first = 1 - last;
    const auto step = iterates_.col(first) - iterates_.col(last);
    const double length = step.squaredNorm();
    if (length == 0.0) return;
    rho = std::abs(step.dot(step - (residuals_.col(first) - residuals_.col(last)))) / length;
  } else {
    rho = ritz_radius(recorded, last);
  }
  if (!std::isfinite(rho)) return;
  const double beta = std::clamp(1.0 / rho, 0.01, 1.0);
  if (std::abs(beta - beta_) <= 0.1 * beta_) return;  // (re-reading the options costs more than it gains)
  beta_ = beta;
  check(PetscOptionsSetValue(database_, "-snes_anderson_beta", fmt::format("{:.3g}", beta).c_str()),
        "PetscOptionsSetValue");
  check(SNESSetFromOptions(snes_), "SNESSetFromOptions");
}

NonlinearResult SnesSolver::solve(const Residual& gamma, Eigen::VectorXd& x) { return run(gamma, x, nullptr); }

NonlinearResult SnesSolver::solve_from(const Residual& gamma, Eigen::VectorXd& x, const Eigen::VectorXd& gamma_x) {
  return run(gamma, x, &gamma_x);
}

NonlinearResult SnesSolver::run(const Residual& gamma, Eigen::VectorXd& x, const Eigen::VectorXd* gamma_x) {
  gamma_ = &gamma;
  evaluation_failed_ = false;
  evaluations_ = 0;
  PetscScalar* data = nullptr;
  check(VecGetArray(x_, &data), "VecGetArray");
  std::copy(x.data(), x.data() + size_, data);
  check(VecRestoreArray(x_, &data), "VecRestoreArray");
  if (gamma_x !=
      nullptr) {  // SNES starts from the caller's γ(x₀) (SNESSetInitialFunction) instead of evaluating it again
    record(x, *gamma_x);
    check(VecGetArray(f_initial_, &data), "VecGetArray");
    std::copy(gamma_x->data(), gamma_x->data() + size_, data);
    check(VecRestoreArray(f_initial_, &data), "VecRestoreArray");
    check(SNESSetInitialFunction(snes_, f_initial_), "SNESSetInitialFunction");
  }
  const PetscErrorCode code = SNESSolve(snes_, nullptr, x_);
  gamma_ = nullptr;
  if (adapt_mixing_) adapt_mixing();
  NonlinearResult result;
  PetscInt iterations = 0;
  SNESGetIterationNumber(snes_, &iterations);
  result.iterations = static_cast<int>(iterations);
  const PetscScalar* solution = nullptr;
  VecGetArrayRead(x_, &solution);
  std::copy(solution, solution + size_, x.data());
  VecRestoreArrayRead(x_, &solution);
  if (code != 0) {
    result.reason = evaluation_failed_ ? "a system failed during the iteration" : "SNESSolve returned an error";
    return result;
  }
  SNESConvergedReason reason = SNES_CONVERGED_ITERATING;
  SNESGetConvergedReason(snes_, &reason);
  result.converged = reason > 0;
  if (!result.converged) result.reason = reason_text(reason);  // (none when converged: no allocation per solve)
  return result;
}

}  // namespace cosima::nonlinear

// The plugin's entry points (nonlinear/snes_plugin.hpp): C names, no exception crosses them.
extern "C" {

COSIMA_PLUGIN_EXPORT cosima::nonlinear::NonlinearSolver* cosima_snes_create(
    const cosima::nonlinear::NonlinearOptions* options, long size, std::string* error) {
  try {
    return new cosima::nonlinear::SnesSolver(*options, size);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

COSIMA_PLUGIN_EXPORT void cosima_snes_finalize() { cosima::nonlinear::shutdown_petsc(); }

}  // extern "C"
