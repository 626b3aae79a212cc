#include "system/native/ode_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

OdeModel::OdeModel(std::string type, Structure structure)
    : OdeModel(std::move(type), SharedStructure{std::make_shared<const Structure>(std::move(structure))}) {}

OdeModel::OdeModel(std::string type, SharedStructure shared)
    : type_(std::move(type)), structure_(std::move(shared.structure)) {
  values_.reserve(structure_->parameters.size());
  for (const auto& spec : structure_->parameters) values_.push_back(spec.value);
}

bool OdeModel::output_depends_on_input(int output, int input) const {
  return std::find(structure_->feedthrough.begin(), structure_->feedthrough.end(), std::pair{output, input}) !=
         structure_->feedthrough.end();
}

void OdeModel::set_parameter(const std::string& name, double value) {
  for (std::size_t i = 0; i < structure_->parameters.size(); ++i) {
    if (structure_->parameters[i].name == name) {
      values_[i] = value;
      return;
    }
  }
  std::string valid;
  for (const auto& spec : structure_->parameters) valid += (valid.empty() ? "" : ", ") + spec.name;
  throw Error(fmt::format("model '{}' has no parameter '{}' (parameters: {})", type_, name, valid));
}

double OdeModel::parameter(const std::string& name) const {
  for (std::size_t i = 0; i < structure_->parameters.size(); ++i) {
    if (structure_->parameters[i].name == name) return values_[i];
  }
  throw Error(fmt::format("model '{}' has no parameter '{}'", type_, name));
}

const PortInfo& OdeModel::input_info(int input) const {
  static const PortInfo kContinuousReal;
  return structure_->input_info.empty() ? kContinuousReal : structure_->input_info[static_cast<std::size_t>(input)];
}

const PortInfo& OdeModel::output_info(int output) const {
  static const PortInfo kContinuousReal;
  return structure_->output_info.empty() ? kContinuousReal : structure_->output_info[static_cast<std::size_t>(output)];
}

void OdeModel::set_string_parameter(const std::string& name, const std::string& value) {
  throw Error(fmt::format("model '{}' has no String parameter '{}' (given \"{}\")", type_, name, value));
}

void OdeModel::set_wide_parameter(const std::string& name, WideInteger value) {
  set_parameter(name, exact_parameter_double(value, fmt::format("model '{}'", type()), name));
}

std::string OdeModel::string_output(int output) const {
  throw Error(fmt::format("model '{}': output '{}' is not a String output", type_,
                          structure_->outputs.at(static_cast<std::size_t>(output))));
}

void OdeModel::watch_variables(const std::vector<std::string>& names) {
  if (!names.empty()) throw Error(fmt::format("this model has no variable '{}' to record", names.front()));
}

void OdeModel::set_string_input(int input, const std::string& /*value*/) {
  throw Error(fmt::format("model '{}': input '{}' is not a String input", type_,
                          structure_->inputs.at(static_cast<std::size_t>(input))));
}

void OdeModel::initialization_outputs(double t_start, ConstVectorRef u, VectorRef y) const {
  outputs(t_start, initial_state(), u, y);
}

Eigen::VectorXd OdeModel::start(double /*t_start*/, ConstVectorRef /*u*/) { return initial_state(); }

void OdeModel::event_indicators(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/, VectorRef /*z*/) const {}

double OdeModel::next_time_event(double /*t*/) const { return std::numeric_limits<double>::infinity(); }

IntegratorStepReport OdeModel::step_completed(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/) const {
  return {};
}

bool OdeModel::discrete_inputs_changed(ConstVectorRef /*u*/) const { return false; }

EventOutcome OdeModel::handle_event(double /*t*/, VectorRef /*x*/, ConstVectorRef /*u*/, const EventCause& /*cause*/) {
  return {};
}

int OdeModel::save_discrete_state(int overwrite) { return overwrite; }
void OdeModel::restore_discrete_state(int /*slot*/) {}
void OdeModel::release_discrete_state(int /*slot*/) {}

bool OdeModel::exact_flow(double /*t0*/, double /*h*/, const InputPolynomials& /*inputs*/, VectorRef /*x*/) const {
  return false;
}

bool OdeModel::jacobians(double /*t*/, ConstVectorRef /*x*/, ConstVectorRef /*u*/, Linearization& /*out*/) const {
  return false;
}

void finite_difference_jacobians(const OdeModel& model, double t, ConstVectorRef x, ConstVectorRef u,
                                 Linearization& out) {
  const int nx = model.state_count();
  const int nu = model.input_count();
  const int ny = model.output_count();
  out.A.resize(nx, nx);
  out.B.resize(nx, nu);
  out.C.resize(ny, nx);
  out.D.resize(ny, nu);
  const double scale = std::cbrt(std::numeric_limits<double>::epsilon());
  Eigen::VectorXd xp = x, up = u;
  Eigen::VectorXd f_plus(nx), f_minus(nx), g_plus(ny), g_minus(ny);
  auto column = [&](Eigen::VectorXd& v, Eigen::Index i, Eigen::Ref<Eigen::MatrixXd> F, Eigen::Ref<Eigen::MatrixXd> G) {
    const double base = v(i);
    const double delta = scale * std::max(1.0, std::abs(base));
    v(i) = base + delta;
    model.derivatives(t, xp, up, f_plus);
    model.outputs(t, xp, up, g_plus);
    v(i) = base - delta;
    model.derivatives(t, xp, up, f_minus);
    model.outputs(t, xp, up, g_minus);
    v(i) = base;
    F.col(i) = (f_plus - f_minus) / (2.0 * delta);
    G.col(i) = (g_plus - g_minus) / (2.0 * delta);
  };
  for (Eigen::Index i = 0; i < nx; ++i) column(xp, i, out.A, out.C);
  for (Eigen::Index i = 0; i < nu; ++i) {
    if (model.input_info(static_cast<int>(i)).continuous) {
      column(up, i, out.B, out.D);
    } else {
      out.B.col(i).setZero();
      out.D.col(i).setZero();
    }
  }
}

}  // namespace cosima
