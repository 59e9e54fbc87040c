// kvmbench compare --format mail: compare's Document in its 80-column text
// layout, rows in the LKP robot's columns, held to a golden file
// (tests/data/compare/mail_directmap.txt). The runs are written here with
// fixed values, so the text is the same on every machine.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

nlohmann::json directmap_meta(const std::string& kernel, const std::string& thp) {
  return {{"suite", "directmap"},
          {"preset", "host"},
          {"source", "hardware"},
          {"hostname", "lab7"},
          {"status", "complete"},
          {"start_time", "2026-12-01T13:10:37Z"},
          {"host",
           {{"kernel", {{"release", kernel}, {"cmdline", "root=/dev/sda1 ro quiet"}}},
            {"cpu", {{"vendor_id", "AuthenticAMD"}, {"model_name", "AMD EPYC 9654"}, {"family", 25}, {"model", 17},
                     {"stepping", 1}, {"microcode", "0xa101148"}}},
            {"topology", {{"packages", 1}, {"cores", 96}, {"threads", 192}}},
            {"thp", {{"enabled", thp}}},
            {"tsc_hz", 2396000000}}}};
}

// Five repetitions a metric, as a run of `-r 5` stores them.
fs::path write_run(const fs::path& dir, const nlohmann::json& meta, double fault_ns, double rate, double split_ms) {
  auto w = kvmbench::RunWriter::create_at(dir, meta);
  const double z[] = {0.012, -0.02, 0.004, 0.017, -0.013};
  for (int i = 0; i < 5; ++i) {
    const nlohmann::json none = nlohmann::json::object();
    w.append({"anon-4k", "threads=1", "fault_ns", "ns", fault_ns * (1 + z[i]), i, false, none});
    w.append({"anon-4k", "threads=1", "faultin_rate", "B/s", rate * (1 - z[i]), i, false, none});
    w.append({"thp", "threads=1", "split_time", "ns", split_ms * 1e6 * (1 + 2 * z[(i + 2) % 5]), i, false, none});
  }
  w.finish();
  return dir;
}

}  // namespace

TEST(CompareMail, TwoKernelsOnOneMachineMatchTheGoldenFile) {
  TempDir t;
  const fs::path base = write_run(t.path / "directmap-20261201T131037Z-lab7",
                                  directmap_meta("6.12.0", "always [madvise] never"), 812, 12.5e9, 402.1);
  const fs::path cand = write_run(t.path / "directmap-20261201T140212Z-lab7",
                                  directmap_meta("6.13.0-rc2", "[always] madvise never"), 861, 11.8e9, 399.0);
  auto r = run_kvmbench({"compare", base.string(), cand.string(), "--format", "mail"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  const std::string golden = std::string(KVMBENCH_TEST_DATA) + "/compare/mail_directmap.txt";
  if (std::getenv("KVMBENCH_WRITE_GOLDEN")) kvmbench::test_support::write_text(golden, r.out);
  EXPECT_EQ(r.out, read_text(golden)) << "(KVMBENCH_WRITE_GOLDEN=1 rewrites it; read the diff first)";
}

TEST(CompareMail, UnknownFormatNamesMail) {
  TempDir t;
  const fs::path a = write_run(t.path / "a", directmap_meta("6.12.0", "never"), 812, 12.5e9, 402.1);
  auto r = run_kvmbench({"compare", a.string(), a.string(), "--format", "letter"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format 'letter' (text, mail, md, csv, json, html)"), std::string::npos) << r.err;
}

// A positive quantity is tested on the logs, marked and explained: base
// {5, 20, 125} ns, cand {1, 4, 25} ns, every value the base's / 5, so the
// ratio of geometric means is exactly 1/5 (-80%) where the arithmetic
// means' Fieller interval is unbounded. The logs' sd is 1.6146 a side, se
// 1.3183, df 4, t(0.975) 2.7764: CI exp(-ln 5 -+ 3.6603) - 1 = [-99.5%,
// +677%]. With --linear the row has no CI (Fieller's set is unbounded).
TEST(CompareMail, APositiveQuantityIsTestedOnTheLogsMarkedAndExplained) {
  TempDir t;
  auto write = [&](const std::string& name, std::vector<double> values) {
    auto w = kvmbench::RunWriter::create_at(t.path / name, directmap_meta("6.12.0", "never"));
    for (int i = 0; i < 3; ++i)
      w.append({"anon-4k", "", "fault_time", "ns", values[i], i, false, nlohmann::json::object()});
    w.finish();
    return (t.path / name).string();
  };
  const std::string base = write("base", {5, 20, 125}), cand = write("cand", {1, 4, 25});
  auto r = run_kvmbench({"compare", base, cand, "--format", "mail"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("-80.00%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[-99,+677]*"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("*: on the logs: geometric means"), std::string::npos) << r.out;
  auto linear = run_kvmbench({"compare", base, cand, "--linear", "--format", "json"});
  ASSERT_EQ(linear.exit_code, 0) << linear.err;
  const auto j = nlohmann::json::parse(linear.out);
  EXPECT_EQ(j["metrics"][0]["change_ci_scale"], "linear") << linear.out;
  EXPECT_NEAR(j["metrics"][0]["change_pct"].get<double>(), (10.0 / 50 - 1) * 100, 1e-9);
}

// Several runs a side: the runs are the units, each the mean of its
// repetitions, and the units note says so; the side names its runs.
TEST(CompareMail, SeveralRunsASideNameTheRunTheUnit) {
  TempDir t;
  std::string base, cand;
  for (int i = 0; i < 2; ++i) {
    base += (i ? "," : "") + write_run(t.path / ("b" + std::to_string(i)), directmap_meta("6.12.0", "never"), 100 + i,
                                       4e9, 2).string();
    cand += (i ? "," : "") + write_run(t.path / ("c" + std::to_string(i)), directmap_meta("6.13.0", "never"), 101 + i,
                                       4e9, 2).string();
  }
  auto r = run_kvmbench({"compare", base, cand, "--format", "mail"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Units: each side: 2 invocations of 5 repetitions. CI and tests are over the\n"
                       "  invocations, each the mean of its repetitions"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nbase: b0, b1 (kernel 6.12.0)\n"), std::string::npos) << r.out;
}
