// cosima_fmu_describe LIBRARY.so MODEL_IDENTIFIER OUT.xml — writes an exported FMU's
// modelDescription.xml by asking the library itself (build step of cmake/CosimaFmu.cmake).
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cosima_fmu_describe LIBRARY.so MODEL_IDENTIFIER OUT.xml\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cosima_fmu_describe: %s\n", dlerror());
    return 1;
  }
  using Describe = int (*)(const char*, const char*);
  auto describe = reinterpret_cast<Describe>(dlsym(library, "cosima_fmu_write_model_description"));
  if (describe == nullptr) {
    std::fprintf(stderr, "cosima_fmu_describe: %s was not built with the cosima export kit\n", argv[1]);
    dlclose(library);
    return 1;
  }
  const int status = describe(argv[3], argv[2]);
  dlclose(library);
  return status;
}
