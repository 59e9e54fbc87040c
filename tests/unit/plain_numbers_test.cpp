// The plain-numbers parser: what it accepts, what it rejects, and that it
// names the line.
#include "analysis/parse/plain_numbers.h"

#include <gtest/gtest.h>

namespace kvmbench {
namespace {

TEST(PlainNumbers, ValuesCommentsBlanksAndLineNumbers) {
  auto p = parse_plain_numbers("# header\n1.5\n\n  -2e3  \n\t# indented comment\n+7\r\n0.25");
  ASSERT_EQ(p.values.size(), 4u);
  EXPECT_EQ(p.values[0], 1.5);
  EXPECT_EQ(p.values[1], -2000);
  EXPECT_EQ(p.values[2], 7);
  EXPECT_EQ(p.values[3], 0.25);
  EXPECT_EQ(p.lines, (std::vector<std::size_t>{2, 4, 6, 7}));
}

TEST(PlainNumbers, EmptyInputGivesNoValues) {
  EXPECT_TRUE(parse_plain_numbers("").values.empty());
  EXPECT_TRUE(parse_plain_numbers("\n# only a comment\n\n").values.empty());
}

TEST(PlainNumbers, RoundTripsFullPrecision) {
  auto p = parse_plain_numbers("0.1\n299.85\n10000000.2\n");
  EXPECT_EQ(p.values[0], 0.1);
  EXPECT_EQ(p.values[1], 299.85);
  EXPECT_EQ(p.values[2], 10000000.2);
}

void expect_error_at(const char* text, std::size_t line) {
  try {
    parse_plain_numbers(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const PlainNumbersError& e) {
    EXPECT_EQ(e.line, line) << text;
    EXPECT_NE(std::string(e.what()), "");
  }
}

TEST(PlainNumbers, RejectsGarbageWithLineNumber) {
  expect_error_at("1\n2\nabc\n", 3);
  expect_error_at("1 2\n", 1);      // two numbers on a line
  expect_error_at("\n\n12ms\n", 3);  // units are not numbers
  expect_error_at("1,5\n", 1);
  expect_error_at("nan\n", 1);
  expect_error_at("1\n-inf\n", 2);
  expect_error_at("1e999\n", 1);
  expect_error_at("0x10\n", 1);
  expect_error_at("++1\n", 1);
  expect_error_at("1 # trailing comment\n", 1);
}

TEST(PlainNumbers, BinaryBytesAreEscapedInTheMessage) {
  try {
    parse_plain_numbers(std::string("1\n\x01\xff\x7f") + "ab\n");
    FAIL() << "binary line accepted";
  } catch (const PlainNumbersError& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_NE(std::string(e.what()).find("'\\x01\\xff\\x7fab'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvmbench
