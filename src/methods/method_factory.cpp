#include "methods/method_factory.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/whole_number.hpp"
#include "methods/defect_jacobi.hpp"
#include "scenario/scenario.hpp"
#include "methods/explicit_coupling.hpp"
#include "methods/method_choice.hpp"
#include "methods/ifosmondi.hpp"
#include "methods/missiles.hpp"
#include "methods/monolithic.hpp"

namespace cosima {

namespace {


/// Options of every method, by method name. "type" and "dt" are read by the driver.
const std::map<std::string, std::set<std::string>>& known_options() {
  static const std::map<std::string, std::set<std::string>> options = {
      {"jacobi", {"extrapolation", "cliff", "memory", "rates", "plain_steps"}},
      {"gauss-seidel", {"order", "allow_algebraic_loops", "extrapolation", "cliff", "memory", "plain_steps"}},
      {"monolithic", {"rtol", "atol"}},
      {"defect-jacobi", {"tol", "m", "n", "h1", "h_min", "h_max", "kp", "ki", "theta_max", "fixed"}},
      {"missiles", {"estimator", "stehfest_terms", "richardson_fraction", "control", "affine_term", "sparse_above",
                    "jump_tolerance"}},
      {"ifosmondi", {"epsilon", "epsilon_abs", "epsilon_rel", "max_iterations", "dt_min", "criterion", "estimator", "stehfest_terms",
                     "richardson_fraction", "control", "affine_term", "jump_tolerance", "jump_resolution"}},
      {"ifosmondi-jfm", {"epsilon", "epsilon_abs", "epsilon_rel", "max_iterations", "dt_min", "criterion", "jfm", "petsc_options",
                         "estimator", "stehfest_terms", "richardson_fraction", "control", "affine_term", "jump_tolerance",
                         "jump_resolution"}},
  };
  return options;
}

class OptionReader {
 public:
  OptionReader(const Json& spec, std::string method, std::vector<std::string>& ignored) : spec_(spec), method_(std::move(method)) {
    const auto& mine = known_options().at(method_);
    for (const auto& [key, value] : spec_.items()) {
      if (key == "type" || key == "dt" || mine.contains(key)) continue;
      bool elsewhere = false;
      for (const auto& [other, keys] : known_options()) elsewhere = elsewhere || keys.contains(key);
      if (!elsewhere) throw Error(fmt::format("unknown method option 'method.{}'", key));
      ignored.push_back(fmt::format("method.{} is not used by method '{}'", key, method_));
    }
  }
  [[nodiscard]] double number(const std::string& key, double fallback) const {
    if (!spec_.contains(key)) return fallback;
    if (!spec_.at(key).is_number()) throw Error(fmt::format("method.{} must be a number", key));
    return spec_.at(key).get<double>();
  }
  /// A number > 0 (tolerances, step sizes): 0, negative and non-finite values are refused by name.
  [[nodiscard]] double positive(const std::string& key, double fallback) const {
    const double value = number(key, fallback);
    if (!(value > 0.0) || !std::isfinite(value)) throw Error(fmt::format("method.{} = {} must be positive", key, value));
    return value;
  }
  /// A number ≥ 0.
  [[nodiscard]] double non_negative(const std::string& key, double fallback) const {
    const double value = number(key, fallback);
    if (!(value >= 0.0) || std::isnan(value)) throw Error(fmt::format("method.{} = {} must not be negative", key, value));
    return value;
  }
  /// A count in [min, max] (checked: never a cast of an arbitrary double).
  [[nodiscard]] int integer(const std::string& key, int fallback, int min, int max) const {
    if (!spec_.contains(key)) return fallback;
    return integer_of(spec_.at(key), key, min, max);
  }
  static int integer_of(const Json& value, const std::string& where, int min, int max) {
    const auto whole = value.is_number() ? whole_number(value.get<double>(), min, max) : std::nullopt;
    if (!whole) throw Error(fmt::format("method.{} must be an integer in [{}, {}], not {}", where, min, max, json_text(value)));
    return *whole;
  }
  [[nodiscard]] bool flag(const std::string& key, bool fallback) const {
    if (!spec_.contains(key)) return fallback;
    if (!spec_.at(key).is_boolean()) throw Error(fmt::format("method.{} must be true or false", key));
    return spec_.at(key).get<bool>();
  }
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const {
    if (!spec_.contains(key)) return fallback;
    if (!spec_.at(key).is_string()) throw Error(fmt::format("method.{} must be a string", key));
    return spec_.at(key).get<std::string>();
  }
  /// An order for every system ("m": 1) or by system ("m": {"body1": 2, "body2": 0}).
  [[nodiscard]] DefectJacobi::Orders orders(const std::string& key) const {
    DefectJacobi::Orders orders;
    if (!spec_.contains(key)) return orders;
    const Json& value = spec_.at(key);
    const auto order = [&](const Json& v, const std::string& where) { return integer_of(v, where, -1000, 1000); };  // the method checks its own range
    if (value.is_object()) {
      for (const auto& [system, v] : value.items()) orders.by_system[system] = order(v, fmt::format("{}.{}", key, system));
    } else {
      orders.all = order(value, key);
    }
    return orders;
  }
  [[nodiscard]] std::vector<std::string> names(const std::string& key) const {
    std::vector<std::string> out;
    if (!spec_.contains(key)) return out;
    if (!spec_.at(key).is_array()) throw Error(fmt::format("method.{} must be an array of names", key));
    for (const auto& v : spec_.at(key)) {
      if (!v.is_string()) throw Error(fmt::format("method.{} must be an array of names", key));
      out.push_back(v.get<std::string>());
    }
    return out;
  }

 private:
  const Json& spec_;
  std::string method_;
};

/// COSTARICA's options (estimator/step_estimator.hpp), shared by the methods that use it.
EstimatorOptions estimator_options(const OptionReader& options) {
  EstimatorOptions o;
  const std::string method = options.text("estimator", "exact");
  if (method == "exact") {
    o.response.method = InverseLaplace::exact;
  } else if (method == "stehfest") {
    o.response.method = InverseLaplace::stehfest;
  } else {
    throw Error(fmt::format("method.estimator must be 'exact' or 'stehfest', not '{}'", method));
  }
  o.response.stehfest_terms = options.integer("stehfest_terms", o.response.stehfest_terms, 2, 40);
  o.response.richardson_fraction = options.number("richardson_fraction", o.response.richardson_fraction);
  const std::string control = options.text("control", std::string(to_string(o.control)));
  bool known = false;
  for (ControlReconstruction c : {ControlReconstruction::zoh, ControlReconstruction::foh, ControlReconstruction::flexible}) {
    if (to_string(c) == control) {
      o.control = c;
      known = true;
    }
  }
  if (!known) throw Error(fmt::format("method.control must be 'zoh', 'foh' or 'flexible', not '{}'", control));
  o.affine_term = options.flag("affine_term", o.affine_term);
  if (o.response.method == InverseLaplace::stehfest) (void)stehfest_weights(o.response.stehfest_terms);  // validates N
  return o;
}

/// Detection of unannounced jumps (methods/jump_detector.hpp); jump_tolerance = 0 turns it off.
JumpOptions jump_options(const OptionReader& options) {
  JumpOptions o;
  o.tolerance = options.non_negative("jump_tolerance", o.tolerance);
  o.resolution = options.positive("jump_resolution", o.resolution);
  return o;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> method_options() {
  std::vector<std::pair<std::string, std::vector<std::string>>> list;
  for (const auto& [name, options] : known_options()) list.emplace_back(name, std::vector<std::string>(options.begin(), options.end()));
  return list;
}

std::string method_names() {
  std::string names;
  for (const auto& [name, options] : known_options()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::unique_ptr<CouplingMethod> make_method(const Json& spec, double dt, std::vector<std::string>& ignored) {
  const std::string type = spec.contains("type") && spec["type"].is_string() ? spec["type"].get<std::string>() : "";
  if (is_auto_method(spec)) {
    throw Error(fmt::format("method '{}' is chosen from the systems' capabilities: resolve it first (resolve_auto_method)", type));
  }
  if (!known_options().contains(type)) {
    throw Error(fmt::format("unknown method '{}' (methods: {}; or auto, auto:fast)", type, method_names()));
  }
  const OptionReader options(spec, type, ignored);
  if (type == "jacobi" || type == "gauss-seidel") {
    ExplicitCoupling::Options o;
    o.scheme = type == "jacobi" ? ExplicitCoupling::Scheme::jacobi : ExplicitCoupling::Scheme::gauss_seidel;
    o.order = options.names("order");
    o.allow_algebraic_loops = options.flag("allow_algebraic_loops", false);
    if (spec.contains("extrapolation") && spec.at("extrapolation").is_object()) {  // by input, "default" for the rest
      for (const auto& [input, value] : spec.at("extrapolation").items()) {
        if (!value.is_string()) throw Error(fmt::format("method.extrapolation.{} must be a string", input));
        if (input == "default") {
          o.extrapolation = value.get<std::string>();
        } else {
          o.extrapolation_of[input] = value.get<std::string>();
        }
      }
    } else {
      o.extrapolation = options.text("extrapolation", "zoh");
    }
    (void)parse_extrapolation(o.extrapolation);
    for (const auto& [input, text] : o.extrapolation_of) (void)parse_extrapolation(text);
    o.cliff = options.number("cliff", o.cliff);
    o.memory = options.integer("memory", o.memory, 1, 1000000);
    o.plain_steps = options.flag("plain_steps", true);
    if (spec.contains("rates")) {
      if (!spec.at("rates").is_object()) throw Error("method.rates must be an object {\"system\": k}");
      for (const auto& [system, value] : spec.at("rates").items()) {
        o.rates[system] = OptionReader::integer_of(value, "rates." + system, -(1 << 30), 1 << 30);  // checked by the method
      }
    }
    return std::make_unique<ExplicitCoupling>(std::move(o));
  }
  if (type == "ifosmondi" || type == "ifosmondi-jfm") {
    Ifosmondi::Options o;
    const double epsilon = options.positive("epsilon", 1e-4);
    o.nonlinear.epsilon_abs = options.positive("epsilon_abs", epsilon);
    o.nonlinear.epsilon_rel = options.positive("epsilon_rel", epsilon);
    // the fixed point contracts slowly near ρ = 1: it gets more iterations by default
    o.nonlinear.max_iterations = options.integer("max_iterations", type == "ifosmondi" ? 500 : 100, 1, 1 << 30);
    o.nonlinear.solver = type == "ifosmondi" ? "fixed-point" : options.text("jfm", "anderson");
    if (type == "ifosmondi-jfm" && o.nonlinear.solver == "fixed-point") {
      throw Error("method.jfm: use method 'ifosmondi' for the fixed point");
    }
    o.nonlinear.petsc_options = options.text("petsc_options", "");
    const std::string criterion = options.text("criterion", "norm");
    if (criterion != "norm" && criterion != "componentwise") {
      throw Error(fmt::format("method.criterion is '{}': 'norm' (eq. 27, one norm over the unknowns) or 'componentwise' "
                              "(each unknown against its own scale)",
                              criterion));
    }
    o.nonlinear.criterion = criterion == "componentwise" ? Criterion::componentwise : Criterion::norm;
    o.dt_ref = dt;
    o.dt_min = options.non_negative("dt_min", 0.0);
    o.estimator = estimator_options(options);
    o.jumps = jump_options(options);
    return std::make_unique<Ifosmondi>(std::move(o));
  }
  if (type == "defect-jacobi") {
    DefectJacobi::Options o;
    o.input_order = options.orders("m");
    o.output_order = options.orders("n");
    o.fixed_step = options.flag("fixed", false);
    o.h1 = options.non_negative("h1", 0.0);
    o.controller.tol = options.positive("tol", o.controller.tol);
    o.controller.kp = options.number("kp", o.controller.kp);
    o.controller.ki = options.number("ki", o.controller.ki);
    o.controller.theta_max = options.number("theta_max", o.controller.theta_max);
    o.controller.h_min = options.non_negative("h_min", o.controller.h_min);
    o.controller.h_max = options.non_negative("h_max", o.controller.h_max);
    return std::make_unique<DefectJacobi>(std::move(o), dt);
  }
  if (type == "missiles") {
    Missiles::Options o;
    o.estimator = estimator_options(options);
    o.sparse_above = options.integer("sparse_above", o.sparse_above, 0, 1 << 30);
    o.jumps = jump_options(options);
    return std::make_unique<Missiles>(o);
  }
  Monolithic::Options o;
  o.rtol = options.positive("rtol", o.rtol);
  o.atol = options.non_negative("atol", o.atol);
  return std::make_unique<Monolithic>(o);
}

}  // namespace cosima
