// The directmap report layout (suites/directmap/report.h): the document's
// table shows the host allocation rate (host_alloc_rate) of each kernel's
// run, rows named from the run's DirectMap lines; runs without it fall back
// to the guest's faultin_rate and say so; several runs make one table.
// Expected figures are computed by hand from the samples written here.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "analysis/report/render/csv_table.h"
#include "analysis/report/render/markdown_table.h"
#include "analysis/report/render/text_table.h"
#include "analysis/report/table.h"
#include "suites/directmap/report.h"

using namespace kvmbench;
namespace dm = kvmbench::suites::directmap;

namespace {

const char* kLines4k = "DirectMap4k:  1610612736 kB\nDirectMap2M:           0 kB\nDirectMap1G:           0 kB\n";
const char* kLines2m = "DirectMap4k:     2097152 kB\nDirectMap2M:   134217728 kB\nDirectMap1G:  1476395008 kB\n";

// One document-like run: host_alloc_rate per variant (with the DirectMap
// lines), and the guest's faultin_rate at a different value.
std::vector<Sample> document_run(const char* lines, std::vector<double> unpinned, std::vector<double> pinned) {
  std::vector<Sample> out;
  auto add = [&](const std::string& variant, const std::vector<double>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      Sample h{"vcpus=128/bytes=5G", variant, "host_alloc_rate", "GB/s", v[i], static_cast<int>(i), false,
               {{"meminfo_field", "FileHugePages"}, {"directmap", lines}}};
      out.push_back(h);
      // The guest's own rate: measured in a guest ("accel"), as the suite's are.
      out.push_back({"threads=128,bytes=5368709120", variant, "faultin_rate", "GB/s", 99.0, static_cast<int>(i), false,
                     {{"accel", "kvm"}}});
    }
  };
  add("unpinned", unpinned);
  add("pinned-node0", pinned);
  return out;
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

double sd(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  m /= v.size();
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / (v.size() - 1));
}

}  // namespace

TEST(DirectmapReport, SetupFromDirectMapLines) {
  EXPECT_EQ(dm::directmap_setup(kLines4k), "DirectMap4K");
  EXPECT_EQ(dm::directmap_setup("DirectMap4k:  1024 kB\n"), "DirectMap4K");  // no 2M/1G lines at all
  EXPECT_EQ(dm::directmap_setup(kLines2m), "DirectMap2M+split");
  EXPECT_EQ(dm::directmap_setup("# comment\nDirectMap4k: 5 kB\nDirectMap2M: 2048 kB\n"), "DirectMap2M+split");
  EXPECT_EQ(dm::directmap_setup(""), "");
  EXPECT_EQ(dm::directmap_setup("MemTotal: 1 kB\n"), "");
}

TEST(DirectmapReport, DocumentRunShowsTheHostAllocationRate) {
  auto samples = document_run(kLines4k, {12.0, 13.0, 14.0}, {11.0, 12.0, 13.0});
  auto tables = dm::report_tables(samples, "hardware");
  ASSERT_FALSE(tables.empty());
  const std::string text = render_text(tables.front());
  EXPECT_TRUE(has_line(text, "# Average fault-in rate across 3 repetitions, measured in GB/s\n")) << text;
  EXPECT_TRUE(has_line(text, "\nDirectMap4K      13.0  |  12.0\n")) << text;
  EXPECT_TRUE(has_line(text, "\n  stddev          1.0  |   1.0\n")) << text;
  EXPECT_FALSE(has_line(text, "99.0")) << text;  // not the guest's rate
  EXPECT_TRUE(has_line(text, "host_alloc_rate")) << text;
  EXPECT_TRUE(has_line(text, "FileHugePages in /proc/meminfo, as in the document")) << text;
  // The " | " is the text layout's: Markdown draws its own rules, CSV and
  // JSON have the data only (a column of "|" cells was theirs too).
  const std::string md = render_markdown(tables.front());
  EXPECT_TRUE(has_line(md, "| DirectMap4K | 13.0 | 12.0 |")) << md;
  EXPECT_EQ(md.find("\\|"), std::string::npos) << md;
  const std::string csv = render_csv(tables.front());
  EXPECT_EQ(csv.find('|'), std::string::npos) << csv;
  for (const auto& t : tables) {
    std::size_t pos = 0;
    const std::string s = render_text(t);
    while (pos < s.size()) {
      std::size_t end = s.find('\n', pos);
      if (end == std::string::npos) end = s.size();
      EXPECT_LE(end - pos, 80u) << s.substr(pos, end - pos);
      pos = end + 1;
    }
  }
}

TEST(DirectmapReport, RunWithoutHostRateFallsBackToTheGuestsRateAndSaysSo) {
  const nlohmann::json tcg = {{"accel", "tcg"}};  // a guest's sample
  std::vector<Sample> smoke = {
      {"threads=1,bytes=33554432", "unpinned", "faultin_rate", "GB/s", 0.5, 0, false, tcg},
      {"threads=1,bytes=33554432", "unpinned", "faultin_rate", "GB/s", 0.7, 1, false, tcg},
      {"threads=1,bytes=33554432", "unpinned", "faultin_rate", "GB/s", 9.9, 2, true, tcg}};
  auto tables = dm::report_tables(smoke, "emulated");
  ASSERT_FALSE(tables.empty());
  const std::string text = render_text(tables.front());
  EXPECT_TRUE(has_line(text, "# Average guest fault-in rate across 2 repetitions, measured in GB/s")) << text;
  EXPECT_TRUE(has_line(text, "threads=1,bytes=33554432      0.60")) << text;  // warm-up left out
  EXPECT_TRUE(has_line(text, "own faultin_rate, not the document's figure")) << text;
  EXPECT_TRUE(dm::report_tables({}, "hardware").empty());
}

TEST(DirectmapReport, TwoKernelsMakeTheDocumentsTable) {
  const std::vector<double> u4 = {12.0, 13.0, 14.0}, p4 = {11.0, 12.0, 13.0};
  const std::vector<double> u2 = {7.0, 8.0, 9.5}, p2 = {8.5, 9.0, 9.5};
  std::vector<dm::NamedRun> runs = {{"run-2m", document_run(kLines2m, u2, p2), "hardware"},
                                    {"run-4k", document_run(kLines4k, u4, p4), "hardware"}};
  auto tables = dm::document_tables(runs);
  ASSERT_EQ(tables.size(), 2u);
  const std::string text = render_text(tables[0]);
  EXPECT_TRUE(has_line(text, "\nDirectMap2M+split       8.2  |   9.0\n")) << text;
  EXPECT_TRUE(has_line(text, fmt::format("\n  stddev                {:.1f}  |   {:.1f}\n", sd(u2), sd(p2)))) << text;
  EXPECT_TRUE(has_line(text, "\nDirectMap4K            13.0  |  12.0\n")) << text;
  EXPECT_TRUE(has_line(text, "DirectMap4K: run-4k")) << text;
  EXPECT_TRUE(has_line(text, "DirectMap2M+split: run-2m")) << text;
  EXPECT_EQ(tables[0].source, "hardware");
  // Welch, 4K against 2M+split, unpinned: t = (13 - 8.1667) / sqrt(1/3 + sd2^2/3).
  const Table& w = tables[1];
  ASSERT_EQ(w.rows.size(), 2u);
  EXPECT_EQ(w.rows[0][0], "unpinned");
  const double m2 = (7.0 + 8.0 + 9.5) / 3;
  EXPECT_EQ(w.rows[0][4], fmt::format("{:.2f}", (13.0 - m2) / std::sqrt(1.0 / 3 + sd(u2) * sd(u2) / 3)));
}

TEST(DirectmapReport, MixedRunsUseTheGuestsRateAndSameSetupsStayApart) {
  auto a = document_run(kLines2m, {7, 8, 9}, {8, 9, 10});
  std::vector<Sample> b;  // no host_alloc_rate: the guest's rate for every run
  for (const auto& s : document_run(kLines2m, {1, 2, 3}, {1, 2, 3}))
    if (s.metric == "faultin_rate") b.push_back(s);
  auto tables = dm::document_tables({{"a", a, "hardware"}, {"b", b, "replay"}});
  const std::string text = render_text(tables.front());
  EXPECT_TRUE(has_line(text, "# Average guest fault-in rate across 3 repetitions")) << text;
  EXPECT_TRUE(has_line(text, "not every run has host_alloc_rate")) << text;
  // a carries DirectMap lines (2M+split); b has none: it is named after its run.
  EXPECT_TRUE(has_line(text, "\nDirectMap2M+split ")) << text;
  EXPECT_TRUE(has_line(text, "\nb ")) << text;
  EXPECT_TRUE(has_line(text, "no DirectMap4K vs DirectMap2M+split test")) << text;
  EXPECT_EQ(tables.front().source, "hardware + replay");
  // Two 2M+split kernels: numbered, not merged.
  auto two = dm::document_tables({{"x", a, "hardware"}, {"y", a, "hardware"}});
  const std::string t2 = render_text(two.front());
  EXPECT_TRUE(has_line(t2, "DirectMap2M+split (run 1)")) << t2;
  EXPECT_TRUE(has_line(t2, "DirectMap2M+split (run 2)")) << t2;
  // ... named by their kernels where those tell them apart.
  auto kernels = dm::document_tables({{"x", a, "hardware", "6.12.43"}, {"y", a, "hardware", "6.18.0-rc3"}});
  const std::string t3 = render_text(kernels.front());
  EXPECT_TRUE(has_line(t3, "\nDirectMap2M+split (6.12.43) ")) << t3;
  EXPECT_TRUE(has_line(t3, "\nDirectMap2M+split (6.18.0-rc3) ")) << t3;
  EXPECT_TRUE(has_line(t3, "DirectMap2M+split (6.12.43): x")) << t3;
  auto same_kernel = dm::document_tables({{"x", a, "hardware", "6.12.43"}, {"y", a, "hardware", "6.12.43"}});
  EXPECT_TRUE(has_line(render_text(same_kernel.front()), "DirectMap2M+split (run 2)"));
}

TEST(DirectmapReport, RunsWithoutRatesOrTwiceAreBadInput) {
  std::vector<Sample> other = {{"nr_pages=1", "kernel", "make_shared_cycles", "cycles", 5, 0, false, {}}};
  try {
    dm::document_tables({{"ok", document_run(kLines2m, {1, 2}, {1, 2}), "hardware"}, {"ms-run", other, "replay"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(has_line(e.what(), "ms-run: no host_alloc_rate or faultin_rate")) << e.what();
  }
  auto a = document_run(kLines2m, {1, 2}, {1, 2});
  EXPECT_THROW(dm::document_tables({{"same", a, "hardware"}, {"same", a, "hardware"}}), std::invalid_argument);
}

// A tiny (TCG smoke) guest allocates at a few MB/s: the table keeps two
// significant digits instead of printing 0.0.
TEST(DirectmapReport, SmallRatesKeepTwoSignificantDigits) {
  auto samples = document_run(kLines2m, {0.019, 0.021}, {0.018, 0.018});
  const std::string text = render_text(dm::report_tables(samples, "emulated").front());
  EXPECT_TRUE(has_line(text, "\nDirectMap2M+split     0.020  |  0.018\n")) << text;
  EXPECT_TRUE(has_line(text, "\n  stddev              0.001  |  0.000\n")) << text;
}

// A measured spread that the document's one decimal rounds away reads as its
// first digit; a replay keeps the document's text. 2.10, 2.12, 2.14: mean
// 2.12, sd sqrt((0.02^2 + 0.02^2) / 2) = 0.02.
TEST(DirectmapReport, ASpreadBelowTheDecimalShowsItsFirstDigit) {
  const std::vector<double> rates = {2.10, 2.12, 2.14};
  const std::vector<dm::Cell> cells = {{"anon-4k/threads=1", "unpinned", stats::summarize(rates)}};
  const std::string measured = render_text(dm::tables_from_cells(cells, "GB/s", "hardware", "# t").front());
  EXPECT_TRUE(has_line(measured, "\nanon-4k/threads=1       2.1\n")) << measured;
  EXPECT_TRUE(has_line(measured, "\n  stddev               0.02\n")) << measured;
  const std::string replay = render_text(dm::tables_from_cells(cells, "GB/s", "replay", "# t").front());
  EXPECT_TRUE(has_line(replay, "\n  stddev                0.0\n")) << replay;
}

// The host preset faults in host memory itself (no guest, no "accel"): its
// table must not call that a guest's rate.
TEST(DirectmapReport, HostPresetRatesAreHostMemoryNotAGuest) {
  std::vector<Sample> host = {
      {"anon-4k/threads=1", "unpinned", "faultin_rate", "GB/s", 2.0, 0, false, {{"backing", "anon-4k"}}},
      {"anon-4k/threads=1", "unpinned", "faultin_rate", "GB/s", 2.2, 1, false, {{"backing", "anon-4k"}}}};
  auto tables = dm::report_tables(host, "hardware");
  ASSERT_FALSE(tables.empty());
  const std::string text = render_text(tables.front());
  EXPECT_TRUE(has_line(text, "# Average fault-in rate of host memory across 2 repetitions, measured in GB/s")) << text;
  EXPECT_TRUE(has_line(text, "(no guest)")) << text;
  // Two host runs side by side (`report A B`): still not a guest's rate.
  auto two = dm::document_tables({{"a", host, "hardware", "6.1.0"}, {"b", host, "hardware", "6.12.43"}});
  const std::string t2 = render_text(two.front());
  EXPECT_TRUE(has_line(t2, "# Average fault-in rate of host memory across 2 repetitions, measured in GB/s")) << t2;
  EXPECT_TRUE(has_line(t2, "(no guest)")) << t2;
  EXPECT_FALSE(has_line(t2, "guest fault-in")) << t2;
  EXPECT_FALSE(has_line(t2, "guest's own")) << t2;
  EXPECT_FALSE(has_line(text, "guest's own")) << text;
}

// The host preset's second pass over the faulted-in memory: its own table in
// the fault-in table's layout (mean and stddev rows, a column per pinning),
// after the fault-in rate; one run says "1 run".
TEST(DirectmapReport, HostPresetWriteBandwidthInTheDocumentLayout) {
  std::vector<Sample> host;
  for (int i = 0; i < 2; ++i) {
    host.push_back({"thp/threads=1", "unpinned", "faultin_rate", "GB/s", 5.0, i, false, {{"backing", "thp"}}});
    // 20 and 24 GB/s: mean 22.0, sample sd sqrt(8) = 2.83 -> "2.8".
    host.push_back({"thp/threads=1", "unpinned", "write_bandwidth", "GB/s", 20.0 + 4 * i, i, false, {{"backing", "thp"}}});
  }
  host.push_back({"thp/threads=1", "pinned", "write_bandwidth", "GB/s", 30.0, 0, false, {{"backing", "thp"}}});
  auto tables = dm::report_tables(host, "hardware");
  ASSERT_EQ(tables.size(), 1u);  // the write bandwidth is a --verbose table
  const std::string text = render_text(dm::detail_tables(host, "hardware").at(0));
  EXPECT_TRUE(has_line(text, "# Write bandwidth of faulted-in memory across 2 repetitions, measured in GB/s\n")) << text;
  // Right-aligned under "unpinned" (8 columns); one pinned value: no sd.
  EXPECT_TRUE(has_line(text, "\nthp/threads=1      22.0  |  30.0\n")) << text;
  EXPECT_TRUE(has_line(text, "\n  stddev            2.8  |   n/a\n")) << text;

  std::vector<Sample> once = {host[0], host[1]};
  const std::string one = render_text(dm::detail_tables(once, "hardware").at(0));
  EXPECT_TRUE(has_line(one, "across 1 repetition, measured")) << one;
}
