// Help entries wrapped into 80 columns (suites/kvmbench/help_formatter.h).
#include "suites/kvmbench/help_formatter.h"

#include <gtest/gtest.h>

#include <string>

namespace kvmbench::cli {
namespace {

TEST(HelpEntry, ShortNameAndDescriptionShareALine) {
  // "  -r N" is 6 columns, padded to 30.
  EXPECT_EQ(help_entry("-r N", "repetitions"), "  -r N" + std::string(24, ' ') + "repetitions\n");
  EXPECT_EQ(help_entry("--json", ""), "  --json\n");
}

TEST(HelpEntry, LongDescriptionWrapsUnderItsColumn) {
  // 50 columns are left for the description (80 - 30): the words up to
  // "fifty" make 45 columns, with " columns" 53.
  const std::string desc = "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd fifty columns end";
  const std::string pad(30, ' ');
  EXPECT_EQ(help_entry("--set K=V", desc),
            "  --set K=V" + std::string(19, ' ') + "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd fifty\n" + pad +
                "columns end\n");
}

TEST(HelpEntry, NameAsWideAsTheColumnPutsTheDescriptionBelow) {
  const std::string name(28, 'n');  // "  " + 28 = 30 columns: no room for a gap
  EXPECT_EQ(help_entry(name, "what it does"), "  " + name + "\n" + std::string(30, ' ') + "what it does\n");
}

TEST(HelpEntry, ParagraphsAndLongNamesWrap) {
  EXPECT_EQ(help_entry("-x", "one\ntwo", 10, 80), "  -x      one\n          two\n");
  // A name wider than the line wraps too, its continuation indented 6.
  const std::string word(40, 'w');
  EXPECT_EQ(help_entry(word + " " + word, "", 30, 80), "  " + word + "\n      " + word + "\n");
}

}  // namespace
}  // namespace kvmbench::cli
