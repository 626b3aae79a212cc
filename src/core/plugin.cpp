#include "core/plugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace cosima {

namespace {

std::mutex& plugins_mutex() {
  static std::mutex mutex;
  return mutex;
}

/// Open plugins by file name (never closed: their libraries may have registered exit handlers).
std::map<std::string, void*>& open_plugins() {
  static std::map<std::string, void*> plugins;
  return plugins;
}

std::filesystem::path plugin_directory() {
  if (const char* dir = std::getenv("COSIMA_PLUGIN_DIR"); dir != nullptr && *dir != '\0') return dir;
  return COSIMA_PLUGIN_DIR;
}

void* symbol_in(void* handle, const std::string& file, const char* symbol) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) throw Error(fmt::format("plugin '{}' has no symbol '{}'", file, symbol));
  return address;
}

}  // namespace

void* plugin_symbol(const char* plugin, const char* symbol) {
  const std::lock_guard lock(plugins_mutex());
  auto& plugins = open_plugins();
  if (const auto it = plugins.find(plugin); it != plugins.end()) return symbol_in(it->second, plugin, symbol);
  const std::filesystem::path file = plugin_directory() / plugin;
  // lazy binding: PETSc's plugin pulls in some forty libraries (MUMPS, HYPRE, …) whose functions
  // it never calls here; binding all of them at load took most of a PETSc run's start-up.
  // The plugin is built with cosima against the same libraries, so no symbol is left unresolved.
  void* handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw Error(fmt::format("cannot open cosima's plugin '{}': {} (COSIMA_PLUGIN_DIR names its directory)",
                            file.string(), why != nullptr ? why : "unknown error"));
  }
  plugins.emplace(plugin, handle);
  return symbol_in(handle, file.string(), symbol);
}

void* loaded_plugin_symbol(const char* plugin, const char* symbol) {
  const std::lock_guard lock(plugins_mutex());
  const auto& plugins = open_plugins();
  const auto it = plugins.find(plugin);
  return it == plugins.end() ? nullptr : dlsym(it->second, symbol);
}

}  // namespace cosima
