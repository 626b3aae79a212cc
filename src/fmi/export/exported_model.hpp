#pragma once
// What the export kit needs from the FMU being built: its model. Each FMU target compiles one
// generated source defining this function (cmake/CosimaFmu.cmake).
#include <memory>

#include "system/native/ode_model.hpp"

namespace cosima::fmu_export {

std::unique_ptr<OdeModel> make_exported_model();

}  // namespace cosima::fmu_export
