// A shared library with some fmi2 functions but no fmi2DoStep: an FMU binary that cannot be used.
#include "fmi/v2/fmi2_api.hpp"

extern "C" __attribute__((visibility("default"))) fmi2Component fmi2Instantiate(fmi2String, fmi2Type, fmi2String,
                                                                                fmi2String,
                                                                                const fmi2CallbackFunctions*,
                                                                                fmi2Boolean, fmi2Boolean) {
  return nullptr;
}
extern "C" __attribute__((visibility("default"))) void fmi2FreeInstance(fmi2Component) {}
