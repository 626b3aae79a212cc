#pragma once
// Parts of cosima that pull in heavy libraries live in plugins opened on first use, so a run that
// does not need them does not pay for loading them: libcosima_snes.so (PETSc SNES, ≈70 ms and a
// hundred shared libraries at start-up; nonlinear/snes_solver.cpp). A plugin is a shared library
// built beside cosima, found in COSIMA_PLUGIN_DIR (the environment variable, else the build's
// lib/ directory), opened once and kept open for the life of the process.
/// Marks a plugin's entry point (plugins are built with hidden visibility).
#define COSIMA_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace cosima {

/// The address of `symbol` in `plugin` (e.g. "libcosima_snes.so"), opening the plugin if needed.
/// Throws Error naming the file and the loader's message.
void* plugin_symbol(const char* plugin, const char* symbol);

/// The address of `symbol` if `plugin` is already open, else nullptr (never opens it).
void* loaded_plugin_symbol(const char* plugin, const char* symbol);

}  // namespace cosima
