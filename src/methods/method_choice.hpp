#pragma once
// method "auto": the coupling method the systems' capabilities allow, chosen before the run.
//   "auto"       the most accurate: IFOSMONDI-JFM when every system takes variable steps and can
//                be rolled back or estimated by COSTARICA (it iterates each step to the coupled
//                solution, seed 000); else MISSILES when every system has states and a
//                linearization (seed 003); else Jacobi.
//   "auto:fast"  the cheapest of the accurate ones: MISSILES (one integration per system and step,
//                no iteration) when every system has states and a linearization or no inputs; else Jacobi.
// Both iterate or estimate only where a continuous signal couples two systems: when none does (no
// connections, or only discrete, non-Real or held ones), "auto" and "auto:fast" take Jacobi.
// What cosima can emulate (kEmulable: input interpolation, output derivatives) counts as available.
// Resolving "auto" for a scenario (scenario/build_model.cpp, resolve_auto_method) adds what needs
// the files: declared capabilities probed (system/capability_probe.hpp), Model Exchange FMUs taken
// through `monolithic`, dual-interface FMUs switched to Model Exchange when that ranks higher.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json.hpp"

#include "system/system.hpp"

namespace cosima::methods {

struct MethodChoice {
  std::string type;    ///< a method make_method() builds
  std::string reason;  ///< why, naming the systems that ruled out a better one
};

/// Whether a scenario's "method" asks for "auto" or "auto:fast".
bool is_auto_method(const cosima::io::Json& spec);
/// Throws Error for a request other than "auto" / "auto:fast" or no systems. `continuous_coupling`:
/// whether some continuous Real output feeds a continuous input of another system.
MethodChoice choose_method(std::string_view request, const std::vector<const System*>& systems,
                           bool continuous_coupling = true);
/// How much more accurate a choice of "auto" is: ifosmondi-jfm 2, missiles 1, jacobi 0.
int choice_rank(const MethodChoice& choice);

}  // namespace cosima::methods
