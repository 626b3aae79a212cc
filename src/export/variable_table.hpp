#pragma once
// The variables an exported FMU exposes, in modelDescription order, with their value references.
// One table feeds both modelDescription.xml and the slave's value-reference lookups.
//   Real:    model parameters, solver_rtol, solver_atol, solver_max_step, inputs, outputs, states,
//            state derivatives
//   Integer: solver_kind (0 dopri5, 1 cvode, 2 euler, 3 exact), solver_steps_per_call
//
// FMI 3.0 (Fmi3Table): the same variables, value references unique across all types (§2.4.7):
//   Float64: the FMI 2.0 Real references 0 … R−1 unchanged (R = real_count)
//   Int32:   solver_kind R, solver_steps_per_call R+1 (FMI 2.0 Integer reference + R)
//   Float64: one local variable per event indicator, R+2 … (ModelStructure <EventIndicator>)
// Model parameters, inputs and outputs named base[i] or base[i,j] (1-based, complete, one role) form
// ONE array variable `base` (<Dimension>s; its elements row-major, §2.2.6.2) with the reference of
// its first element; the other elements' references are unused. A model without such names gets
// exactly the FMI 2.0 variables (plus the event indicators).
#include <cstddef>
#include <string>
#include <vector>

#include "system/native/ode_model.hpp"

namespace cosima::fmu_export {

enum class Role { parameter, solver_real, solver_integer, input, output, state, derivative, event_indicator };

struct ExportedVariable {
  std::string name;
  Role role;
  int index;        ///< within its role (parameter #, input #, ...)
  unsigned int vr;  ///< value reference (Real and Integer are separate spaces)
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

/// One FMI 3.0 variable: a scalar, or an array of table elements.
struct Fmi3Variable {
  std::string name;
  Role role;
  unsigned int vr;
  bool is_float64 = true;               ///< else Int32
  std::vector<std::size_t> elements;    ///< indices into Fmi3Table::elements, row-major
  std::vector<std::size_t> dimensions;  ///< empty: a scalar
  std::string description;
};

struct Fmi3Table {
  /// The FMI 2.0 table's variables (their vr fields: FMI 2.0 references), then one per event indicator.
  std::vector<ExportedVariable> elements;
  std::vector<Fmi3Variable> variables;  ///< in modelDescription order
  int real_count = 0;                   ///< R of the FMI 2.0 table
};

Fmi3Table make_fmi3_table(const OdeModel& model, const SolverDefaults& solver);
/// modelDescription.xml (fmiVersion="3.0") for the model.
std::string model_description_xml_fmi3(const OdeModel& model, const std::string& model_identifier,
                                       bool can_get_and_set_state = true);

}  // namespace cosima::fmu_export
