// WideInteger (core/wide_integer.hpp): 64-bit integers exactly, over Int64's and UInt64's whole range.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/wide_integer.hpp"

namespace cosima {
namespace {

TEST(WideInteger, TextsReadBackExactlyAtBothEndsOfBothTypes) {
  for (const char* text : {"0", "-1", "9007199254740993", "-9223372036854775808", "9223372036854775807",
                           "9223372036854775808", "18446744073709551615"}) {
    const auto value = WideInteger::parse(text);
    ASSERT_TRUE(value.has_value()) << text;
    EXPECT_EQ(value->text(), text);
  }
  EXPECT_EQ(WideInteger::parse("18446744073709551615")->as_uint64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_FALSE(WideInteger::parse("18446744073709551615")->as_int64().has_value());
  EXPECT_EQ(WideInteger::parse("-9223372036854775808")->as_int64(), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(WideInteger::parse("-1")->as_uint64().has_value());
}

TEST(WideInteger, WhatIsNoIntegerOfEitherTypeIsRefused) {
  for (const char* text :
       {"", "-", "+1", "--1", "1.5", "1e3", " 1", "18446744073709551616", "-9223372036854775809", "0x10"}) {
    EXPECT_FALSE(WideInteger::parse(text).has_value()) << '"' << text << '"';
  }
}

TEST(WideInteger, ADoubleHoldsItExactlyUpTo2To53AndPowersOfTwoBeyond) {
  EXPECT_TRUE(WideInteger::parse("9007199254740992")->exact_in_double());      // 2^53
  EXPECT_FALSE(WideInteger::parse("9007199254740993")->exact_in_double());     // 2^53 + 1
  EXPECT_TRUE(WideInteger::parse("-9223372036854775808")->exact_in_double());  // −2^63
  EXPECT_FALSE(WideInteger::parse("18446744073709551615")->exact_in_double());
  EXPECT_EQ(WideInteger::parse("18446744073709551615")->to_double(), 18446744073709551616.0);  // rounds up to 2^64
  // of_double: the integer a double is, where one of the types holds it
  EXPECT_EQ(WideInteger::of_double(1e19)->text(), "10000000000000000000");
  EXPECT_EQ(WideInteger::of_double(-9223372036854775808.0)->text(), "-9223372036854775808");
  EXPECT_FALSE(WideInteger::of_double(18446744073709551616.0).has_value());  // 2^64
  EXPECT_FALSE(WideInteger::of_double(0.5).has_value());
  EXPECT_FALSE(WideInteger::of_double(std::numeric_limits<double>::quiet_NaN()).has_value());
}

TEST(WideInteger, EqualValuesAreEqualWhicheverTypeTheyCameFrom) {
  EXPECT_EQ(WideInteger::of(std::int64_t{5}), WideInteger::of(std::uint64_t{5}));
  EXPECT_FALSE(WideInteger::of(std::int64_t{-1}) == WideInteger::of(std::numeric_limits<std::uint64_t>::max()));
  const WideInteger max = WideInteger::of(std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(WideInteger::from_bits(max.bits(), max.is_unsigned()), max);  // what the wire carries
}

}  // namespace
}  // namespace cosima
