// wrap_text, wrap_lines, cut_to_width and display_width
// (analysis/model/text_wrap.h): lines of at
// most `width` columns counted in code points, the expected layouts
// written out by hand.
#include "analysis/model/text_wrap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kvmbench {
namespace {

TEST(TextWrap, BreaksAtSpacesWithinTheWidth) {
  // "aaa bbb" is 7 columns: fits 7, not 6.
  EXPECT_EQ(wrap_text("aaa bbb ccc", 7), "aaa bbb\n  ccc\n");
  EXPECT_EQ(wrap_text("aaa bbb ccc", 6), "aaa\n  bbb\n  ccc\n");
  EXPECT_EQ(wrap_text("aaa bbb ccc", 6, "# "), "aaa\n# bbb\n# ccc\n");
  // A word longer than a line stays whole; runs of spaces fold.
  EXPECT_EQ(wrap_text("abcdefghij  k", 4), "abcdefghij\n  k\n");
  EXPECT_EQ(wrap_text(""), "");
}

TEST(TextWrap, CountsCodePointsNotBytes) {
  EXPECT_EQ(display_width("±5%"), 3u);  // "±" is two bytes
  // "±1 ±2" is 5 columns (7 bytes): fits 5.
  EXPECT_EQ(wrap_text("±1 ±2", 5), "±1 ±2\n");
}

TEST(TextWrap, AnIndentedParagraphKeepsItsIndent) {
  EXPECT_EQ(wrap_text("  thp: no change points", 12), "  thp: no\n    change\n    points\n");
}

TEST(TextWrap, WrapLinesPutsEveryLineInItsColumn) {
  // 10 columns, 4 of them the indent: 6 for the words, "aaa bb" fits.
  EXPECT_EQ(wrap_lines("aaa bb cc dddd", "    ", 10), (std::vector<std::string>{"    aaa bb", "    cc", "    dddd"}));
  // Lines after the first 2 further in: 4 columns for their words.
  EXPECT_EQ(wrap_lines("aaa bb cc dddd", "  ", 8, "  "),
            (std::vector<std::string>{"  aaa bb", "    cc", "    dddd"}));
  // A word longer than its room stays whole: a cut path names nothing.
  EXPECT_EQ(wrap_lines("/a/long/path x", "  ", 8), (std::vector<std::string>{"  /a/long/path", "  x"}));
  EXPECT_TRUE(wrap_lines("", "  ").empty());
}

TEST(TextWrap, CutToWidthEndsWhereItCutWithDots) {
  EXPECT_EQ(cut_to_width("short", 5), "short");
  EXPECT_EQ(cut_to_width("abcdef", 5), "ab...");
  // Columns, not bytes: "±±±±±±" is 6 columns (12 bytes); cut at 5, two
  // whole "±" before the dots.
  EXPECT_EQ(cut_to_width("±±±±±±", 5), "±±...");
  EXPECT_EQ(display_width(cut_to_width(std::string(100, 'x'))), 80u);
}

}  // namespace
}  // namespace kvmbench
