// wrap_text and display_width (analysis/model/text_wrap.h): lines of at
// most `width` columns counted in code points, the expected layouts
// written out by hand.
#include "analysis/model/text_wrap.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kvmbench
