#include "analysis/table.h"

#include <gtest/gtest.h>

#include "tests/support/run_command.h"

using namespace kvmbench;
using kvmbench::test_support::occurrences;

namespace {

Table numbered(std::size_t n) {
  Table t;
  t.title = "listing";
  t.source = "replay";
  t.columns = {{"k", Align::left}, {"v"}};
  for (std::size_t i = 0; i < n; ++i) t.add_row({"row" + std::to_string(i), std::to_string(i * i)});
  return t;
}

}  // namespace

TEST(Table, LongTablesShowHeadAndTailInTextAndMarkdown) {
  const Table t = numbered(1000);
  const std::string text = render_text(t);
  // 40 rows: the first 35, a line for the 960 left out, the last 5.
  EXPECT_NE(text.find("row34 "), std::string::npos);
  EXPECT_EQ(text.find("row35 "), std::string::npos);
  EXPECT_NE(text.find("... 960 more rows (--format csv or json lists them all) ..."), std::string::npos);
  EXPECT_EQ(text.find("row994 "), std::string::npos);
  EXPECT_NE(text.find("row995 "), std::string::npos);
  EXPECT_NE(text.find("row999 "), std::string::npos);
  EXPECT_EQ(occurrences(text, "\nrow"), 40u);
  const std::string md = render_markdown(t);
  EXPECT_EQ(occurrences(md, "| row"), 40u);
  EXPECT_NE(md.find("960 more rows"), std::string::npos);
  // Column widths come from the rows shown: "998001" (row 999) is the widest.
  EXPECT_NE(text.find("row999  998001"), std::string::npos) << text;
}

TEST(Table, CsvJsonAndShortTablesKeepEveryRow) {
  const Table t = numbered(1000);
  EXPECT_EQ(occurrences(render_csv(t), "row"), 1000u);
  EXPECT_EQ(render_json(t)["rows"].size(), 1000u);
  EXPECT_EQ(occurrences(render_text(numbered(40)), "\nrow"), 40u);
  EXPECT_EQ(render_text(numbered(40)).find("more rows"), std::string::npos);
  Table all = numbered(100);
  all.max_text_rows = 0;
  EXPECT_EQ(occurrences(render_text(all), "\nrow"), 100u);
}
