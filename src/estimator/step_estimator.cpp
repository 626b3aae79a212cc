#include "estimator/step_estimator.hpp"

#include <limits>

#include "core/small_matrix.hpp"

namespace cosima::estimator {

void StepEstimator::require_capabilities(const System& system, std::string_view needed_by) {
  system.require(Capability::state_access, needed_by);
  system.require(Capability::linearization, needed_by);
}

StepEstimator::StepEstimator(EstimatorOptions options) : options_(options), builder_(options.response) {}

namespace {

/// The estimator's matrices as its products take them: as they are, or — for a system of one state,
/// one input and one output (Scalar) — as 1 × 1 views of their storage (core/small_matrix.hpp).
template <bool Scalar, class Matrix>
decltype(auto) shaped(Matrix& m) {
  if constexpr (Scalar) {
    return fixed_view<1, 1>(m);
  } else {
    return (m);
  }
}

bool is_scalar(const Linearization& lin) {
  return lin.A.size() == 1 && lin.B.size() == 1 && lin.C.size() == 1 && lin.D.size() == 1;
}

}  // namespace

void StepEstimator::reset(const System& system) {
  control_.reset(system.output_count(), options_.control);
  response_current_ = false;
  scalar_ = system.state_count() == 1 && system.input_count() == 1 && system.output_count() == 1;
  for (Eigen::MatrixXd* m : {&lin_.A, &lin_.B, &lin_.C, &lin_.D}) {  // unlike any linearization: taken at update 1
    m->setConstant(scalar_ ? 1 : 0, scalar_ ? 1 : 0, std::numeric_limits<double>::quiet_NaN());
  }
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
  // lin_ is 1 × 1 while scalar_ holds (reset, then the scalar updates); a system whose linearization
  // is not 1 × 1 after all goes the general way from then on
  scalar_ = scalar_ && is_scalar(lin);
  if (scalar_) {
    update_1<true>(system, lin, u_now);
  } else {
    update_1<false>(system, lin, u_now);
  }
}

template <bool Scalar>
void StepEstimator::update_1(System& system, const Linearization& lin, ConstVectorView u_now) {
  const auto s = [](auto& m) -> decltype(auto) { return shaped<Scalar>(m); };
  // entrywise equal (exact reuse only); else all four are taken
  if (!(same(s(lin.A), s(lin_.A)) && same(s(lin.B), s(lin_.B)) && same(s(lin.C), s(lin_.C)) &&
        same(s(lin.D), s(lin_.D)))) {
    assign(s(lin_.A), s(lin.A));
    assign(s(lin_.B), s(lin.B));
    assign(s(lin_.C), s(lin.C));
    assign(s(lin_.D), s(lin.D));
    response_current_ = false;  // the operators of update 2 are for the previous A, B, C, D
  }
  system.states(x_);
  s(f_c_).setZero();
  // the products below are of a few states and ports: plain sums (core/small_matrix.hpp)
  if (options_.affine_term) {
    system.state_derivatives(f_c_);
    multiply_add(s(f_c_), s(lin_.A), s(x_), -1.0);  // f_C = f(t_N) − A x_N − B u_N
    multiply_add(s(f_c_), s(lin_.B), s(u_now), -1.0);
  }
  system.outputs(y_c_);
  multiply_add(s(y_c_), s(lin_.C), s(x_), -1.0);  // eq. 12: y_C,N = y_N − C x_N − D u(t_N)
  multiply_add(s(y_c_), s(lin_.D), s(u_now), -1.0);
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
  if (scalar_) {
    constant_terms<true>();
  } else {
    constant_terms<false>();
  }
  return true;
}

template <bool Scalar>
void StepEstimator::constant_terms() {
  const auto s = [](auto& m) -> decltype(auto) { return shaped<Scalar>(m); };
  multiply(s(constant_value_), s(response_.PV), s(x_));
  multiply_add(s(constant_value_), s(response_.RV), s(f_c_), 1.0);
  s(constant_value_) += s(control_value_);
  multiply(s(constant_derivative_), s(response_.PD), s(x_));
  multiply_add(s(constant_derivative_), s(response_.RD), s(f_c_), 1.0);
  s(constant_derivative_) += s(control_derivative_);
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
