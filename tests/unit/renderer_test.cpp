// The output seam: one Document, one renderer per format. Expected texts
// are written out by hand from the layout rules in renderer.h.
#include "analysis/report/render/renderer.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kvmbench {
namespace {

Document sample_document() {
  Document d;
  d.title = "kvmbench gate: b vs a";
  d.source = "emulated";
  d.lead = {"gate: PASSED (exit 0)", ""};
  Table t;
  t.title = "# faultin_rate (GB/s)";
  t.source = "emulated";
  t.columns = {{"case", Align::left}, {"change"}};
  t.add_row({Cell("thp"), Cell::number(1.5, "%", "+1.5%")});
  d.tables.push_back(t);
  t.title = "# write_bandwidth (GB/s)";
  d.tables.push_back(t);
  d.closing = {"~ not significant."};
  return d;
}

TEST(Renderer, TextIsLeadTablesABlankLineApartThenClosing) {
  const std::string table =
      "source: emulated (QEMU TCG: a functional check, not a performance figure)\n"
      "case  change\n"
      "----  ------\n"
      "thp    +1.5%\n";
  EXPECT_EQ(render(sample_document(), Format::text),
            "gate: PASSED (exit 0)\n\n"
            "# faultin_rate (GB/s)\n" + table + "\n# write_bandwidth (GB/s)\n" + table + "~ not significant.\n");
  // Mail is the text layout: a command shapes its document for a reply.
  EXPECT_EQ(render(sample_document(), Format::mail), render(sample_document(), Format::text));
}

TEST(Renderer, CsvPutsEachTablesTitleAndSourceInCommentLines) {
  EXPECT_EQ(render(sample_document(), Format::csv),
            "# faultin_rate (GB/s)\n# source: emulated\ncase,change (%)\nthp,1.5\n\n"
            "# write_bandwidth (GB/s)\n# source: emulated\ncase,change (%)\nthp,1.5\n");
  // A table with neither (compare's numbers for spreadsheets): plain CSV.
  Document plain;
  Table t;
  t.columns = {{"metric"}};
  t.add_row({"x"});
  plain.tables.push_back(t);
  EXPECT_EQ(render(plain, Format::csv), "metric\nx\n");
}

TEST(Renderer, JsonIsTheDataWhenThereIsAndTheTablesOtherwise) {
  Document d = sample_document();
  auto tables = nlohmann::json::parse(render(d, Format::json));
  ASSERT_TRUE(tables.is_array());
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0]["title"], "faultin_rate (GB/s)");
  EXPECT_EQ(tables[0]["rows"][0][1]["value"], 1.5);
  d.data = nlohmann::json{{"status", "pass"}};
  EXPECT_EQ(nlohmann::json::parse(render(d, Format::json)), (nlohmann::json{{"status", "pass"}}));
}

// The lead's lines stay lines in Markdown (a hard break, two spaces, after
// each that another follows), a text layout's "# " comment is no heading.
TEST(Renderer, MarkdownKeepsTheLeadsLinesAndSetsThemApartFromTheTables) {
  Document d;
  d.lead = {"verdict: WORSE in 1 of 2", "# parameters: a=1", ""};
  Table t;
  t.columns = {{"a", Align::left}};
  t.add_row({"x|y"});
  d.tables.push_back(t);
  d.closing = {"note"};
  EXPECT_EQ(render(d, Format::md),
            "verdict: WORSE in 1 of 2  \n\\# parameters: a=1\n\n| a |\n|:---|\n| x\\|y |\n\nnote\n");
}

TEST(Renderer, JunitNeedsTestCasesAndHtmlIsOnePage) {
  Document d = sample_document();
  EXPECT_THROW(render(d, Format::junit), std::invalid_argument);
  d.junit_name = "kvmbench gate";
  d.junit = std::vector<JunitSuite>{{.name = "s", .cases = {{.classname = "c", .name = "m"}}}};
  const std::string x = render(d, Format::junit);
  EXPECT_NE(x.find("<testsuites name=\"kvmbench gate\" tests=\"1\""), std::string::npos) << x;
  const std::string html = render(sample_document(), Format::html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("class=\"banner caveat\""), std::string::npos) << "an emulated document says so on top";
  EXPECT_NE(html.find("gate: PASSED (exit 0)"), std::string::npos);
  std::size_t tables = 0;
  for (auto at = html.find("<table"); at != std::string::npos; at = html.find("<table", at + 1)) ++tables;
  EXPECT_EQ(tables, 2u);
}

// Text keeps every line within 80 columns: a longer lead or closing line
// is broken at its spaces (the indent kept, the rest two further in); the
// alerts come first.
TEST(Renderer, TextBreaksLongLinesAndPutsTheAlertsFirst) {
  Document d;
  d.alerts = {"note: the run is not complete (interrupted)"};
  d.lead = {"gate: FAILED, 2 of 24 gated metrics regressed significantly by more than 1%, 3 skipped (exit 1)",
            "  anon-4k/faultin_rate: FAIL: the whole 95% CI is more than 1% worse (p Holm 5.3e-12)"};
  EXPECT_EQ(render(d, Format::text),
            "note: the run is not complete (interrupted)\n"
            "gate: FAILED, 2 of 24 gated metrics regressed significantly by more than 1%, 3\n"
            "  skipped (exit 1)\n"
            "  anon-4k/faultin_rate: FAIL: the whole 95% CI is more than 1% worse (p Holm\n"
            "    5.3e-12)\n");
  EXPECT_EQ(render(d, Format::mail), render(d, Format::text));
  // Markdown has no columns to keep: the lines whole.
  EXPECT_NE(render(d, Format::md).find(d.lead[0]), std::string::npos);
}

TEST(Renderer, JsonPutsTheTablesInTheDataWhereTheDocumentSaysSo) {
  Document d = sample_document();
  d.data = nlohmann::json{{"run", "r"}};
  d.tables_in_data = true;
  const auto j = nlohmann::json::parse(render(d, Format::json));
  EXPECT_EQ(j["run"], "r");
  ASSERT_EQ(j["tables"].size(), 2u);
  EXPECT_EQ(j["tables"][1]["title"], "write_bandwidth (GB/s)");
}

TEST(Renderer, EveryFormatHasARendererAndAName) {
  for (Format f : {Format::text, Format::md, Format::csv, Format::json, Format::html, Format::mail, Format::junit}) {
    EXPECT_EQ(parse_format(to_string(f)), f);
    EXPECT_NO_THROW(renderer_for(f));
  }
  EXPECT_THROW(parse_format("xml"), std::invalid_argument);
}

}  // namespace
}  // namespace kvmbench
