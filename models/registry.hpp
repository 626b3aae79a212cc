#pragma once
// The built-in models: the seeds' benchmarks B1–B6 (DESIGN §4), each subsystem a native model
// that the FMU export kit can also package.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "system/native/ode_model.hpp"

namespace cosima::models {

struct ModelEntry {
  std::string name;  ///< e.g. "b3.prey"
  std::string description;
};

const std::vector<ModelEntry>& catalog();
/// Throws Error naming the model and listing the known ones.
std::unique_ptr<OdeModel> make_model(std::string_view name);

}  // namespace cosima::models
