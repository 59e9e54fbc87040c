// kvmbench compare and gate through the real binary, on runs written with
// RunWriter: pass, fail, and each unusable-input case; JUnit well-formed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// Ten values around `mean` with a CV of about 1% (fixed, not random).
std::vector<double> around(double mean, std::size_t n = 10) {
  static const double z[] = {0.3, -1.1, 0.8, -0.2, 1.4, -0.7, 0.1, -1.5, 0.9, 0.0, 0.5, -0.4};
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(mean * (1 + 0.01 * z[i % 12]));
  return v;
}

struct Metric {
  std::string case_name, metric, unit;
  std::vector<double> values;
};

fs::path make_run(const fs::path& dir, const std::vector<Metric>& metrics, const std::string& source = "hardware",
                  const std::string& kernel = "6.8.0", bool with_warmup = true) {
  nlohmann::json meta = {{"suite", "directmap"},
                         {"source", source},
                         {"host", {{"kernel", {{"release", kernel}}}, {"thp", {{"enabled", "always [madvise] never"}}}}}};
  auto w = kvmbench::RunWriter::create_at(dir, meta);
  for (auto& m : metrics) {
    if (with_warmup) {
      kvmbench::Sample s{m.case_name, "", m.metric, m.unit, m.values[0] * 3, 0, true, nlohmann::json::object()};
      w.append(s);  // a wild warm-up value the comparison must ignore
    }
    for (std::size_t i = 0; i < m.values.size(); ++i)
      w.append({m.case_name, "", m.metric, m.unit, m.values[i], static_cast<int>(i + 1), false,
                nlohmann::json::object()});
  }
  w.finish();
  return dir;
}

std::vector<Metric> standard(double time_factor = 1.0, double rate_factor = 1.0) {
  return {{"anon-4k", "fault_ns", "ns", around(812 * time_factor)},
          {"anon-4k", "faultin_rate", "GB/s", around(12.5 * rate_factor)},
          {"gmem", "fault_ns", "ns", around(640)}};
}

std::string fmt_name(double f) { return "cand-" + std::to_string(static_cast<int>(std::lround(f * 1000))); }

}  // namespace

TEST(CompareCli, TextTableWithMetadataAndVerdicts) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto b = make_run(t.path / "b", standard(1.05, 1.0), "hardware", "6.9.0");
  auto r = run_kvmbench({"compare", a, b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host.kernel.release: 6.8.0 -> 6.9.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source: hardware"), std::string::npos);
  EXPECT_NE(r.out.find("+5.00%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slower"), std::string::npos);
  EXPECT_NE(r.out.find("not significant"), std::string::npos);
  // Ten units a side (the n column): the warm-up is excluded.
  EXPECT_NE(r.out.find("\n1   812    ±0.9%   +5.00%   853    ±0.9%  10  "), std::string::npos)
      << "warm-up must be excluded: n=10\n" << r.out;
  for (std::size_t p = 0, q; p < r.out.size(); p = q + 1) {
    q = r.out.find('\n', p);
    std::string line = r.out.substr(p, q - p);
    std::size_t cols = 0;
    for (unsigned char ch : line) cols += (ch & 0xC0) != 0x80;
    EXPECT_LE(cols, 80u) << line;
  }
}

TEST(CompareCli, JsonCsvMarkdownFormats) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto b = make_run(t.path / "b", standard(1.05));
  auto j = run_kvmbench({"compare", a, b, "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["metrics"].size(), 3u);
  EXPECT_EQ(doc["metrics"][0]["verdict"], "slower");
  EXPECT_NEAR(doc["metrics"][0]["change_pct"].get<double>(), 5.0, 1e-9);
  EXPECT_EQ(doc["metrics"][0]["base"]["n"], 10);
  auto c = run_kvmbench({"compare", a, b, "--format", "csv"});
  EXPECT_EQ(c.exit_code, 0);
  // The change table's title and source, then its columns for programs.
  EXPECT_EQ(c.out.rfind("# Change of cand vs base", 0), 0u) << c.out;
  EXPECT_NE(c.out.find("\n# source: hardware\nmetric,unit,direction,base_mean,"), std::string::npos) << c.out;
  auto m = run_kvmbench({"compare", a, b, "--format", "md"});
  EXPECT_EQ(m.exit_code, 0);
  EXPECT_NE(m.out.find("| # | series | base | %stddev | %change | cand | %stddev | n |"), std::string::npos) << m.out;
}

TEST(CompareCli, BadInputIsExit2) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto r = run_kvmbench({"compare", a, (t.path / "missing").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file or directory"), std::string::npos) << r.err;
  auto f = run_kvmbench({"compare", a, a, "--format", "pdf"});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("unknown format"), std::string::npos) << f.err;
}

TEST(GateCli, PassOnSameDistribution) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  std::vector<Metric> same = standard();
  for (auto& m : same) std::reverse(m.values.begin(), m.values.end());
  auto b = make_run(t.path / "b", same);
  auto r = run_kvmbench({"gate", a, b, "--max-regression", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: PASSED"), std::string::npos) << r.out;
}

TEST(GateCli, FailOnRegressionWithJunitAndMarkdown) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto b = make_run(t.path / "b<&>", standard(1.05, 0.95));
  auto junit = t.path / "junit.xml", md = t.path / "summary.md";
  auto r = run_kvmbench({"gate", a, b, "--max-regression", "1", "--junit", junit, "--markdown", md});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: FAILED, 2 of 3"), std::string::npos) << r.out;
  std::string x = kvmbench::read_file(junit);
  EXPECT_NE(x.find("tests=\"3\" failures=\"2\""), std::string::npos) << x;
  EXPECT_NE(x.find("b&lt;&amp;&gt;"), std::string::npos) << x;
  // Well-formed: xmllint when the host has it, otherwise a balance check of
  // the elements this file uses.
  if (fs::exists("/usr/bin/xmllint")) {
    auto lint = kvmbench::test_support::run_command({"/usr/bin/xmllint", "--noout", junit.string()});
    EXPECT_EQ(lint.exit_code, 0) << lint.err;
  }
  auto count = [&](const std::string& s) {
    std::size_t k = 0;
    for (std::size_t p = 0; (p = x.find(s, p)) != std::string::npos; ++p) ++k;
    return k;
  };
  EXPECT_EQ(count("<testcase "), 3u);
  EXPECT_EQ(count("</testcase>"), 3u);
  EXPECT_EQ(count("<failure "), 2u);
  EXPECT_EQ(count("<testsuite "), 1u);
  EXPECT_EQ(count("</testsuite>"), 1u);
  std::string s = kvmbench::read_file(md);
  EXPECT_NE(s.find("FAILED"), std::string::npos);
  EXPECT_NE(s.find("| FAIL |"), std::string::npos) << s;
}

TEST(GateCli, SmallRegressionWithinAllowancePasses) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto b = make_run(t.path / "b", standard(1.05));
  auto r = run_kvmbench({"gate", a, b, "--max-regression", "10"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(GateCli, UnusableInputExit2EachSaidPlainly) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto emu = make_run(t.path / "emu", standard(), "emulated");
  auto model = make_run(t.path / "model", standard(), "model");
  auto few = make_run(t.path / "few", {{"anon-4k", "fault_ns", "ns", {812, 813}},
                                       {"anon-4k", "faultin_rate", "GB/s", {12.5, 12.4}},
                                       {"gmem", "fault_ns", "ns", {640, 641}}});
  struct Case {
    fs::path cand;
    std::string says;
  } cases[] = {{emu, "source 'emulated'"},
               {model, "source 'model'"},
               {few, "no metric could be gated"},
               {t.path / "nope", "nope: no such file or directory"}};
  for (auto& c : cases) {
    auto junit = t.path / (c.cand.filename().string() + ".xml");
    auto r = run_kvmbench({"gate", a, c.cand, "--junit", junit});
    EXPECT_EQ(r.exit_code, 2) << c.cand << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("UNUSABLE INPUT"), std::string::npos) << r.err;
    EXPECT_NE(kvmbench::read_file(junit).find("<error message="), std::string::npos);
  }
  EXPECT_NE(run_kvmbench({"gate", a, few}).err.find("too few samples: base n=10, cand n=2"), std::string::npos);
  auto bad_alpha = run_kvmbench({"gate", a, a, "--alpha", "2"});
  EXPECT_EQ(bad_alpha.exit_code, 2);
  EXPECT_NE(bad_alpha.err.find("--alpha"), std::string::npos);
}

// A gate whose input cannot be loaded replaces an earlier gate's files: a
// CI job must never read the old "passed".
TEST(GateCli, UnusableInputReplacesStaleReports) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto junit = t.path / "gate.xml", md = t.path / "gate.md";
  ASSERT_EQ(run_kvmbench({"gate", a, a, "--junit", junit, "--markdown", md}).exit_code, 0);
  ASSERT_NE(kvmbench::read_file(md).find("PASSED"), std::string::npos);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"gate", a, (t.path / "gone").string()}, {"gate", a, a, "--alpha", "7"},
        {"gate", a, (t.path / "x,y").string()}}) {
    std::vector<std::string> with = args;
    for (const std::string& f : {std::string("--junit"), junit.string(), std::string("--markdown"), md.string()})
      with.push_back(f);
    auto r = run_kvmbench(with);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    const std::string x = kvmbench::read_file(junit), m = kvmbench::read_file(md);
    EXPECT_EQ(x.find("PASSED"), std::string::npos);
    EXPECT_NE(x.find("type=\"unusable input\""), std::string::npos) << x;
    EXPECT_EQ(m.find("PASSED"), std::string::npos) << m;
    EXPECT_NE(m.find("UNUSABLE INPUT"), std::string::npos) << m;
  }
}

// A metric on one side only (a benchmark added, or dropped) is reported;
// only --strict fails the gate on it.
TEST(GateCli, MetricOnOneSideOnlyIsReportedNotAFailure) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  std::vector<Metric> more = standard();
  more.push_back({"anon-2m", "fault_ns", "ns", around(100)});
  auto b = make_run(t.path / "b", more);
  auto r = run_kvmbench({"gate", a, b, "--max-regression", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("skipped: only in cand"), std::string::npos) << r.out;
  EXPECT_EQ(run_kvmbench({"gate", a, b, "--strict"}).exit_code, 1);
}

// Several runs per side: the invocations are the units, and the table says
// so; the K&J table appears once both sides have two runs of two repetitions.
TEST(CompareCli, SeveralRunsPerSide) {
  TempDir t;
  auto a1 = make_run(t.path / "a1", standard()), a2 = make_run(t.path / "a2", standard(1.01));
  auto b1 = make_run(t.path / "b1", standard(1.10)), b2 = make_run(t.path / "b2", standard(1.11));
  auto r = run_kvmbench({"compare", a1.string() + "," + a2.string(), b1.string() + "," + b2.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("each side: 2 invocations of 10 repetitions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CI and tests are over the"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Repetitions per invocation (Kalibera and Jones 2013)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  2  [+4.4,+15.8]*"), std::string::npos) << r.out;  // n = 2 invocations
  auto bad = run_kvmbench({"compare", a1.string() + ",", b1});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("an empty path between commas"), std::string::npos) << bad.err;
}

TEST(CompareCli, GoogleBenchmarkJsonWithRepetitions) {
  const fs::path data = fs::path(KVMBENCH_TEST_DATA) / "compare";
  auto r = run_kvmbench({"compare", data / "gbench_base.json", data / "gbench_cand.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("source: replay"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BM_FaultIn/4096/real_time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  6  [+2.3,+5.7]*"), std::string::npos) << "aggregate rows are not samples\n" << r.out;
  EXPECT_NE(r.out.find("+4.00%"), std::string::npos) << r.out;
  // The gate on the same files: +4% against 1% allowed fails.
  auto g = run_kvmbench({"gate", data / "gbench_base.json", data / "gbench_cand.json", "--max-regression", "1"});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  auto ok = run_kvmbench({"gate", data / "gbench_base.json", data / "gbench_cand.json", "--max-regression", "10"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

// What a reader acts on comes first and is short: the verdict in the first
// line; runs of two suites or presets, or with no metric in common, are
// refused naming both; the same run twice is warned about.
TEST(CompareCli, VerdictFirstAndMismatchedPairsRefused) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  auto b = make_run(t.path / "b", standard(1.5));
  auto r = run_kvmbench({"compare", a, b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "verdict: WORSE in 1 of 3 tested metrics (Holm, alpha 0.05): anon-4k/fault_ns");
  auto g = run_kvmbench({"gate", a, b});
  EXPECT_EQ(g.exit_code, 1) << g.out;
  EXPECT_EQ(g.out.rfind("gate: FAILED", 0), 0u) << g.out;

  // Another suite: refused, both named.
  auto other = t.path / "other";
  make_run(other, standard());
  {
    auto meta = nlohmann::json::parse(std::ifstream(other / "meta.json"));
    meta["suite"] = "rmpopt";
    std::ofstream(other / "meta.json") << meta.dump(2);
  }
  auto two = run_kvmbench({"compare", a, other});
  EXPECT_EQ(two.exit_code, 2) << two.out;
  EXPECT_NE(two.err.find("suite 'directmap' and CAND of suite 'rmpopt'"), std::string::npos) << two.err;
  auto gate_two = run_kvmbench({"gate", a, other});
  EXPECT_EQ(gate_two.exit_code, 2) << gate_two.out;

  // Nothing in common.
  auto disjoint = make_run(t.path / "d", {{"thp", "split_time", "ms", around(402)}});
  auto none = run_kvmbench({"compare", a, disjoint});
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_NE(none.err.find("no metric is in both BASE"), std::string::npos) << none.err;

  // The same run twice.
  auto same = run_kvmbench({"compare", a, (t.path / "." / "a").string()});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.err.find("BASE and CAND are the same input"), std::string::npos) << same.err;
}

// compare --format json: no tested metric whose CI of the change contradicts
// its verdict, on pairs that differ a little, a lot and not at all.
TEST(CompareCli, NoCiContradictsItsVerdict) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  std::size_t tested = 0;
  for (double f : {1.0, 1.004, 1.01, 1.02, 1.5}) {
    auto b = make_run(t.path / fmt_name(f), standard(f, 2 - f));
    auto r = run_kvmbench({"compare", a, b, "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& m : j["metrics"]) {
      if (m["status"] != "tested") continue;
      ++tested;
      const bool excludes = (m["change_ci95_low"].is_number() && m["change_ci95_low"].get<double>() > 0) ||
                            (m["change_ci95_high"].is_number() && m["change_ci95_high"].get<double>() < 0);
      const bool significant = m["verdict"] == "faster" || m["verdict"] == "slower" ||
                               m["verdict"] == "different (direction unknown)";
      EXPECT_EQ(excludes, significant) << m.dump();
    }
  }
  EXPECT_EQ(tested, 15u);
}

// Every verdict says what it excludes (issue 41): compare's second line and
// JSON, the mail layout's first lines, and the gate's within-noise rule.
TEST(GateCli, SaysWhatItExcludesAndIsInconclusiveWhenItCannot) {
  TempDir t;
  auto a = make_run(t.path / "a", standard());
  std::vector<Metric> same = standard();
  for (auto& m : same) std::reverse(m.values.begin(), m.values.end());
  auto b = make_run(t.path / "b", same);
  auto c = run_kvmbench({"compare", a, b});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string second = c.out.substr(c.out.find('\n') + 1, c.out.find('\n', c.out.find('\n') + 1) - c.out.find('\n') - 1);
  EXPECT_NE(second.find("a regression beyond +"), std::string::npos) << c.out;
  EXPECT_NE(second.find("is excluded for each of 3 tested metrics"), std::string::npos) << c.out;
  auto mail = run_kvmbench({"compare", a, b, "--format", "mail"});
  ASSERT_EQ(mail.exit_code, 0) << mail.err;
  EXPECT_LT(mail.out.find("is excluded"), 400u) << mail.out;
  auto j = run_kvmbench({"compare", a, b, "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  const auto& metrics = doc.contains("metrics") ? doc["metrics"] : doc["comparison"]["metrics"];
  ASSERT_FALSE(metrics.empty()) << j.out.substr(0, 2000);
  for (const auto& m : metrics) {
    EXPECT_TRUE(m["excluded_beyond_pct"].is_number()) << m.dump();
    EXPECT_TRUE(m["mde_80_pct"].is_number()) << m.dump();
    EXPECT_GT(m["mde_95_pct"].get<double>(), m["mde_80_pct"].get<double>()) << m.dump();
  }

  // Three units a side of the same ~1% noise: a regression of 0.5% can be
  // neither shown nor excluded: INCONCLUSIVE, exit 3, with the units that
  // would decide it; the pass of old on request.
  auto a3 = make_run(t.path / "a3", {{"anon-4k", "fault_ns", "ns", around(812, 3)}});
  auto b3 = make_run(t.path / "b3", {{"anon-4k", "fault_ns", "ns", around(812 * 1.001, 3)}});
  auto g = run_kvmbench({"gate", a3, b3, "--max-regression", "0.5"});
  EXPECT_EQ(g.exit_code, 3) << g.out << g.err;
  EXPECT_EQ(g.out.rfind("gate: INCONCLUSIVE", 0), 0u) << g.out;
  EXPECT_NE(g.out.find("units a side would decide"), std::string::npos) << g.out;
  auto old = run_kvmbench({"gate", a3, b3, "--max-regression", "0.5", "--significance-only"});
  EXPECT_EQ(old.exit_code, 0) << old.out << old.err;
  // A generous margin is excluded: a PASS that says by how much.
  auto wide = run_kvmbench({"gate", a3, b3, "--max-regression", "20"});
  EXPECT_EQ(wide.exit_code, 0) << wide.out << wide.err;
  EXPECT_NE(wide.out.find("gate: PASSED, a regression beyond +"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("is excluded"), std::string::npos) << wide.out;
  // A margin that is no finite percentage is bad input.
  for (const char* bad : {"inf", "nan", "-1"}) {
    auto r = run_kvmbench({"gate", a3, b3, "--max-regression", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << r.out << r.err;
  }
}
