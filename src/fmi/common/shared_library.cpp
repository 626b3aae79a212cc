#include "fmi/common/shared_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::fmi {

namespace {

/// How an FMU's library is opened (FMI 2.0 §2.1.1 gives the importer no more to go on). RTLD_LOCAL:
/// its symbols stay its own, so two FMUs may export the same names. No RTLD_DEEPBIND: an FMU written
/// in C++ must share the process's one libstdc++ — the executable holds copy relocations of
/// libstdc++'s objects (std::cout, the streams' vtables), and a deep-bound library would use
/// libstdc++'s own, never-constructed copies (SIGSEGV at its first output). An FMU that bundles a
/// library cosima uses too still binds to its own copy wherever cosima keeps that library out of the
/// global scope: SUNDIALS is linked statically and not exported, PETSc and MPI are plugins opened
/// RTLD_LOCAL (core/plugin.hpp). What the global scope holds — the C and C++ runtimes, which every
/// process shares, and the few libraries tests/house/check_global_scope.sh allows — an FMU's
/// references bind to first, as in any importer's process.
constexpr int kFmuOpenFlags = RTLD_NOW | RTLD_LOCAL;

}  // namespace

SharedLibrary::SharedLibrary(const std::filesystem::path& shared_object, std::string fmu)
    : fmu_(std::move(fmu)), file_name_(shared_object.filename().string()) {
  handle_ = dlopen(shared_object.c_str(), kFmuOpenFlags);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw Error(fmt::format("FMU '{}': cannot load {}: {}", fmu_, file_name_, why != nullptr ? why : "unknown reason"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* SharedLibrary::lookup(const char* symbol, bool required) const {
  void* address = dlsym(handle_, symbol);
  if (address == nullptr && required) {
    throw Error(fmt::format("FMU '{}': binary {} lacks the required function {}", fmu_, file_name_, symbol));
  }
  return address;
}

}  // namespace cosima::fmi
