#include "estimator/step_estimator.hpp"

#include "core/small_matrix.hpp"

namespace cosima::estimator {

void StepEstimator::require_capabilities(const System& system, std::string_view needed_by) {
  system.require(Capability::state_access, needed_by);
  system.require(Capability::linearization, needed_by);
}

StepEstimator::StepEstimator(EstimatorOptions options) : options_(options), builder_(options.response) {}

void StepEstimator::reset(const System& system) {
  control_.reset(system.output_count(), options_.control);
  response_current_ = false;
  x_.setZero(system.state_count());
  f_c_.setZero(system.state_count());
  y_c_.setZero(system.output_count());
  control_value_.setZero(system.output_count());
  control_derivative_.setZero(system.output_count());
  constant_value_.setZero(system.output_count());
  constant_derivative_.setZero(system.output_count());
}

void StepEstimator::begin_step(System& system, ConstVectorView u_now) {
  const Linearization& lin = system.linearize();
  // entrywise equal (exact reuse only); else all four are taken
  if (!(same(lin.A, lin_.A) && same(lin.B, lin_.B) && same(lin.C, lin_.C) && same(lin.D, lin_.D))) {
    assign(lin_.A, lin.A);
    assign(lin_.B, lin.B);
    assign(lin_.C, lin.C);
    assign(lin_.D, lin.D);
    response_current_ = false;  // the operators of update 2 are for the previous A, B, C, D
  }
  system.states(x_);
  f_c_.setZero();
  // the products below are of a few states and ports: plain sums (core/small_matrix.hpp)
  if (options_.affine_term) {
    system.state_derivatives(f_c_);
    multiply_add(f_c_, lin_.A, x_, -1.0);  // f_C = f(t_N) − A x_N − B u_N
    multiply_add(f_c_, lin_.B, u_now, -1.0);
  }
  system.outputs(y_c_);
  multiply_add(y_c_, lin_.C, x_, -1.0);  // eq. 12: y_C,N = y_N − C x_N − D u(t_N)
  multiply_add(y_c_, lin_.D, u_now, -1.0);
  control_.record(system.time(), y_c_);
}

bool StepEstimator::prepare(double h) {
  // lazy update 2 (seed 000 Algorithm 3): the operators depend only on (A, B, C, D, h), so an LTI system
  // whose step size repeats bitwise reuses them
  if (!(response_current_ && h == response_h_)) {
    response_current_ = false;
    if (!builder_.compute(lin_, h, response_)) return false;
    response_current_ = true;
    response_h_ = h;
  }
  control_.extrapolate(h, control_value_, control_derivative_);
  multiply(constant_value_, response_.PV, x_);
  multiply_add(constant_value_, response_.RV, f_c_, 1.0);
  constant_value_ += control_value_;
  multiply(constant_derivative_, response_.PD, x_);
  multiply_add(constant_derivative_, response_.RD, f_c_, 1.0);
  constant_derivative_ += control_derivative_;
  return true;
}

void StepEstimator::estimate(const InputPolynomials& inputs, Eigen::Ref<Eigen::VectorXd> y,
                             Eigen::Ref<Eigen::VectorXd> dy) const {
  estimate_outputs(response_, constant_value_, constant_derivative_, inputs, y, dy);
}

void estimate_outputs(const LinearResponse& response, const Eigen::VectorXd& constant_value,
                      const Eigen::VectorXd& constant_derivative, const InputPolynomials& inputs,
                      Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> dy) {
  // row-major n_in × 4 coefficients, read as vec(Ξ̌) with index 4j + k
  const Eigen::Map<const Eigen::VectorXd> xi(inputs.data(), inputs.size());
  y = constant_value;
  y.noalias() += response.GV * xi;
  dy = constant_derivative;
  dy.noalias() += response.GD * xi;
}

}  // namespace cosima::estimator
