#pragma once
// Builds a coupling method from the scenario's "method" object: {"type": NAME, options...}.
// An option no method knows is an error naming it; an option another method uses is reported in
// `ignored` (so one scenario can be run with several methods through --method).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json.hpp"

#include "methods/coupling_method.hpp"

namespace cosima {

/// `dt` is the run's macro-step: the step of fixed-step methods, δt_ref of the variable-step ones.
std::unique_ptr<CouplingMethod> make_method(const cosima::Json& spec, double dt,
                                            std::vector<std::string>& ignored);
/// "jacobi, gauss-seidel, monolithic"
std::string method_names();
/// Every method with the options it reads (besides "type" and "dt"), by name.
std::vector<std::pair<std::string, std::vector<std::string>>> method_options();

}  // namespace cosima
