// cosima_fmu_describe LIBRARY.so MODEL_IDENTIFIER OUT.xml [FMI_VERSION] — writes an exported FMU's
// modelDescription.xml by asking the library itself (build step of cmake/CosimaFmu.cmake).
// FMI_VERSION: 2.0 (the default, cosima_fmu_write_model_description) or 3.0
// (cosima_fmu_write_model_description_fmi3); the same library carries both.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: cosima_fmu_describe LIBRARY.so MODEL_IDENTIFIER OUT.xml [2.0|3.0]\n");
    return 2;
  }
  const char* version = argc == 5 ? argv[4] : "2.0";
  const char* symbol = nullptr;
  if (std::strcmp(version, "2.0") == 0) {
    symbol = "cosima_fmu_write_model_description";
  } else if (std::strcmp(version, "3.0") == 0) {
    symbol = "cosima_fmu_write_model_description_fmi3";
  } else {
    std::fprintf(stderr, "cosima_fmu_describe: FMI version '%s' is not 2.0 or 3.0\n", version);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cosima_fmu_describe: %s\n", dlerror());
    return 1;
  }
  using Describe = int (*)(const char*, const char*);
  auto describe = reinterpret_cast<Describe>(dlsym(library, symbol));
  if (describe == nullptr) {
    std::fprintf(stderr, "cosima_fmu_describe: %s was not built with the cosima export kit (no %s)\n", argv[1], symbol);
    dlclose(library);
    return 1;
  }
  const int status = describe(argv[3], argv[2]);
  dlclose(library);
  return status;
}
