// kselftest's lines about how a test ended (analysis/parse/
// kselftest_outcome.h), from the forms its runner, its TAP helpers and the
// KVM selftests' TEST_ASSERT print; the assertion from LKFT's log
// (tests/data/kvm/published/set_id_regs_assertion.tap).
#include <gtest/gtest.h>

#include "analysis/parse/kselftest_outcome.h"
#include "analysis/store/run_store.h"
#include "analysis/model/text_lines.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

TEST(KselftestOutcome, TheRunnersLines) {
  auto start = kselftest_outcome("selftests: kvm: memslot_perf_test");
  EXPECT_EQ(start.kind, OutcomeKind::test_start);
  EXPECT_EQ(start.test, "memslot_perf_test");
  auto timeout = kselftest_outcome("not ok 71 selftests: kvm: memslot_perf_test # TIMEOUT 120 seconds");
  EXPECT_EQ(timeout.kind, OutcomeKind::test_failed);
  EXPECT_EQ(timeout.test, "memslot_perf_test");
  EXPECT_EQ(timeout.reason, "TIMEOUT 120 seconds");
  auto exit = kselftest_outcome("not ok 7 selftests: kvm: x86/hyperv_svm_test # exit=254");
  EXPECT_EQ(exit.test, "hyperv_svm_test");
  EXPECT_EQ(exit.reason, "exit=254");
  EXPECT_EQ(kselftest_outcome("ok 9 selftests: kvm: memslot_perf_test").kind, OutcomeKind::test_passed);
  // A skip is not a failure, even as "not ok".
  EXPECT_EQ(kselftest_outcome("ok 3 selftests: kvm: sev_migrate_tests # SKIP").kind, OutcomeKind::test_passed);
  EXPECT_EQ(kselftest_outcome("not ok 3 selftests: kvm: x # SKIP no SEV").kind, OutcomeKind::test_passed);
}

TEST(KselftestOutcome, ATestsOwnTapAndHarness) {
  EXPECT_EQ(kselftest_outcome("ok 1 vm0").kind, OutcomeKind::none);
  auto sub = kselftest_outcome("not ok 2 vm1");
  EXPECT_EQ(sub.kind, OutcomeKind::test_failed);
  EXPECT_EQ(sub.test, "");  // the running test's case
  EXPECT_EQ(sub.reason, "not ok 2 vm1");
  EXPECT_EQ(kselftest_outcome("Totals: pass:4 fail:0 xfail:0 xpass:0 skip:0 error:0").kind, OutcomeKind::none);
  EXPECT_EQ(kselftest_outcome("Totals: pass:3 fail:1 xfail:0 xpass:0 skip:0 error:0").kind, OutcomeKind::test_failed);
  EXPECT_EQ(kselftest_outcome("Bail out! KVM_CAP_X not supported").kind, OutcomeKind::test_failed);
  EXPECT_EQ(kselftest_outcome("FAIL  global.vcpu_id").kind, OutcomeKind::test_failed);
  EXPECT_EQ(kselftest_outcome("FAILED: 0 / 1 tests passed.").kind, OutcomeKind::test_failed);
  // A test's own words are not kselftest's.
  for (const char* l : {"Testing guest mode: PA-bits:ANY", "Populate memory time: 4.97s", "1..10", "TAP version 13",
                        "selftests are fun", "FAIL to do the thing", ""})
    EXPECT_EQ(kselftest_outcome(l).kind, OutcomeKind::none) << l;
}

TEST(KselftestOutcome, AnAssertionBlockAsLkftLoggedIt) {
  AssertionBlock block;
  bool seen = false;
  TestOutcome after;
  for_each_line(read_file(std::string(KVMBENCH_TEST_DATA) + "/kvm/published/set_id_regs_assertion.tap"),
                [&](std::size_t, std::string_view l) {
                  while (l.starts_with("# ")) l.remove_prefix(2);
                  if (block.open() && block.take(l)) return;
                  if (AssertionBlock::starts(l)) {
                    block.begin();
                    seen = true;
                    return;
                  }
                  if (auto o = kselftest_outcome(l); o.kind != OutcomeKind::none) after = o;
                });
  ASSERT_TRUE(seen);
  EXPECT_FALSE(block.open());  // the runner's "not ok" ended it
  EXPECT_EQ(block.reason(),
            "Test Assertion Failure at aarch64/set_id_regs.c:434: masks[idx] & ftr_bits[j].mask == ftr_bits[j].mask "
            "(0 != 0xf0 (masks[idx] & ftr_bits[j].mask != ftr_bits[j].mask))");
  EXPECT_EQ(after.kind, OutcomeKind::test_failed);
  EXPECT_EQ(after.test, "set_id_regs");
  EXPECT_EQ(after.reason, "exit=254");
}
