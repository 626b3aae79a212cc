/* The fmi3 functions of the test FMUs, written from the FMI 3.0 standard (chapters 2.2, 2.3, 3 and 4): state
 * machines of 2.3 (common states), 3.2 (Model Exchange) and 4.2 (Co-Simulation), made strict where the standard
 * leaves room (see fmi3_runtime.h). No Scheduled Execution, no intermediate update, no per-element dependencies,
 * no adjoint derivatives: those functions are exported and fail. */
#include "fmi3_runtime.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL fmu3_model_definition
#define INSTANCE_MAGIC 0x33696d66u  /* "fmi3" */
#define SNAPSHOT_MAGIC 0x53696d66u
#define MESSAGE_SIZE 2048

/* states where ... */
#define ST_ALIVE                                                                                            \
  (FMU3_INSTANTIATED | FMU3_CONFIGURATION_MODE | FMU3_INITIALIZATION_MODE | FMU3_EVENT_MODE | FMU3_STEP_MODE | \
   FMU3_CONTINUOUS_TIME_MODE | FMU3_RECONFIGURATION_MODE | FMU3_TERMINATED)
#define ST_ANY (ST_ALIVE | FMU3_ERROR)
/* ... fmi3Get{VariableType} may be called */
#define ST_READABLE                                                                                     \
  (FMU3_CONFIGURATION_MODE | FMU3_INITIALIZATION_MODE | FMU3_EVENT_MODE | FMU3_STEP_MODE |               \
   FMU3_CONTINUOUS_TIME_MODE | FMU3_RECONFIGURATION_MODE | FMU3_TERMINATED)
/* ... fmi3Set{VariableType} may be called (which variables: not_settable) */
#define ST_WRITABLE                                                                                       \
  (FMU3_INSTANTIATED | FMU3_CONFIGURATION_MODE | FMU3_INITIALIZATION_MODE | FMU3_EVENT_MODE | FMU3_STEP_MODE | \
   FMU3_CONTINUOUS_TIME_MODE | FMU3_RECONFIGURATION_MODE)
/* ... the model equations may be evaluated (derivatives, event indicators, directional derivatives) */
#define ST_EVALUATE (FMU3_INITIALIZATION_MODE | FMU3_EVENT_MODE | FMU3_CONTINUOUS_TIME_MODE | FMU3_TERMINATED)
/* ... the super state Initialized: fmi3Terminate */
#define ST_INITIALIZED (FMU3_EVENT_MODE | FMU3_STEP_MODE | FMU3_CONTINUOUS_TIME_MODE)

static const char *state_name(unsigned mode) {
  switch (mode) {
    case FMU3_INSTANTIATED: return "Instantiated";
    case FMU3_CONFIGURATION_MODE: return "ConfigurationMode";
    case FMU3_INITIALIZATION_MODE: return "InitializationMode";
    case FMU3_EVENT_MODE: return "EventMode";
    case FMU3_STEP_MODE: return "StepMode";
    case FMU3_CONTINUOUS_TIME_MODE: return "ContinuousTimeMode";
    case FMU3_RECONFIGURATION_MODE: return "ReconfigurationMode";
    case FMU3_TERMINATED: return "Terminated";
    default: return "Error";
  }
}

/* fmi3Fatal concerns every instance of the FMU (standard 2.2.3): one flag for the loaded library. */
static int g_fatal = 0;

/* ---- logging ----------------------------------------------------------------------------------------------- */

enum { N_CATEGORIES = 5, ALL_CATEGORIES = (1u << N_CATEGORIES) - 1 };
static const char *const k_categories[N_CATEGORIES] = {"logEvents", "logStatusWarning", "logStatusDiscard",
                                                        "logStatusError", "logStatusFatal"};

static int category_of(fmi3Status status) {
  switch (status) {
    case fmi3OK: return 0;
    case fmi3Warning: return 1;
    case fmi3Discard: return 2;
    case fmi3Error: return 3;
    default: return 4;
  }
}

static void vlog(fmu3_instance *inst, fmi3Status status, const char *format, va_list args)
  __attribute__((format(printf, 3, 0)));
static void vlog(fmu3_instance *inst, fmi3Status status, const char *format, va_list args) {
  const int category = category_of(status);
  const int to_importer = inst->logging_on && inst->log_message && (inst->log_mask & (1u << category));
  if (!to_importer && status < fmi3Error) return;
  char message[MESSAGE_SIZE];
  vsnprintf(message, sizeof message, format, args);
  if (to_importer)
    inst->log_message(inst->environment, status, k_categories[category], message);
  else
    fprintf(stderr, "%s (%s) %s: %s\n", MODEL.model_identifier, inst->name ? inst->name : "?", k_categories[category],
            message);
}

void fmu3_log(fmu3_instance *inst, fmi3Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vlog(inst, status, format, args);
  va_end(args);
}

/* Log an error, put the instance in the error state and evaluate to fmi3Error: return fail(inst, ...). */
#define fail(inst, ...) (fmu3_log((inst), fmi3Error, __VA_ARGS__), (inst)->s.mode = FMU3_ERROR, fmi3Error)

/* ---- types ------------------------------------------------------------------------------------------------- */

static const char *type_name(fmu3_type type) {
  static const char *const names[] = {"Float32", "Float64", "Int8",   "UInt8",  "Int16",  "UInt16",      "Int32", "UInt32",
                                      "Int64",   "UInt64",  "Boolean", "String", "Binary", "Enumeration", "Clock"};
  return names[type];
}

static size_t element_size(fmu3_type type) {
  switch (type) {
    case FMU3_FLOAT32: return sizeof(fmi3Float32);
    case FMU3_FLOAT64: return sizeof(fmi3Float64);
    case FMU3_INT8: return sizeof(fmi3Int8);
    case FMU3_UINT8: return sizeof(fmi3UInt8);
    case FMU3_INT16: return sizeof(fmi3Int16);
    case FMU3_UINT16: return sizeof(fmi3UInt16);
    case FMU3_INT32: return sizeof(fmi3Int32);
    case FMU3_UINT32: return sizeof(fmi3UInt32);
    case FMU3_INT64: return sizeof(fmi3Int64);
    case FMU3_UINT64: return sizeof(fmi3UInt64);
    case FMU3_BOOLEAN: return sizeof(fmi3Boolean);
    case FMU3_STRING: return sizeof(char *);
    case FMU3_BINARY: return sizeof(fmu3_bytes);
    case FMU3_ENUMERATION: return sizeof(fmi3Int64);
    default: return sizeof(fmi3Clock);
  }
}

/* element k of an array of the type's C type, as a long double (exact for every integer type on x86_64) */
static long double element_value(fmu3_type type, const void *values, size_t k) {
  switch (type) {
    case FMU3_FLOAT32: return ((const fmi3Float32 *)values)[k];
    case FMU3_FLOAT64: return ((const fmi3Float64 *)values)[k];
    case FMU3_INT8: return ((const fmi3Int8 *)values)[k];
    case FMU3_UINT8: return ((const fmi3UInt8 *)values)[k];
    case FMU3_INT16: return ((const fmi3Int16 *)values)[k];
    case FMU3_UINT16: return ((const fmi3UInt16 *)values)[k];
    case FMU3_INT32: return ((const fmi3Int32 *)values)[k];
    case FMU3_UINT32: return ((const fmi3UInt32 *)values)[k];
    case FMU3_INT64:
    case FMU3_ENUMERATION: return ((const fmi3Int64 *)values)[k];
    case FMU3_UINT64: return ((const fmi3UInt64 *)values)[k];
    default: return ((const fmi3Boolean *)values)[k];
  }
}

/* ---- variables ------------------------------------------------------------------------------------------- */

static int find_variable(fmi3ValueReference vr) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (MODEL.variables[k].vr == vr) return k;
  return -1;
}

/* The number of elements of variable k with the structural parameters in `values`; with capacity != 0 the
   largest one (the declared max of each structural parameter). */
static size_t element_count(const fmu3_value *values, int k, int capacity) {
  const fmu3_variable *v = &MODEL.variables[k];
  size_t n = 1;
  for (int d = 0; d < v->n_dimensions; ++d) {
    unsigned long long size = v->dimensions[d].size;
    if (size == 0) {
      const int p = find_variable(v->dimensions[d].vr);
      size = capacity ? (unsigned long long)MODEL.variables[p].max : ((const fmi3UInt64 *)values[p].data)[0];
    }
    n *= (size_t)size;
  }
  return n;
}

/* A mistake in a model's definition (reported at instantiation): NULL if none. */
static const char *definition_problem(char *buffer, size_t size) {
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    for (int j = 0; j < k; ++j)
      if (MODEL.variables[j].vr == v->vr) return snprintf(buffer, size, "%s: value reference used twice", v->name), buffer;
    if ((v->type == FMU3_STRING || v->type == FMU3_BINARY || v->type == FMU3_CLOCK) && v->n_dimensions != 0)
      return snprintf(buffer, size, "%s: String, Binary and Clock variables must be scalars here", v->name), buffer;
    if (v->type == FMU3_ENUMERATION && !v->enumeration)
      return snprintf(buffer, size, "%s: Enumeration without its type", v->name), buffer;
    for (int d = 0; d < v->n_dimensions; ++d) {
      if (v->dimensions[d].size != 0) continue;
      const int p = find_variable(v->dimensions[d].vr);
      if (p < 0 || MODEL.variables[p].type != FMU3_UINT64 || MODEL.variables[p].n_dimensions != 0 ||
          MODEL.variables[p].causality != FMU3_STRUCTURAL_PARAMETER || !MODEL.variables[p].has_range)
        return snprintf(buffer, size, "%s: a <Dimension valueReference> must name a scalar UInt64 structural "
                        "parameter with min and max", v->name), buffer;
    }
  }
  for (int k = 0; k < MODEL.nx; ++k) {
    const fmu3_variable *x = &MODEL.variables[MODEL.states[k]], *dx = &MODEL.variables[MODEL.derivatives[k]];
    if (x->type != FMU3_FLOAT64 || dx->type != FMU3_FLOAT64 || x->n_dimensions || dx->n_dimensions)
      return snprintf(buffer, size, "continuous state %d: states and derivatives must be scalar Float64", k), buffer;
  }
  for (int k = 0; k < MODEL.nz; ++k) {
    const fmu3_variable *z = &MODEL.variables[MODEL.event_indicators[k]];
    if (z->type != FMU3_FLOAT64 || z->n_dimensions)
      return snprintf(buffer, size, "event indicator %d must be a scalar Float64", k), buffer;
  }
  if (MODEL.co_simulation && !MODEL.do_step) return snprintf(buffer, size, "Co-Simulation without do_step"), buffer;
  if (MODEL.max_output_derivative_order > 0 && !MODEL.output_derivative)
    return snprintf(buffer, size, "maxOutputDerivativeOrder > 0 without output_derivative"), buffer;
  return NULL;
}

/* ---- memory ------------------------------------------------------------------------------------------------ */

static char *copy_string(const char *s) {
  const size_t n = strlen(s) + 1;
  char *copy = malloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

/* the elements of one value, but not the array itself */
static void clear_elements(const fmu3_variable *v, fmu3_value *value) {
  if (!value->data) return;
  for (size_t e = 0; e < value->capacity; ++e) {
    if (v->type == FMU3_STRING) {
      free(((char **)value->data)[e]);
      ((char **)value->data)[e] = NULL;
    } else if (v->type == FMU3_BINARY) {
      free(((fmu3_bytes *)value->data)[e].bytes);
      ((fmu3_bytes *)value->data)[e].bytes = NULL;
      ((fmu3_bytes *)value->data)[e].size = 0;
    }
  }
}

static void free_values(fmu3_value *values) {
  if (!values) return;
  for (int k = 0; k < MODEL.n_variables; ++k) {
    clear_elements(&MODEL.variables[k], &values[k]);
    free(values[k].data);
  }
  free(values);
}

/* zeroed values with the capacities of the variables; Strings are "" */
static fmu3_value *new_values(void) {
  fmu3_value *values = calloc((size_t)MODEL.n_variables, sizeof *values);
  if (!values) return NULL;
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    values[k].capacity = element_count(NULL, k, 1);
    values[k].data = calloc(values[k].capacity ? values[k].capacity : 1, element_size(v->type));
    if (!values[k].data) {
      free_values(values);
      return NULL;
    }
    if (v->type == FMU3_STRING)
      for (size_t e = 0; e < values[k].capacity; ++e)
        if (!(((char **)values[k].data)[e] = copy_string(""))) {
          free_values(values);
          return NULL;
        }
  }
  return values;
}

/* a deep copy of `from` into the fresh (new_values) `to`; 0 on allocation failure */
static int copy_values(fmu3_value *to, const fmu3_value *from) {
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    to[k].count = from[k].count;
    if (v->type == FMU3_STRING) {
      for (size_t e = 0; e < from[k].capacity; ++e) {
        char *copy = copy_string(((char **)from[k].data)[e]);
        if (!copy) return 0;
        free(((char **)to[k].data)[e]);
        ((char **)to[k].data)[e] = copy;
      }
    } else if (v->type == FMU3_BINARY) {
      for (size_t e = 0; e < from[k].capacity; ++e) {
        const fmu3_bytes *b = &((fmu3_bytes *)from[k].data)[e];
        fmu3_bytes *c = &((fmu3_bytes *)to[k].data)[e];
        if (b->size) {
          if (!(c->bytes = malloc(b->size))) return 0;
          memcpy(c->bytes, b->bytes, b->size);
        }
        c->size = b->size;
      }
    } else {
      memcpy(to[k].data, from[k].data, from[k].capacity * element_size(v->type));
    }
  }
  return 1;
}

int fmu3_set_string(fmu3_instance *inst, int idx, const char *s) {
  char *copy = copy_string(s);
  if (!copy) return 0;
  free(FMU3_STR(inst, idx));
  FMU3_STR(inst, idx) = copy;
  return 1;
}

int fmu3_set_binary(fmu3_instance *inst, int idx, const void *bytes, size_t size) {
  unsigned char *copy = NULL;
  if (size) {
    if (!(copy = malloc(size))) return 0;
    memcpy(copy, bytes, size);
  }
  free(FMU3_BIN(inst, idx).bytes);
  FMU3_BIN(inst, idx).bytes = copy;
  FMU3_BIN(inst, idx).size = size;
  return 1;
}

static void release_returned(fmu3_instance *inst) {
  for (size_t k = 0; k < inst->n_returned; ++k) free(inst->returned[k]);
  free(inst->returned);
  inst->returned = NULL;
  inst->n_returned = 0;
}

/* make room for n more pointers handed out to the importer; 0 on allocation failure */
static int reserve_returned(fmu3_instance *inst, size_t n) {
  void **grown = realloc(inst->returned, (inst->n_returned + n) * sizeof *grown);
  if (!grown) return 0;
  inst->returned = grown;
  return 1;
}

/* ---- start values ---------------------------------------------------------------------------------------- */

static int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* element e of variable k from the token at *p (advanced); 0 if the token is malformed or out of range */
static int parse_element(fmu3_value *value, const fmu3_variable *v, size_t e, const char **p) {
  char *end = NULL;
  const char *s = *p;
  switch (v->type) {
    case FMU3_FLOAT32: ((fmi3Float32 *)value->data)[e] = strtof(s, &end); break;
    case FMU3_FLOAT64: ((fmi3Float64 *)value->data)[e] = strtod(s, &end); break;
    case FMU3_UINT64: {
      if (*s == '-') return 0;
      ((fmi3UInt64 *)value->data)[e] = strtoull(s, &end, 10);
      break;
    }
    case FMU3_BOOLEAN: {
      const size_t n = strcspn(s, " \t\r\n");
      int b = -1;
      if ((n == 4 && strncmp(s, "true", 4) == 0) || (n == 1 && *s == '1')) b = 1;
      if ((n == 5 && strncmp(s, "false", 5) == 0) || (n == 1 && *s == '0')) b = 0;
      if (b < 0) return 0;
      ((fmi3Boolean *)value->data)[e] = b != 0;
      end = (char *)s + n;
      break;
    }
    default: {  /* the signed and the small unsigned integer types, Enumeration */
      const long long x = strtoll(s, &end, 10);
      long double lo = 0, hi = 0;
      switch (v->type) {
        case FMU3_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
        case FMU3_UINT8: lo = 0, hi = UINT8_MAX; break;
        case FMU3_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
        case FMU3_UINT16: lo = 0, hi = UINT16_MAX; break;
        case FMU3_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
        case FMU3_UINT32: lo = 0, hi = UINT32_MAX; break;
        default: lo = INT64_MIN, hi = INT64_MAX; break;
      }
      if (x < lo || x > hi) return 0;
      switch (v->type) {
        case FMU3_INT8: ((fmi3Int8 *)value->data)[e] = (fmi3Int8)x; break;
        case FMU3_UINT8: ((fmi3UInt8 *)value->data)[e] = (fmi3UInt8)x; break;
        case FMU3_INT16: ((fmi3Int16 *)value->data)[e] = (fmi3Int16)x; break;
        case FMU3_UINT16: ((fmi3UInt16 *)value->data)[e] = (fmi3UInt16)x; break;
        case FMU3_INT32: ((fmi3Int32 *)value->data)[e] = (fmi3Int32)x; break;
        case FMU3_UINT32: ((fmi3UInt32 *)value->data)[e] = (fmi3UInt32)x; break;
        default: ((fmi3Int64 *)value->data)[e] = x; break;
      }
    }
  }
  if (end == s || (*end && !isspace((unsigned char)*end))) return 0;
  *p = end;
  return 1;
}

/* the start value of variable k (elements without one: 0), with the current structural parameters; 0 and a
   message in problem if the definition's start is malformed or out of memory */
static int set_start(fmu3_value *values, int k, char *problem, size_t size) {
  const fmu3_variable *v = &MODEL.variables[k];
  fmu3_value *value = &values[k];
  clear_elements(v, value);
  memset(value->data, 0, value->capacity * element_size(v->type));
  value->count = element_count(values, k, 0);
  const char *start = v->initial == FMU3_CALCULATED ? NULL : v->start;
  if (v->type == FMU3_STRING) {
    if (!(((char **)value->data)[0] = copy_string(start ? start : "")))
      return snprintf(problem, size, "out of memory"), 0;
    return 1;
  }
  if (v->type == FMU3_BINARY) {
    const size_t n = start ? strlen(start) : 0;
    fmu3_bytes *b = value->data;
    if (n % 2) return snprintf(problem, size, "%s: odd number of hexadecimal digits in its start", v->name), 0;
    if (n && !(b->bytes = malloc(n / 2))) return snprintf(problem, size, "out of memory"), 0;
    b->size = n / 2;
    for (size_t j = 0; j < n / 2; ++j) {
      const int hi = hex_digit(start[2 * j]), lo = hex_digit(start[2 * j + 1]);
      if (hi < 0 || lo < 0) return snprintf(problem, size, "%s: bad hexadecimal start", v->name), 0;
      b->bytes[j] = (unsigned char)(hi * 16 + lo);
    }
    return 1;
  }
  if (v->type == FMU3_CLOCK || !start) return 1;
  const char *p = start;
  for (size_t e = 0; e < value->count; ++e) {
    while (isspace((unsigned char)*p)) ++p;
    if (!*p) break;
    if (!parse_element(value, v, e, &p))
      return snprintf(problem, size, "%s: malformed start \"%s\" for %s", v->name, start, type_name(v->type)), 0;
  }
  return 1;
}

/* all start values: structural parameters first, the sizes of the arrays follow from them */
static int set_start_values(fmu3_value *values, char *problem, size_t size) {
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < MODEL.n_variables; ++k)
      if ((MODEL.variables[k].causality == FMU3_STRUCTURAL_PARAMETER) == (pass == 0) &&
          !set_start(values, k, problem, size))
        return 0;
  return 1;
}

/* ---- entering a function: the state machine ------------------------------------------------------------ */

static int is_instance(fmi3Instance instance, const char *fn) {
  const unsigned *first_member = instance;
  if (first_member && *first_member == INSTANCE_MAGIC) return 1;
  fprintf(stderr, "%s: %p is not a live instance of %s\n", fn, instance, MODEL.model_identifier);
  return 0;
}

/* Checks that fn may be called now (in one of the states `allowed`); fmi3OK with *out the instance. */
static fmi3Status enter(fmi3Instance instance, const char *fn, unsigned allowed, fmu3_instance **out) {
  *out = NULL;
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: %s in state Fatal\n", fn);
    return fmi3Fatal;
  }
  if (!is_instance(instance, fn)) return fmi3Error;
  fmu3_instance *inst = instance;
  release_returned(inst);
  if (!(inst->s.mode & allowed))
    return fail(inst, "Illegal call sequence: %s in state %s", fn, state_name(inst->s.mode));
  *out = inst;
  return fmi3OK;
}

#define ENTER(fn, allowed)                                     \
  fmu3_instance *inst;                                         \
  {                                                            \
    const fmi3Status entered_ = enter(instance, fn, allowed, &inst); \
    if (entered_ != fmi3OK) return entered_;                   \
  }

/* fn only belongs to Model Exchange (me = 1) or Co-Simulation (me = 0) */
#define REQUIRE_INTERFACE(fn, me)                                                                           \
  if (inst->model_exchange != (me))                                                                         \
    return fail(inst, "Illegal call sequence: %s in state %s: it is a %s function, this instance is %s", fn, \
                state_name(inst->s.mode), (me) ? "Model Exchange" : "Co-Simulation",                        \
                inst->model_exchange ? "Model Exchange" : "Co-Simulation");

static fmi3Status unsupported(fmi3Instance instance, const char *fn, unsigned allowed, const char *why) {
  ENTER(fn, allowed)
  return fail(inst, "%s is not supported by %s (%s)", fn, MODEL.model_identifier, why);
}

static double time_tolerance(double t) { return 1e-9 * fmax(1.0, fabs(t)); }

static void compute(fmu3_instance *inst) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (MODEL.variables[k].causality == FMU3_INDEPENDENT) FMU3_F64(inst, k)[0] = inst->s.time;
  if (MODEL.compute) MODEL.compute(inst);
}

/* ---- instantiation ----------------------------------------------------------------------------------------- */

static void free_snapshots(fmu3_instance *inst);

static void free_instance(fmu3_instance *inst) {
  release_returned(inst);
  free_snapshots(inst);
  free_values(inst->values);
  free(inst->name);
  inst->magic = 0;
  free(inst);
}

static void reset_status(fmu3_instance *inst) {
  memset(&inst->s, 0, sizeof inst->s);
  inst->s.mode = FMU3_INSTANTIATED;
}

static int is_blank(const char *s) {
  for (const char *p = s; p && *p; ++p)
    if (!isspace((unsigned char)*p)) return 0;
  return 1;
}

static fmu3_instance *instantiate(const char *fn, int model_exchange, fmi3String instanceName,
                                  fmi3String instantiationToken, fmi3Boolean loggingOn,
                                  fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
                                  fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
                                  const fmi3ValueReference requiredIntermediateVariables[],
                                  size_t nRequiredIntermediateVariables) {
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: %s in state Fatal\n", fn);
    return NULL;
  }
  fmu3_instance *inst = calloc(1, sizeof *inst);
  if (!inst) {
    fprintf(stderr, "%s: %s: out of memory\n", MODEL.model_identifier, fn);
    return NULL;
  }
  inst->magic = INSTANCE_MAGIC;
  inst->environment = instanceEnvironment;
  inst->log_message = logMessage;
  inst->logging_on = loggingOn;
  inst->log_mask = ALL_CATEGORIES;
  inst->model_exchange = model_exchange;
  inst->event_mode_used = eventModeUsed;
  inst->early_return_allowed = earlyReturnAllowed;
  reset_status(inst);

  char problem[MESSAGE_SIZE] = "";
  if (definition_problem(problem, sizeof problem)) {
    /* a mistake of the test FMU itself */
  } else if (is_blank(instanceName))
    snprintf(problem, sizeof problem, "instanceName must be a non-empty string");
  else if (!(inst->name = copy_string(instanceName)) || !(inst->values = new_values()))
    snprintf(problem, sizeof problem, "out of memory");
  else if (!instantiationToken || strcmp(instantiationToken, MODEL.instantiation_token) != 0)
    snprintf(problem, sizeof problem, "instantiationToken \"%s\" is not the instantiationToken \"%s\" of "
             "modelDescription.xml", instantiationToken ? instantiationToken : "(NULL)", MODEL.instantiation_token);
  else if (model_exchange && !MODEL.model_exchange)
    snprintf(problem, sizeof problem, "%s has no <ModelExchange> interface", MODEL.model_identifier);
  else if (!model_exchange && !MODEL.co_simulation)
    snprintf(problem, sizeof problem, "%s has no <CoSimulation> interface", MODEL.model_identifier);
  else if (!model_exchange && eventModeUsed && !MODEL.has_event_mode)
    snprintf(problem, sizeof problem, "eventModeUsed = fmi3True, but %s declares hasEventMode=\"false\"",
             MODEL.model_identifier);
  else if (!model_exchange && !eventModeUsed && MODEL.has_clocks)
    snprintf(problem, sizeof problem, "eventModeUsed = fmi3False, but %s has clocks: eventModeUsed = fmi3True is "
             "required", MODEL.model_identifier);
  else if (nRequiredIntermediateVariables > 0)
    snprintf(problem, sizeof problem, "%zu requiredIntermediateVariables (first vr %u), but no variable of %s has "
             "intermediateUpdate=\"true\"", nRequiredIntermediateVariables,
             requiredIntermediateVariables ? (unsigned)requiredIntermediateVariables[0] : 0u, MODEL.model_identifier);
  else
    set_start_values(inst->values, problem, sizeof problem);
  if (problem[0]) {
    fmu3_log(inst, fmi3Error, "%s: %s", fn, problem);
    free_instance(inst);
    return NULL;
  }
  if (MODEL.instantiate && MODEL.instantiate(inst) != 0) {
    free_instance(inst);
    return NULL;
  }
  fmu3_log(inst, fmi3OK, "%s: %s instantiated (%s)", fn, MODEL.model_identifier,
           model_exchange ? "Model Exchange" : "Co-Simulation");
  return inst;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage) {
  (void)resourcePath;
  (void)visible;
  return instantiate("fmi3InstantiateModelExchange", 1, instanceName, instantiationToken, loggingOn,
                     instanceEnvironment, logMessage, fmi3False, fmi3False, NULL, 0);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                         fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate) {
  (void)resourcePath;
  (void)visible;
  (void)intermediateUpdate;  /* providesIntermediateUpdate="false": never called */
  return instantiate("fmi3InstantiateCoSimulation", 0, instanceName, instantiationToken, loggingOn,
                     instanceEnvironment, logMessage, eventModeUsed, earlyReturnAllowed,
                     requiredIntermediateVariables, nRequiredIntermediateVariables);
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName, fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption) {
  (void)instantiationToken;
  (void)resourcePath;
  (void)visible;
  (void)clockUpdate;
  (void)lockPreemption;
  (void)unlockPreemption;
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: fmi3InstantiateScheduledExecution in state Fatal\n");
    return NULL;
  }
  const char *message = "fmi3InstantiateScheduledExecution: this FMU has no <ScheduledExecution> interface";
  if (loggingOn && logMessage)
    logMessage(instanceEnvironment, fmi3Error, "logStatusError", message);
  else
    fprintf(stderr, "%s (%s): %s\n", MODEL.model_identifier, instanceName ? instanceName : "?", message);
  return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) {
  if (!instance) return;  /* the standard: a null pointer is ignored */
  if (g_fatal) {
    fprintf(stderr, "Illegal call sequence: fmi3FreeInstance in state Fatal\n");
    return;
  }
  if (is_instance(instance, "fmi3FreeInstance")) free_instance(instance);
}

/* ---- common functions -------------------------------------------------------------------------------------- */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
  ENTER("fmi3SetDebugLogging", ST_ANY)
  if (nCategories > 0 && !categories)
    return fail(inst, "fmi3SetDebugLogging: categories is NULL, nCategories = %zu", nCategories);
  unsigned mask = nCategories == 0 ? ALL_CATEGORIES : 0;
  for (size_t k = 0; k < nCategories; ++k) {
    int found = -1;
    for (int j = 0; j < N_CATEGORIES && categories[k]; ++j)
      if (strcmp(categories[k], k_categories[j]) == 0) found = j;
    if (found < 0)
      return fail(inst, "fmi3SetDebugLogging: unknown log category \"%s\"", categories[k] ? categories[k] : "(NULL)");
    mask |= 1u << found;
  }
  inst->logging_on = loggingOn;
  if (loggingOn) inst->log_mask = mask;
  return fmi3OK;
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  ENTER("fmi3EnterInitializationMode", FMU3_INSTANTIATED)
  if (toleranceDefined && !(tolerance > 0.0 && isfinite(tolerance)))
    return fail(inst, "fmi3EnterInitializationMode: tolerance = %g must be > 0", tolerance);
  if (!isfinite(startTime)) return fail(inst, "fmi3EnterInitializationMode: startTime = %g is not finite", startTime);
  if (stopTimeDefined && !(stopTime >= startTime))
    return fail(inst, "fmi3EnterInitializationMode: stopTime = %.17g is before startTime = %.17g", stopTime,
                startTime);
  inst->s.time = inst->s.start_time = inst->s.time_floor = startTime;
  inst->s.stop_time_defined = stopTimeDefined;
  inst->s.stop_time = stopTime;
  inst->s.mode = FMU3_INITIALIZATION_MODE;
  return fmi3OK;
}

static void begin_event_mode(fmu3_instance *inst, int initial) {
  inst->s.mode = FMU3_EVENT_MODE;
  inst->s.initial_event = initial;
  inst->s.update_calls = 0;
  inst->s.converged = 0;
  inst->s.event_pending = 0;
  inst->s.time_floor = inst->s.time;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  ENTER("fmi3ExitInitializationMode", FMU3_INITIALIZATION_MODE)
  compute(inst);  /* the calculated start values, final now */
  if (inst->model_exchange || inst->event_mode_used)
    begin_event_mode(inst, 1);
  else
    inst->s.mode = FMU3_STEP_MODE;
  return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
  ENTER("fmi3EnterEventMode", FMU3_CONTINUOUS_TIME_MODE | FMU3_STEP_MODE)
  if (!inst->model_exchange && !inst->event_mode_used)
    return fail(inst, "Illegal call sequence: fmi3EnterEventMode in state StepMode: the instance was created with "
                "eventModeUsed = fmi3False");
  if (inst->s.terminate_requested)
    return fail(inst, "Illegal call sequence: fmi3EnterEventMode in state %s: the FMU asked to terminate "
                "(terminateSimulation = fmi3True), call fmi3Terminate", state_name(inst->s.mode));
  begin_event_mode(inst, 0);
  return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance) {
  ENTER("fmi3Terminate", ST_INITIALIZED)
  inst->s.mode = FMU3_TERMINATED;
  return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance) {
  ENTER("fmi3Reset", ST_ANY)
  char problem[MESSAGE_SIZE];
  reset_status(inst);
  if (!set_start_values(inst->values, problem, sizeof problem)) return fail(inst, "fmi3Reset: %s", problem);
  return fmi3OK;
}

/* ---- getting and setting values ------------------------------------------------------------------------ */

/* the requested type matches variable v: Enumerations through the Int64 functions */
static int type_matches(fmu3_type requested, const fmu3_variable *v) {
  return v->type == requested || (requested == FMU3_INT64 && v->type == FMU3_ENUMERATION);
}

/* The common part of fmi3Get/fmi3Set{VariableType}: state, arguments, value references, their types and
   nValues. The indices of the variables go into *idx (allocated; NULL for nValueReferences = 0). */
static fmi3Status resolve(fmi3Instance instance, const char *fn, int set, fmu3_type type,
                          const fmi3ValueReference vr[], size_t nvr, const void *values, size_t nValues,
                          fmu3_instance **out, int **idx) {
  *idx = NULL;
  const fmi3Status status = enter(instance, fn, set ? ST_WRITABLE : ST_READABLE, out);
  if (status != fmi3OK) return status;
  fmu3_instance *inst = *out;
  if (nvr > 0 && !vr) return fail(inst, "%s: valueReferences is NULL, nValueReferences = %zu", fn, nvr);
  if (nValues > 0 && !values) return fail(inst, "%s: values is NULL, nValues = %zu", fn, nValues);
  if (nvr == 0) {
    if (nValues != 0) return fail(inst, "%s: nValues = %zu, but no value references", fn, nValues);
    return fmi3OK;
  }
  if (!(*idx = malloc(nvr * sizeof **idx))) return fail(inst, "%s: out of memory", fn);
  size_t total = 0;
  for (size_t k = 0; k < nvr; ++k) {
    const int i = find_variable(vr[k]);
    const char *problem = NULL;
    if (i < 0)
      problem = "unknown value reference";
    else if (!type_matches(type, &MODEL.variables[i]))
      problem = "wrong type";
    if (problem) {
      free(*idx);
      *idx = NULL;
      if (i < 0) return fail(inst, "%s: unknown value reference %u", fn, (unsigned)vr[k]);
      return fail(inst, "%s: value reference %u is %s, of type %s, not %s", fn, (unsigned)vr[k],
                  MODEL.variables[i].name, type_name(MODEL.variables[i].type), type_name(type));
    }
    (*idx)[k] = i;
    total += inst->values[i].count;
  }
  if (type != FMU3_CLOCK && total != nValues) {
    free(*idx);
    *idx = NULL;
    return fail(inst, "%s: nValues = %zu, but the %zu value references have %zu values", fn, nValues, nvr, total);
  }
  return fmi3OK;
}

#define RESOLVE(fn, set, type, values, nValues)                                                     \
  fmu3_instance *inst;                                                                              \
  int *idx;                                                                                         \
  {                                                                                                 \
    const fmi3Status resolved_ = resolve(instance, fn, set, type, vr, nvr, values, nValues, &inst, &idx); \
    if (resolved_ != fmi3OK || nvr == 0) return resolved_;                                          \
  }

/* NULL if variable v may be set in the current state, else why not */
static const char *not_settable(const fmu3_instance *inst, const fmu3_variable *v) {
  if (v->variability == FMU3_CONSTANT) return "it is a constant";
  if (v->causality == FMU3_INDEPENDENT) return "it is the independent variable";
  const int input = v->causality == FMU3_INPUT, structural = v->causality == FMU3_STRUCTURAL_PARAMETER;
  switch (inst->s.mode) {
    case FMU3_INSTANTIATED:
      if (structural) return "it is a structural parameter: call fmi3EnterConfigurationMode first";
      if (input || v->initial == FMU3_EXACT || v->initial == FMU3_APPROX) return NULL;
      return "it has initial=\"calculated\"";
    case FMU3_CONFIGURATION_MODE:
      return structural ? NULL : "only structural parameters can be set in ConfigurationMode";
    case FMU3_RECONFIGURATION_MODE:
      return structural && v->variability == FMU3_TUNABLE
               ? NULL
               : "only tunable structural parameters can be set in ReconfigurationMode";
    case FMU3_INITIALIZATION_MODE:
      if (structural) return "it is a structural parameter: only in ConfigurationMode";
      if (input || v->initial == FMU3_EXACT) return NULL;
      return "only inputs and variables with initial=\"exact\" can be set in InitializationMode";
    case FMU3_EVENT_MODE:
    case FMU3_STEP_MODE:
      if (input || (v->causality == FMU3_PARAMETER && v->variability == FMU3_TUNABLE)) return NULL;
      return "only inputs and tunable parameters can be set after initialization";
    case FMU3_CONTINUOUS_TIME_MODE:
      if (input && v->variability == FMU3_CONTINUOUS) return NULL;
      return "only continuous-time inputs can be set in ContinuousTimeMode";
    default: return "not in this state";
  }
}

static fmi3Status check_settable(fmu3_instance *inst, const char *fn, size_t nvr, const int *idx) {
  for (size_t k = 0; k < nvr; ++k) {
    const fmu3_variable *v = &MODEL.variables[idx[k]];
    const char *why = not_settable(inst, v);
    if (why)
      return fail(inst, "%s: cannot set %s (vr %u) in state %s: %s", fn, v->name, (unsigned)v->vr,
                  state_name(inst->s.mode), why);
  }
  return fmi3OK;
}

static fmi3Status check_range(fmu3_instance *inst, const char *fn, const fmu3_variable *v, long double x, size_t e) {
  if (v->type == FMU3_ENUMERATION) {
    const fmu3_enumeration *t = v->enumeration;
    for (int j = 0; j < t->n_items; ++j)
      if (t->items[j] == x) return fmi3OK;
    return fail(inst, "%s: %Lg is not an item of %s (%s[%zu])", fn, x, t->name, v->name, e);
  }
  if (v->has_range && !(x >= v->min && x <= v->max))
    return fail(inst, "%s: %s[%zu] = %.17Lg is out of its range [%Lg, %Lg]", fn, v->name, e, x, v->min, v->max);
  return fmi3OK;
}

#define CHECK(expression)                   \
  {                                         \
    const fmi3Status checked_ = (expression); \
    if (checked_ != fmi3OK) {               \
      free(idx);                            \
      return checked_;                      \
    }                                       \
  }

/* fmi3Get{VariableType} of the numeric types and Boolean: the values of all vr concatenated */
static fmi3Status get_values(fmi3Instance instance, const char *fn, fmu3_type type, const fmi3ValueReference vr[],
                             size_t nvr, void *values, size_t nValues) {
  RESOLVE(fn, 0, type, values, nValues)
  compute(inst);
  const size_t size = element_size(type);
  unsigned char *out = values;
  for (size_t k = 0; k < nvr; ++k) {
    const fmu3_value *v = &inst->values[idx[k]];
    memcpy(out, v->data, v->count * size);
    out += v->count * size;
  }
  free(idx);
  return fmi3OK;
}

static fmi3Status set_values(fmi3Instance instance, const char *fn, fmu3_type type, const fmi3ValueReference vr[],
                             size_t nvr, const void *values, size_t nValues) {
  RESOLVE(fn, 1, type, values, nValues)
  CHECK(check_settable(inst, fn, nvr, idx))
  size_t offset = 0;
  for (size_t k = 0; k < nvr; ++k) {
    const fmu3_variable *v = &MODEL.variables[idx[k]];
    for (size_t e = 0; e < inst->values[idx[k]].count; ++e)
      CHECK(check_range(inst, fn, v, element_value(type, values, offset + e), e))
    offset += inst->values[idx[k]].count;
  }
  const size_t size = element_size(type);
  const unsigned char *in = values;
  for (size_t k = 0; k < nvr; ++k) {
    fmu3_value *v = &inst->values[idx[k]];
    memcpy(v->data, in, v->count * size);
    in += v->count * size;
  }
  free(idx);
  return fmi3OK;
}

#define GETSET(T, CT, TYPE)                                                                                   \
  fmi3Status fmi3Get##T(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, CT values[],         \
                        size_t nValues) {                                                                     \
    return get_values(instance, "fmi3Get" #T, TYPE, vr, nvr, values, nValues);                                \
  }                                                                                                           \
  fmi3Status fmi3Set##T(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const CT values[],   \
                        size_t nValues) {                                                                     \
    return set_values(instance, "fmi3Set" #T, TYPE, vr, nvr, values, nValues);                                \
  }
GETSET(Float32, fmi3Float32, FMU3_FLOAT32)
GETSET(Float64, fmi3Float64, FMU3_FLOAT64)
GETSET(Int8, fmi3Int8, FMU3_INT8)
GETSET(UInt8, fmi3UInt8, FMU3_UINT8)
GETSET(Int16, fmi3Int16, FMU3_INT16)
GETSET(UInt16, fmi3UInt16, FMU3_UINT16)
GETSET(Int32, fmi3Int32, FMU3_INT32)
GETSET(UInt32, fmi3UInt32, FMU3_UINT32)
GETSET(Int64, fmi3Int64, FMU3_INT64)
GETSET(UInt64, fmi3UInt64, FMU3_UINT64)
GETSET(Boolean, fmi3Boolean, FMU3_BOOLEAN)
#undef GETSET

fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3String values[],
                         size_t nValues) {
  RESOLVE("fmi3GetString", 0, FMU3_STRING, values, nValues)
  compute(inst);
  if (!reserve_returned(inst, nValues)) CHECK(fail(inst, "fmi3GetString: out of memory"))
  /* fresh copies, freed at the next call: an importer keeping them longer reads freed memory */
  for (size_t k = 0; k < nvr; ++k) {
    char *copy = copy_string(FMU3_STR(inst, idx[k]));
    if (!copy) CHECK(fail(inst, "fmi3GetString: out of memory"))
    inst->returned[inst->n_returned++] = copy;
    values[k] = copy;
  }
  free(idx);
  return fmi3OK;
}

fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3String values[],
                         size_t nValues) {
  RESOLVE("fmi3SetString", 1, FMU3_STRING, values, nValues)
  CHECK(check_settable(inst, "fmi3SetString", nvr, idx))
  for (size_t k = 0; k < nvr; ++k)
    if (!values[k]) CHECK(fail(inst, "fmi3SetString: values[%zu] (%s) is NULL", k, MODEL.variables[idx[k]].name))
  for (size_t k = 0; k < nvr; ++k)
    if (!fmu3_set_string(inst, idx[k], values[k])) CHECK(fail(inst, "fmi3SetString: out of memory"))
  free(idx);
  return fmi3OK;
}

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, size_t valueSizes[],
                         fmi3Binary values[], size_t nValues) {
  RESOLVE("fmi3GetBinary", 0, FMU3_BINARY, values, nValues)
  if (!valueSizes) CHECK(fail(inst, "fmi3GetBinary: valueSizes is NULL, nValues = %zu", nValues))
  compute(inst);
  if (!reserve_returned(inst, nValues)) CHECK(fail(inst, "fmi3GetBinary: out of memory"))
  for (size_t k = 0; k < nvr; ++k) {
    const fmu3_bytes *b = &FMU3_BIN(inst, idx[k]);
    unsigned char *copy = malloc(b->size ? b->size : 1);
    if (!copy) CHECK(fail(inst, "fmi3GetBinary: out of memory"))
    if (b->size) memcpy(copy, b->bytes, b->size);
    inst->returned[inst->n_returned++] = copy;
    values[k] = copy;
    valueSizes[k] = b->size;
  }
  free(idx);
  return fmi3OK;
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues) {
  RESOLVE("fmi3SetBinary", 1, FMU3_BINARY, values, nValues)
  if (!valueSizes) CHECK(fail(inst, "fmi3SetBinary: valueSizes is NULL, nValues = %zu", nValues))
  CHECK(check_settable(inst, "fmi3SetBinary", nvr, idx))
  for (size_t k = 0; k < nvr; ++k)
    if (!values[k] && valueSizes[k] > 0)
      CHECK(fail(inst, "fmi3SetBinary: values[%zu] (%s) is NULL, valueSizes[%zu] = %zu", k,
                 MODEL.variables[idx[k]].name, k, valueSizes[k]))
  for (size_t k = 0; k < nvr; ++k)
    if (!fmu3_set_binary(inst, idx[k], values[k], valueSizes[k])) CHECK(fail(inst, "fmi3SetBinary: out of memory"))
  free(idx);
  return fmi3OK;
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[]) {
  RESOLVE("fmi3GetClock", 0, FMU3_CLOCK, values, nvr)
  if (inst->s.mode != FMU3_EVENT_MODE)
    CHECK(fail(inst, "Illegal call sequence: fmi3GetClock in state %s", state_name(inst->s.mode)))
  for (size_t k = 0; k < nvr; ++k)
    if (MODEL.variables[idx[k]].causality != FMU3_OUTPUT)
      CHECK(fail(inst, "fmi3GetClock: %s (vr %u) is an input Clock: only output clocks can be read",
                 MODEL.variables[idx[k]].name, (unsigned)vr[k]))
  for (size_t k = 0; k < nvr; ++k) {
    values[k] = FMU3_CLOCK(inst, idx[k])[0];
    FMU3_CLOCK(inst, idx[k])[0] = fmi3ClockInactive;  /* an output clock is reset when it has been read */
  }
  free(idx);
  return fmi3OK;
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[]) {
  RESOLVE("fmi3SetClock", 1, FMU3_CLOCK, values, nvr)
  if (inst->s.mode != FMU3_EVENT_MODE)
    CHECK(fail(inst, "Illegal call sequence: fmi3SetClock in state %s", state_name(inst->s.mode)))
  for (size_t k = 0; k < nvr; ++k)
    if (MODEL.variables[idx[k]].causality != FMU3_INPUT)
      CHECK(fail(inst, "fmi3SetClock: %s (vr %u) is not an input Clock", MODEL.variables[idx[k]].name,
                 (unsigned)vr[k]))
  for (size_t k = 0; k < nvr; ++k) FMU3_CLOCK(inst, idx[k])[0] = values[k];
  free(idx);
  return fmi3OK;
}

/* ---- variable dependencies (providesPerElementDependencies="false") ----------------------------------------- */

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies) {
  (void)valueReference;
  (void)nDependencies;
  return unsupported(instance, "fmi3GetNumberOfVariableDependencies", ST_ALIVE,
                     "providesPerElementDependencies=\"false\"");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[], fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies) {
  (void)dependent;
  (void)elementIndicesOfDependent;
  (void)independents;
  (void)elementIndicesOfIndependents;
  (void)dependencyKinds;
  (void)nDependencies;
  return unsupported(instance, "fmi3GetVariableDependencies", ST_ALIVE, "providesPerElementDependencies=\"false\"");
}

/* ---- FMU states -------------------------------------------------------------------------------------------- */

typedef struct fmu3_snapshot {
  unsigned magic;
  struct fmu3_snapshot *next;
  fmu3_status s;
  fmu3_value *values;
} fmu3_snapshot;

static void free_snapshot(fmu3_snapshot *snapshot) {
  free_values(snapshot->values);
  snapshot->magic = 0;
  free(snapshot);
}

static void free_snapshots(fmu3_instance *inst) {
  while (inst->snapshots) {
    fmu3_snapshot *next = inst->snapshots->next;
    free_snapshot(inst->snapshots);
    inst->snapshots = next;
  }
}

/* state is an FMU state of this instance that is still alive */
static int is_snapshot(const fmu3_instance *inst, const void *state) {
  for (const fmu3_snapshot *s = inst->snapshots; s; s = s->next)
    if (s == state) return 1;
  return 0;
}

/* a new FMU state with a copy of status and values, linked into the instance; NULL when out of memory */
static fmu3_snapshot *new_snapshot(fmu3_instance *inst, const fmu3_status *s, const fmu3_value *values) {
  fmu3_snapshot *snapshot = calloc(1, sizeof *snapshot);
  if (!snapshot) return NULL;
  if (!(snapshot->values = new_values()) || !copy_values(snapshot->values, values)) {
    free_values(snapshot->values);
    free(snapshot);
    return NULL;
  }
  snapshot->magic = SNAPSHOT_MAGIC;
  snapshot->s = *s;
  snapshot->next = inst->snapshots;
  inst->snapshots = snapshot;
  return snapshot;
}

static void unlink_snapshot(fmu3_instance *inst, fmu3_snapshot *snapshot) {
  for (fmu3_snapshot **p = &inst->snapshots; *p; p = &(*p)->next)
    if (*p == snapshot) {
      *p = snapshot->next;
      return;
    }
}

#define REQUIRE_FMU_STATES(fn)          \
  if (!MODEL.can_get_and_set_fmu_state) \
    return fail(inst, "%s is not supported by %s (canGetAndSetFMUState=\"false\")", fn, MODEL.model_identifier);
#define REQUIRE_SERIALIZATION(fn)     \
  if (!MODEL.can_serialize_fmu_state) \
    return fail(inst, "%s is not supported by %s (canSerializeFMUState=\"false\")", fn, MODEL.model_identifier);

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
  ENTER("fmi3GetFMUState", ST_ALIVE)
  REQUIRE_FMU_STATES("fmi3GetFMUState")
  if (!FMUState) return fail(inst, "fmi3GetFMUState: FMUState is NULL");
  if (*FMUState && !is_snapshot(inst, *FMUState))
    return fail(inst, "fmi3GetFMUState: *FMUState = %p is neither NULL nor an FMU state of this instance", *FMUState);
  fmu3_snapshot *snapshot = new_snapshot(inst, &inst->s, inst->values);
  if (!snapshot) return fail(inst, "fmi3GetFMUState: out of memory");
  if (*FMUState) {  /* overwrite the given one: it keeps its address */
    fmu3_snapshot *old = *FMUState;
    unlink_snapshot(inst, snapshot);
    free_values(old->values);
    old->values = snapshot->values;
    old->s = snapshot->s;
    snapshot->values = NULL;
    free_snapshot(snapshot);
  } else {
    *FMUState = snapshot;
  }
  return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
  ENTER("fmi3SetFMUState", ST_ANY)
  REQUIRE_FMU_STATES("fmi3SetFMUState")
  if (!is_snapshot(inst, FMUState))
    return fail(inst, "fmi3SetFMUState: %p is not an FMU state of this instance", FMUState);
  const fmu3_snapshot *snapshot = FMUState;
  fmu3_value *values = new_values();
  if (!values || !copy_values(values, snapshot->values)) {
    free_values(values);
    return fail(inst, "fmi3SetFMUState: out of memory");
  }
  free_values(inst->values);
  inst->values = values;
  inst->s = snapshot->s;
  return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
  ENTER("fmi3FreeFMUState", ST_ANY)
  REQUIRE_FMU_STATES("fmi3FreeFMUState")
  if (!FMUState) return fail(inst, "fmi3FreeFMUState: FMUState is NULL");
  if (!*FMUState) return fmi3OK;  /* the standard: a null pointer is ignored */
  if (!is_snapshot(inst, *FMUState))
    return fail(inst, "fmi3FreeFMUState: %p is not an FMU state of this instance (freed twice?)", *FMUState);
  unlink_snapshot(inst, *FMUState);
  free_snapshot(*FMUState);
  *FMUState = NULL;
  return fmi3OK;
}

/* Serialized form: "cosima3" '\0', 64-bit hash of modelIdentifier and instantiationToken, the status field by
   field, then per variable its element count and elements (numbers in the platform's byte order; Boolean and
   Clock one byte; String and Binary a 64-bit length and the bytes). */
static const char k_serial_magic[8] = "cosima3";

typedef struct {
  unsigned char *at;  /* NULL: only count */
  size_t size;
} writer;

static void put(writer *w, const void *bytes, size_t n) {
  if (w->at) memcpy(w->at + w->size, bytes, n);
  w->size += n;
}
static void put_u64(writer *w, unsigned long long x) {
  const uint64_t v = x;
  put(w, &v, sizeof v);
}
static void put_f64(writer *w, double x) { put(w, &x, sizeof x); }

static uint64_t model_hash(void) {
  uint64_t h = 1469598103934665603ull;
  for (int pass = 0; pass < 2; ++pass)
    for (const char *p = pass ? MODEL.instantiation_token : MODEL.model_identifier; *p; ++p)
      h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

static void serialize(writer *w, const fmu3_snapshot *snapshot) {
  const fmu3_status *s = &snapshot->s;
  put(w, k_serial_magic, sizeof k_serial_magic);
  put_u64(w, model_hash());
  put_u64(w, s->mode);
  put_u64(w, s->reconfiguration_return);
  put_f64(w, s->time);
  put_f64(w, s->start_time);
  put_u64(w, (unsigned long long)s->stop_time_defined);
  put_f64(w, s->stop_time);
  put_f64(w, s->time_floor);
  put_u64(w, (unsigned long long)s->initial_event);
  put_u64(w, (unsigned long long)s->update_calls);
  put_u64(w, (unsigned long long)s->converged);
  put_u64(w, (unsigned long long)s->next_event_time_defined);
  put_f64(w, s->next_event_time);
  put_u64(w, (unsigned long long)s->event_pending);
  put_u64(w, (unsigned long long)s->terminate_requested);
  for (int k = 0; k < FMU3_N_DATA; ++k) put_f64(w, s->data[k]);
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    const fmu3_value *value = &snapshot->values[k];
    put_u64(w, value->count);
    for (size_t e = 0; e < value->count; ++e) {
      if (v->type == FMU3_STRING) {
        const char *str = ((char **)value->data)[e];
        put_u64(w, strlen(str));
        put(w, str, strlen(str));
      } else if (v->type == FMU3_BINARY) {
        const fmu3_bytes *b = &((fmu3_bytes *)value->data)[e];
        put_u64(w, b->size);
        if (b->size) put(w, b->bytes, b->size);
      } else if (v->type == FMU3_BOOLEAN || v->type == FMU3_CLOCK) {
        const unsigned char byte = ((fmi3Boolean *)value->data)[e] ? 1 : 0;
        put(w, &byte, 1);
      } else {
        put(w, (const unsigned char *)value->data + e * element_size(v->type), element_size(v->type));
      }
    }
  }
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size) {
  ENTER("fmi3SerializedFMUStateSize", ST_ANY)
  REQUIRE_SERIALIZATION("fmi3SerializedFMUStateSize")
  if (!size) return fail(inst, "fmi3SerializedFMUStateSize: size is NULL");
  if (!is_snapshot(inst, FMUState))
    return fail(inst, "fmi3SerializedFMUStateSize: %p is not an FMU state of this instance", FMUState);
  writer w = {NULL, 0};
  serialize(&w, FMUState);
  *size = w.size;
  return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size) {
  ENTER("fmi3SerializeFMUState", ST_ANY)
  REQUIRE_SERIALIZATION("fmi3SerializeFMUState")
  if (!is_snapshot(inst, FMUState))
    return fail(inst, "fmi3SerializeFMUState: %p is not an FMU state of this instance", FMUState);
  writer w = {NULL, 0};
  serialize(&w, FMUState);
  if (size != w.size)
    return fail(inst, "fmi3SerializeFMUState: size = %zu, but fmi3SerializedFMUStateSize is %zu", size, w.size);
  if (!serializedState) return fail(inst, "fmi3SerializeFMUState: serializedState is NULL");
  w.at = serializedState;
  w.size = 0;
  serialize(&w, FMUState);
  return fmi3OK;
}

typedef struct {
  const unsigned char *at;
  size_t size, pos;
  int bad;
} reader;

static void get(reader *r, void *bytes, size_t n) {
  if (r->bad || n > r->size - r->pos) {
    r->bad = 1;
    memset(bytes, 0, n);
    return;
  }
  memcpy(bytes, r->at + r->pos, n);
  r->pos += n;
}
static unsigned long long get_u64(reader *r) {
  uint64_t v;
  get(r, &v, sizeof v);
  return v;
}
static double get_f64(reader *r) {
  double x;
  get(r, &x, sizeof x);
  return x;
}
static int get_int(reader *r) {
  const unsigned long long x = get_u64(r);
  if (x > 1000000000ull) r->bad = 1;
  return (int)x;
}

/* the values of `r` into the fresh `values`; a message into problem when they do not fit this model */
static int deserialize_values(reader *r, fmu3_value *values, char *problem, size_t size) {
  for (int k = 0; k < MODEL.n_variables && !r->bad; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    fmu3_value *value = &values[k];
    const unsigned long long count = get_u64(r);
    if (r->bad) break;
    if (count > value->capacity)
      return snprintf(problem, size, "%s has %llu elements, more than %zu", v->name, count, value->capacity), 0;
    value->count = (size_t)count;
    for (size_t e = 0; e < value->count && !r->bad; ++e) {
      if (v->type == FMU3_STRING || v->type == FMU3_BINARY) {
        const unsigned long long n = get_u64(r);
        if (r->bad || n > r->size - r->pos) {
          r->bad = 1;
          break;
        }
        unsigned char *bytes = malloc((size_t)n + 1);
        if (!bytes) return snprintf(problem, size, "out of memory"), 0;
        get(r, bytes, (size_t)n);
        bytes[n] = 0;
        if (v->type == FMU3_STRING) {
          if (strlen((char *)bytes) != n) {
            free(bytes);
            return snprintf(problem, size, "%s: a String with a NUL byte", v->name), 0;
          }
          free(((char **)value->data)[e]);
          ((char **)value->data)[e] = (char *)bytes;
        } else {
          fmu3_bytes *b = &((fmu3_bytes *)value->data)[e];
          free(b->bytes);
          b->bytes = bytes;
          b->size = (size_t)n;
        }
      } else if (v->type == FMU3_BOOLEAN || v->type == FMU3_CLOCK) {
        unsigned char byte = 0;
        get(r, &byte, 1);
        if (byte > 1) return snprintf(problem, size, "%s: a Boolean is not 0 or 1", v->name), 0;
        ((fmi3Boolean *)value->data)[e] = byte != 0;
      } else {
        get(r, (unsigned char *)value->data + e * element_size(v->type), element_size(v->type));
      }
    }
  }
  if (r->bad) return snprintf(problem, size, "the data end too early"), 0;
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (values[k].count != element_count(values, k, 0))
      return snprintf(problem, size, "%s has %zu elements, its dimensions say %zu", MODEL.variables[k].name,
                      values[k].count, element_count(values, k, 0)), 0;
  return 1;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState) {
  ENTER("fmi3DeserializeFMUState", ST_ANY)
  REQUIRE_SERIALIZATION("fmi3DeserializeFMUState")
  if (!FMUState) return fail(inst, "fmi3DeserializeFMUState: FMUState is NULL");
  if (!serializedState && size > 0) return fail(inst, "fmi3DeserializeFMUState: serializedState is NULL");
  if (*FMUState && !is_snapshot(inst, *FMUState))
    return fail(inst, "fmi3DeserializeFMUState: *FMUState = %p is neither NULL nor an FMU state of this instance",
                *FMUState);
  reader r = {serializedState, size, 0, 0};
  char magic[sizeof k_serial_magic];
  get(&r, magic, sizeof magic);
  if (r.bad || memcmp(magic, k_serial_magic, sizeof magic) != 0 || get_u64(&r) != model_hash())
    return fail(inst, "fmi3DeserializeFMUState: these %zu bytes are not a serialized FMU state of %s", size,
                MODEL.model_identifier);
  fmu3_status s;
  memset(&s, 0, sizeof s);
  s.mode = (unsigned)get_u64(&r);
  s.reconfiguration_return = (unsigned)get_u64(&r);
  s.time = get_f64(&r);
  s.start_time = get_f64(&r);
  s.stop_time_defined = get_int(&r);
  s.stop_time = get_f64(&r);
  s.time_floor = get_f64(&r);
  s.initial_event = get_int(&r);
  s.update_calls = get_int(&r);
  s.converged = get_int(&r);
  s.next_event_time_defined = get_int(&r);
  s.next_event_time = get_f64(&r);
  s.event_pending = get_int(&r);
  s.terminate_requested = get_int(&r);
  for (int k = 0; k < FMU3_N_DATA; ++k) s.data[k] = get_f64(&r);
  char problem[MESSAGE_SIZE] = "";
  if (!(s.mode & ST_ANY) || (s.mode & (s.mode - 1)))
    snprintf(problem, sizeof problem, "state %#x is not a state of the state machine", s.mode);
  fmu3_value *values = problem[0] ? NULL : new_values();
  if (!problem[0] && !values) snprintf(problem, sizeof problem, "out of memory");
  if (!problem[0]) deserialize_values(&r, values, problem, sizeof problem);
  if (!problem[0] && r.pos != size)
    snprintf(problem, sizeof problem, "%zu bytes are left over", size - r.pos);
  fmu3_snapshot *snapshot = problem[0] ? NULL : new_snapshot(inst, &s, values);
  if (!problem[0] && !snapshot) snprintf(problem, sizeof problem, "out of memory");
  free_values(values);
  if (problem[0]) return fail(inst, "fmi3DeserializeFMUState: %s", problem);
  if (*FMUState) {  /* overwrite the given one */
    fmu3_snapshot *old = *FMUState;
    unlink_snapshot(inst, snapshot);
    free_values(old->values);
    old->values = snapshot->values;
    old->s = snapshot->s;
    snapshot->values = NULL;
    free_snapshot(snapshot);
  } else {
    *FMUState = snapshot;
  }
  return fmi3OK;
}

/* ---- partial derivatives ----------------------------------------------------------------------------------- */

/* the common checks of the directional and adjoint derivatives: unknowns and knowns are scalar Float64 variables
   (their indices into *u and *k, allocated), nSeed = nKnowns, nSensitivity = nUnknowns */
static fmi3Status resolve_derivative(fmu3_instance *inst, const char *fn, const fmi3ValueReference unknowns[],
                                     size_t nUnknowns, const fmi3ValueReference knowns[], size_t nKnowns,
                                     size_t n_seed_expected, size_t nSeed, size_t n_sensitivity_expected,
                                     size_t nSensitivity, const void *seed, const void *sensitivity, int **u,
                                     int **k) {
  *u = *k = NULL;
  if ((nUnknowns && !unknowns) || (nKnowns && !knowns) || (nSeed && !seed) || (nSensitivity && !sensitivity))
    return fail(inst, "%s: NULL array with a non-zero length", fn);
  if (nSeed != n_seed_expected || nSensitivity != n_sensitivity_expected)
    return fail(inst, "%s: nSeed = %zu and nSensitivity = %zu, expected %zu and %zu (scalar Float64 variables)", fn,
                nSeed, nSensitivity, n_seed_expected, n_sensitivity_expected);
  if (!(*u = malloc((nUnknowns + 1) * sizeof **u)) || !(*k = malloc((nKnowns + 1) * sizeof **k))) {
    free(*u);
    *u = NULL;
    return fail(inst, "%s: out of memory", fn);
  }
  for (int pass = 0; pass < 2; ++pass) {
    const fmi3ValueReference *vrs = pass ? knowns : unknowns;
    const size_t n = pass ? nKnowns : nUnknowns;
    for (size_t j = 0; j < n; ++j) {
      const int i = find_variable(vrs[j]);
      if (i < 0 || MODEL.variables[i].type != FMU3_FLOAT64 || inst->values[i].count != 1) {
        free(*u);
        free(*k);
        *u = *k = NULL;
        return fail(inst, "%s: %s[%zu] = %u is not a scalar Float64 variable", fn, pass ? "knowns" : "unknowns", j,
                    (unsigned)vrs[j]);
      }
      (pass ? *k : *u)[j] = i;
    }
  }
  return fmi3OK;
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                        size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity) {
  ENTER("fmi3GetDirectionalDerivative", ST_EVALUATE | FMU3_STEP_MODE)
  if (!MODEL.partial_derivative)
    return fail(inst, "fmi3GetDirectionalDerivative is not supported by %s (providesDirectionalDerivatives="
                "\"false\")", MODEL.model_identifier);
  int *u, *k;
  const fmi3Status resolved = resolve_derivative(inst, "fmi3GetDirectionalDerivative", unknowns, nUnknowns, knowns,
                                                 nKnowns, nKnowns, nSeed, nUnknowns, nSensitivity, seed, sensitivity,
                                                 &u, &k);
  if (resolved != fmi3OK) return resolved;
  compute(inst);
  for (size_t i = 0; i < nUnknowns; ++i) {
    double sum = 0.0;
    for (size_t j = 0; j < nKnowns; ++j) {
      double d = 0.0;
      if (!MODEL.partial_derivative(inst, u[i], k[j], &d)) {
        const char *unknown = MODEL.variables[u[i]].name, *known = MODEL.variables[k[j]].name;
        free(u);
        free(k);
        return fail(inst, "fmi3GetDirectionalDerivative: the derivative of %s with respect to %s is not provided "
                    "(%s)", unknown, known, inst->model_exchange ? "Model Exchange" : "Co-Simulation");
      }
      sum += d * seed[j];
    }
    sensitivity[i] = sum;
  }
  free(u);
  free(k);
  return fmi3OK;
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                    size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity) {
  (void)unknowns;
  (void)nUnknowns;
  (void)knowns;
  (void)nKnowns;
  (void)seed;
  (void)nSeed;
  (void)sensitivity;
  (void)nSensitivity;
  return unsupported(instance, "fmi3GetAdjointDerivative", ST_ALIVE, "providesAdjointDerivatives=\"false\"");
}

/* ---- configuration --------------------------------------------------------------------------------------- */

static int has_structural_parameters(int tunable_only) {
  for (int k = 0; k < MODEL.n_variables; ++k)
    if (MODEL.variables[k].causality == FMU3_STRUCTURAL_PARAMETER &&
        (!tunable_only || MODEL.variables[k].variability == FMU3_TUNABLE))
      return 1;
  return 0;
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
  ENTER("fmi3EnterConfigurationMode", FMU3_INSTANTIATED | FMU3_STEP_MODE | FMU3_EVENT_MODE)
  const int reconfiguration = inst->s.mode != FMU3_INSTANTIATED;
  if (!has_structural_parameters(reconfiguration))
    return fail(inst, "Illegal call sequence: fmi3EnterConfigurationMode in state %s: %s has no %sstructural "
                "parameters", state_name(inst->s.mode), MODEL.model_identifier, reconfiguration ? "tunable " : "");
  if (reconfiguration) {
    inst->s.reconfiguration_return = inst->s.mode;
    inst->s.mode = FMU3_RECONFIGURATION_MODE;
  } else {
    inst->s.mode = FMU3_CONFIGURATION_MODE;
  }
  return fmi3OK;
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
  ENTER("fmi3ExitConfigurationMode", FMU3_CONFIGURATION_MODE | FMU3_RECONFIGURATION_MODE)
  /* arrays whose size a structural parameter gives: the new size, and their start values again */
  char problem[MESSAGE_SIZE];
  for (int k = 0; k < MODEL.n_variables; ++k) {
    const fmu3_variable *v = &MODEL.variables[k];
    int dependent = 0;
    for (int d = 0; d < v->n_dimensions; ++d) dependent |= v->dimensions[d].size == 0;
    if (dependent && !set_start(inst->values, k, problem, sizeof problem))
      return fail(inst, "fmi3ExitConfigurationMode: %s", problem);
  }
  inst->s.mode = inst->s.mode == FMU3_CONFIGURATION_MODE ? FMU3_INSTANTIATED : inst->s.reconfiguration_return;
  return fmi3OK;
}

/* ---- clocks (only triggered clocks here: no intervals or shifts) ------------------------------------------- */

#define NO_INTERVALS "no Clock of this FMU has an interval or a shift"

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)intervals;
  (void)qualifiers;
  return unsupported(instance, "fmi3GetIntervalDecimal", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)counters;
  (void)resolutions;
  (void)qualifiers;
  return unsupported(instance, "fmi3GetIntervalFraction", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)shifts;
  return unsupported(instance, "fmi3GetShiftDecimal", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)counters;
  (void)resolutions;
  return unsupported(instance, "fmi3GetShiftFraction", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)intervals;
  return unsupported(instance, "fmi3SetIntervalDecimal", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)counters;
  (void)resolutions;
  return unsupported(instance, "fmi3SetIntervalFraction", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)shifts;
  return unsupported(instance, "fmi3SetShiftDecimal", ST_ALIVE, NO_INTERVALS);
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]) {
  (void)valueReferences;
  (void)nValueReferences;
  (void)counters;
  (void)resolutions;
  return unsupported(instance, "fmi3SetShiftFraction", ST_ALIVE, NO_INTERVALS);
}

/* ---- Event Mode ------------------------------------------------------------------------------------------ */

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
  return unsupported(instance, "fmi3EvaluateDiscreteStates", ST_ALIVE, "providesEvaluateDiscreteStates=\"false\"");
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime) {
  ENTER("fmi3UpdateDiscreteStates", FMU3_EVENT_MODE)
  if (!discreteStatesNeedUpdate || !terminateSimulation || !nominalsOfContinuousStatesChanged ||
      !valuesOfContinuousStatesChanged || !nextEventTimeDefined || !nextEventTime)
    return fail(inst, "fmi3UpdateDiscreteStates: an output argument is NULL");
  fmu3_event event;
  memset(&event, 0, sizeof event);
  event.initial = inst->s.initial_event;
  event.first = inst->s.update_calls == 0;
  compute(inst);
  const fmi3Status status = MODEL.update_discrete_states ? MODEL.update_discrete_states(inst, &event) : fmi3OK;
  if (status > fmi3Warning) {
    if (status == fmi3Fatal) g_fatal = 1;
    if (status == fmi3Error) inst->s.mode = FMU3_ERROR;
    return status;
  }
  inst->s.update_calls++;
  inst->s.converged = !event.discrete_states_need_update;
  inst->s.next_event_time_defined = event.next_event_time_defined;
  inst->s.next_event_time = event.next_event_time;
  if (event.terminate_simulation) inst->s.terminate_requested = 1;
  *discreteStatesNeedUpdate = event.discrete_states_need_update != 0;
  *terminateSimulation = event.terminate_simulation != 0;
  *nominalsOfContinuousStatesChanged = event.nominals_changed != 0;
  *valuesOfContinuousStatesChanged = event.values_changed != 0;
  *nextEventTimeDefined = event.next_event_time_defined != 0;
  *nextEventTime = event.next_event_time_defined ? event.next_event_time : 0.0;
  return status;
}

/* leaving Event Mode (fmi3EnterContinuousTimeMode, fmi3EnterStepMode): the event iteration has converged */
static fmi3Status check_converged(fmu3_instance *inst, const char *fn) {
  if (inst->s.terminate_requested)
    return fail(inst, "Illegal call sequence: %s in state EventMode: fmi3UpdateDiscreteStates returned "
                "terminateSimulation = fmi3True, call fmi3Terminate", fn);
  if (inst->s.update_calls == 0 || !inst->s.converged)
    return fail(inst, "Illegal call sequence: %s in state EventMode: call fmi3UpdateDiscreteStates until it returns "
                "discreteStatesNeedUpdate = fmi3False first", fn);
  return fmi3OK;
}

/* ---- Model Exchange ---------------------------------------------------------------------------------------- */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  ENTER("fmi3EnterContinuousTimeMode", FMU3_EVENT_MODE)
  REQUIRE_INTERFACE("fmi3EnterContinuousTimeMode", 1)
  const fmi3Status converged = check_converged(inst, "fmi3EnterContinuousTimeMode");
  if (converged != fmi3OK) return converged;
  inst->s.mode = FMU3_CONTINUOUS_TIME_MODE;
  inst->s.time_floor = inst->s.time;
  return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation) {
  ENTER("fmi3CompletedIntegratorStep", FMU3_CONTINUOUS_TIME_MODE)
  (void)noSetFMUStatePriorToCurrentPoint;
  if (!enterEventMode || !terminateSimulation)
    return fail(inst, "fmi3CompletedIntegratorStep: enterEventMode or terminateSimulation is NULL");
  int enter_event_mode = 0, terminate = 0;
  compute(inst);
  const fmi3Status status =
    MODEL.completed_integrator_step ? MODEL.completed_integrator_step(inst, &enter_event_mode, &terminate) : fmi3OK;
  if (status > fmi3Warning) {
    if (status == fmi3Fatal) g_fatal = 1;
    if (status == fmi3Error) inst->s.mode = FMU3_ERROR;
    return status;
  }
  inst->s.time_floor = inst->s.time;
  if (terminate) inst->s.terminate_requested = 1;
  *enterEventMode = enter_event_mode != 0;
  *terminateSimulation = terminate != 0;
  return status;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
  ENTER("fmi3SetTime", FMU3_EVENT_MODE | FMU3_CONTINUOUS_TIME_MODE)
  REQUIRE_INTERFACE("fmi3SetTime", 1)
  if (!isfinite(time)) return fail(inst, "fmi3SetTime: time = %g is not finite", time);
  if (time < inst->s.time_floor - time_tolerance(inst->s.time_floor))
    return fail(inst, "fmi3SetTime: time = %.17g is before %.17g, the time of the last fmi3CompletedIntegratorStep or "
                "Event Mode", time, inst->s.time_floor);
  if (inst->s.stop_time_defined && time > inst->s.stop_time + time_tolerance(inst->s.stop_time))
    return fail(inst, "fmi3SetTime: time = %.17g is past stopTime = %.17g", time, inst->s.stop_time);
  if (inst->s.mode == FMU3_CONTINUOUS_TIME_MODE && inst->s.next_event_time_defined &&
      time > inst->s.next_event_time + time_tolerance(inst->s.next_event_time))
    return fail(inst, "fmi3SetTime: time = %.17g is past the time event at nextEventTime = %.17g: enter Event Mode "
                "there", time, inst->s.next_event_time);
  inst->s.time = time;
  return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
  ENTER("fmi3SetContinuousStates", FMU3_CONTINUOUS_TIME_MODE)
  if (nContinuousStates != (size_t)MODEL.nx)
    return fail(inst, "fmi3SetContinuousStates: nContinuousStates = %zu, the FMU has %d", nContinuousStates, MODEL.nx);
  if (nContinuousStates && !continuousStates) return fail(inst, "fmi3SetContinuousStates: continuousStates is NULL");
  for (int k = 0; k < MODEL.nx; ++k) FMU3_F64(inst, MODEL.states[k])[0] = continuousStates[k];
  return fmi3OK;
}

/* copy n values of the scalar Float64 variables `indices` out, after compute() */
static fmi3Status get_vector(fmi3Instance instance, const char *fn, const char *what, const int *indices, int n,
                             fmi3Float64 out[], size_t n_out) {
  ENTER(fn, ST_EVALUATE)
  REQUIRE_INTERFACE(fn, 1)
  if (n_out != (size_t)n) return fail(inst, "%s: %s = %zu, the FMU has %d", fn, what, n_out, n);
  if (n_out && !out) return fail(inst, "%s: the array is NULL", fn);
  compute(inst);
  for (int k = 0; k < n; ++k) out[k] = indices ? FMU3_F64(inst, indices[k])[0] : 1.0;
  return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
  return get_vector(instance, "fmi3GetContinuousStateDerivatives", "nContinuousStates", MODEL.derivatives, MODEL.nx,
                    derivatives, nContinuousStates);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[], size_t nEventIndicators) {
  return get_vector(instance, "fmi3GetEventIndicators", "nEventIndicators", MODEL.event_indicators, MODEL.nz,
                    eventIndicators, nEventIndicators);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[], size_t nContinuousStates) {
  return get_vector(instance, "fmi3GetContinuousStates", "nContinuousStates", MODEL.states, MODEL.nx,
                    continuousStates, nContinuousStates);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[], size_t nContinuousStates) {
  return get_vector(instance, "fmi3GetNominalsOfContinuousStates", "nContinuousStates", NULL, MODEL.nx, nominals,
                    nContinuousStates);
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators) {
  ENTER("fmi3GetNumberOfEventIndicators", ST_ALIVE)
  REQUIRE_INTERFACE("fmi3GetNumberOfEventIndicators", 1)
  if (!nEventIndicators) return fail(inst, "fmi3GetNumberOfEventIndicators: nEventIndicators is NULL");
  *nEventIndicators = (size_t)MODEL.nz;
  return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates) {
  ENTER("fmi3GetNumberOfContinuousStates", ST_ALIVE)
  REQUIRE_INTERFACE("fmi3GetNumberOfContinuousStates", 1)
  if (!nContinuousStates) return fail(inst, "fmi3GetNumberOfContinuousStates: nContinuousStates is NULL");
  *nContinuousStates = (size_t)MODEL.nx;
  return fmi3OK;
}

/* ---- Co-Simulation ----------------------------------------------------------------------------------------- */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
  ENTER("fmi3EnterStepMode", FMU3_EVENT_MODE)
  REQUIRE_INTERFACE("fmi3EnterStepMode", 0)
  const fmi3Status converged = check_converged(inst, "fmi3EnterStepMode");
  if (converged != fmi3OK) return converged;
  inst->s.mode = FMU3_STEP_MODE;
  return fmi3OK;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues) {
  ENTER("fmi3GetOutputDerivatives", FMU3_STEP_MODE | FMU3_TERMINATED)
  REQUIRE_INTERFACE("fmi3GetOutputDerivatives", 0)
  const int max_order = MODEL.max_output_derivative_order;
  if (max_order == 0)
    return fail(inst, "fmi3GetOutputDerivatives is not supported by %s (maxOutputDerivativeOrder=\"0\")",
                MODEL.model_identifier);
  if (nvr && (!vr || !orders)) return fail(inst, "fmi3GetOutputDerivatives: valueReferences or orders is NULL");
  if (nValues != nvr) return fail(inst, "fmi3GetOutputDerivatives: nValues = %zu, expected %zu (scalar outputs)",
                                  nValues, nvr);
  if (nValues && !values) return fail(inst, "fmi3GetOutputDerivatives: values is NULL");
  for (size_t k = 0; k < nvr; ++k) {
    const int i = find_variable(vr[k]);
    if (i < 0 || MODEL.variables[i].type != FMU3_FLOAT64 || MODEL.variables[i].causality != FMU3_OUTPUT ||
        MODEL.variables[i].variability != FMU3_CONTINUOUS || inst->values[i].count != 1)
      return fail(inst, "fmi3GetOutputDerivatives: vr %u is not a scalar continuous Float64 output", (unsigned)vr[k]);
    if (orders[k] < 1 || orders[k] > max_order)
      return fail(inst, "fmi3GetOutputDerivatives: orders[%zu] = %d, must be 1..%d (maxOutputDerivativeOrder)", k,
                  (int)orders[k], max_order);
  }
  compute(inst);
  for (size_t k = 0; k < nvr; ++k) values[k] = MODEL.output_derivative(inst, find_variable(vr[k]), orders[k]);
  return fmi3OK;
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
  ENTER("fmi3DoStep", FMU3_STEP_MODE)
  (void)noSetFMUStatePriorToCurrentPoint;
  const double t = currentCommunicationPoint, h = communicationStepSize;
  if (!eventHandlingNeeded || !terminateSimulation || !earlyReturn || !lastSuccessfulTime)
    return fail(inst, "fmi3DoStep: an output argument is NULL");
  *eventHandlingNeeded = *terminateSimulation = *earlyReturn = fmi3False;
  *lastSuccessfulTime = inst->s.time;
  if (inst->s.event_pending)
    return fail(inst, "Illegal call sequence: fmi3DoStep in state StepMode: the last fmi3DoStep returned "
                "eventHandlingNeeded = fmi3True, call fmi3EnterEventMode first");
  if (inst->s.terminate_requested)
    return fail(inst, "Illegal call sequence: fmi3DoStep in state StepMode: the FMU asked to terminate "
                "(terminateSimulation = fmi3True), call fmi3Terminate");
  if (!isfinite(t) || !(fabs(t - inst->s.time) <= time_tolerance(inst->s.time)))
    return fail(inst, "fmi3DoStep: currentCommunicationPoint = %.17g, but the FMU is at t = %.17g", t, inst->s.time);
  if (!(h > 0.0) || !isfinite(h))
    return fail(inst, "fmi3DoStep: communicationStepSize = %.17g, must be > 0", h);
  if (inst->s.stop_time_defined && t + h > inst->s.stop_time + time_tolerance(inst->s.stop_time))
    return fail(inst, "fmi3DoStep: t + h = %.17g is past the stopTime %.17g of fmi3EnterInitializationMode", t + h,
                inst->s.stop_time);
  fmu3_step step;
  memset(&step, 0, sizeof step);
  step.t = t;
  step.h = h;
  step.event_mode_used = inst->event_mode_used;
  step.early_return_allowed = inst->early_return_allowed;
  step.end = t + h;
  const fmi3Status status = MODEL.do_step(inst, &step);
  switch (status) {
    case fmi3OK:
    case fmi3Warning:
      if ((step.early_return && !inst->early_return_allowed) || (step.event_handling_needed && !inst->event_mode_used) ||
          !(step.end > t && step.end <= t + h) || (step.early_return && !(step.end < t + h)))
        return fail(inst, "fmi3DoStep: internal error of %s: end = %.17g, earlyReturn %d, eventHandlingNeeded %d",
                    MODEL.model_identifier, step.end, step.early_return, step.event_handling_needed);
      inst->s.time = step.end;
      inst->s.event_pending = step.event_handling_needed;
      if (step.terminate_simulation) inst->s.terminate_requested = 1;
      *eventHandlingNeeded = step.event_handling_needed != 0;
      *terminateSimulation = step.terminate_simulation != 0;
      *earlyReturn = step.early_return != 0;
      *lastSuccessfulTime = step.end;
      break;
    case fmi3Discard: *lastSuccessfulTime = inst->s.time; break;  /* nothing changed: still in Step Mode at t */
    case fmi3Fatal: g_fatal = 1; break;
    default: inst->s.mode = FMU3_ERROR; break;
  }
  return status;
}

/* ---- Scheduled Execution ----------------------------------------------------------------------------------- */

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime) {
  (void)clockReference;
  (void)activationTime;
  /* only in Clock Activation Mode of Scheduled Execution, which no instance of these FMUs reaches */
  ENTER("fmi3ActivateModelPartition", 0)
  return fmi3Error;
}
