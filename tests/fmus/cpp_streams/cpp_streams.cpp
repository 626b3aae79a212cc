// cosima_test_cpp_streams: FMI 2.0 Co-Simulation, written in C++ (the model's part; the fmi2 functions are those of
// ../fmu_common.c), linked with the shared libstdc++ as g++ does by default.
//
// Exporter habit: FMUs written in C++ (libcosim's demo FMUs, the C++ FMU SDKs) use the standard library freely:
// iostreams to report, string streams to format and parse numbers. Here:
//   - fmi2Instantiate writes one line to std::cout and formats 12.25 into a std::stringstream and parses it back:
//     from_instantiate (output) = 12.25;
//   - fmi2SetupExperiment and every fmi2DoStep format the time (start time, t + h) with 17 digits into a
//     std::ostringstream and parse it back with a std::istringstream: t_parsed (output) = that time, exactly;
//   - fmi2DoStep writes a line to std::cout only when the parameter verbose is true (default false);
//   - y (output) = u + t_parsed, u a Real input (start 0).
// A libstdc++ object such as std::cout exists once in the process: the executable that links libstdc++ (a C++
// importer) usually has its own copy of std::cout (a copy relocation), which ios_base::Init constructs, and every
// library is bound to that copy. An importer that opens the FMU with dlopen(RTLD_DEEPBIND) makes the FMU look up
// symbols in its own dependencies first, so the FMU finds libstdc++'s original std::cout, never constructed:
// fmi2Instantiate crashes (SIGSEGV) on its first output.
//
// What a correct importer shows: the line
//   cosima_test_cpp_streams: fmi2Instantiate(<instance name>)
// on standard output for each instance, no crash, and with u = 0 and communication step h:
// t_parsed = t and y = u + t at every communication point t (y = 0 at the start), from_instantiate = 12.25;
// with verbose = true one more line per step: "cosima_test_cpp_streams: t = <t + h>, y = <y>".
#include <exception>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "fmu_common.h"

namespace {

enum { U, Y, FROM_INSTANTIATE, T_PARSED, VERBOSE, N_VARIABLES };

const fmu_variable variables[N_VARIABLES] = {
  {"u", 1, FMU_REAL, FMU_INPUT, FMU_CONTINUOUS, 0.0, nullptr, 0, 0, 0, nullptr},
  {"y", 2, FMU_REAL, FMU_OUTPUT, FMU_CONTINUOUS, 0.0, nullptr, 0, 0, 0, nullptr},
  {"from_instantiate", 3, FMU_REAL, FMU_OUTPUT, FMU_DISCRETE, 0.0, nullptr, 0, 0, 0, nullptr},
  {"t_parsed", 4, FMU_REAL, FMU_OUTPUT, FMU_DISCRETE, 0.0, nullptr, 0, 0, 0, nullptr},
  {"verbose", 5, FMU_BOOLEAN, FMU_PARAMETER, FMU_FIXED, 0.0, nullptr, 0, 0, 0, nullptr},
};

// x formatted with 17 significant digits and parsed back (exactly x); false if the stream fails
bool round_trip(double x, double &parsed, std::string &text) {
  std::ostringstream out;
  out << std::setprecision(17) << x;
  text = out.str();
  std::istringstream in(text);
  in >> parsed;
  return !in.fail();
}

int instantiate(fmu_instance *inst, fmi2String resource_location) {
  (void)resource_location;
  try {
    std::cout << "cosima_test_cpp_streams: fmi2Instantiate(" << inst->name << ")" << std::endl;
    std::stringstream stream;
    stream << 12.25;
    double value = 0.0;
    stream >> value;
    if (stream.fail()) {
      fmu_log(inst, fmi2Error, "fmi2Instantiate: std::stringstream could not parse \"%s\"", stream.str().c_str());
      return 1;
    }
    inst->model_data = value;
    return 0;
  } catch (const std::exception &e) {
    fmu_log(inst, fmi2Error, "fmi2Instantiate: %s", e.what());
    return 1;
  }
}

int setup_experiment(fmu_instance *inst) {
  try {
    double parsed = 0.0;
    std::string text;
    if (!round_trip(inst->time, parsed, text)) {
      fmu_log(inst, fmi2Error, "fmi2SetupExperiment: std::istringstream could not parse \"%s\"", text.c_str());
      return 1;
    }
    FMU_R(inst, T_PARSED) = parsed;
    return 0;
  } catch (const std::exception &e) {
    fmu_log(inst, fmi2Error, "fmi2SetupExperiment: %s", e.what());
    return 1;
  }
}

void compute(fmu_instance *inst) {
  FMU_R(inst, FROM_INSTANTIATE) = inst->model_data;
  FMU_R(inst, Y) = FMU_R(inst, U) + FMU_R(inst, T_PARSED);
}

fmi2Status do_step(fmu_instance *inst, double t, double h) {
  try {
    double parsed = 0.0;
    std::string text;
    if (!round_trip(t + h, parsed, text)) {
      fmu_log(inst, fmi2Error, "fmi2DoStep: std::istringstream could not parse \"%s\"", text.c_str());
      return fmi2Error;
    }
    FMU_R(inst, T_PARSED) = parsed;
    compute(inst);
    if (FMU_I(inst, VERBOSE)) {
      std::ostringstream line;  // the importer's std::cout keeps its own formatting
      line << "cosima_test_cpp_streams: t = " << text << ", y = " << std::setprecision(17) << FMU_R(inst, Y) << '\n';
      std::cout << line.str() << std::flush;
    }
    return fmi2OK;
  } catch (const std::exception &e) {
    fmu_log(inst, fmi2Error, "fmi2DoStep: %s", e.what());
    return fmi2Error;
  }
}

}  // namespace

extern "C" const fmu_model fmu_model_definition = {
  .model_identifier = "cosima_test_cpp_streams",
  .guid = "{7afbfc14-1155-4585-9d46-bb89cc1d58f3}",
  .variables = variables,
  .n_variables = N_VARIABLES,
  .instantiate = instantiate,
  .compute = compute,
  .do_step = do_step,
  .free_instance = nullptr,
  .setup_experiment = setup_experiment,
  .exit_initialization = nullptr,
};
