#include "analysis/report/table.h"

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

namespace {

// A table as the documents print it: a "# " title, times shown in ms,
// each cell standing for a value in ns.
Table fault_times() {
  Table t;
  t.title = "# Fault-in time";
  t.source = "hardware";
  t.columns = {{"backing", Align::left}, {"mean"}, {"sd"}};
  t.add_row({"anon-4k", Cell::number(1234567.0, "ns", "1.23 ms"), Cell::number(20000.0, "ns", "0.02 ms")});
  t.add_row({"hugetlb-2m", Cell::number(2.5e5, "ns", "0.250 ms"), Cell::number(NAN, "ns", "n/a")});
  return t;
}

}  // namespace

TEST(Table, JsonHoldsNumbersWithTheirUnitsNotTheirText) {
  const nlohmann::json j = render_json(fault_times());
  EXPECT_EQ(j["title"], "Fault-in time");
  const auto& cell = j["rows"][0][1];
  ASSERT_TRUE(cell["value"].is_number()) << j.dump();
  EXPECT_DOUBLE_EQ(cell["value"].get<double>(), 1234567.0);
  EXPECT_EQ(cell["unit"], "ns");
  EXPECT_EQ(cell["text"], "1.23 ms");
  EXPECT_EQ(j["rows"][0][0], "anon-4k");
  // NaN has no JSON number: null, the text says what it was.
  EXPECT_TRUE(j["rows"][1][2]["value"].is_null());
  EXPECT_EQ(j["rows"][1][2]["text"], "n/a");
}

TEST(Table, CsvHoldsFullValuesAndPutsAColumnsOneUnitInItsHeader) {
  EXPECT_EQ(render_csv(fault_times()),
            "backing,mean (ns),sd (ns)\n"
            "anon-4k,1234567,20000\n"
            "hugetlb-2m,250000,NaN\n");
  Table mixed = fault_times();
  mixed.rows[1][1] = Cell::number(2.5, "ms", "2.50 ms");
  const std::string csv = render_csv(mixed);
  EXPECT_NE(csv.find("backing,mean,sd (ns)\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("anon-4k,1234567 ns,20000\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("hugetlb-2m,2.5 ms,NaN\n"), std::string::npos) << csv;
}

TEST(Table, MarkdownAndTextShowTheTextAndMarkdownHasAHeading) {
  const Table t = fault_times();
  const std::string md = render_markdown(t);
  EXPECT_EQ(md.rfind("#### Fault-in time\n", 0), 0u) << md;
  EXPECT_NE(md.find("| anon-4k | 1.23 ms | 0.02 ms |"), std::string::npos) << md;
  const std::string text = render_text(t);
  EXPECT_EQ(text.rfind("# Fault-in time\nsource: hardware\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nanon-4k      1.23 ms  0.02 ms\n"), std::string::npos) << text;
}

TEST(Table, AnIntervalIsTwoNumbersInJsonAndTwoColumnsInCsv) {
  Table t;
  t.columns = {{"case", Align::left}, {"95% CI"}};
  t.add_row({"a", Cell::interval(1.5e6, 2.5e6, "ns", "[1.50, 2.50] ms")});
  t.add_row({"b", "n/a"});
  EXPECT_EQ(render_csv(t), "case,95% CI low (ns),95% CI high (ns)\na,1500000,2500000\nb,n/a,n/a\n");
  const nlohmann::json j = render_json(t);
  EXPECT_DOUBLE_EQ(j["rows"][0][1]["low"].get<double>(), 1.5e6);
  EXPECT_DOUBLE_EQ(j["rows"][0][1]["high"].get<double>(), 2.5e6);
  EXPECT_EQ(j["rows"][0][1]["unit"], "ns");
  EXPECT_EQ(j["rows"][1][1], "n/a");
  EXPECT_NE(render_text(t).find("\na     [1.50, 2.50] ms\n"), std::string::npos) << render_text(t);
}

// Every line of a text report fits 80 columns: a long title is broken at
// spaces like a note.
TEST(Table, TextBreaksALongTitle) {
  Table t;
  t.title = "[PARTIAL: 1 part skipped] Is make_shared above the run-to-run noise of the total? per nr_pages";
  t.columns = {{"a"}};
  t.add_row({"1"});
  const std::string text = render_text(t);
  EXPECT_EQ(text.substr(0, text.find("\n1\n")),
            "[PARTIAL: 1 part skipped] Is make_shared above the run-to-run noise of the\n  total? per nr_pages\na\n-");
}
