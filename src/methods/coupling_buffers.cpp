#include "methods/coupling_buffers.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

void CouplingBuffers::resize(const ModularModel& model) {
  y.setZero(model.total_outputs());
  u.setZero(model.total_inputs());
  polynomials_.resize(static_cast<std::size_t>(model.system_count()));
  for (int s = 0; s < model.system_count(); ++s) {
    polynomials(s).setZero(model.system(s).input_count(), kInputCoefficients);
  }
}

void CouplingBuffers::apply_zoh(ModularModel& model, int s) {
  InputPolynomials& p = polynomials(s);
  p.setZero();
  p.col(0) = u.segment(model.input_offset(s), p.rows());
  model.system(s).set_inputs(p);
}

void CouplingBuffers::apply(ModularModel& model, int s) { model.system(s).set_inputs(polynomials(s)); }

const InputPolynomials& CouplingBuffers::hermite(const ModularModel& model, int s, HermiteKind kind, double h,
                                                 const Eigen::VectorXd& v1, const Eigen::VectorXd& d1,
                                                 const Eigen::VectorXd& v2, const Eigen::VectorXd& d2) {
  InputPolynomials& p = polynomials(s);
  const Eigen::Matrix4d map = hermite_map(kind, h);
  const int offset = model.input_offset(s);
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const Eigen::Index g = offset + i;
    p.row(i) = (map * Eigen::Vector4d(v1(g), d1(g), v2(g), d2(g))).transpose();
  }
  return p;
}

void CouplingBuffers::apply_hermite(ModularModel& model, int s, HermiteKind kind, double h, const Eigen::VectorXd& v1,
                                    const Eigen::VectorXd& d1, const Eigen::VectorXd& v2, const Eigen::VectorXd& d2) {
  model.system(s).set_inputs(hermite(model, s, kind, h, v1, d1, v2, d2));
}

void CouplingBuffers::gather_output_derivatives(const ModularModel& model, Eigen::VectorXd& dy) const {
  dy.resize(model.total_outputs());
  for (int s = 0; s < model.system_count(); ++s) {
    model.system(s).output_derivatives(1, dy.segment(model.output_offset(s), model.system(s).output_count()));
  }
}

void initialize_coupled(ModularModel& model, double t_start, CouplingBuffers& buffers) {
  buffers.resize(model);
  for (int s = 0; s < model.system_count(); ++s) model.system(s).initialize(t_start);
  model.dispatch(buffers.y, buffers.u);  // constants; connected inputs start from 0
  constexpr int kMaxSweeps = 100;
  Eigen::VectorXd previous;
  for (int sweep = 0; sweep <= kMaxSweeps; ++sweep) {
    for (int s = 0; s < model.system_count(); ++s) buffers.apply_zoh(model, s);
    model.gather_outputs(buffers.y);
    previous = buffers.u;
    model.dispatch(buffers.y, buffers.u);
    const double change = (buffers.u - previous).lpNorm<Eigen::Infinity>();
    if (!buffers.u.allFinite()) break;
    if (change <= 1e-14 * std::max(1.0, buffers.u.lpNorm<Eigen::Infinity>())) {
      for (int s = 0; s < model.system_count(); ++s) buffers.apply_zoh(model, s);
      return;
    }
  }
  std::string unsettled;
  for (int i = 0; i < model.total_inputs(); ++i) {
    if (!(std::abs(buffers.u(i) - previous(i)) <= 1e-14 * std::max(1.0, std::abs(buffers.u(i))))) {
      unsettled += (unsettled.empty() ? "" : ", ") + model.input_label(i);
    }
  }
  throw Error(fmt::format("initial inputs do not settle (an algebraic loop that is not contractive?): {}",
                          unsettled));
}

int settle_communication_point(ModularModel& model, CouplingBuffers& buffers, int max_sweeps) {
  model.gather_outputs(buffers.y);
  model.dispatch(buffers.y, buffers.u);
  for (int s = 0; s < model.system_count(); ++s) buffers.apply_zoh(model, s);
  int sweeps = 1;
  for (; sweeps < max_sweeps; ++sweeps) {
    model.gather_outputs(buffers.y);
    bool changed = false;
    for (int i = 0; i < model.total_inputs(); ++i) {
      const int source = model.input_sources()[static_cast<std::size_t>(i)];
      if (source >= 0 && buffers.y(source) != buffers.u(i)) {
        changed = true;
        break;
      }
    }
    if (!changed) break;
    model.dispatch(buffers.y, buffers.u);
    for (int s = 0; s < model.system_count(); ++s) buffers.apply_zoh(model, s);
  }
  return sweeps;
}

void throw_if_failed(const StepResult& result, const System& system, double t) {
  if (result.status != StepResult::Status::failed) return;
  throw Error(fmt::format("step from t = {} failed in system '{}': {}", t, system.name(), result.reason));
}

}  // namespace cosima
