// The number format of cosima's CSV files (observer/csv_stream.hpp): "%.17g", exact on reading back.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "observer/csv_stream.hpp"

namespace cosima {
namespace {

TEST(CsvNumber, IsPrintfsSeventeenDigitsAndReadsBackExactly) {
  using limits = std::numeric_limits<double>;
  const std::vector<double> values = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.1,
                                      1.0 / 3.0,
                                      1e-300,
                                      -1e300,
                                      limits::max(),
                                      limits::lowest(),
                                      limits::min(),
                                      limits::denorm_min(),
                                      123456789012345678.0,
                                      2.5e-5,
                                      20.0,
                                      0.30000000000000004};
  for (const double v : values) {
    std::string text = ",";  // appended, as in a row
    observer::append_number(text, v);
    EXPECT_EQ(text.substr(1), fmt::format("{:.17g}", v));
    const double read = std::strtod(text.c_str() + 1, nullptr);
    EXPECT_EQ(read, v) << text;
    EXPECT_EQ(std::signbit(read), std::signbit(v)) << text;
  }
  std::string text;
  observer::append_number(text, limits::quiet_NaN());
  text += ',';
  observer::append_number(text, -limits::infinity());
  EXPECT_EQ(text, fmt::format("{:.17g},{:.17g}", limits::quiet_NaN(), -limits::infinity()));
}

}  // namespace
}  // namespace cosima
