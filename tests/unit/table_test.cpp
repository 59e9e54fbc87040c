#include "analysis/report/table.h"

#include <gtest/gtest.h>

#include "analysis/report/render/csv_table.h"
#include "analysis/report/render/json_table.h"
#include "analysis/report/render/markdown_table.h"
#include "analysis/report/render/text_table.h"
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

// A table that says how its text fits 80 columns: as it is while it fits,
// then one space between columns, then its label column on a line of its
// own above each row. Widths by hand: "#" 1, the label its own, "mean" 7,
// "change" 6, CI 12, verdict 7, n 3 (p_welch is the programs'); gaps of 2.
namespace {

kvmbench::Table labelled(const std::string& label) {
  using namespace kvmbench;
  Table t;
  t.columns = {{"#"}, {"series", Align::left}, {"mean"}, {"change"}, {"CI (%)"}, {"verdict", Align::left},
               {"p_welch", Align::right, Readers::programs}, {"n", Align::right, Readers::people, "n_pair"}};
  t.narrow_gap_when_wide = true;
  t.stacked_label = 1;
  t.add_row({"1", label, Cell::number(1.25e6, "ns", "1.25 ms"), "+5.00%", "[+4.1,+6.0]*", "slower",
             Cell::number(0.001, "", "0.001"), "5/3"});
  return t;
}

}  // namespace

TEST(Table, TextKeepsAShortLabelInItsColumn) {
  // 1 + 7 + 7 + 6 + 12 + 7 + 3 and 6 gaps of 2: 55 columns.
  const std::string text = kvmbench::render_text(labelled("anon-4k"));
  EXPECT_EQ(text,
            "#  series      mean  change        CI (%)  verdict    n\n"
            "-  -------  -------  ------  ------------  -------  ---\n"
            "1  anon-4k  1.25 ms  +5.00%  [+4.1,+6.0]*  slower   5/3\n");
}

TEST(Table, TextPutsALongLabelAboveItsRowAndTheOtherFormatsKeepItAColumn) {
  const std::string name(64, 'x');
  const kvmbench::Table t = labelled(name);
  // Inline: 1 + 64 + 7 + 6 + 12 + 7 + 3 = 100 and 12 of gaps; one space: 106;
  // the label above: 36 + 10 = 46 columns.
  const std::string text = kvmbench::render_text(t);
  EXPECT_EQ(text,
            "#     mean  change        CI (%)  verdict    n\n"
            "-  -------  ------  ------------  -------  ---\n" +
                name +
                "\n"
                "1  1.25 ms  +5.00%  [+4.1,+6.0]*  slower   5/3\n");
  // Markdown: the label a column; the programs' column left out.
  const std::string md = kvmbench::render_markdown(t);
  EXPECT_NE(md.find("| 1 | " + name + " | 1.25 ms | +5.00% |"), std::string::npos) << md;
  EXPECT_EQ(md.find("p_welch"), std::string::npos) << md;
  // CSV and JSON: the programs' columns, by their data header; not the
  // people's "n" (two figures in one text).
  EXPECT_EQ(kvmbench::render_csv(t),
            "#,series,mean (ns),change,CI (%),verdict,p_welch\n1," + name + ",1250000,+5.00%,\"[+4.1,+6.0]*\",slower,0.001\n");
  const auto j = kvmbench::render_json(t);
  EXPECT_EQ(j["columns"].size(), 7u);
  EXPECT_EQ(j["columns"][6], "p_welch");
}

TEST(Table, TextNarrowsTheGapBeforeItStacksTheLabel) {
  // A label of 30: 1 + 30 + 7 + 6 + 12 + 7 + 3 = 66 and 12 of gaps: 78,
  // it fits; of 34: 82, and with one space between columns 76.
  EXPECT_NE(kvmbench::render_text(labelled(std::string(30, 'y'))).find("1  " + std::string(30, 'y') + "  1.25 ms"),
            std::string::npos);
  const std::string narrow = kvmbench::render_text(labelled(std::string(34, 'z')));
  EXPECT_NE(narrow.find("\n1 " + std::string(34, 'z') + " 1.25 ms +5.00% [+4.1,+6.0]* slower  5/3\n"),
            std::string::npos)
      << narrow;
}
