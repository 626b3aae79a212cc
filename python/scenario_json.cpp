#include "scenario_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace py = pybind11;

namespace cosima::python {

namespace {

/// Where the conversion is: the containers from the root to the value being converted (to refuse a
/// cycle) and the keys and indexes that lead there. The messages' `where` is written from them only
/// when one is raised: written at each level, a long key nested deep would take memory quadratic
/// in the depth.
struct Path {
  /// One level down: a dict's key, or a list's or tuple's index.
  struct Step {
    bool is_key = false;
    std::string key;
    std::size_t index = 0;
  };
  std::string root;  ///< the caller's `where`
  std::vector<const PyObject*> containers;
  std::vector<Step> steps;
  std::size_t values = 0;  ///< converted so far

  /// The value's place, as a dot path with [index]es: "systems.prey.x[2]" ("" for the root itself).
  [[nodiscard]] std::string where() const {
    std::string out = root;
    for (const Step& step : steps) {
      if (!step.is_key)
        out += fmt::format("[{}]", step.index);
      else if (out.empty())
        out = step.key;
      else
        out += "." + step.key;
    }
    return out;
  }
};

/// A dict, list or tuple entered: refused (ValueError) when it is on its own path or too deep.
struct Enter {
  Enter(const py::handle& value, Path& path) : path_(path) {
    if (std::find(path.containers.begin(), path.containers.end(), value.ptr()) != path.containers.end()) {
      const std::string where = path.where();
      throw py::value_error(fmt::format("{}: the {} contains itself (a cycle), which a scenario cannot hold",
                                        where.empty() ? "scenario" : where,
                                        py::type::of(value).attr("__name__").cast<std::string>()));
    }
    if (path.containers.size() >= static_cast<std::size_t>(kMaxDepth)) {
      const std::string where = path.where();
      std::size_t cut = std::min<std::size_t>(where.size(), 200);
      while (cut > 0 && cut < where.size() && (static_cast<unsigned char>(where[cut]) & 0xC0) == 0x80) --cut;
      throw py::value_error(fmt::format("{}: dicts and lists nested deeper than {} levels",
                                        where.empty() ? "scenario" : where.substr(0, cut) + "…", kMaxDepth));
    }
    path.containers.push_back(value.ptr());
  }
  ~Enter() { path_.containers.pop_back(); }
  Enter(const Enter&) = delete;
  Enter& operator=(const Enter&) = delete;

 private:
  Path& path_;
};

/// One level down while it converts that item.
struct Descend {
  Descend(Path& path, Path::Step step) : path_(path) { path.steps.push_back(std::move(step)); }
  ~Descend() { path_.steps.pop_back(); }
  Descend(const Descend&) = delete;
  Descend& operator=(const Descend&) = delete;

 private:
  Path& path_;
};

/// A str as UTF-8; one that has none (a lone surrogate, as os.fsdecode makes of bytes that are not
/// UTF-8) is a ValueError naming where.
std::string utf8(const py::handle& text, const Path& path, std::string_view what) {
  Py_ssize_t size = 0;
  const char* bytes = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (bytes != nullptr) return {bytes, static_cast<std::size_t>(size)};
  PyErr_Clear();
  const std::string where = path.where();
  const std::string shown = py::repr(text).cast<std::string>();  // surrogates escaped: "'\udcff'"
  throw py::value_error(fmt::format("{}: the {} {} is not Unicode that UTF-8 can hold (a lone surrogate)",
                                    where.empty() ? "scenario" : where, what,
                                    shown.size() > 200 ? shown.substr(0, 200) + "…" : shown));
}

/// A dict key that is not a str, as the message shows it: its repr, or its type when it has none
/// (its repr failed, e.g. a tuple nested past Python's recursion limit).
std::string shown_key(const py::handle& key) {
  try {
    const std::string shown = py::repr(key).cast<std::string>();
    return shown.size() > 200 ? shown.substr(0, 200) + "…" : shown;
  } catch (const py::error_already_set&) {
    return "a " + py::type::of(key).attr("__name__").cast<std::string>();
  }
}

io::Json to_json(const py::handle& value, Path& path);

io::Json int_to_json(const py::handle& value, const Path& path) {
  try {
    return value.cast<std::int64_t>();
  } catch (const py::cast_error&) {  // beyond Int64: a UInt64 (exact up to 2^64 − 1), else refused
  }
  if (value.attr("__ge__")(0).cast<bool>()) {
    try {
      return value.cast<std::uint64_t>();
    } catch (const py::cast_error&) {
    }
  }
  std::string shown;
  try {
    shown = py::str(value).cast<std::string>();
  } catch (const py::error_already_set&) {  // more digits than Python writes (sys.set_int_max_str_digits)
    shown = fmt::format("of {} bits", value.attr("bit_length")().cast<std::int64_t>());
  }
  throw py::value_error(fmt::format("{}: the integer {} is outside [-2^63, 2^64 - 1]", path.where(), shown));
}

io::Json dict_to_json(const py::handle& value, Path& path) {
  const Enter enter(value, path);
  io::Json object = io::Json::object();
  for (const auto& [key, item] : value.cast<py::dict>()) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error(fmt::format("{}: keys must be str, not {}", path.where(), shown_key(key)));
    std::string name = utf8(key, path, "key");
    const Descend descend(path, {.is_key = true, .key = name});
    object[std::move(name)] = to_json(item, path);
  }
  return object;
}

io::Json to_json(const py::handle& value, Path& path) {
  if (++path.values > kMaxValues) {
    const std::string where = path.where();
    throw py::value_error(
        fmt::format("{}: more than {} values in all (a dict or list held in several places "
                    "counts at each)",
                    where.empty() ? "scenario" : where, kMaxValues));
  }
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return int_to_json(value, path);
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return utf8(value, path, "text");
  if (py::isinstance<py::dict>(value)) return dict_to_json(value, path);
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    const Enter enter(value, path);
    io::Json array = io::Json::array();
    std::size_t i = 0;
    for (const auto& item : value) {
      const Descend descend(path, {.index = i++});
      array.push_back(to_json(item, path));
    }
    return array;
  }
  const py::module_ os = py::module_::import("os");
  if (py::isinstance(value, os.attr("PathLike"))) {
    const py::object fspath = os.attr("fspath")(value);
    return py::isinstance<py::str>(fspath) ? utf8(fspath, path, "path") : fspath.cast<std::string>();
  }
  if (py::hasattr(value, "__index__")) return to_json(value.attr("__index__")(), path);  // numpy integers
  if (py::hasattr(value, "__float__")) return value.attr("__float__")().cast<double>();  // numpy floats
  const std::string where = path.where();
  throw py::type_error(fmt::format("{}: cannot put a {} in a scenario (numbers, str, bool, None, dict, list)",
                                   where.empty() ? "value" : where,
                                   py::type::of(value).attr("__name__").cast<std::string>()));
}

}  // namespace

io::Json to_json(const py::handle& value, const std::string& where) {
  Path path;
  path.root = where;
  return to_json(value, path);
}

}  // namespace cosima::python
