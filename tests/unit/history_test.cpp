// kvmbench history over the results database: the synthetic lab year
// (tests/support/synthetic_lab.h: three machines, 365 runs each, three
// planted steps) must show exactly the planted change points, at their
// runs, and none on the machine where nothing was planted; the same
// history from PostgreSQL; kernel release order; which runs count.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "analysis/verdicts/history.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/history_view.h"
#include "analysis/store/db/results_db.h"
#include "analysis/store/run_record.h"
#include "analysis/model/sample_jsonl.h"
#include "tests/support/postgres_server.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using namespace kvmbench;
namespace fs = std::filesystem;

namespace {

const fs::path kHosts = fs::path(KVMBENCH_TEST_DATA) / "hosts";

void import_all(db::ResultsDb& rdb, const std::vector<fs::path>& runs) {
  for (const auto& d : runs) ASSERT_EQ(rdb.import_run(db::read_run_record(d)).outcome, db::ImportResult::Outcome::added);
}

HistoryOptions faultin() {
  HistoryOptions o;
  o.suite = "directmap";
  o.metrics = {"faultin_rate"};
  return o;
}

// A run made by hand: `values` of metric m (GB/s) of case c, on `kernel`,
// at day `day` of January 2026.
db::RunRecord hand_run(const std::string& kernel, int day, const std::vector<double>& values,
                       const std::string& source = "hardware", const std::string& status = "complete") {
  std::ifstream in(kHosts / "plain.json");
  nlohmann::json host = nlohmann::json::parse(in);
  host["kernel"]["release"] = kernel;
  const std::string start = fmt::format("2026-01-{:02}T00:00:00Z", day);
  nlohmann::json meta = {{"suite", "directmap"}, {"preset", "host"},   {"source", source}, {"status", status},
                         {"start_time", start},  {"hostname", "h"},    {"host", host}};
  std::string lines;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Sample s;
    s.case_name = "thp";
    s.metric = "faultin_rate";
    s.unit = "GB/s";
    s.value = values[i];
    s.iteration = static_cast<int>(i);
    append_sample_line(lines, s);
  }
  return db::run_record_from_text(fmt::format("directmap-202601{:02}T000000Z-h", day), meta.dump(), lines, "hand");
}

}  // namespace

TEST(History, ASyntheticYearShowsThePlantedChangePointsAndNoOthers) {
  test_support::TempDir t;
  const auto year = test_support::write_synthetic_year(t.path / "runs", kHosts, 365);
  ASSERT_EQ(year.runs.size(), 3u * 365);
  db::ResultsDb rdb(db::open_sqlite((t.path / "lab.db").string(), db::Access::create));
  import_all(rdb, year.runs);
  const History h = build_history(rdb, faultin());
  EXPECT_EQ(h.runs, 3u * 365);
  // 3 machines x 3 backings, one series each; the 9 are one Holm family.
  ASSERT_EQ(h.series.size(), 9u);
  std::size_t found = 0;
  for (const auto& s : h.series) {
    ASSERT_EQ(s.points.size(), 365u) << s.label();
    const test_support::PlantedChange* planted = nullptr;
    for (const auto& p : test_support::planted_changes())
      if (p.hostname == s.hostname && p.case_name == s.key.case_name) planted = &p;
    if (!planted) {
      EXPECT_TRUE(s.result.change_points.empty()) << s.hostname << " " << s.label() << " at "
                                                  << s.result.change_points.front().index;
      continue;
    }
    ASSERT_EQ(s.result.change_points.size(), 1u) << s.hostname << " " << s.label();
    const auto& c = s.result.change_points[0];
    // Point i is day i (one run a day); the step starts at the planted day.
    EXPECT_LE(std::abs(static_cast<int>(c.index) - planted->day), 1) << s.hostname << " " << s.label();
    // Its size: the planted factor, within the CI of the change.
    const double want_pct = (planted->factor - 1) * 100;
    EXPECT_LE(c.change.ci95_low, want_pct) << s.label();
    EXPECT_GE(c.change.ci95_high, want_pct) << s.label();
    EXPECT_EQ(s.points[c.index].kernel_release, test_support::kernel_of(planted->day));
    EXPECT_LT(c.p_holm, h.options.detect.alpha);
    ++found;
  }
  EXPECT_EQ(found, test_support::planted_changes().size());
  EXPECT_EQ(h.change_points(), found);

  // The text: tables within 80 columns, the planted kernel marked.
  const std::string text = render(history_document(h), Format::text);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  EXPECT_NE(text.find("6.11.0        14   3.119   9.195*"), std::string::npos) << text;
  EXPECT_NE(text.find("first after: run 127, 6.11.0, directmap-20260507T020000Z-lab-snp-1"), std::string::npos);
  // One machine only, by host name.
  HistoryOptions one = faultin();
  one.machine = "lab-tdx-1";
  const History tdx = build_history(rdb, one);
  ASSERT_EQ(tdx.series.size(), 3u);
  EXPECT_EQ(tdx.change_points(), 1u);
  const std::string html = render(history_document(tdx), Format::html);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("6.13.0-rc5 -8.0"), std::string::npos) << "the change point's label in the chart";
}

TEST(History, PostgresqlGivesTheSameHistory) {
  if (auto why = test_support::PostgresServer::missing_package_reason(); !why.empty()) GTEST_SKIP() << why;
  test_support::TempDir t;
  // 140 days: the thp step of lab-snp-1 at day 126 is in it.
  const auto runs = test_support::write_synthetic_year(t.path / "runs", kHosts, 140);
  db::ResultsDb lite(db::open_sqlite((t.path / "lab.db").string(), db::Access::create));
  const std::string url = test_support::PostgresServer::shared().fresh_database_url();
  db::ResultsDb pg(db::connect_postgresql(url, url));
  import_all(lite, runs.runs);
  import_all(pg, runs.runs);
  const History a = build_history(lite, faultin()), b = build_history(pg, faultin());
  EXPECT_EQ(a.change_points(), 1u);
  EXPECT_EQ(render(history_document(a), Format::text), render(history_document(b), Format::text));
  EXPECT_EQ(history_to_json(a), history_to_json(b));
}

TEST(History, KernelReleaseOrderAndWhichRunsCount) {
  test_support::TempDir t;
  db::ResultsDb rdb(db::open_sqlite((t.path / "x.db").string(), db::Access::create));
  // Built in this time order: 6.10, then 6.9-rc1 (a backport test run
  // later), then 6.9.
  rdb.import_run(hand_run("6.10.0", 1, {10, 10.1, 9.9}));
  rdb.import_run(hand_run("6.9.0-rc1", 2, {8, 8.1}));
  rdb.import_run(hand_run("6.9.0", 3, {9, 9.2, NAN}));  // a failed repetition: left out
  rdb.import_run(hand_run("6.11.0", 4, {1, 1}, "emulated"));  // not a performance figure
  rdb.import_run(hand_run("6.11.0", 5, {1, 1}, "hardware", "interrupted"));
  HistoryOptions o = faultin();
  o.order = KernelOrder::time;
  History h = build_history(rdb, o);
  ASSERT_EQ(h.series.size(), 1u);
  EXPECT_EQ(h.runs, 3u);
  EXPECT_EQ(h.left_out, 2u);
  EXPECT_EQ(h.non_finite, 1u);
  auto kernels = [](const History& x) {
    std::string k;
    for (const auto& p : x.series[0].points) k += p.kernel_release + fmt::format("={} ", p.value);
    return k;
  };
  // Each point the mean of its run: (10 + 10.1 + 9.9) / 3 = 10; 8.05; 9.1.
  EXPECT_EQ(kernels(h), "6.10.0=10 6.9.0-rc1=8.05 6.9.0=9.1 ");
  o.order = KernelOrder::release;
  EXPECT_EQ(kernels(build_history(rdb, o)), "6.9.0-rc1=8.05 6.9.0=9.1 6.10.0=10 ");
  // 3 points: too few for a change point with segments of 3.
  EXPECT_NE(build_history(rdb, o).series[0].result.note.find("too few"), std::string::npos);
}

TEST(History, UnknownMachineSuiteOrMetricIsSaidPlainly) {
  test_support::TempDir t;
  db::ResultsDb rdb(db::open_sqlite((t.path / "x.db").string(), db::Access::create));
  rdb.import_run(hand_run("6.10.0", 1, {10, 10.1}));
  auto why = [&](HistoryOptions o) {
    try {
      build_history(rdb, o);
      return std::string("accepted");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
  };
  HistoryOptions o = faultin();
  o.machine = "nosuch";
  EXPECT_NE(why(o).find("no machine 'nosuch' (machines: "), std::string::npos) << why(o);
  EXPECT_NE(why(o).find("(h)"), std::string::npos) << why(o);
  o = faultin();
  o.suite = "asid";
  EXPECT_NE(why(o).find("no runs of suite 'asid'"), std::string::npos) << why(o);
  o = faultin();
  o.metrics = {"bogus_rate"};
  EXPECT_NE(why(o).find("no samples of bogus_rate in the 1 runs of directmap"), std::string::npos) << why(o);
}

// The directmap host preset's series have long names ("anon-4k/threads=1",
// variants "unpinned", "pinned-node0"): four of them to a table made lines
// of 146 columns. As many as fit 80 columns go in one table, the rest in
// the next, and no series is left out.
TEST(History, LongSeriesNamesMakeNarrowerTablesNotWiderLines) {
  History h;
  h.options.suite = "directmap";
  h.runs = 3;
  for (const char* backing : {"anon-4k", "anon-thp", "memfd-2m", "hugetlb-1g"})
    for (const char* variant : {"unpinned", "pinned-node0"}) {
      HistorySeries s;
      s.machine = "0123456789abcdef";
      s.hostname = "lab-machine";
      s.preset = "host";
      s.key = {std::string(backing) + "/threads=1,bytes=1073741824", variant, "faultin_rate", "GB/s"};
      for (int i = 0; i < 3; ++i)
        s.points.push_back({i + 1, fmt::format("run-{}", i), "6.12.43-cloud-amd64", "2026-12-03T00:00:0" + std::to_string(i),
                            12.5 + i, 5});
      h.series.push_back(std::move(s));
    }
  const std::string text = render(history_document(h), Format::text);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line << "\n" << text;
  for (const auto& s : h.series) EXPECT_NE(text.find(s.key.where()), std::string::npos) << text;
}
