#pragma once
// What the front ends (the cosima command, the Python module) may use of cosima besides core/:
// check_layers.py refuses any other header of src/ there. Each need, and where it is answered:
//   load a scenario          scenario::load_scenario, parse_scenario, apply_override (scenario.hpp)
//   run it                   api::Launch (api/launch.hpp), scenario::RunOutputs
//   read the results         scenario::ScenarioRun: observer::ResultRecorder, stats_to_json
//   watch a run              observer::Observer, observer::ProgressLine
//   export and describe      scenario::export_ssp; fmi::read_model_description, fmi::describe_fmu
//   what there is            methods::registered_methods, method_names; models::catalog, make_model
//   compare and draw         io::read_csv; plot::plot_results
#include "api/launch.hpp"
#include "fmi/common/fmu_archive.hpp"
#include "fmi/common/model_description.hpp"
#include "fmi/fmu_info.hpp"
#include "io/csv.hpp"
#include "methods/method_registry.hpp"
#include "models/registry.hpp"
#include "observer/observer.hpp"
#include "observer/progress_line.hpp"
#include "plot/gnuplot.hpp"
#include "scenario/run_scenario.hpp"
#include "scenario/scenario.hpp"
#include "scenario/ssp_export.hpp"
