#pragma once
// method "auto": the coupling method the systems' capabilities allow, chosen before the run.
//   "auto"       the most accurate: IFOSMONDI-JFM when every system takes variable steps and can
//                be rolled back or estimated by COSTARICA (it iterates each step to the coupled
//                solution, seed 000); else MISSILES when every system has states and a
//                linearization (seed 003); else Jacobi.
//   "auto:fast"  the cheapest of the accurate ones: MISSILES (one integration per system and step,
//                no iteration) when every system has states and a linearization or no inputs; else Jacobi.
// What cosima can emulate (kEmulable: input interpolation, output derivatives) counts as available.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json.hpp"

#include "system/system.hpp"

namespace cosima {

struct MethodChoice {
  std::string type;    ///< a method make_method() builds
  std::string reason;  ///< why, naming the systems that ruled out a better one
};

/// Whether a scenario's "method" asks for "auto" or "auto:fast".
bool is_auto_method(const cosima::Json& spec);
/// Throws Error for a request other than "auto" / "auto:fast" or no systems.
MethodChoice choose_method(std::string_view request, const std::vector<const System*>& systems);

}  // namespace cosima
