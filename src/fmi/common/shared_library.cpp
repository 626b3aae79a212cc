#include "fmi/common/shared_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::fmi {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

/// An FMU's references bind inside its own library and its dependencies first (RTLD_DEEPBIND): an
/// FMU that carries its own copy of SUNDIALS, LAPACK or zlib calls that copy, not cosima's, whose
/// libraries are in the global scope. The sanitizers refuse RTLD_DEEPBIND (their interceptors would
/// be bypassed), so a sanitized build loads FMUs without it.
constexpr int kFmuOpenFlags = RTLD_NOW | RTLD_LOCAL | (kSanitized ? 0 : RTLD_DEEPBIND);

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
