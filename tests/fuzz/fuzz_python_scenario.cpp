// The Python module's conversion of a scenario dict (or an override's value) to JSON
// (python/scenario_json.hpp), in an embedded interpreter, on a Python value the input builds.
//
// Input: byte 0 chooses `where` (bit 0: "" as cosima.load(dict) gives it, else an override's dot
// path, whose JSON is then written out as the module does), the rest is a program of one-byte
// opcodes on a stack of Python values (an opcode's operands follow it; missing bytes read as 0):
//   int (8 bytes, signed)         big int (length, then that many bytes, signed little-endian)
//   float (8 bytes, any double)   str (length, then UTF-8 bytes, undecodable ones as lone surrogates)
//   bool (1 byte)   None          list / tuple of the top k (1 byte)   dict of the top 2k (1 byte:
//                                 key, value, ...; a list or dict as key, or a tuple nested too deep
//                                 for Python's own hash, is replaced by its length)
//   append (the top into the container below it)    reference (1 byte: push stack[i] again)
//   wrap in lists / wrap in dicts (1 byte k: the top n times into [x], or into {key: x} with the str
//                                 below it as key, else "a"; n = k up to 239, else 2^(k − 238): 4 to
//                                 131072, rare so that most inputs stay quick)
//   numpy scalar (1 byte: which type; of the top number)   path (pathlib.PurePosixPath of the top str)
//   bytes (of the top str)
// A length is one byte, or 255 then two more (up to 65535). With references and appends a container
// can hold itself (a cycle), with wrap be nested 10⁵ deep. The value converted is the top of the
// stack. A ValueError or TypeError (py::value_error, py::type_error or a Python error of those
// types) is the expected refusal; anything else escaping, a crash or a sanitizer report is a finding.
// Python's own allocations look like leaks to LeakSanitizer: run.sh runs this harness with
// detect_leaks=0.
#include <pybind11/embed.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "scenario_json.hpp"

namespace py = pybind11;

namespace {

constexpr std::size_t kMaxStack = 4096;       ///< values on the stack (older ones are dropped)
constexpr std::size_t kMaxItems = 1 << 16;    ///< items in one container (appends beyond are ignored)
constexpr std::size_t kMaxKeyDepth = 2000;    ///< tuples as dict keys: nesting (Python's limit is 1000)
constexpr std::size_t kMaxKeyItems = 100000;  ///< and tuples in all
constexpr std::size_t kCollectEvery = 16;     ///< inputs between two runs of Python's cyclic collector

class Program {
 public:
  Program(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  /// Runs the program; the value it leaves on top (None when none).
  py::object run() {
    while (at_ < size_) step(byte());
    return stack_.empty() ? py::none() : stack_.back();
  }

 private:
  enum Op : std::uint8_t {
    kInt,
    kBigInt,
    kFloat,
    kStr,
    kBool,
    kNone,
    kList,
    kTuple,
    kDict,
    kAppend,
    kReference,
    kWrapList,
    kWrapDict,
    kNumpy,
    kPath,
    kBytes,
    kOps
  };

  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::size_t length() {
    const std::size_t first = byte();
    return first < 255 ? first : static_cast<std::size_t>(byte()) | static_cast<std::size_t>(byte()) << 8;
  }
  std::vector<char> bytes(std::size_t n) {
    std::vector<char> out;
    for (; n > 0 && at_ < size_; --n) out.push_back(static_cast<char>(byte()));
    return out;
  }
  template <typename T>
  T fixed() {
    unsigned char raw[sizeof(T)];
    for (unsigned char& b : raw) b = byte();
    T value;
    std::memcpy(&value, raw, sizeof(T));
    return value;
  }
  void push(py::object value) {
    if (stack_.size() >= kMaxStack) stack_.erase(stack_.begin());
    stack_.push_back(std::move(value));
  }
  py::object pop() {
    if (stack_.empty()) return py::none();
    py::object top = stack_.back();
    stack_.pop_back();
    return top;
  }
  /// The top k values, bottom first.
  std::vector<py::object> pop_many(std::size_t k) {
    k = std::min(k, stack_.size());
    std::vector<py::object> out(stack_.end() - static_cast<std::ptrdiff_t>(k), stack_.end());
    stack_.resize(stack_.size() - k);
    return out;
  }

  void step(std::uint8_t code) {
    switch (code % kOps) {
      case kInt: push(py::int_(fixed<std::int64_t>())); break;
      case kBigInt: {
        const std::vector<char> raw = bytes(length());
        push(py::module_::import("builtins")
                 .attr("int")
                 .attr("from_bytes")(py::bytes(raw.data(), raw.size()), "little", py::arg("signed") = true));
        break;
      }
      case kFloat: push(py::float_(fixed<double>())); break;
      case kStr: push(text(bytes(length()))); break;
      case kBool: push(py::bool_((byte() & 1) != 0)); break;
      case kNone: push(py::none()); break;
      case kList: push(list(pop_many(byte()))); break;
      case kTuple: push(py::tuple(list(pop_many(byte())))); break;
      case kDict: push(dict(pop_many(2 * static_cast<std::size_t>(byte())))); break;
      case kAppend: append(); break;
      case kReference: {
        const std::size_t i = byte();
        if (!stack_.empty()) push(stack_[i % stack_.size()]);
        break;
      }
      case kWrapList: wrap(false); break;
      case kWrapDict: wrap(true); break;
      case kNumpy: numpy(byte()); break;
      case kPath:
        if (!stack_.empty() && py::isinstance<py::str>(stack_.back()))
          push(py::module_::import("pathlib").attr("PurePosixPath")(pop()));
        break;
      case kBytes:
        if (!stack_.empty() && py::isinstance<py::str>(stack_.back()))
          push(pop().attr("encode")("utf-8", "surrogateescape"));
        break;
      default: break;
    }
  }

  static py::object text(const std::vector<char>& raw) {
    PyObject* decoded = PyUnicode_DecodeUTF8(raw.data(), static_cast<Py_ssize_t>(raw.size()), "surrogateescape");
    if (decoded == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(decoded);
  }
  static py::list list(const std::vector<py::object>& items) {
    py::list out;
    for (const py::object& item : items) out.append(item);
    return out;
  }
  /// Whether Python can hash `key` without exhausting the C stack or the time: its hash of a tuple
  /// recurses into it unchecked and sees a shared tuple at each place that holds it.
  static bool hashable_safely(const py::handle& key) {
    if (!py::isinstance<py::tuple>(key)) return true;
    std::vector<std::pair<py::handle, std::size_t>> todo = {{key, 1}};
    for (std::size_t visited = 0; !todo.empty(); ++visited) {
      const auto [tuple, depth] = todo.back();
      todo.pop_back();
      if (depth > kMaxKeyDepth || visited > kMaxKeyItems) return false;
      for (const py::handle item : tuple) {
        if (py::isinstance<py::tuple>(item)) todo.emplace_back(item, depth + 1);
      }
    }
    return true;
  }
  /// A list or dict as key (unhashable), or a tuple Python cannot hash safely, is replaced by its
  /// length; a tuple holding a list is left to Python (TypeError: the program makes no value).
  static py::dict dict(const std::vector<py::object>& items) {
    py::dict out;
    for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
      py::object key = items[i];
      if (py::isinstance<py::list>(key) || py::isinstance<py::dict>(key) || !hashable_safely(key))
        key = py::int_(py::len(key));
      out[key] = items[i + 1];
    }
    return out;
  }
  void append() {
    if (stack_.size() < 2) return;
    py::object item = pop();
    py::handle container = stack_.back();
    if (py::isinstance<py::list>(container) && py::len(container) < kMaxItems) {
      container.cast<py::list>().append(item);
    } else if (py::isinstance<py::dict>(container) && py::len(container) < kMaxItems) {
      container.cast<py::dict>()[py::str("k" + std::to_string(py::len(container)))] = item;
    }
  }
  void wrap(bool as_dict) {
    const std::size_t k = byte();
    const std::size_t n = k < 240 ? k : std::size_t{1} << (k - 238);
    py::object value = pop();
    py::object key = py::str("a");
    if (as_dict && !stack_.empty() && py::isinstance<py::str>(stack_.back())) key = stack_.back();
    for (std::size_t i = 0; i < n; ++i) {
      if (as_dict) {
        py::dict outer;
        outer[key] = value;
        value = outer;
      } else {
        py::list outer;
        outer.append(value);
        value = outer;
      }
    }
    push(value);
  }
  void numpy(std::uint8_t which) {
    static const char* const types[] = {"int8",   "int16",  "int32",   "int64",   "uint8",   "uint16",
                                        "uint32", "uint64", "float16", "float32", "float64", "bool_"};
    if (stack_.empty()) return;
    const py::object top = stack_.back();
    if (!py::isinstance<py::int_>(top) && !py::isinstance<py::float_>(top)) return;
    try {
      const py::object type = py::module_::import("numpy").attr(types[which % std::size(types)]);
      push(type(top));
    } catch (const py::error_already_set&) {  // out of the type's range: not made
    }
  }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 1;  // byte 0 is `where`
  std::vector<py::object> stack_;
};

bool is_refusal(const py::error_already_set& e) { return e.matches(PyExc_ValueError) || e.matches(PyExc_TypeError); }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)cosima_fuzz::root();
  py::initialize_interpreter();
  // Python's cyclic collector, run at its own pace, took 40 % of the time (an input makes up to 10⁵
  // containers and more): the cycles the inputs leave are collected every kCollectEvery inputs
  // instead, few enough that what they hold stays far below the harness's memory limit
  (void)py::module_::import("gc").attr("disable")();
  // numpy loaded once, not at the first input that asks for it
  try {
    (void)py::module_::import("numpy");
  } catch (const py::error_already_set& e) {
    cosima_fuzz::die(std::string("cannot import numpy: ") + e.what());
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::size_t inputs = 0;
  if (++inputs % kCollectEvery == 0) (void)py::module_::import("gc").attr("collect")();
  if (size == 0) return 0;
  py::object value;
  try {
    value = Program(data, size).run();
  } catch (const py::error_already_set&) {  // the program did not make a value
    return 0;
  }
  const bool override_value = (data[0] & 1) != 0;
  try {
    const cosima::io::Json json = cosima::python::to_json(value, override_value ? "systems.prey.x" : "");
    if (override_value) (void)json.dump(-1, ' ', false, cosima::io::Json::error_handler_t::strict);
  } catch (const py::value_error&) {
  } catch (const py::type_error&) {
  } catch (const py::error_already_set& e) {
    if (!is_refusal(e)) cosima_fuzz::die(std::string("a Python error that is no refusal: ") + e.what());
  }
  return 0;
}
