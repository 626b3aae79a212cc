/* One model source for FMI 1.0 and FMI 2.0 (tests/fmus/event_counter, event_values, stop): the same model
 * file is built
 *   - by cosima_add_fmi1_test_fmu (fmi1/CMakeLists.txt) with COSIMA_FMI1_ME or COSIMA_FMI1_CS, against the
 *     FMI 1.0 runtime fmi1/fmi1_common.h (Model Exchange or stand-alone Co-Simulation), and
 *   - by cosima_add_test_fmu(... RUNTIME me) (CMakeLists.txt) against me_common.h (FMI 2.0 Model Exchange and
 *     Co-Simulation in one binary),
 * so that one behaviour can be compared across the versions and interfaces. This header gives the names that
 * the model's equations use in both; the variable tables and the runtime's hooks (fmi1_model_definition or
 * me_model_definition) stay written out per version under `#if BOTH_FMI1`. */
#ifndef COSIMA_TEST_BOTH_VERSIONS_H
#define COSIMA_TEST_BOTH_VERSIONS_H

#include <math.h>

#if defined(COSIMA_FMI1_ME) || defined(COSIMA_FMI1_CS)
#define BOTH_FMI1 1
#include "fmi1_common.h"
typedef fmi1_instance both_instance;
typedef fmiStatus both_status;
#define BOTH_OK fmiOK
#define BOTH_DISCARD fmiDiscard
#define BOTH_R(inst, idx) FMI1_R(inst, idx)
#define BOTH_I(inst, idx) FMI1_I(inst, idx)
#define BOTH_S(inst, idx) FMI1_S(inst, idx)
#define BOTH_TIME(inst) FMI1_TIME(inst)
#define BOTH_DATA(inst, k) FMI1_DATA(inst, k)
/* a Co-Simulation step ends the simulation: FMI 1.0 has no fmiTerminated, the slave refuses further steps */
#define BOTH_SET_TERMINATED(inst) ((inst)->terminate_requested = 1)
#define both_log fmi1_log
#else
#define BOTH_FMI1 0
#include "me_common.h"
typedef me_instance both_instance;
typedef fmi2Status both_status;
#define BOTH_OK fmi2OK
#define BOTH_DISCARD fmi2Discard
#define BOTH_R(inst, idx) ME_R(inst, idx)
#define BOTH_I(inst, idx) ME_I(inst, idx)
#define BOTH_S(inst, idx) ME_S(inst, idx)
#define BOTH_TIME(inst) ME_TIME(inst)
#define BOTH_DATA(inst, k) ME_DATA(inst, k)
#define BOTH_SET_TERMINATED(inst) ((inst)->s.terminated = 1)  /* fmi2GetBooleanStatus(fmi2Terminated) */
#define both_log me_log
#endif

/* t has reached the time event at t_event: importers land on it within rounding (fmi1_common.c and me_common.c
   let no step pass it by more than 1e-12 relative) */
static inline int both_reached(double t, double t_event) { return t >= t_event - 1e-9 * fmax(1.0, fabs(t_event)); }

#endif
