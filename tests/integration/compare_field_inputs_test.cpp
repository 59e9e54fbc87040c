// kvmbench compare, gate and ingest on inputs as the field's tools write
// them: Google Benchmark's own JSON (tests/data/gbench, made with Debian's
// library) and the KVM selftests' output (tests/data/kvm).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kGbench = fs::path(KVMBENCH_TEST_DATA) / "gbench";
const fs::path kKvm = fs::path(KVMBENCH_TEST_DATA) / "kvm";

std::string join(std::initializer_list<const char*> names, const fs::path& dir) {
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : ",") + (dir / n).string();
  return out;
}

}  // namespace

// The default run (one sample per benchmark): the change, as compare.py
// prints one, said to be no more than that; ms on one side and ns on the
// other converted; NaN and infinities shown; the errored benchmark listed.
TEST(FieldInputs, GoogleBenchmarkDefaultOneSampleFiles) {
  auto r = run_kvmbench({"compare", kGbench / "one_sample_base.json", kGbench / "one_sample_cand.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("change only"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n = 1 units: the change only (no CI, no p"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Change of cand vs base (no metric with a test: the change only)"), std::string::npos)
      << r.out;
  // 0.01907 ms and 0.01805 ms, read in the row's unit, under its name;
  // one unit a side.
  EXPECT_NE(r.out.find("\nBM_SlowMs/real_time (us)\n 7   19.1            -5.36%   18.1           1 "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nBM_Counters/ratio\n14    NaN                 -    NaN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nBM_Counters/floor\n11   -inf "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("base did not measure BM_Fails: device not available"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BM_Same (1 of 2)/real_time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BM_Same (2 of 2)/real_time"), std::string::npos) << r.out;
  // No test is possible: the gate says so rather than passing.
  auto g = run_kvmbench({"gate", kGbench / "one_sample_base.json", kGbench / "one_sample_cand.json"});
  EXPECT_EQ(g.exit_code, 2) << g.out << g.err;
  EXPECT_NE(g.err.find("no metric could be gated"), std::string::npos) << g.err;
}

TEST(FieldInputs, GoogleBenchmarkRepetitionsAndTheMannWhitneyMethod) {
  auto r = run_kvmbench({"compare", kGbench / "repetitions_base.json", kGbench / "repetitions_cand.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Ten repetitions a side.
  EXPECT_NE(r.out.find("\nBM_Sum/1024/real_time (ns)\n 1   314   ±3.8% +103.98%   640   ±3.2% 10 "), std::string::npos)
      << r.out;
  // The method is named where its p is shown.
  auto json = run_kvmbench({"compare", kGbench / "repetitions_base.json", kGbench / "repetitions_cand.json", "--format",
                            "json"});
  EXPECT_NE(json.out.find("Mann-Whitney U: exact (no ties, n <= 50) for #1-#12"), std::string::npos) << json.out;
  auto md = run_kvmbench({"compare", kGbench / "repetitions_base.json", kGbench / "repetitions_cand.json", "--format",
                          "md"});
  EXPECT_NE(md.out.find("Mann-Whitney U: exact (no ties, n <= 50) for #1-#12."), std::string::npos) << md.out;
  // BM_Sum doing twice the work is a regression of about +100%.
  auto g = run_kvmbench({"gate", kGbench / "repetitions_base.json", kGbench / "repetitions_cand.json",
                         "--max-regression", "50", "--metrics", "BM_Sum/*time"});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  EXPECT_NE(g.out.find("4 of 4 gated metrics regressed"), std::string::npos) << g.out;
}

TEST(FieldInputs, GoogleBenchmarkAggregatesOnly) {
  auto r = run_kvmbench({"compare", kGbench / "aggregates_base.json", kGbench / "aggregates_cand.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("from the file's aggregates (mean, stddev, count): Welch from the"), std::string::npos) << r.out;
  // The count of the aggregates: n 10 a side.
  EXPECT_NE(r.out.find(" 1   317   ±4.9%  +98.94%   630   ±5.4% 10 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slower"), std::string::npos) << r.out;
  auto g = run_kvmbench({"gate", kGbench / "aggregates_base.json", kGbench / "aggregates_cand.json",
                         "--max-regression", "50", "--metrics", "BM_Sum/*time"});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  // ingest keeps repetitions, and says why it refuses aggregates only.
  TempDir t;
  auto i = run_kvmbench({"ingest", kGbench / "aggregates_base.json", "--out", t.path});
  EXPECT_EQ(i.exit_code, 2);
  EXPECT_NE(i.err.find("aggregates only"), std::string::npos) << i.err;
}

// A benchmark added in the candidate: reported, not a failure, not unusable.
// (--significance-only: the within-noise pass would call a metric of these
// few repetitions inconclusive, which is not what this test is about.)
TEST(FieldInputs, GoogleBenchmarkAddedInTheCandidate) {
  auto g = run_kvmbench({"gate", kGbench / "repetitions_base.json", kGbench / "added_cand.json", "--max-regression",
                         "50", "--significance-only"});
  EXPECT_EQ(g.exit_code, 0) << g.out << g.err;
  EXPECT_NE(g.out.find("skipped: only in cand"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("BM_New/real_time"), std::string::npos) << g.out;
  EXPECT_EQ(run_kvmbench({"gate", kGbench / "repetitions_base.json", kGbench / "added_cand.json",
                          "--max-regression", "50", "--strict"})
                .exit_code,
            1);
}

TEST(FieldInputs, GoogleBenchmarkSchemaVersion) {
  EXPECT_EQ(run_kvmbench({"compare", kGbench / "schema_v1.json", kGbench / "one_sample_base.json"}).exit_code, 0);
  auto r = run_kvmbench({"compare", kGbench / "schema_v2.json", kGbench / "one_sample_base.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("json_schema_version is 2"), std::string::npos) << r.err;
  TempDir t;
  EXPECT_EQ(run_kvmbench({"ingest", kGbench / "schema_v2.json", "--out", t.path}).exit_code, 2);
}

// ingest of a file with NaN and infinite counters stores them (as null with
// their text) and reads them back as they were.
TEST(FieldInputs, NonFiniteCountersSurviveIngest) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kGbench / "one_sample_base.json", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const std::string dir = nlohmann::json::parse(i.out)["run"];
  auto r = run_kvmbench({"compare", dir, kGbench / "one_sample_cand.json", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> mean;
  for (auto& m : j["metrics"]) mean[m["key"]] = m["base"]["mean"];
  EXPECT_EQ(mean.at("BM_Counters/peak"), "Infinity");
  EXPECT_EQ(mean.at("BM_Counters/floor"), "-Infinity");
  EXPECT_EQ(mean.at("BM_Counters/ratio"), "NaN");
  auto rep = run_kvmbench({"report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
}

// Three runs of demand_paging_test a side, given as A,B,C: each file is an
// invocation, and the rates are derived from the time (not tested again).
TEST(FieldInputs, KvmSelftestFilesAsInvocations) {
  const std::string base = join({"demand_paging_base1.txt", "demand_paging_base2.txt", "demand_paging_base3.txt"}, kKvm);
  const std::string cand = join({"demand_paging_cand1.txt", "demand_paging_cand2.txt", "demand_paging_cand3.txt"}, kKvm);
  auto r = run_kvmbench({"compare", base, cand});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("each side: 3 invocations of 1 repetition"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Holm over 1 metric;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("derived metric"), std::string::npos) << "counted: " << r.out;
  auto all = run_kvmbench({"compare", base, cand, "--all"});
  EXPECT_NE(all.out.find("derived from guest_execution_time: shown, not tested again"), std::string::npos) << all.out;
  auto g = run_kvmbench({"gate", base, cand, "--max-regression", "5"});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  EXPECT_NE(g.out.find("1 of 1 gated metrics regressed"), std::string::npos) << g.out;
  // One file a side: the change only.
  auto one = run_kvmbench({"compare", kKvm / "demand_paging_base1.txt", kKvm / "demand_paging_kselftest.tap"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("+0.00%"), std::string::npos) << one.out;
  auto bad = run_kvmbench({"compare", kKvm / "demand_paging_malformed.txt", kKvm / "demand_paging_base1.txt"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("demand_paging_malformed.txt:1:"), std::string::npos) << bad.err;
}

// ingest of several selftest files: several repetitions of the test, each
// file an invocation of its own (a compare of the run sees three units).
TEST(FieldInputs, KvmSelftestIngestSeveralFiles) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kKvm / "demand_paging_base1.txt", kKvm / "demand_paging_base2.txt",
                         kKvm / "demand_paging_base3.txt", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const std::string dir = nlohmann::json::parse(i.out)["run"];
  const auto run = kvmbench::load_run(dir);
  ASSERT_EQ(run.samples.size(), 9u);
  EXPECT_EQ(run.samples[3].iteration, 1);
  EXPECT_EQ(run.samples[3].extra["invocation"], 1);
  EXPECT_EQ(run.meta["metric_roles"]["derived"]["demand_paging_rate"], "guest_execution_time");
  auto r = run_kvmbench({"compare", dir,
                         join({"demand_paging_cand1.txt", "demand_paging_cand2.txt", "demand_paging_cand3.txt"}, kKvm)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("each side: 3 invocations of 1 repetition"), std::string::npos) << r.out;
  auto vm = run_kvmbench({"compare", kKvm / "vmexit.log", kKvm / "vmexit.log"});
  ASSERT_EQ(vm.exit_code, 0) << vm.err;
  EXPECT_NE(vm.out.find("vmexit/cpuid"), std::string::npos) << vm.out;
}

// Kernel logs as they come in mail (tests/unit/kernel_log_experiments_test.cpp
// says what the files hold).
TEST(FieldInputs, KernelLogFromMailAndTwoLoopsInOneCapture) {
  const fs::path ingest_data = fs::path(KVMBENCH_TEST_DATA) / "ingest";
  TempDir t;
  auto mail = run_kvmbench({"ingest", ingest_data / "mail_with_patch.txt", "--out", t.path / "mail"});
  ASSERT_EQ(mail.exit_code, 0) << mail.err;
  EXPECT_NE(mail.err.find("mail_with_patch.txt: 9: not a record, the source of its print"), std::string::npos)
      << mail.err;
  EXPECT_NE(mail.err.find("mail_with_patch.txt: 21: RMPOPT status: SEV-SNP: RMPOPT optimizations not enabled"),
            std::string::npos)
      << mail.err;
  EXPECT_NE(mail.err.find("stored 6 samples"), std::string::npos) << mail.err;

  auto pooled = run_kvmbench({"ingest", ingest_data / "rmpopt_two_loops.log", "--out", t.path / "pooled"});
  ASSERT_EQ(pooled.exit_code, 0) << pooled.err;
  EXPECT_NE(pooled.err.find("--split-by boot keeps them apart"), std::string::npos) << pooled.err;
  EXPECT_NE(pooled.err.find("--split-by gap=64 keeps them apart"), std::string::npos) << pooled.err;
  auto split = run_kvmbench({"ingest", ingest_data / "rmpopt_two_loops.log", "--out", t.path / "split", "--split-by",
                             "gap=60", "--format", "json"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_EQ(split.err.find("keeps them apart"), std::string::npos) << split.err;
  const auto run = kvmbench::load_run(nlohmann::json::parse(split.out)["run"].get<std::string>());
  std::map<std::string, int> per_part;
  for (auto& s : run.samples) ++per_part[s.variant];
  EXPECT_EQ(per_part, (std::map<std::string, int>{{"part=1", 3}, {"part=2", 4}}));
  auto bad = run_kvmbench({"ingest", ingest_data / "rmpopt_two_loops.log", "--out", t.path, "--split-by", "week"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--split-by week: not boot or gap=SECONDS"), std::string::npos) << bad.err;
}
