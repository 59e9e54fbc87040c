// kvmbench ingest, report and compare on output in the shapes others
// publish it (issue 44, written from the pattern: tests/data/kvm/wrapped,
// tests/data/gbench's many_benchmarks.json and other_context.json, README
// there): a dirty-log summary a mail wrapped, a results file of 148
// benchmarks, files whose configuration kvmbench never saw, Google
// Benchmark's aggregates, the RMPOPT series' earlier prints and
// kvm_page_table_test.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::unwrapped;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(KVMBENCH_TEST_DATA);
const fs::path kWrapped = kData / "kvm" / "wrapped";

bool has(const std::string& text, const std::string& what) {
  return unwrapped(text).find(unwrapped(what)) != std::string::npos;
}

}  // namespace

// A mail wrapped "(Avg ...)" onto the next line: the run is kept whole and
// the mail's ~38 % comes out of the per-iteration figures.
TEST(PublishedReaders, AWrappedSummaryLineKeepsTheRun) {
  for (const char* file : {"dirty_log_wrapped_base.txt", "dirty_log_wrapped_quoted.txt"}) {
    TempDir t;
    auto i = run_kvmbench({"ingest", kWrapped / file, "--out", t.path, "--format", "json"});
    ASSERT_EQ(i.exit_code, 0) << file << i.err;
    EXPECT_TRUE(has(i.err, "a dirty-log summary wrapped onto line")) << file << i.err;
    const auto run = kvmbench::load_run(nlohmann::json::parse(i.out)["run"].get<std::string>());
    int totals = 0;
    for (auto& s : run.samples) totals += s.metric == "get_dirty_log_total_time";
    EXPECT_EQ(totals, 1) << file;
  }
  auto c = run_kvmbench({"compare", kWrapped / "dirty_log_wrapped_base.txt", kWrapped / "dirty_log_wrapped_quoted.txt",
                         "--format", "json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  bool seen = false;
  for (auto& m : j["metrics"])
    if (m["metric"] == "get_dirty_log_time") {
      seen = true;
      // Means 3.054140 ms and 1.893504 ms: -38.0 % (the geometric means
      // of these close values differ from it in the fourth digit).
      EXPECT_NEAR(m["change_pct"].get<double>(), -38.0, 0.1) << m.dump();
      EXPECT_EQ(m["base"]["n"], 3) << m.dump();
    }
  EXPECT_TRUE(seen) << c.out;
}

// 148 benchmarks: 148 rows of their own, none pooled.
TEST(PublishedReaders, ManyBenchmarksAreEachTheirOwnRow) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kData / "gbench" / "many_benchmarks.json", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const std::string run = nlohmann::json::parse(i.out)["run"].get<std::string>();
  for (const char* format : {"text", "md", "csv", "json"}) {
    auto r = run_kvmbench({"report", run, "--format", format});
    ASSERT_EQ(r.exit_code, 0) << format << r.err;
    EXPECT_FALSE(has(r.out, "pooled")) << format << r.out.substr(0, 2000);
    EXPECT_TRUE(has(r.out, "BM_Op36/4096")) << format;
  }
  auto v = run_kvmbench({"report", run, "--verbose"});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_FALSE(has(v.out, "pooled"));
}

// Published files' configuration: what their contexts say, differing or
// alike, and the rest unknown; never "the same".
TEST(PublishedReaders, ComparedFilesSayWhatIsKnownOfTheirConfiguration) {
  const fs::path gbench = kData / "gbench";
  auto c = run_kvmbench({"compare", gbench / "one_sample_base.json", gbench / "other_context.json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_FALSE(has(c.out, "configuration: the same")) << c.out;
  EXPECT_TRUE(has(c.out, "configuration that differs (base -> cand):")) << c.out;
  EXPECT_TRUE(has(c.out, "  context.host_name: vm -> build-farm-3")) << c.out;
  EXPECT_TRUE(has(c.out, "  context.library_build_type: debug -> release")) << c.out;
  EXPECT_TRUE(has(c.out, "  context.num_cpus: 2 -> 64")) << c.out;
  EXPECT_TRUE(has(c.out, "configuration unknown: base's and cand's kernel, firmware, KVM, THP, SMT, QEMU")) << c.out;
  auto j = run_kvmbench({"compare", gbench / "one_sample_base.json", gbench / "other_context.json", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto cj = nlohmann::json::parse(j.out);
  EXPECT_EQ(cj["configuration_unknown"], nlohmann::json({"base", "cand"})) << j.out.substr(0, 2000);
  EXPECT_EQ(cj["configuration_alike"]["context.mhz_per_cpu"], "2596") << j.out.substr(0, 2000);

  // Two cover letters' runs: nothing known of either.
  auto s = run_kvmbench({"compare", kWrapped / "dirty_log_wrapped_base.txt", kWrapped / "dirty_log_wrapped_quoted.txt"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_FALSE(has(s.out, "configuration: the same")) << s.out;
  EXPECT_TRUE(has(s.out, "nothing is known to differ or to be alike")) << s.out;

  // The same file twice: alike as far as it says, the host still unknown.
  auto same = run_kvmbench({"compare", gbench / "one_sample_base.json", gbench / "one_sample_base.json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_TRUE(has(same.out, "configuration alike as both sides say: ")) << same.out;
  EXPECT_TRUE(has(same.out, "library_build_type debug")) << same.out;
  EXPECT_FALSE(has(same.out, "configuration: the same")) << same.out;
}

// Google Benchmark's aggregates as reported: numbers in their unit in csv
// and json; no "Welch from the summaries" where no row had one.
TEST(PublishedReaders, AggregatesAreNumbersWithTheirUnit) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kData / "gbench" / "repetitions_base.json", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const std::string run = nlohmann::json::parse(i.out)["run"].get<std::string>();
  auto j = run_kvmbench({"report", run, "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  bool seen = false;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& x) {
    if (x.is_object()) {
      if (x.contains("title") && x["title"].is_string() &&
          x["title"].get<std::string>().find("BM_Sum/1024: Google Benchmark's aggregates") != std::string::npos) {
        seen = true;
        const std::string dump = x.dump();
        EXPECT_NE(dump.find("\"unit\":\"ns\""), std::string::npos) << dump;
        EXPECT_NE(dump.find("real_time (ns)"), std::string::npos) << dump;
      }
      for (auto& [k, v] : x.items()) walk(v);
    } else if (x.is_array()) {
      for (auto& v : x) walk(v);
    }
  };
  walk(doc);
  EXPECT_TRUE(seen) << j.out.substr(0, 3000);
  auto csv = run_kvmbench({"report", run, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(has(csv.out, "real_time (ns)")) << csv.out;

  auto c = run_kvmbench({"compare", kData / "gbench" / "compare_py_test4_run0.json",
                         kData / "gbench" / "compare_py_test4_run1.json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_FALSE(has(c.out, "Welch from the summaries")) << c.out;
  auto a = run_kvmbench({"compare", kData / "gbench" / "aggregates_base.json", kData / "gbench" / "aggregates_cand.json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_TRUE(has(a.out, "Welch from the summaries")) << a.out;
}

// The RMPOPT series' earlier prints are said not to be read; a log of
// nothing else is refused saying so.
TEST(PublishedReaders, EarlierRmpoptPrintsAreSaidNotToBeRead) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kData / "ingest" / "rmpopt_earlier_forms.log", "--out", t.path / "a"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_TRUE(has(i.err, "rmpopt_earlier_forms.log: 1: not read: an earlier form of the RMPOPT series' debug print"))
      << i.err;
  const fs::path only = t.path / "only.log";
  {
    std::ofstream f(only);
    f << "[   12.406117] SEV-SNP: RMPOPT max. CPU cycles 1843022\n";
  }
  auto o = run_kvmbench({"ingest", only, "--out", t.path / "b"});
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_TRUE(has(o.err, "no kernel log record kvmbench reads")) << o.err;
  EXPECT_TRUE(has(o.err, "not read: an earlier form")) << o.err;
  EXPECT_FALSE(fs::exists(t.path / "b") && !fs::is_empty(t.path / "b"));
}

TEST(PublishedReaders, KvmPageTableTestIsRead) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kData / "kvm" / "kvm_page_table_test.txt", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const auto run = kvmbench::load_run(nlohmann::json::parse(i.out)["run"].get<std::string>());
  ASSERT_EQ(run.samples.size(), 3u);
  EXPECT_EQ(run.samples[0].case_name, "kvm_page_table_test");
  EXPECT_EQ(run.samples[0].metric, "create_mappings_time");
  EXPECT_EQ(run.samples[0].value, 0.284315776);
}
