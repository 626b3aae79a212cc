#pragma once
// The variables an exported FMU exposes, in modelDescription order, with their value references.
// One table feeds both modelDescription.xml and the slave's value-reference lookups.
//   Real:    model parameters, solver_rtol, solver_atol, solver_max_step, inputs, outputs, states,
//            state derivatives
//   Integer: solver_kind (0 dopri5, 1 cvode, 2 euler, 3 exact), solver_steps_per_call
#include <string>
#include <vector>

#include "system/native/ode_model.hpp"

namespace cosima::fmu_export {

enum class Role { parameter, solver_real, solver_integer, input, output, state, derivative };

struct ExportedVariable {
  std::string name;
  Role role;
  int index;              ///< within its role (parameter #, input #, ...)
  unsigned int vr;        ///< value reference (Real and Integer are separate spaces)
  bool is_real = true;
  double start = 0.0;
  std::string description;
};

struct VariableTable {
  std::vector<ExportedVariable> variables;
  int first_input_vr = 0, first_output_vr = 0, first_state_vr = 0, first_derivative_vr = 0;
  int real_count = 0, integer_count = 0;
};

inline constexpr const char* kSolverKinds[] = {"dopri5", "cvode", "euler", "exact"};

struct SolverDefaults {
  double rtol = 1e-8, atol = 1e-10, max_step = 0.0;
  int kind = 0, steps_per_call = 1;
};

VariableTable make_variable_table(const OdeModel& model, const SolverDefaults& solver);
/// A GUID determined by the model's type and structure.
std::string model_guid(const OdeModel& model);
/// modelDescription.xml for the model.
std::string model_description_xml(const OdeModel& model, const std::string& model_identifier,
                                  bool can_get_and_set_state = true);

}  // namespace cosima::fmu_export
