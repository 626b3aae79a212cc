#pragma once
// What the export kit needs from the FMU being built: its model and its declared flags. Each FMU target compiles one
// generated source defining this function (cmake/CosimaFmu.cmake).
#include <memory>

#include "system/native/ode_model.hpp"

namespace cosima::fmu_export {

std::unique_ptr<OdeModel> make_exported_model();

/// Capabilities the FMU declares beyond the model's own (cosima_add_fmu options).
struct ExportFlags {
  bool can_get_and_set_state = true;  ///< canGetAndSetFMUstate; false: NO_ROLLBACK, like most industrial FMUs
};
ExportFlags exported_flags();

}  // namespace cosima::fmu_export
