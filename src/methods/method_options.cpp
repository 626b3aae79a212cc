#include "methods/method_options.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/whole_number.hpp"
#include "estimator/linear_response.hpp"

namespace cosima::methods {

double OptionReader::number(const std::string& key, double fallback) const {
  if (!spec_.contains(key)) return fallback;
  if (!spec_.at(key).is_number()) throw Error(fmt::format("method.{} must be a number", key));
  return spec_.at(key).get<double>();
}

double OptionReader::positive(const std::string& key, double fallback) const {
  const double value = number(key, fallback);
  if (!(value > 0.0) || !std::isfinite(value)) throw Error(fmt::format("method.{} = {} must be positive", key, value));
  return value;
}

double OptionReader::non_negative(const std::string& key, double fallback) const {
  const double value = number(key, fallback);
  if (!(value >= 0.0) || std::isnan(value)) throw Error(fmt::format("method.{} = {} must not be negative", key, value));
  return value;
}

int OptionReader::integer(const std::string& key, int fallback, int min, int max) const {
  if (!spec_.contains(key)) return fallback;
  return integer_of(spec_.at(key), key, min, max);
}

int OptionReader::integer_of(const io::Json& value, const std::string& where, int min, int max) {
  const auto whole = value.is_number() ? whole_number(value.get<double>(), min, max) : std::nullopt;
  if (!whole)
    throw Error(fmt::format("method.{} must be an integer in [{}, {}], not {}", where, min, max, io::json_text(value)));
  return *whole;
}

bool OptionReader::flag(const std::string& key, bool fallback) const {
  if (!spec_.contains(key)) return fallback;
  if (!spec_.at(key).is_boolean()) throw Error(fmt::format("method.{} must be true or false", key));
  return spec_.at(key).get<bool>();
}

std::string OptionReader::text(const std::string& key, const std::string& fallback) const {
  if (!spec_.contains(key)) return fallback;
  if (!spec_.at(key).is_string()) throw Error(fmt::format("method.{} must be a string", key));
  return spec_.at(key).get<std::string>();
}

DefectJacobi::Orders OptionReader::orders(const std::string& key) const {
  DefectJacobi::Orders orders;
  if (!spec_.contains(key)) return orders;
  const io::Json& value = spec_.at(key);
  const auto order = [&](const io::Json& v, const std::string& where) {
    return integer_of(v, where, -1000, 1000);
  };  // the method checks its own range
  if (value.is_object()) {
    for (const auto& [system, v] : value.items())
      orders.by_system[system] = order(v, fmt::format("{}.{}", key, system));
  } else {
    orders.all = order(value, key);
  }
  return orders;
}

std::vector<std::string> OptionReader::names(const std::string& key) const {
  std::vector<std::string> out;
  if (!spec_.contains(key)) return out;
  if (!spec_.at(key).is_array()) throw Error(fmt::format("method.{} must be an array of names", key));
  for (const auto& v : spec_.at(key)) {
    if (!v.is_string()) throw Error(fmt::format("method.{} must be an array of names", key));
    out.push_back(v.get<std::string>());
  }
  return out;
}

/// COSTARICA's options (estimator/step_estimator.hpp), shared by the methods that use it.
estimator::EstimatorOptions estimator_options(const OptionReader& options) {
  estimator::EstimatorOptions o;
  const std::string method = options.text("estimator", "exact");
  if (method == "exact") {
    o.response.method = estimator::InverseLaplace::exact;
  } else if (method == "stehfest") {
    o.response.method = estimator::InverseLaplace::stehfest;
  } else {
    throw Error(fmt::format("method.estimator must be 'exact' or 'stehfest', not '{}'", method));
  }
  o.response.stehfest_terms = options.integer("stehfest_terms", o.response.stehfest_terms, 2, 40);
  o.response.richardson_fraction = options.number("richardson_fraction", o.response.richardson_fraction);
  const std::string control = options.text("control", std::string(to_string(o.control)));
  bool known = false;
  for (estimator::ControlReconstruction c :
       {estimator::ControlReconstruction::zoh, estimator::ControlReconstruction::foh,
        estimator::ControlReconstruction::flexible}) {
    if (to_string(c) == control) {
      o.control = c;
      known = true;
    }
  }
  if (!known) throw Error(fmt::format("method.control must be 'zoh', 'foh' or 'flexible', not '{}'", control));
  o.affine_term = options.flag("affine_term", o.affine_term);
  if (o.response.method == estimator::InverseLaplace::stehfest)
    (void)estimator::stehfest_weights(o.response.stehfest_terms);  // validates N
  return o;
}

/// Detection of unannounced jumps (methods/jump_detector.hpp); jump_tolerance = 0 turns it off.
JumpOptions jump_options(const OptionReader& options) {
  JumpOptions o;
  o.tolerance = options.non_negative("jump_tolerance", o.tolerance);
  o.resolution = options.positive("jump_resolution", o.resolution);
  return o;
}

ErrorControlOptions error_control_options(const OptionReader& options) {
  ErrorControlOptions o;
  o.tolerance = options.non_negative("tolerance", o.tolerance);
  if (options.has("tolerance_atol")) o.atol = options.non_negative("tolerance_atol", 0.0);
  o.h_min = options.non_negative("dt_min", o.h_min);
  o.h_max = options.non_negative("dt_max", o.h_max);
  if (o.h_max > 0.0 && o.h_min > o.h_max) {
    throw Error(fmt::format("method.dt_min = {} exceeds method.dt_max = {}", o.h_min, o.h_max));
  }
  return o;
}

const std::vector<MethodOption>& error_control_option_schema() {
  static const std::vector<MethodOption> schema = {
      {"tolerance", "0",
       "error-controlled steps: the connection defect per step relative to each signal's scale (0: off, steps of δt)"},
      {"tolerance_atol", "nominal",
       "absolute part of each connection's weight under tolerance, in the signal's unit (default: tolerance·|nominal| "
       "of the source output where it declares one, else 0)"},
      {"dt_min", "0", "the smallest step (0: δt·1e-6)"},
      {"dt_max", "0", "the largest step under tolerance (0: none)"},
  };
  return schema;
}

const std::vector<MethodOption>& estimator_option_schema() {
  static const std::vector<MethodOption> schema = {
      {"estimator", "exact", "COSTARICA's inverse Laplace transform: exact or stehfest"},
      {"stehfest_terms", "14", "N, even, of the Stehfest inversion (2 … 40)"},
      {"richardson_fraction", "0.2", "η/h of the Richardson derivative (seed 001 eq. 42)"},
      {"control", "flexible", "reconstruction of a withheld system's control part: zoh, foh or flexible"},
      {"affine_term", "true", "keep the affine term of the estimated response"},
  };
  return schema;
}

const std::vector<MethodOption>& jump_option_schema() {
  static const std::vector<MethodOption> schema = {
      {"jump_tolerance", "1e-2", "smallest unannounced jump detected, relative to the signal's scale; 0: off"},
      {"jump_resolution", "1e-12", "a jump is located once inside a step ≤ this·max(1, |t|)"},
  };
  return schema;
}

std::vector<MethodOption> joined(std::vector<MethodOption> first, const std::vector<std::vector<MethodOption>>& more) {
  for (const auto& part : more) first.insert(first.end(), part.begin(), part.end());
  return first;
}

}  // namespace cosima::methods
