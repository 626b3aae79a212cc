#pragma once
// A scenario given to the Python module as a dict (or a value of an override) as JSON: what
// cosima.load and the overrides convert before cosima parses it; what no scenario can be is refused
// by name (ValueError, TypeError), never by exhausting the stack or the memory. Its own file so that
// the fuzz harness (tests/fuzz/fuzz_python_scenario.cpp) compiles it with an embedded interpreter.
#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>

#include "api/cosima.hpp"

namespace cosima::python {

/// How deep a scenario's dicts and lists may nest: far beyond any scenario, far below the C stack's
/// reach (each level is a few frames of recursion here and in the JSON library).
inline constexpr int kMaxDepth = 1000;

/// How many values (dicts, lists and what they hold) a conversion makes at most, a value counted at
/// each place that holds it: far beyond any scenario. Without a bound, a list that holds one list
/// twice, which holds one list twice, ... 40 levels down (a few hundred bytes in Python) would be 2⁴⁰
/// values of JSON.
inline constexpr std::size_t kMaxValues = 1'000'000;

/// A Python value (dict, list, tuple, str, bool, int, float, None, os.PathLike, numpy scalar) as JSON;
/// `where` names it in messages (a dot path, or empty for the scenario itself). A cycle, nesting
/// deeper than kMaxDepth, more than kMaxValues values, an integer beyond 64 bits or a str that UTF-8
/// cannot hold is a ValueError naming where, an unconvertible value a TypeError.
io::Json to_json(const pybind11::handle& value, const std::string& where);

}  // namespace cosima::python
