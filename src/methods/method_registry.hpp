#pragma once
// The coupling methods by name. Each method registers itself in its own file — its name, a line of
// summary, its options (name, default, help: what `cosima run --help` prints) and its factory — and
// methods/builtin_methods.cpp calls each registration once. A new method adds its files here and
// one line there.
//
// The scenario's "method" object {"type": NAME, options...} becomes a method through make_method:
// an option no method knows is an error naming it; an option another method uses is reported in
// `ignored` (one scenario runs with several methods through --method).
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/json.hpp"
#include "methods/coupling_method.hpp"
#include "methods/method_options.hpp"

namespace cosima::methods {

struct MethodEntry {
  std::string name;
  std::string summary;
  std::vector<MethodOption> options;  ///< besides "type" and "dt", which the driver reads
  /// `dt` is the run's macro-step: the step of fixed-step methods, δt_ref of the variable-step ones.
  std::function<std::unique_ptr<CouplingMethod>(const OptionReader& options, double dt)> make;
};

/// Adds a method (at start-up, from builtin_methods.cpp); a name registered twice is an Error.
void register_method(MethodEntry entry);
/// Every method, in registration order.
const std::vector<MethodEntry>& registered_methods();
/// The method named `name`, or nullptr.
const MethodEntry* find_method(std::string_view name);

std::unique_ptr<CouplingMethod> make_method(const io::Json& spec, double dt, std::vector<std::string>& ignored);
/// "jacobi, gauss-seidel, monolithic, …"
std::string method_names();

}  // namespace cosima::methods
