/* fmi3_check: a C driver for the FMI 3.0 test FMUs. It loads each built library with dlopen and runs the call
 * sequences of the standard against it, checking results, statuses and the refusal of illegal calls:
 *   cosima_fmi3_check types=<.so> events=<.so> me=<.so> misbehave=<.so> clocked=<.so>
 * Exit 0 when everything holds, else 1 with one "FAIL" line per failed check on stderr.
 * COSIMA_FMI3_CHECK_VERBOSE=1 prints every message the FMUs log. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3.h"

/* ---- checks ------------------------------------------------------------------------------------------------ */

static int g_failures = 0, g_checks = 0;
static const char *g_test = "";

static void expect(int ok, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void expect(int ok, int line, const char *format, ...) {
  ++g_checks;
  if (ok) return;
  ++g_failures;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "FAIL [%s] fmi3_check.c:%d: ", g_test, line);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

static const char *status_name(fmi3Status s) {
  static const char *const names[] = {"fmi3OK", "fmi3Warning", "fmi3Discard", "fmi3Error", "fmi3Fatal"};
  return (unsigned)s < 5 ? names[s] : "(not a status)";
}

#define EXPECT(cond, ...) expect((cond) != 0, __LINE__, __VA_ARGS__)
#define STATUS(call, want)                                                                                   \
  do {                                                                                                       \
    const fmi3Status got_ = (call);                                                                          \
    expect(got_ == (want), __LINE__, "%s returned %s, expected %s", #call, status_name(got_), status_name(want)); \
  } while (0)
#define OK(call) STATUS(call, fmi3OK)
#define NEAR(got, want, tol)                                                                                 \
  do {                                                                                                       \
    const double got_ = (got), want_ = (want);                                                               \
    expect(fabs(got_ - want_) <= (tol), __LINE__, "%s = %.17g, expected %.17g (tolerance %g)", #got, got_, want_, \
           (double)(tol));                                                                                   \
  } while (0)

/* ---- logging ----------------------------------------------------------------------------------------------- */

typedef struct {
  char last[4096];  /* the last message */
  int messages, errors;
} log_env;

static int g_verbose = 0;

static void log_message(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category,
                        fmi3String message) {
  log_env *env = environment;
  env->messages++;
  if (status >= fmi3Error) env->errors++;
  snprintf(env->last, sizeof env->last, "%s", message ? message : "(NULL)");
  if (g_verbose) fprintf(stderr, "  [%s] %s %s: %s\n", g_test, status_name(status), category, message);
}

/* the last message starts with `prefix` */
#define LOGGED(env, prefix) \
  expect(strncmp((env)->last, prefix, strlen(prefix)) == 0, __LINE__, "last message \"%s\", expected \"%s...\"", \
         (env)->last, prefix)

/* ---- loading ----------------------------------------------------------------------------------------------- */

#define FMI3_FUNCTIONS(X)                                                                                    \
  X(GetVersion) X(SetDebugLogging) X(InstantiateModelExchange) X(InstantiateCoSimulation)                    \
  X(InstantiateScheduledExecution) X(FreeInstance) X(EnterInitializationMode) X(ExitInitializationMode)      \
  X(EnterEventMode) X(Terminate) X(Reset) X(GetFloat32) X(GetFloat64) X(GetInt8) X(GetUInt8) X(GetInt16)     \
  X(GetUInt16) X(GetInt32) X(GetUInt32) X(GetInt64) X(GetUInt64) X(GetBoolean) X(GetString) X(GetBinary)     \
  X(GetClock) X(SetFloat32) X(SetFloat64) X(SetInt8) X(SetUInt8) X(SetInt16) X(SetUInt16) X(SetInt32)        \
  X(SetUInt32) X(SetInt64) X(SetUInt64) X(SetBoolean) X(SetString) X(SetBinary) X(SetClock)                  \
  X(GetNumberOfVariableDependencies) X(GetVariableDependencies) X(GetFMUState) X(SetFMUState)                \
  X(FreeFMUState) X(SerializedFMUStateSize) X(SerializeFMUState) X(DeserializeFMUState)                      \
  X(GetDirectionalDerivative) X(GetAdjointDerivative) X(EnterConfigurationMode) X(ExitConfigurationMode)     \
  X(GetIntervalDecimal) X(GetIntervalFraction) X(GetShiftDecimal) X(GetShiftFraction) X(SetIntervalDecimal)  \
  X(SetIntervalFraction) X(SetShiftDecimal) X(SetShiftFraction) X(EvaluateDiscreteStates)                    \
  X(UpdateDiscreteStates) X(EnterContinuousTimeMode) X(CompletedIntegratorStep) X(SetTime)                   \
  X(SetContinuousStates) X(GetContinuousStateDerivatives) X(GetEventIndicators) X(GetContinuousStates)       \
  X(GetNominalsOfContinuousStates) X(GetNumberOfEventIndicators) X(GetNumberOfContinuousStates)              \
  X(EnterStepMode) X(GetOutputDerivatives) X(DoStep) X(ActivateModelPartition)

typedef struct {
  const char *path, *token;
  void *library;
#define MEMBER(f) fmi3##f##TYPE *f;
  FMI3_FUNCTIONS(MEMBER)
#undef MEMBER
} fmu;

static int load(fmu *f, const char *path, const char *token) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->token = token;
  if (!(f->library = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    EXPECT(0, "dlopen(%s): %s", path, dlerror());
    return 0;
  }
  int complete = 1;
#define LOAD(fn)                                                                        \
  *(void **)(&f->fn) = dlsym(f->library, "fmi3" #fn); /* POSIX: a function pointer from dlsym */ \
  EXPECT(f->fn != NULL, "%s does not export fmi3" #fn, path);                           \
  complete &= f->fn != NULL;
  FMI3_FUNCTIONS(LOAD)
#undef LOAD
  /* the runtime's own functions stay hidden */
  EXPECT(dlsym(f->library, "fmu3_log") == NULL && dlsym(f->library, "fmu3_model_definition") == NULL,
         "%s exports the runtime's internals", path);
  if (complete) EXPECT(strcmp(f->GetVersion(), "3.0") == 0, "fmi3GetVersion() = \"%s\"", f->GetVersion());
  return complete;
}

static fmi3Instance cs(const fmu *f, log_env *env, const char *name, int event_mode_used, int early_return_allowed) {
  memset(env, 0, sizeof *env);
  return f->InstantiateCoSimulation(name, f->token, NULL, fmi3False, fmi3True, event_mode_used != 0,
                                    early_return_allowed != 0, NULL, 0, env, log_message, NULL);
}

/* fmi3DoStep with all its output arguments */
typedef struct {
  fmi3Boolean event, terminate, early;
  fmi3Float64 last;
} step_result;

static fmi3Status step(const fmu *f, fmi3Instance inst, double t, double h, step_result *r) {
  memset(r, 0, sizeof *r);
  return f->DoStep(inst, t, h, fmi3True, &r->event, &r->terminate, &r->early, &r->last);
}

typedef struct {
  fmi3Boolean need, terminate, nominals, values, next_defined;
  fmi3Float64 next;
} update_result;

static fmi3Status update(const fmu *f, fmi3Instance inst, update_result *r) {
  memset(r, 0, sizeof *r);
  return f->UpdateDiscreteStates(inst, &r->need, &r->terminate, &r->nominals, &r->values, &r->next_defined, &r->next);
}

static double get_f64(const fmu *f, fmi3Instance inst, fmi3ValueReference vr) {
  fmi3Float64 x = NAN;
  OK(f->GetFloat64(inst, &vr, 1, &x, 1));
  return x;
}

static void set_f64(const fmu *f, fmi3Instance inst, fmi3ValueReference vr, double x) {
  OK(f->SetFloat64(inst, &vr, 1, &x, 1));
}

static int get_i32(const fmu *f, fmi3Instance inst, fmi3ValueReference vr) {
  fmi3Int32 x = -12345;
  OK(f->GetInt32(inst, &vr, 1, &x, 1));
  return x;
}

/* ---- cosima_fmi3_types ------------------------------------------------------------------------------------- */

enum {
  T_K = 1, T_BIG = 2, T_UBIG = 3, T_LABEL = 4, T_FLAG = 5,
  T_U = 10, T_Y = 30,  /* + 0 Float32, 1 Float64, 2 Int8, ... 13 Enumeration */
  T_N = 50, T_UA = 51, T_YA = 52, T_P = 53, T_M = 54, T_X = 60, T_DER_X = 61
};

static void check_types_refusals(const fmu *f) {
  g_test = "types: instantiation";
  log_env env;
  memset(&env, 0, sizeof env);
  fmi3Instance inst = f->InstantiateCoSimulation("t", "{wrong}", NULL, fmi3False, fmi3True, fmi3False, fmi3False,
                                                 NULL, 0, &env, log_message, NULL);
  EXPECT(inst == NULL, "a wrong instantiationToken must give NULL");
  LOGGED(&env, "fmi3InstantiateCoSimulation: instantiationToken \"{wrong}\"");
  f->FreeInstance(inst);
  inst = cs(f, &env, "t", 1, 0);
  EXPECT(inst == NULL, "eventModeUsed = fmi3True must give NULL without hasEventMode");
  f->FreeInstance(inst);
  inst = f->InstantiateScheduledExecution("t", f->token, NULL, fmi3False, fmi3True, &env, log_message, NULL, NULL,
                                          NULL);
  EXPECT(inst == NULL, "fmi3InstantiateScheduledExecution must give NULL");
  inst = cs(f, &env, "  ", 0, 0);
  EXPECT(inst == NULL, "a blank instanceName must give NULL");
  f->FreeInstance(NULL);  /* ignored */

  g_test = "types: illegal calls";
  inst = cs(f, &env, "types", 0, 0);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation failed: %s", env.last);
  if (!inst) return;
  step_result r;
  STATUS(step(f, inst, 0.0, 0.1, &r), fmi3Error);  /* before fmi3EnterInitializationMode */
  LOGGED(&env, "Illegal call sequence: fmi3DoStep in state Instantiated");
  STATUS(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3Error);
  LOGGED(&env, "Illegal call sequence: fmi3EnterInitializationMode in state Error");
  OK(f->Reset(inst));
  fmi3ValueReference vr = T_Y + 1;
  fmi3Float64 x;
  STATUS(f->GetFloat64(inst, &vr, 1, &x, 1), fmi3Error);  /* no fmi3Get in Instantiated */
  LOGGED(&env, "Illegal call sequence: fmi3GetFloat64 in state Instantiated");
  OK(f->Reset(inst));
  fmi3UInt64 n = 4;
  vr = T_N;
  STATUS(f->SetUInt64(inst, &vr, 1, &n, 1), fmi3Error);  /* structural parameter outside Configuration Mode */
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  STATUS(step(f, inst, 0.0, 0.1, &r), fmi3Error);  /* before fmi3ExitInitializationMode */
  LOGGED(&env, "Illegal call sequence: fmi3DoStep in state InitializationMode");
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  OK(f->ExitInitializationMode(inst));
  STATUS(f->EnterEventMode(inst), fmi3Error);  /* eventModeUsed = fmi3False */
  OK(f->Reset(inst));
  STATUS(f->SetTime(inst, 0.0), fmi3Error);  /* Model Exchange only */
  OK(f->Reset(inst));
  STATUS(f->GetDirectionalDerivative(inst, NULL, 0, NULL, 0, NULL, 0, NULL, 0), fmi3Error);
  OK(f->Reset(inst));
  STATUS(f->ActivateModelPartition(inst, 1, 0.0), fmi3Error);
  f->FreeInstance(inst);
}

static void check_types_values(const fmu *f) {
  g_test = "types: values";
  log_env env;
  fmi3Instance inst = cs(f, &env, "types", 0, 0);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation failed: %s", env.last);
  if (!inst) return;
  fmi3ValueReference vr;

  /* Configuration Mode: n = 4 */
  OK(f->EnterConfigurationMode(inst));
  vr = T_N;
  fmi3UInt64 n = 0;
  STATUS(f->SetUInt64(inst, &vr, 1, &n, 1), fmi3Error);  /* out of [1, 16] */
  OK(f->Reset(inst));
  OK(f->EnterConfigurationMode(inst));
  n = 4;
  OK(f->SetUInt64(inst, &vr, 1, &n, 1));
  vr = T_K;
  fmi3Float64 k = 1.0;
  STATUS(f->SetFloat64(inst, &vr, 1, &k, 1), fmi3Error);  /* only structural parameters here */
  OK(f->Reset(inst));
  OK(f->EnterConfigurationMode(inst));
  vr = T_N;
  OK(f->SetUInt64(inst, &vr, 1, &n, 1));
  OK(f->ExitConfigurationMode(inst));
  vr = T_K;
  k = 3.5;
  OK(f->SetFloat64(inst, &vr, 1, &k, 1));  /* parameters in Instantiated */
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));

  /* the start values and the outputs computed from them */
  {
    const fmi3ValueReference vrs[] = {T_K, T_YA, T_M, T_P, T_UA};
    fmi3Float64 v[1 + 4 + 6 + 6 + 4];
    OK(f->GetFloat64(inst, vrs, 5, v, 21));
    const double want[21] = {3.5, 2, 4, 6, 0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 0};
    for (int j = 0; j < 21; ++j) NEAR(v[j], want[j], 0.0);
    STATUS(f->GetFloat64(inst, vrs, 5, v, 20), fmi3Error);  /* nValues must be 21 */
    LOGGED(&env, "fmi3GetFloat64: nValues = 20");
  }
  OK(f->Reset(inst));  /* n is 3 again */
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  {
    vr = T_BIG;
    fmi3Int64 big = 0;
    OK(f->GetInt64(inst, &vr, 1, &big, 1));
    EXPECT(big == INT64_C(4611686018427387904), "big = %lld", (long long)big);
    vr = T_UBIG;
    fmi3UInt64 ubig = 0;
    OK(f->GetUInt64(inst, &vr, 1, &ubig, 1));
    EXPECT(ubig == UINT64_MAX, "ubig = %llu", (unsigned long long)ubig);
    vr = T_LABEL;
    fmi3String label = NULL;
    OK(f->GetString(inst, &vr, 1, &label, 1));
    EXPECT(label && strcmp(label, "cosima") == 0, "label = %s", label ? label : "(NULL)");
    vr = T_FLAG;
    fmi3Boolean flag = fmi3False;
    OK(f->GetBoolean(inst, &vr, 1, &flag, 1));
    EXPECT(flag == fmi3True, "flag = %d", flag);
    vr = T_YA;
    fmi3Float64 ya[3];
    OK(f->GetFloat64(inst, &vr, 1, ya, 3));
    EXPECT(ya[0] == 2 && ya[1] == 4 && ya[2] == 6, "ya = %g %g %g", ya[0], ya[1], ya[2]);
    vr = T_Y + 3;
    fmi3UInt8 y8 = 0;
    OK(f->GetUInt8(inst, &vr, 1, &y8, 1));
    EXPECT(y8 == 201, "y_UInt8 = %d (start of u_UInt8 is 200)", y8);
    vr = T_Y + 11;
    fmi3String text = NULL;
    OK(f->GetString(inst, &vr, 1, &text, 1));
    EXPECT(text && strcmp(text, "hello!") == 0, "y_String = %s", text ? text : "(NULL)");
    vr = T_Y + 12;
    size_t size = 0;
    fmi3Binary bytes = NULL;
    OK(f->GetBinary(inst, &vr, 1, &size, &bytes, 1));
    EXPECT(size == 3 && bytes && bytes[0] == 0x10 && bytes[1] == 0xff && bytes[2] == 0x00,
           "y_Binary: %zu bytes (start of u_Binary is 00ff10)", size);
  }

  /* every type: set an input, read the output */
  {
    fmi3ValueReference u, y;
    u = T_U + 0, y = T_Y + 0;
    const fmi3Float32 f32 = 1.25f;
    fmi3Float32 g32 = 0;
    OK(f->SetFloat32(inst, &u, 1, &f32, 1));
    OK(f->GetFloat32(inst, &y, 1, &g32, 1));
    EXPECT(g32 == 1.75f, "y_Float32 = %g", g32);
    u = T_U + 1, y = T_Y + 1;
    set_f64(f, inst, u, 2.0);
    NEAR(get_f64(f, inst, y), 2.5, 0.0);
#define ECHO(T, CT, offset, in, out)                                                               \
  do {                                                                                             \
    const fmi3ValueReference u_ = T_U + (offset), y_ = T_Y + (offset);                             \
    const CT in_ = (in);                                                                           \
    CT out_ = 0;                                                                                   \
    OK(f->Set##T(inst, &u_, 1, &in_, 1));                                                          \
    OK(f->Get##T(inst, &y_, 1, &out_, 1));                                                         \
    EXPECT(out_ == (CT)(out), "y (vr %u) = %.0Lf, expected %.0Lf", (unsigned)y_, (long double)out_, \
           (long double)(CT)(out));                                                                \
  } while (0)
    ECHO(Int8, fmi3Int8, 2, 100, 101);
    ECHO(UInt8, fmi3UInt8, 3, 255, 0);
    ECHO(Int16, fmi3Int16, 4, -5, -4);
    ECHO(UInt16, fmi3UInt16, 5, 65535, 0);
    ECHO(Int32, fmi3Int32, 6, INT32_MAX, INT32_MIN);
    ECHO(UInt32, fmi3UInt32, 7, 7u, 8u);
    ECHO(Int64, fmi3Int64, 8, INT64_MAX, INT64_MIN);
    ECHO(UInt64, fmi3UInt64, 9, UINT64_MAX, 0u);
    ECHO(Int64, fmi3Int64, 13, 3, 3);  /* Enumeration through fmi3Int64 */
#undef ECHO
    u = T_U + 10, y = T_Y + 10;
    const fmi3Boolean yes = fmi3True;
    fmi3Boolean b = fmi3True;
    OK(f->SetBoolean(inst, &u, 1, &yes, 1));
    OK(f->GetBoolean(inst, &y, 1, &b, 1));
    EXPECT(b == fmi3False, "y_Boolean = %d", b);
    u = T_U + 11, y = T_Y + 11;
    const fmi3String abc = "abc";
    fmi3String s = NULL;
    OK(f->SetString(inst, &u, 1, &abc, 1));
    OK(f->GetString(inst, &y, 1, &s, 1));
    EXPECT(s && strcmp(s, "abc!") == 0, "y_String = %s", s ? s : "(NULL)");
    u = T_U + 12, y = T_Y + 12;
    const fmi3Byte data[] = {1, 2, 3, 0};
    const fmi3Binary in = data;
    const size_t in_size = sizeof data;
    fmi3Binary out = NULL;
    size_t out_size = 0;
    OK(f->SetBinary(inst, &u, 1, &in_size, &in, 1));
    OK(f->GetBinary(inst, &y, 1, &out_size, &out, 1));
    EXPECT(out_size == 4 && out && out[0] == 0 && out[1] == 3 && out[2] == 2 && out[3] == 1,
           "y_Binary = %zu bytes, expected 00 03 02 01", out_size);
    const size_t empty_size = 0;
    const fmi3Binary empty = NULL;
    OK(f->SetBinary(inst, &u, 1, &empty_size, &empty, 1));
    OK(f->GetBinary(inst, &y, 1, &out_size, &out, 1));
    EXPECT(out_size == 0, "y_Binary of no bytes has %zu", out_size);
  }

  /* several value references in one call: values concatenated in the order of the vrs */
  {
    const fmi3ValueReference set[] = {T_U + 1, T_UA};
    const fmi3Float64 in[] = {1.0, 10.0, 20.0, 30.0};
    OK(f->SetFloat64(inst, set, 2, in, 4));
    const fmi3ValueReference get[] = {T_YA, T_Y + 1, T_M};
    fmi3Float64 out[3 + 1 + 6];
    OK(f->GetFloat64(inst, get, 3, out, 10));
    const double want[10] = {20, 40, 60, 1.5, 1, 2, 3, 4, 5, 6};
    for (int j = 0; j < 10; ++j) NEAR(out[j], want[j], 0.0);
    const fmi3ValueReference ints[] = {T_U + 2, T_U + 6};
    STATUS(f->GetInt32(inst, ints, 2, (fmi3Int32[2]){0, 0}, 2), fmi3Error);  /* u_Int8 is no Int32 */
    LOGGED(&env, "fmi3GetInt32: value reference 12 is u_Int8, of type Int8, not Int32");
  }
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  {
    vr = T_U + 2;
    const fmi3Int8 big8 = 101;
    STATUS(f->SetInt8(inst, &vr, 1, &big8, 1), fmi3Error);  /* max="100" */
    OK(f->Reset(inst));
    OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
    vr = T_U + 13;
    const fmi3Int64 no_color = 4;
    STATUS(f->SetInt64(inst, &vr, 1, &no_color, 1), fmi3Error);  /* not an item of Color */
    OK(f->Reset(inst));
    OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
    vr = 999;
    fmi3Float64 x = 0;
    STATUS(f->GetFloat64(inst, &vr, 1, &x, 1), fmi3Error);
    LOGGED(&env, "fmi3GetFloat64: unknown value reference 999");
    OK(f->Reset(inst));
    OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
    vr = T_Y + 1;
    x = 1.0;
    STATUS(f->SetFloat64(inst, &vr, 1, &x, 1), fmi3Error);  /* an output */
    OK(f->Reset(inst));
  }

  /* stepping: der(x) = u_Float64 */
  g_test = "types: steps and FMU states";
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  OK(f->ExitInitializationMode(inst));
  step_result r;
  OK(step(f, inst, 0.0, 0.1, &r));
  EXPECT(!r.event && !r.terminate && !r.early && r.last == 0.1, "fmi3DoStep outputs %d %d %d %g", r.event,
         r.terminate, r.early, r.last);
  NEAR(get_f64(f, inst, T_X), 0.1, 1e-15);
  set_f64(f, inst, T_U + 1, 2.0);
  set_f64(f, inst, T_K, 4.0);  /* tunable */
  OK(step(f, inst, 0.1, 0.2, &r));
  NEAR(get_f64(f, inst, T_X), 0.5, 1e-15);
  NEAR(get_f64(f, inst, T_DER_X), 2.0, 0.0);
  STATUS(step(f, inst, 0.2, 0.1, &r), fmi3Error);  /* the FMU is at 0.3 */
  LOGGED(&env, "fmi3DoStep: currentCommunicationPoint = 0.2");

  /* FMU states: restore after an error, serialize, deserialize */
  fmi3FMUState s0 = NULL, s1 = NULL, s2 = NULL;
  STATUS(f->GetFMUState(inst, &s0), fmi3Error);  /* in the error state: fmi3GetFMUState is not allowed */
  EXPECT(s0 == NULL, "fmi3GetFMUState in state Error gave a state");
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 10.0));
  OK(f->ExitInitializationMode(inst));
  OK(step(f, inst, 0.0, 0.25, &r));
  const fmi3String saved_text = "saved";
  const fmi3ValueReference u_text = T_U + 11;
  OK(f->SetString(inst, &u_text, 1, &saved_text, 1));
  OK(f->GetFMUState(inst, &s0));
  OK(step(f, inst, 0.25, 0.25, &r));
  NEAR(get_f64(f, inst, T_X), 0.5, 1e-15);
  const fmi3String other_text = "other";
  OK(f->SetString(inst, &u_text, 1, &other_text, 1));
  STATUS(step(f, inst, 0.0, 0.25, &r), fmi3Error);
  OK(f->SetFMUState(inst, s0));  /* allowed after fmi3Error */
  NEAR(get_f64(f, inst, T_X), 0.25, 1e-15);
  {
    const fmi3ValueReference y_text = T_Y + 11;
    fmi3String s = NULL;
    OK(f->GetString(inst, &y_text, 1, &s, 1));
    EXPECT(s && strcmp(s, "saved!") == 0, "y_String after fmi3SetFMUState = %s", s ? s : "(NULL)");
  }
  OK(step(f, inst, 0.25, 0.25, &r));
  NEAR(get_f64(f, inst, T_X), 0.5, 1e-15);
  size_t size = 0;
  OK(f->SerializedFMUStateSize(inst, s0, &size));
  EXPECT(size > 0, "fmi3SerializedFMUStateSize = %zu", size);
  fmi3Byte *bytes = malloc(size + 1);
  OK(f->SerializeFMUState(inst, s0, bytes, size));
  OK(f->DeserializeFMUState(inst, bytes, size, &s1));
  EXPECT(s1 != NULL && s1 != s0, "fmi3DeserializeFMUState gave no new state");
  OK(f->GetFMUState(inst, &s2));  /* at t = 0.5 */
  OK(f->SetFMUState(inst, s1));
  NEAR(get_f64(f, inst, T_X), 0.25, 1e-15);
  OK(step(f, inst, 0.25, 0.5, &r));
  NEAR(get_f64(f, inst, T_X), 0.75, 1e-15);
  OK(f->GetFMUState(inst, &s1));  /* overwrites s1 with t = 0.75 */
  OK(f->SetFMUState(inst, s2));
  OK(step(f, inst, 0.5, 0.5, &r));
  NEAR(get_f64(f, inst, T_X), 1.0, 1e-15);
  OK(f->SetFMUState(inst, s1));
  OK(step(f, inst, 0.75, 0.25, &r));
  NEAR(get_f64(f, inst, T_X), 1.0, 1e-15);
  {  /* the bytes restore another instance too */
    log_env env2;
    fmi3Instance other = cs(f, &env2, "other", 0, 0);
    fmi3FMUState copy = NULL;
    OK(f->DeserializeFMUState(other, bytes, size, &copy));
    OK(f->SetFMUState(other, copy));
    NEAR(get_f64(f, other, T_X), 0.25, 1e-15);
    OK(step(f, other, 0.25, 0.25, &r));
    NEAR(get_f64(f, other, T_X), 0.5, 1e-15);
    f->FreeInstance(other);
  }
  STATUS(f->DeserializeFMUState(inst, bytes, size - 1, &s2), fmi3Error);  /* truncated */
  LOGGED(&env, "fmi3DeserializeFMUState: the data end too early");
  OK(f->SetFMUState(inst, s1));
  bytes[0] ^= 0xff;
  STATUS(f->DeserializeFMUState(inst, bytes, size, &s2), fmi3Error);  /* not a serialized state */
  OK(f->SetFMUState(inst, s1));
  STATUS(f->SerializeFMUState(inst, s0, bytes, size + 1), fmi3Error);  /* wrong size */
  OK(f->SetFMUState(inst, s1));
  free(bytes);
  OK(f->FreeFMUState(inst, &s0));
  EXPECT(s0 == NULL, "fmi3FreeFMUState did not set the state to NULL");
  OK(f->FreeFMUState(inst, &s0));  /* NULL: ignored */
  OK(f->FreeFMUState(inst, &s2));
  OK(f->Terminate(inst));
  NEAR(get_f64(f, inst, T_X), 0.75, 1e-15);  /* fmi3Get in Terminated */
  STATUS(step(f, inst, 0.75, 0.25, &r), fmi3Error);
  f->FreeInstance(inst);  /* frees s1 with it */
}

/* ---- cosima_fmi3_events ------------------------------------------------------------------------------------ */

enum { E_X = 1, E_COUNT = 3, E_T_EVENT = 4, E_DISCARD_AFTER = 5, E_TERMINATE_AT = 6 };

static fmi3Instance events_start(const fmu *f, log_env *env, int event_mode_used, int early, double discard_after,
                                 double terminate_at) {
  fmi3Instance inst = cs(f, env, "events", event_mode_used, early);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation(eventModeUsed %d, earlyReturnAllowed %d) failed: %s",
         event_mode_used, early, env->last);
  if (!inst) return NULL;
  set_f64(f, inst, E_DISCARD_AFTER, discard_after);
  set_f64(f, inst, E_TERMINATE_AT, terminate_at);
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 1.0));
  OK(f->ExitInitializationMode(inst));
  if (event_mode_used) {  /* Event Mode after initialization */
    STATUS(f->EnterStepMode(inst), fmi3Error);  /* fmi3UpdateDiscreteStates first */
    LOGGED(env, "Illegal call sequence: fmi3EnterStepMode in state EventMode");
    OK(f->Reset(inst));
    set_f64(f, inst, E_DISCARD_AFTER, discard_after);
    set_f64(f, inst, E_TERMINATE_AT, terminate_at);
    OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 1.0));
    OK(f->ExitInitializationMode(inst));
    update_result u;
    OK(update(f, inst, &u));
    EXPECT(!u.need && !u.terminate && !u.values && u.next_defined && u.next == 0.35,
           "initial fmi3UpdateDiscreteStates: need %d terminate %d values %d next %d at %g", u.need, u.terminate,
           u.values, u.next_defined, u.next);
    OK(f->EnterStepMode(inst));
  }
  return inst;
}

/* fmi3DoStep from t to `until` in steps of h, all plain (no event, no early return) */
static double steps(const fmu *f, fmi3Instance inst, double t, double until, double h) {
  step_result r;
  while (t < until - 1e-12) {
    const fmi3Status status = step(f, inst, t, h, &r);
    EXPECT(status == fmi3OK && !r.event && !r.early && !r.terminate, "fmi3DoStep(%g, %g): %s, event %d early %d "
           "terminate %d", t, h, status_name(status), r.event, r.early, r.terminate);
    if (status != fmi3OK) break;
    t = r.last;
  }
  return t;
}

static void check_events(const fmu *f) {
  log_env env;
  step_result r;
  update_result u;

  g_test = "events: instantiation";
  memset(&env, 0, sizeof env);
  fmi3Instance inst = f->InstantiateModelExchange("t", f->token, NULL, fmi3False, fmi3True, &env, log_message);
  EXPECT(inst == NULL, "fmi3InstantiateModelExchange must give NULL without <ModelExchange>");
  f->FreeInstance(inst);

  g_test = "events: Event Mode, early return";
  inst = events_start(f, &env, 1, 1, 1e300, 1e300);
  if (inst) {
    double t = steps(f, inst, 0.0, 0.3, 0.1);
    OK(step(f, inst, t, 0.1, &r));
    EXPECT(r.event && r.early && !r.terminate && r.last == 0.35, "fmi3DoStep(0.3, 0.1): eventHandlingNeeded %d "
           "earlyReturn %d terminate %d lastSuccessfulTime %.17g (expected 1 1 0 0.35)", r.event, r.early,
           r.terminate, r.last);
    NEAR(get_f64(f, inst, E_X), 0.35, 1e-12);  /* not reset before Event Mode */
    EXPECT(get_i32(f, inst, E_COUNT) == 0, "count before Event Mode");
    fmi3FMUState pending = NULL;
    OK(f->GetFMUState(inst, &pending));
    STATUS(step(f, inst, 0.35, 0.05, &r), fmi3Error);  /* the event is pending */
    LOGGED(&env, "Illegal call sequence: fmi3DoStep in state StepMode: the last fmi3DoStep returned "
                 "eventHandlingNeeded");
    OK(f->SetFMUState(inst, pending));
    OK(f->EnterEventMode(inst));
    STATUS(f->EnterStepMode(inst), fmi3Error);  /* fmi3UpdateDiscreteStates first */
    OK(f->SetFMUState(inst, pending));
    OK(f->EnterEventMode(inst));
    OK(update(f, inst, &u));
    EXPECT(!u.need && !u.terminate && u.values && !u.next_defined, "fmi3UpdateDiscreteStates at the event: need %d "
           "terminate %d valuesOfContinuousStatesChanged %d nextEventTimeDefined %d", u.need, u.terminate, u.values,
           u.next_defined);
    NEAR(get_f64(f, inst, E_X), 0.0, 0.0);
    EXPECT(get_i32(f, inst, E_COUNT) == 1, "count after the event = %d", get_i32(f, inst, E_COUNT));
    OK(f->EnterStepMode(inst));
    OK(step(f, inst, 0.35, 0.05, &r));
    EXPECT(!r.event && !r.early && fabs(r.last - 0.4) < 1e-12, "fmi3DoStep(0.35, 0.05) after the event");
    t = steps(f, inst, r.last, 1.0, 0.1);
    NEAR(t, 1.0, 1e-12);
    NEAR(get_f64(f, inst, E_X), 0.65, 1e-12);
    EXPECT(get_i32(f, inst, E_COUNT) == 1, "count at t = 1: %d", get_i32(f, inst, E_COUNT));
    const fmi3ValueReference x = E_X;
    const fmi3Int32 orders[] = {1, 2};
    const fmi3ValueReference xx[] = {E_X, E_X};
    fmi3Float64 d[2] = {0, 0};
    OK(f->GetOutputDerivatives(inst, xx, 2, orders, d, 2));
    EXPECT(d[0] == 1.0 && d[1] == 0.0, "fmi3GetOutputDerivatives(x, 1 and 2) = %g %g", d[0], d[1]);
    const fmi3Int32 third = 3;
    STATUS(f->GetOutputDerivatives(inst, &x, 1, &third, d, 1), fmi3Error);  /* maxOutputDerivativeOrder="2" */
    OK(f->SetFMUState(inst, pending));
    OK(f->FreeFMUState(inst, &pending));
    OK(f->Terminate(inst));
    f->FreeInstance(inst);
  }

  g_test = "events: Event Mode, no early return";
  inst = events_start(f, &env, 1, 0, 1e300, 1e300);
  if (inst) {  /* the event inside a step is handled inside */
    steps(f, inst, 0.0, 0.3, 0.1);
    OK(step(f, inst, 0.3, 0.1, &r));
    EXPECT(!r.event && !r.early && fabs(r.last - 0.4) < 1e-12, "fmi3DoStep(0.3, 0.1) without early return: event %d"
           " early %d last %.17g", r.event, r.early, r.last);
    NEAR(get_f64(f, inst, E_X), 0.05, 1e-12);
    EXPECT(get_i32(f, inst, E_COUNT) == 1, "count = %d", get_i32(f, inst, E_COUNT));
    f->FreeInstance(inst);
  }
  inst = events_start(f, &env, 1, 0, 1e300, 1e300);
  if (inst) {  /* the event at the end of a step goes to Event Mode */
    const double t = steps(f, inst, 0.0, 0.3, 0.05);
    OK(step(f, inst, t, 0.05, &r));
    EXPECT(r.event && !r.early && fabs(r.last - 0.35) < 1e-12, "fmi3DoStep(0.3, 0.05): event %d early %d last %.17g",
           r.event, r.early, r.last);
    OK(f->EnterEventMode(inst));
    OK(update(f, inst, &u));
    EXPECT(u.values && get_i32(f, inst, E_COUNT) == 1 && get_f64(f, inst, E_X) == 0.0, "the event at the end of "
           "the step");
    OK(f->EnterStepMode(inst));
    steps(f, inst, r.last, 1.0, 0.05);
    NEAR(get_f64(f, inst, E_X), 0.65, 1e-9);
    f->FreeInstance(inst);
  }

  g_test = "events: no Event Mode";
  inst = events_start(f, &env, 0, 1, 1e300, 1e300);
  if (inst) {
    const double t = steps(f, inst, 0.0, 1.0, 0.1);  /* the step over 0.35 completes: no early return */
    NEAR(t, 1.0, 1e-12);
    NEAR(get_f64(f, inst, E_X), 0.65, 1e-12);
    EXPECT(get_i32(f, inst, E_COUNT) == 1, "count = %d", get_i32(f, inst, E_COUNT));
    STATUS(f->EnterEventMode(inst), fmi3Error);
    LOGGED(&env, "Illegal call sequence: fmi3EnterEventMode in state StepMode");
    f->FreeInstance(inst);
  }

  g_test = "events: fmi3Discard";
  inst = events_start(f, &env, 0, 0, 0.55, 1e300);
  if (inst) {
    steps(f, inst, 0.0, 0.5, 0.1);
    fmi3FMUState before = NULL;
    OK(f->GetFMUState(inst, &before));
    STATUS(step(f, inst, 0.5, 0.1, &r), fmi3Discard);
    EXPECT(r.last == 0.5 || fabs(r.last - 0.5) < 1e-12, "lastSuccessfulTime after fmi3Discard = %.17g", r.last);
    NEAR(get_f64(f, inst, E_X), 0.15, 1e-12);  /* unchanged */
    OK(step(f, inst, 0.5, 0.05, &r));  /* a smaller step */
    NEAR(get_f64(f, inst, E_X), 0.2, 1e-12);
    OK(f->SetFMUState(inst, before));  /* or roll back */
    NEAR(get_f64(f, inst, E_X), 0.15, 1e-12);
    OK(step(f, inst, 0.5, 0.05, &r));
    STATUS(step(f, inst, 0.55, 0.01, &r), fmi3Discard);
    OK(f->Terminate(inst));
    f->FreeInstance(inst);
  }

  g_test = "events: terminateSimulation";
  inst = events_start(f, &env, 0, 1, 1e300, 0.25);
  if (inst) {
    steps(f, inst, 0.0, 0.2, 0.1);
    OK(step(f, inst, 0.2, 0.1, &r));
    EXPECT(r.terminate && r.early && fabs(r.last - 0.25) < 1e-12, "fmi3DoStep(0.2, 0.1) with terminate_at = 0.25: "
           "terminate %d early %d last %.17g", r.terminate, r.early, r.last);
    NEAR(get_f64(f, inst, E_X), 0.25, 1e-12);
    STATUS(step(f, inst, 0.25, 0.1, &r), fmi3Error);
    LOGGED(&env, "Illegal call sequence: fmi3DoStep in state StepMode: the FMU asked to terminate");
    f->FreeInstance(inst);
  }
  inst = events_start(f, &env, 0, 0, 1e300, 0.25);
  if (inst) {
    steps(f, inst, 0.0, 0.2, 0.1);
    OK(step(f, inst, 0.2, 0.1, &r));
    EXPECT(r.terminate && !r.early && fabs(r.last - 0.3) < 1e-12, "without early return: terminate %d early %d "
           "last %.17g", r.terminate, r.early, r.last);
    OK(f->Terminate(inst));
    f->FreeInstance(inst);
  }
}

/* ---- cosima_fmi3_me ---------------------------------------------------------------------------------------- */

enum { B_H = 1, B_DER_H = 2, B_V = 3, B_DER_V = 4, B_U = 5, B_BOUNCES = 6 };

/* the ball from h = 1, v = 0 (g = 9.81, e = 0.8, kick v += 1 at 0.5), exactly, at time t */
static void ball_exact(double t, double *h, double *v, int *bounces) {
  const double g = 9.81, e = 0.8;
  double tc = 0.0, hh = 1.0, vv = 0.0;
  int n = 0, kicked = 0;
  for (;;) {
    const double tau = (vv + sqrt(vv * vv + 2.0 * g * hh)) / g;  /* next landing */
    double next = tc + tau;
    const int kick = !kicked && 0.5 < next;
    if (kick) next = 0.5;
    if (next > t) break;
    const double dt = next - tc;
    hh += vv * dt - 0.5 * g * dt * dt;
    vv -= g * dt;
    tc = next;
    if (kick) {
      vv += 1.0;
      kicked = 1;
    } else {
      hh = 0.0;
      vv = -e * vv;
      ++n;
    }
  }
  const double dt = t - tc;
  *h = hh + vv * dt - 0.5 * g * dt * dt;
  *v = vv - g * dt;
  *bounces = n;
}

/* Event Mode: fmi3UpdateDiscreteStates until it converges */
static void event_iteration(const fmu *f, fmi3Instance inst, int *next_defined, double *next) {
  update_result u;
  for (int k = 0; k < 10; ++k) {
    OK(update(f, inst, &u));
    if (!u.need) break;
  }
  EXPECT(!u.need && !u.terminate, "the event iteration did not converge");
  *next_defined = u.next_defined;
  *next = u.next;
}

static void check_me(const fmu *f) {
  g_test = "me: Model Exchange";
  log_env env;
  memset(&env, 0, sizeof env);
  fmi3Instance inst = f->InstantiateModelExchange("ball", f->token, NULL, fmi3False, fmi3True, &env, log_message);
  EXPECT(inst != NULL, "fmi3InstantiateModelExchange failed: %s", env.last);
  if (!inst) return;
  size_t nx = 0, nz = 0;
  OK(f->GetNumberOfContinuousStates(inst, &nx));
  OK(f->GetNumberOfEventIndicators(inst, &nz));
  EXPECT(nx == 2 && nz == 1, "nx = %zu, nz = %zu", nx, nz);
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  double x[2], dx[2], z = 0, nominal[2];
  OK(f->GetContinuousStates(inst, x, 2));
  EXPECT(x[0] == 1.0 && x[1] == 0.0, "initial states %g %g", x[0], x[1]);
  OK(f->GetNominalsOfContinuousStates(inst, nominal, 2));
  STATUS(f->GetContinuousStates(inst, x, 3), fmi3Error);  /* nContinuousStates = 2 */
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  OK(f->ExitInitializationMode(inst));
  STATUS(f->EnterContinuousTimeMode(inst), fmi3Error);  /* fmi3UpdateDiscreteStates first */
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  OK(f->ExitInitializationMode(inst));
  int next_defined = 0;
  double next = 0;
  event_iteration(f, inst, &next_defined, &next);
  EXPECT(next_defined && next == 0.5, "nextEventTime %d %g, expected the kick at 0.5", next_defined, next);
  OK(f->EnterContinuousTimeMode(inst));

  /* explicit Euler with event-indicator sign changes and the time event */
  const double dt = 2e-5, t_end = 1.5;
  double t = 0.0;
  OK(f->GetContinuousStates(inst, x, 2));
  OK(f->GetEventIndicators(inst, &z, 1));
  int events = 0;
  while (t < t_end - 1e-12) {
    double t_next = fmin(t + dt, t_end);
    if (next_defined && next < t_next) t_next = next;
    OK(f->GetContinuousStateDerivatives(inst, dx, 2));
    for (int k = 0; k < 2; ++k) x[k] += (t_next - t) * dx[k];
    t = t_next;
    OK(f->SetTime(inst, t));
    OK(f->SetContinuousStates(inst, x, 2));
    fmi3Boolean enter = fmi3False, terminate = fmi3False;
    OK(f->CompletedIntegratorStep(inst, fmi3True, &enter, &terminate));
    double z_new = 0;
    OK(f->GetEventIndicators(inst, &z_new, 1));
    const int state_event = (z > 0 && z_new <= 0) || (z < 0 && z_new >= 0);
    const int time_event = next_defined && t >= next;
    if (state_event || time_event || enter) {
      ++events;
      OK(f->EnterEventMode(inst));
      event_iteration(f, inst, &next_defined, &next);
      OK(f->EnterContinuousTimeMode(inst));
      OK(f->GetContinuousStates(inst, x, 2));
      OK(f->GetEventIndicators(inst, &z_new, 1));
    }
    z = z_new;
  }
  double h_exact, v_exact;
  int bounces_exact;
  ball_exact(t_end, &h_exact, &v_exact, &bounces_exact);
  EXPECT(bounces_exact == 2, "the exact ball bounced %d times by %g", bounces_exact, t_end);
  EXPECT(get_i32(f, inst, B_BOUNCES) == bounces_exact, "bounces = %d, expected %d", get_i32(f, inst, B_BOUNCES),
         bounces_exact);
  EXPECT(events == 3, "%d events, expected 2 bounces and the kick", events);
  NEAR(get_f64(f, inst, B_H), h_exact, 5e-3);
  NEAR(get_f64(f, inst, B_V), v_exact, 5e-3);
  STATUS(f->EnterStepMode(inst), fmi3Error);  /* Co-Simulation only */
  LOGGED(&env, "Illegal call sequence: fmi3EnterStepMode in state ContinuousTimeMode");

  g_test = "me: directional derivatives";
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  OK(f->ExitInitializationMode(inst));
  event_iteration(f, inst, &next_defined, &next);
  OK(f->EnterContinuousTimeMode(inst));
  const double x0[2] = {0.7, -1.3}, u0 = 0.4, eps = 1e-6;
  OK(f->SetContinuousStates(inst, x0, 2));
  set_f64(f, inst, B_U, u0);
  const fmi3ValueReference unknowns[] = {B_DER_H, B_DER_V, B_H, B_V}, knowns[] = {B_H, B_V, B_U};
  double jacobian[4][3];
  for (int j = 0; j < 3; ++j) {
    double seed[3] = {0, 0, 0}, column[4];
    seed[j] = 1.0;
    OK(f->GetDirectionalDerivative(inst, unknowns, 4, knowns, 3, seed, 3, column, 4));
    for (int i = 0; i < 4; ++i) jacobian[i][j] = column[i];
  }
  double base[2];
  OK(f->GetContinuousStateDerivatives(inst, base, 2));
  for (int j = 0; j < 3; ++j) {  /* finite differences of der(h), der(v); h and v are the states themselves */
    double xp[2] = {x0[0], x0[1]}, up = u0, d[2];
    if (j < 2)
      xp[j] += eps;
    else
      up += eps;
    OK(f->SetContinuousStates(inst, xp, 2));
    set_f64(f, inst, B_U, up);
    OK(f->GetContinuousStateDerivatives(inst, d, 2));
    for (int i = 0; i < 2; ++i) NEAR(jacobian[i][j], (d[i] - base[i]) / eps, 1e-6);
    NEAR(jacobian[2][j], j == 0, 0.0);
    NEAR(jacobian[3][j], j == 1, 0.0);
  }
  OK(f->SetContinuousStates(inst, x0, 2));
  {
    const double seed[3] = {1, 2, 3};  /* a combination: der(h) = v -> 2, der(v) = u -> 3 */
    double sensitivity[2];
    OK(f->GetDirectionalDerivative(inst, unknowns, 2, knowns, 3, seed, 3, sensitivity, 2));
    EXPECT(sensitivity[0] == 2.0 && sensitivity[1] == 3.0, "J seed = %g %g", sensitivity[0], sensitivity[1]);
    const fmi3ValueReference bounces = B_BOUNCES;
    STATUS(f->GetDirectionalDerivative(inst, &bounces, 1, knowns, 3, seed, 3, sensitivity, 1), fmi3Error);
  }

  g_test = "me: FMU state and time checks";
  OK(f->Reset(inst));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  OK(f->ExitInitializationMode(inst));
  event_iteration(f, inst, &next_defined, &next);
  OK(f->EnterContinuousTimeMode(inst));
  fmi3FMUState s = NULL;
  OK(f->GetFMUState(inst, &s));
  STATUS(f->SetTime(inst, 0.6), fmi3Error);  /* past the time event at 0.5 */
  LOGGED(&env, "fmi3SetTime: time = 0.59999999999999998 is past the time event");
  OK(f->SetFMUState(inst, s));
  OK(f->SetTime(inst, 0.5));
  fmi3Boolean enter, terminate;
  OK(f->CompletedIntegratorStep(inst, fmi3False, &enter, &terminate));
  STATUS(f->SetTime(inst, 0.4), fmi3Error);  /* before the last completed step */
  OK(f->SetFMUState(inst, s));
  const fmi3ValueReference g = 7;
  const fmi3Float64 g_new = 1.0;
  STATUS(f->SetFloat64(inst, &g, 1, &g_new, 1), fmi3Error);  /* a fixed parameter */
  OK(f->SetFMUState(inst, s));
  OK(f->FreeFMUState(inst, &s));
  f->FreeInstance(inst);

  g_test = "me: Co-Simulation";
  inst = cs(f, &env, "ball", 0, 0);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation failed: %s", env.last);
  if (!inst) return;
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3True, 2.0));
  OK(f->ExitInitializationMode(inst));  /* Step Mode: eventModeUsed = fmi3False */
  step_result r;
  double tc = 0.0;
  for (int k = 0; k < 150; ++k) {
    OK(step(f, inst, tc, 0.01, &r));
    tc = r.last;
    double h, v;
    int n;
    ball_exact(tc, &h, &v, &n);
    if (fabs(get_f64(f, inst, B_H) - h) > 1e-9 || fabs(get_f64(f, inst, B_V) - v) > 1e-9) {
      EXPECT(0, "Co-Simulation ball at t = %g: h %.17g v %.17g, exact %.17g %.17g", tc, get_f64(f, inst, B_H),
             get_f64(f, inst, B_V), h, v);
      break;
    }
  }
  EXPECT(get_i32(f, inst, B_BOUNCES) == 2, "Co-Simulation bounces = %d", get_i32(f, inst, B_BOUNCES));
  {
    const fmi3ValueReference vrs[] = {B_H, B_H, B_V};
    const fmi3Int32 orders[] = {1, 2, 1};
    fmi3Float64 d[3];
    OK(f->GetOutputDerivatives(inst, vrs, 3, orders, d, 3));
    NEAR(d[0], get_f64(f, inst, B_V), 0.0);
    NEAR(d[1], -9.81, 1e-12);
    NEAR(d[2], -9.81, 1e-12);
    const fmi3ValueReference du = B_U, dv = B_DER_V, dh = B_H;
    const double one = 1.0;
    double sensitivity = 0;
    OK(f->GetDirectionalDerivative(inst, &dv, 1, &du, 1, &one, 1, &sensitivity, 1));
    EXPECT(sensitivity == 1.0, "Co-Simulation d der(v) / du = %g", sensitivity);
    STATUS(f->GetDirectionalDerivative(inst, &dv, 1, &dh, 1, &one, 1, &sensitivity, 1), fmi3Error);  /* no state */
  }
  OK(f->Reset(inst));
  STATUS(f->GetNumberOfContinuousStates(inst, &nx), fmi3Error);  /* Model Exchange only */
  f->FreeInstance(inst);
}

/* ---- cosima_fmi3_misbehave --------------------------------------------------------------------------------- */

static fmi3Instance g_fatal_instance = NULL;  /* kept reachable: after fmi3Fatal it cannot be freed */

static fmi3Instance misbehave_start(const fmu *f, log_env *env, int mode) {
  fmi3Instance inst = cs(f, env, "misbehave", 0, 0);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation failed: %s", env->last);
  if (!inst) return NULL;
  const fmi3ValueReference vr = 2;
  const fmi3Int32 m = mode;
  OK(f->SetInt32(inst, &vr, 1, &m, 1));
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3False, 0.0));
  OK(f->ExitInitializationMode(inst));
  step_result r;
  for (double t = 0.0; t < 0.5 - 1e-12; t += 0.1) OK(step(f, inst, t, 0.1, &r));
  return inst;
}

static void check_misbehave(const fmu *f) {
  log_env env;
  step_result r;
  double t5 = 0.0;  /* the time misbehave_start reached, with the same rounding */
  for (int k = 0; k < 5; ++k) t5 += 0.1;

  g_test = "misbehave: mode 1";
  fmi3Instance inst = misbehave_start(f, &env, 1);
  if (inst) {
    STATUS(step(f, inst, t5, 0.1, &r), fmi3Error);
    STATUS(step(f, inst, t5, 0.1, &r), fmi3Error);
    LOGGED(&env, "Illegal call sequence: fmi3DoStep in state Error");
    f->FreeInstance(inst);
  }
  g_test = "misbehave: mode 2";
  inst = misbehave_start(f, &env, 2);
  if (inst) {
    STATUS(step(f, inst, t5, 0.1, &r), fmi3Discard);
    NEAR(r.last, t5, 0.0);
    NEAR(get_f64(f, inst, 1), t5, 0.0);
    STATUS(step(f, inst, t5, 0.05, &r), fmi3Discard);  /* still in Step Mode */
    OK(f->Terminate(inst));
    f->FreeInstance(inst);
  }
  g_test = "misbehave: mode 3";
  inst = misbehave_start(f, &env, 3);
  if (inst) {
    NEAR(get_f64(f, inst, 1), t5, 0.0);
    OK(step(f, inst, t5, 0.1, &r));
    EXPECT(isnan(get_f64(f, inst, 1)), "y is not NaN after mode 3 struck");
    f->FreeInstance(inst);
  }
  g_test = "misbehave: mode 5";
  inst = misbehave_start(f, &env, 5);
  if (inst) {
    STATUS(step(f, inst, t5, 0.1, &r), fmi3Fatal);
    fmi3Float64 y;
    const fmi3ValueReference vr = 1;
    STATUS(f->GetFloat64(inst, &vr, 1, &y, 1), fmi3Fatal);
    f->FreeInstance(inst);  /* ignored after fmi3Fatal */
    g_fatal_instance = inst;
    fmi3Instance another = cs(f, &env, "another", 0, 0);
    EXPECT(another == NULL, "fmi3InstantiateCoSimulation after fmi3Fatal");
  }
}

/* ---- cosima_fmi3_clocked ----------------------------------------------------------------------------------- */

static void check_clocked(const fmu *f) {
  g_test = "clocked";
  log_env env;
  fmi3Instance inst = cs(f, &env, "clocked", 0, 0);
  EXPECT(inst == NULL, "an FMU with clocks must refuse eventModeUsed = fmi3False");
  LOGGED(&env, "fmi3InstantiateCoSimulation: eventModeUsed = fmi3False");
  inst = cs(f, &env, "clocked", 1, 0);
  EXPECT(inst != NULL, "fmi3InstantiateCoSimulation(eventModeUsed) failed: %s", env.last);
  if (!inst) return;
  OK(f->EnterInitializationMode(inst, fmi3False, 0.0, 0.0, fmi3False, 0.0));
  OK(f->ExitInitializationMode(inst));
  const fmi3ValueReference tick = 1;
  const fmi3Clock active = fmi3ClockActive;
  OK(f->SetClock(inst, &tick, 1, &active));
  update_result u;
  OK(update(f, inst, &u));
  NEAR(get_f64(f, inst, 2), 1.0, 0.0);
  fmi3Clock c;
  STATUS(f->GetClock(inst, &tick, 1, &c), fmi3Error);  /* an input clock */
  f->FreeInstance(inst);
}

/* ---- main -------------------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  const char *verbose = getenv("COSIMA_FMI3_CHECK_VERBOSE");
  g_verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
  static const struct {
    const char *key, *token;
    void (*check)(const fmu *);
  } fmus[] = {
    {"types", "{8c4e810f-3df3-4a00-8276-176fa3c9f000}", NULL},
    {"events", "{2f0b7d9e-6c51-4b8a-93e4-5d1a0c7e3b21}", check_events},
    {"me", "{5b3c1e7a-90d4-4f26-b8a1-e2c94d0f6a37}", check_me},
    {"misbehave", "{a4d2e6f1-7b38-4c05-9e1d-3f8b6a2c0d94}", check_misbehave},
    {"clocked", "{c7e19a53-2b6d-4e80-a4f7-8d05b3c1e962}", check_clocked},
  };
  const int n_fmus = (int)(sizeof fmus / sizeof fmus[0]);
  const char *paths[sizeof fmus / sizeof fmus[0]] = {NULL};
  for (int a = 1; a < argc; ++a) {
    int known = 0;
    for (int k = 0; k < n_fmus; ++k) {
      const size_t n = strlen(fmus[k].key);
      if (strncmp(argv[a], fmus[k].key, n) == 0 && argv[a][n] == '=') paths[k] = argv[a] + n + 1, known = 1;
    }
    if (!known) {
      fprintf(stderr, "usage: %s types=<.so> events=<.so> me=<.so> misbehave=<.so> clocked=<.so>\n", argv[0]);
      return 2;
    }
  }
  for (int k = 0; k < n_fmus; ++k) {
    if (!paths[k]) {
      fprintf(stderr, "%s: no %s=<library>\n", argv[0], fmus[k].key);
      return 2;
    }
    fmu f;
    g_test = fmus[k].key;
    if (!load(&f, paths[k], fmus[k].token)) continue;
    if (k == 0) {
      check_types_refusals(&f);
      check_types_values(&f);
    } else {
      fmus[k].check(&f);
    }
    dlclose(f.library);
  }
  if (g_failures) {
    fprintf(stderr, "fmi3_check: %d of %d checks failed\n", g_failures, g_checks);
    return 1;
  }
  printf("fmi3_check: all %d checks passed\n", g_checks);
  return 0;
}
