// kvmbench ingest, report, compare and gate on KVM selftests output as it
// was published (tests/data/kvm/published, README there): a robot's TAP
// log of a test that timed out, an assertion after the first figures, the
// runs of a cover letter and the same runs quoted in a reply.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::unwrapped;
namespace fs = std::filesystem;

namespace {

const fs::path kPublished = fs::path(KVMBENCH_TEST_DATA) / "kvm" / "published";

// Whether `what` is in `text`, wherever an 80-column wrap fell.
bool has(const std::string& text, const std::string& what) {
  return unwrapped(text).find(unwrapped(what)) != std::string::npos;
}

}  // namespace

// A test that failed is stored as a failed run: its figures kept, marked;
// ingest exits 1; report says so in every title.
TEST(PublishedSelftests, ATimedOutTestIsStoredAsAFailedRun) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kPublished / "memslot_perf_timeout.tap", "--out", t.path, "--format", "json"});
  EXPECT_EQ(i.exit_code, 1) << i.err;
  EXPECT_TRUE(has(i.err, "memslot_perf_timeout.tap:28: memslot_perf_test failed: TIMEOUT 120 seconds; the 4 "
                         "figures it printed before are stored marked failed"))
      << i.err;
  EXPECT_TRUE(has(i.err, "stored as a failed run (memslot_perf_test failed: TIMEOUT 120 seconds")) << i.err;
  const auto out = nlohmann::json::parse(i.out);
  EXPECT_EQ(out["status"], "failed");
  const auto run = kvmbench::load_run(out["run"].get<std::string>());
  EXPECT_EQ(run.status(), "failed");
  ASSERT_EQ(run.meta["failures"].size(), 1u);
  EXPECT_EQ(run.meta["failures"][0]["program"], "memslot_perf_test");
  EXPECT_EQ(run.meta["failures"][0]["reason"], "TIMEOUT 120 seconds");
  EXPECT_EQ(run.meta["failures"][0]["line"], 28);
  ASSERT_EQ(run.samples.size(), 4u);
  for (auto& s : run.samples) EXPECT_EQ(s.extra["failed"], "TIMEOUT 120 seconds");
  auto rep = run_kvmbench({"report", out["run"].get<std::string>()});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_TRUE(has(rep.out, "[FAILED: memslot_perf_test]")) << rep.out;
  EXPECT_TRUE(has(rep.out, "memslot_perf_test failed (memslot_perf_timeout.tap:28): TIMEOUT 120 seconds")) << rep.out;
}

// What compare and gate do with the figures of a test that failed: compare
// shows them, never tests them; the gate fails on the candidate's, and a
// base that failed is no baseline.
TEST(PublishedSelftests, CompareAndGateDoNotTakeAFailedRunForAGoodOne) {
  const fs::path good = kPublished / "kvm_kselftest_loongarch.tap", failed = kPublished / "memslot_perf_timeout.tap";
  auto c = run_kvmbench({"compare", good, failed});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "cand: " + failed.filename().string() + " (run failed)")) << c.out;
  EXPECT_TRUE(has(c.out, "#13-#14: cand's test failed (TIMEOUT 120 seconds): figures before the failure,")) << c.out;
  EXPECT_TRUE(has(c.out, "cand: memslot_perf_test failed (TIMEOUT 120 seconds): the figures it printed")) << c.out;
  // memslot_perf_test's RW test had not printed its figure when it timed out.
  EXPECT_TRUE(has(c.out, "#15-#16: only in base; cand's test failed (TIMEOUT 120 seconds): it printed none")) << c.out;
  auto j = run_kvmbench({"compare", good, failed, "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto cj = nlohmann::json::parse(j.out);
  EXPECT_EQ(cj["cand"]["failed_tests"][0]["test"], "memslot_perf_test");
  for (auto& m : cj["metrics"])
    if (m["case"].get<std::string>().starts_with("memslot_perf_test")) {
      EXPECT_NE(m["status"], "tested") << m.dump();
      EXPECT_TRUE(m["p_welch"].is_null()) << m.dump();
      EXPECT_EQ(m["cand_failed"], "TIMEOUT 120 seconds") << m.dump();
    }

  auto g = run_kvmbench({"gate", good, failed});
  EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
  EXPECT_TRUE(has(g.out, "FAIL: cand's test failed (TIMEOUT 120 seconds)")) << g.out;
  EXPECT_TRUE(has(g.out, "from a test that failed in cand")) << g.out;
  auto base_failed = run_kvmbench({"gate", failed, good});
  EXPECT_EQ(base_failed.exit_code, 2) << base_failed.out << base_failed.err;
  EXPECT_TRUE(has(base_failed.err, "skipped: base's test failed (TIMEOUT 120 seconds): no baseline")) << base_failed.err;
}

// An assertion block in the middle of a plain output: the same.
TEST(PublishedSelftests, AnAssertionFailsTheRunWithItsReasonQuoted) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kPublished / "access_tracking_assertion.txt", "--out", t.path});
  EXPECT_EQ(i.exit_code, 1) << i.err;
  EXPECT_TRUE(has(i.err, "access_tracking_assertion.txt:9: access_tracking_perf_test failed: Test Assertion Failure "
                         "at lib/kvm_util.c:1411: false (No vm physical memory at 0xffbffff000)"))
      << i.err;
  EXPECT_TRUE(has(i.out, "status: failed")) << i.out;
  EXPECT_TRUE(has(i.out, "[FAILED: access_tracking_perf_test]")) << i.out;
}

// A cover letter's runs, and the same quoted in a reply: three cases named
// by the text before each, a note, nothing pooled.
TEST(PublishedSelftests, CoverLetterRunsAndTheirQuoteAreThreeCases) {
  for (const char* file : {"dirty_log_perf_cover_letter.txt", "dirty_log_perf_quoted_reply.txt"}) {
    TempDir t;
    auto i = run_kvmbench({"ingest", kPublished / file, "--out", t.path, "--format", "json"});
    ASSERT_EQ(i.exit_code, 0) << file << i.err;
    EXPECT_TRUE(has(i.err, "3 runs of dirty_log_perf_test in one input, kept apart")) << file << i.err;
    const auto run = kvmbench::load_run(nlohmann::json::parse(i.out)["run"].get<std::string>());
    std::map<std::string, double> disable;
    for (auto& s : run.samples)
      if (s.metric == "disable_dirty_logging_time") disable[s.case_name] = s.value;
    EXPECT_EQ(disable, (std::map<std::string, double>{
                           {"dirty_log_perf_test [Without this series, TDP MMU]", 256.682188868},
                           {"dirty_log_perf_test [Without this series, Legacy MMU]", 4.246216551},
                           {"dirty_log_perf_test [With this series, TDP MMU]", 3.169381810}}))
        << file;
    EXPECT_EQ(run.status(), "complete");
  }
}

// A TAP log of many tests: memslot_perf_test's figures carry no guest mode
// of the test before it, and its best slot setup time is the whole test's.
TEST(PublishedSelftests, OneTestsDetailsStayWithIt) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kPublished / "kvm_kselftest_loongarch.tap", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const auto run = kvmbench::load_run(nlohmann::json::parse(i.out)["run"].get<std::string>());
  std::set<std::string> memslot_cases;
  for (auto& s : run.samples)
    if (s.case_name.starts_with("memslot_perf_test")) {
      EXPECT_EQ(s.variant, "") << s.case_name;
      memslot_cases.insert(s.case_name + "/" + s.metric);
    }
  EXPECT_TRUE(memslot_cases.count("memslot_perf_test/best_slot_setup_time")) << i.out;
  EXPECT_FALSE(memslot_cases.count("memslot_perf_test/rw/best_slot_setup_time")) << i.out;
}
