#include "methods/method_registry.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "methods/method_choice.hpp"

namespace cosima::methods {

void register_builtin_methods();  // builtin_methods.cpp

namespace {

std::vector<MethodEntry>& entries() {
  static std::vector<MethodEntry> list;
  return list;
}

bool known_by(const MethodEntry& entry, std::string_view option) {
  return std::any_of(entry.options.begin(), entry.options.end(),
                     [&](const MethodOption& o) { return o.name == option; });
}

/// Options of `spec` that `entry` does not read: an Error when no method knows them, else `ignored`.
void sort_out_options(const io::Json& spec, const MethodEntry& entry, std::vector<std::string>& ignored) {
  for (const auto& item : spec.items()) {
    const std::string& key = item.key();
    if (key == "type" || key == "dt" || known_by(entry, key)) continue;
    const auto& all = registered_methods();
    const bool elsewhere = std::any_of(all.begin(), all.end(), [&](const MethodEntry& e) { return known_by(e, key); });
    if (!elsewhere) {
      std::vector<std::string> options;
      for (const MethodOption& o : entry.options) options.push_back(o.name);
      throw Error(fmt::format("unknown method option 'method.{}' (options of {}: {}){}", key, entry.name,
                              options.empty() ? "none" : fmt::format("{}", fmt::join(options, ", ")),
                              did_you_mean(key, options)));
    }
    ignored.push_back(fmt::format("method.{} is not used by method '{}'", key, entry.name));
  }
}

}  // namespace

void register_method(MethodEntry entry) {
  if (std::any_of(entries().begin(), entries().end(), [&](const MethodEntry& e) { return e.name == entry.name; })) {
    throw Error(fmt::format("method '{}' is registered twice", entry.name));
  }
  entries().push_back(std::move(entry));
}

const std::vector<MethodEntry>& registered_methods() {
  static std::once_flag once;
  std::call_once(once, register_builtin_methods);
  return entries();
}

const MethodEntry* find_method(std::string_view name) {
  for (const MethodEntry& entry : registered_methods()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string method_names() {
  std::string names;
  for (const MethodEntry& entry : registered_methods()) names += (names.empty() ? "" : ", ") + entry.name;
  return names;
}

std::unique_ptr<CouplingMethod> make_method(const io::Json& spec, double dt, std::vector<std::string>& ignored) {
  const std::string type = spec.contains("type") && spec["type"].is_string() ? spec["type"].get<std::string>() : "";
  if (is_auto_method(spec)) {
    throw Error(fmt::format(
        "method '{}' is chosen from the systems' capabilities: resolve it first (resolve_auto_method)", type));
  }
  const MethodEntry* entry = find_method(type);
  if (entry == nullptr) {
    std::vector<std::string> names = {"auto", "auto:fast"};
    for (const MethodEntry& e : registered_methods()) names.push_back(e.name);
    throw Error(fmt::format("unknown method '{}' (methods: {}; or auto, auto:fast){}", type, method_names(),
                            did_you_mean(type, names)));
  }
  sort_out_options(spec, *entry, ignored);
  return entry->make(OptionReader(spec, type), dt);
}

}  // namespace cosima::methods
