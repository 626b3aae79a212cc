#include "methods/method_choice.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::methods {

namespace {

/// The systems failing `allowed`, "'a', 'b'".
template <typename Predicate>
std::string failing(const std::vector<const System*>& systems, Predicate allowed) {
  std::string names;
  for (const System* system : systems) {
    if (!allowed(*system)) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", system->name());
  }
  return names;
}

}  // namespace

bool is_auto_method(const cosima::io::Json& spec) {
  if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string()) return false;
  const auto type = spec["type"].get<std::string>();
  return type == "auto" || type.starts_with("auto:");
}

int choice_rank(const MethodChoice& choice) {
  if (choice.type == "ifosmondi-jfm") return 2;
  return choice.type == "missiles" ? 1 : 0;
}

MethodChoice choose_method(std::string_view request, const std::vector<const System*>& systems,
                           bool continuous_coupling) {
  if (request != "auto" && request != "auto:fast") {
    throw Error(fmt::format("method '{}': ask for \"auto\" (the most accurate method) or \"auto:fast\" (the cheapest)",
                            request));
  }
  if (!continuous_coupling) {
    return {"jacobi",
            "no continuous signal couples the systems (no connection, or only discrete, non-Real or held ones): "
            "nothing to iterate or estimate, Jacobi"};
  }
  // COSTARICA estimates a system from its states and linearization; MISSILES just integrates one
  // without inputs
  const auto linearizable = [](const System& s) {
    return s.has(Capability::state_access) && s.has(Capability::linearization);
  };
  const auto estimable = [&](const System& s) { return s.input_count() == 0 || linearizable(s); };
  // a system without inputs and rollback runs ahead (system/emulation/run_ahead_system.hpp)
  const auto iterable = [&](const System& s) {
    return s.has(Capability::variable_step) && (s.has(Capability::rollback) || s.input_count() == 0 || linearizable(s));
  };
  const std::string not_estimable = failing(systems, estimable);
  if (request == "auto") {
    const std::string not_iterable = failing(systems, iterable);
    if (not_iterable.empty()) {
      return {"ifosmondi-jfm",
              "every system takes variable steps and can be rolled back, run ahead (no inputs) or estimated "
              "(COSTARICA): IFOSMONDI-JFM iterates each step to the coupled solution"};
    }
    if (not_estimable.empty()) {
      return {"missiles",
              fmt::format("{} cannot iterate (no rollback with variable steps), but every system has states "
                          "and a linearization: MISSILES",
                          not_iterable)};
    }
    return {"jacobi", fmt::format("{} cannot iterate (variable steps with rollback, no inputs, or states and a "
                                  "linearization) and "
                                  "{} cannot be estimated: explicit coupling",
                                  not_iterable, not_estimable)};
  }
  if (not_estimable.empty()) {
    return {"missiles", "every system has states and a linearization: MISSILES, one integration per system and step"};
  }
  return {"jacobi", fmt::format("{} has no states and linearization for MISSILES: Jacobi, one integration per system "
                                "and step",
                                not_estimable)};
}

}  // namespace cosima::methods
