// A result table: the bytes as a file, read by read_csv. cosima::Error is the expected refusal;
// anything else escaping, a sanitizer report or a leak is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "io/csv.hpp"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)cosima_fuzz::root();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = cosima_fuzz::write_input("input.csv", data, size);
  try {
    const cosima::io::Table table = cosima::io::read_csv(path);
    if (table.values.size() != table.columns.size()) __builtin_trap();
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (table.values[c].size() != table.time.size()) __builtin_trap();  // every numeric column has a cell per row
      (void)table.column_index(table.columns[c]);
    }
    for (const auto& [name, cells] : table.texts) {
      if (cells.size() != table.time.size()) __builtin_trap();
    }
  } catch (const cosima::Error&) {
  }
  return 0;
}
