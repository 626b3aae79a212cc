#include "system/system.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/tick_clock.hpp"

namespace cosima {

namespace {
const std::vector<std::string> kNoNames;

int find_name(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}
}  // namespace

const std::vector<std::string>& System::state_names() const { return kNoNames; }

int System::NameIndex::find(const std::vector<std::string>& names, std::string_view name) const {
  // a few names: a scan; many (an FMU with 10⁵ outputs): a hash index built once
  if (names.size() < 32) return find_name(names, name);
  const auto name_at = [&names](std::size_t k) -> const std::string& { return names[k]; };
  if (index.size() != names.size()) index.rebuild(names.size(), name_at);
  const std::size_t at = index.find(name, name_at);
  return at == PositionIndex::npos ? -1 : static_cast<int>(at);
}

int System::input_index(std::string_view port) const { return inputs_by_name_.find(input_names(), port); }
int System::output_index(std::string_view port) const { return outputs_by_name_.find(output_names(), port); }
int System::state_index(std::string_view state) const { return states_by_name_.find(state_names(), state); }

const PortInfo& System::input_info(int /*input*/) const { return real_port(); }
const PortInfo& System::output_info(int /*output*/) const { return real_port(); }

void System::watch_variables(const std::vector<std::string>& names) {
  if (!names.empty()) throw Error(fmt::format("system '{}' has no variable '{}' to record", name(), names.front()));
}

void System::set_string_parameter(const std::string& parameter, const std::string& /*value*/) {
  throw Error(fmt::format("system '{}' has no String parameter '{}'", name_, parameter));
}
void System::set_wide_parameter(const std::string& name, WideInteger value) {
  set_parameter(name, exact_parameter_double(value, fmt::format("system '{}'", this->name()), name));
}

std::string System::string_output(int output) const {
  throw Error(fmt::format("system '{}': output '{}' is not a String output here", name_,
                          output_names().at(static_cast<std::size_t>(output))));
}
void System::set_string_input(int input, const std::string& /*value*/) {
  throw Error(fmt::format("system '{}': input '{}' is not a String input here", name_,
                          input_names().at(static_cast<std::size_t>(input))));
}

CapabilitySet System::known_capabilities() const {
  CapabilitySet set = provided_capabilities().without(withheld_);
  if (input_names().empty()) set.add(Capability::interpolate_inputs);
  if (output_names().empty()) set.add(Capability::output_derivatives);
  capabilities_ = set;
  capabilities_known_ = true;
  return set;
}

void System::refuse(Capability c, std::string_view needed_by) const {
  const bool withheld = provided_capabilities().has(c);
  throw CapabilityError(fmt::format("system '{}' lacks capability '{}' ({}){}, needed by {}", name_, to_string(c),
                                    fmi_flag(c), withheld ? ", withheld by the scenario" : "", needed_by));
}

bool System::has_feedthrough() const {
  for (int o = 0; o < output_count(); ++o) {
    for (int i = 0; i < input_count(); ++i) {
      if (output_depends_on_input(o, i)) return true;
    }
  }
  return false;
}

int System::max_output_derivative_order() const {
  if (output_names().empty()) return kMaxInputDegree;  // nothing to differentiate
  return has(Capability::output_derivatives) ? provided_output_derivative_order() : 0;
}

void System::set_inputs(const InputPolynomials& polynomials) {
  if (polynomials.rows() != input_count()) {
    throw Error(fmt::format("system '{}': {} input polynomials given, {} inputs declared", name_, polynomials.rows(),
                            input_count()));
  }
  if (!has(Capability::interpolate_inputs) && (polynomials.rightCols(kMaxInputDegree).array() != 0.0).any()) {
    require(Capability::interpolate_inputs, "a polynomial (non-constant) input");
  }
  apply_inputs(polynomials);
}

void System::apply_constant_inputs(ConstVectorView u) {
  if (constant_inputs_.rows() != u.size()) constant_inputs_.setZero(u.size(), kInputCoefficients);
  constant_inputs_.col(0) = u;
  apply_inputs(constant_inputs_);
}

StepResult System::integrate_constant(ConstVectorView u, double h, Eigen::Ref<Eigen::VectorXd> y) {
  apply_constant_inputs(u);
  StepResult result = integrate(h);
  if (result.reached_end()) outputs(y);
  return result;
}

StepResult System::integrate_held(double h, Eigen::Ref<Eigen::VectorXd> y) {
  StepResult result = integrate(h);
  if (result.reached_end()) outputs(y);
  return result;
}

void System::exchange_constant(ConstVectorView u, Eigen::Ref<Eigen::VectorXd> y) {
  apply_constant_inputs(u);
  outputs(y);
}

StepResult System::non_finite_output(ConstVectorView values, int order) const {
  for (Eigen::Index o = 0; o < values.size(); ++o) {
    if (std::isfinite(values(o))) continue;
    return StepResult::failure(fmt::format("{} '{}' is {} at t = {}",
                                           order == 0 ? "output" : fmt::format("derivative {} of output", order),
                                           output_names()[static_cast<std::size_t>(o)], values(o), time()));
  }
  return StepResult::success();
}

StepResult System::do_step(double h) {
  return counted([&] { return integrate(h); });
}

double System::integration_seconds() const { return integration_seconds_ + tick_clock::to_seconds(integration_ticks_); }

void System::output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  require(Capability::output_derivatives, "a method reading output derivatives");
  if (order < 1 || order > max_output_derivative_order()) {
    throw CapabilityError(fmt::format("system '{}' provides output derivatives up to order {}, order {} asked", name_,
                                      max_output_derivative_order(), order));
  }
  if (output_names().empty()) return;
  compute_output_derivatives(order, dy);
}

StateId System::save_state() {
  require(Capability::rollback, "rollback (save_state)");
  return do_save_state(-1);
}
void System::save_state(StateId id) {
  require(Capability::rollback, "rollback (save_state)");
  do_save_state(id);
}
void System::restore_state(StateId id) {
  require(Capability::rollback, "rollback (restore_state)");
  do_restore_state(id);
}
void System::release_state(StateId id) {
  require(Capability::rollback, "rollback (release_state)");
  do_release_state(id);
}

// Defaults reached only if a subclass declares a capability without implementing it.
void System::compute_output_derivatives(int /*order*/, Eigen::Ref<Eigen::VectorXd> /*dy*/) const {
  throw CapabilityError(fmt::format("system '{}': output derivatives not implemented", name_));
}
StateId System::do_save_state(StateId /*overwrite*/) {
  throw CapabilityError(fmt::format("system '{}': rollback not implemented", name_));
}
void System::do_restore_state(StateId /*id*/) {
  throw CapabilityError(fmt::format("system '{}': rollback not implemented", name_));
}
void System::do_release_state(StateId /*id*/) {
  throw CapabilityError(fmt::format("system '{}': rollback not implemented", name_));
}
void System::compute_states(Eigen::Ref<Eigen::VectorXd> /*x*/) const {
  throw CapabilityError(fmt::format("system '{}': state access not implemented", name_));
}
void System::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> /*dx*/) const {
  throw CapabilityError(fmt::format("system '{}': state access not implemented", name_));
}
const Linearization& System::compute_linearization() {
  throw CapabilityError(fmt::format("system '{}': linearization not implemented", name_));
}

}  // namespace cosima
