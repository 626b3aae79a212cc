#pragma once
// An FMU's shared library, dlopen'd for any FMI version: the version's function table resolves its
// symbols through resolve() (fmi/v2/fmi2_library.hpp, fmi/v3/fmi3_instance.hpp).
#include <filesystem>
#include <string>

namespace cosima::fmi {

/// A dlopen'd library; `fmu` names the FMU in errors. dlclose at destruction.
class SharedLibrary {
 public:
  SharedLibrary(const std::filesystem::path& shared_object, std::string fmu);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  /// Resolves `symbol` into `slot` (a function pointer); throws Error when required and missing.
  template <class Function>
  void resolve(Function& slot, const char* symbol, bool required) const {
    slot = reinterpret_cast<Function>(lookup(symbol, required));
  }

 private:
  [[nodiscard]] void* lookup(const char* symbol, bool required) const;
  void* handle_ = nullptr;
  std::string fmu_, file_name_;
};

}  // namespace cosima::fmi
