#pragma once
// A method's options as the scenario gives them: the "method" object {"type": NAME, options...},
// read with checks that name the option (method.NAME) and its allowed values. The option schema —
// names, defaults and help — is declared by each method where it registers (method_registry.hpp).
#include <string>
#include <vector>

#include "estimator/step_estimator.hpp"
#include "io/json.hpp"
#include "methods/defect_jacobi.hpp"
#include "methods/error_control.hpp"
#include "methods/jump_detector.hpp"

namespace cosima::methods {

/// One option of a method: its name, its default as text, and a line of help (`cosima run --help`).
struct MethodOption {
  std::string name;
  std::string default_value;
  std::string help;
};

class OptionReader {
 public:
  /// `spec` is the method object; `method` names the method in messages.
  OptionReader(const io::Json& spec, std::string method) : spec_(spec), method_(std::move(method)) {}

  [[nodiscard]] const io::Json& spec() const { return spec_; }
  [[nodiscard]] bool has(const std::string& key) const { return spec_.contains(key); }
  [[nodiscard]] double number(const std::string& key, double fallback) const;
  /// A number > 0 (tolerances, step sizes): 0, negative and non-finite values are refused by name.
  [[nodiscard]] double positive(const std::string& key, double fallback) const;
  /// A number ≥ 0.
  [[nodiscard]] double non_negative(const std::string& key, double fallback) const;
  /// A count in [min, max] (checked: never a cast of an arbitrary double).
  [[nodiscard]] int integer(const std::string& key, int fallback, int min, int max) const;
  static int integer_of(const io::Json& value, const std::string& where, int min, int max);
  [[nodiscard]] bool flag(const std::string& key, bool fallback) const;
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const;
  /// An order for every system ("m": 1) or by system ("m": {"body1": 2, "body2": 0}).
  [[nodiscard]] DefectJacobi::Orders orders(const std::string& key) const;
  [[nodiscard]] std::vector<std::string> names(const std::string& key) const;

 private:
  const io::Json& spec_;
  std::string method_;
};

/// COSTARICA's options (estimator/step_estimator.hpp), shared by the methods that use it.
const std::vector<MethodOption>& estimator_option_schema();
estimator::EstimatorOptions estimator_options(const OptionReader& options);
/// Detection of unannounced jumps (methods/jump_detector.hpp); jump_tolerance = 0 turns it off.
const std::vector<MethodOption>& jump_option_schema();
JumpOptions jump_options(const OptionReader& options);

/// Error-controlled macro-steps (methods/error_control.hpp): tolerance (0: off), tolerance_atol,
/// dt_min, dt_max; shared by the methods that can choose their steps.
const std::vector<MethodOption>& error_control_option_schema();
ErrorControlOptions error_control_options(const OptionReader& options);

/// `first` followed by each list of `more` (a schema made of shared parts).
std::vector<MethodOption> joined(std::vector<MethodOption> first, const std::vector<std::vector<MethodOption>>& more);

}  // namespace cosima::methods
