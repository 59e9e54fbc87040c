// What kselftest's runner, its TAP helpers and the KVM selftests' assert
// print about how a test ended, apart from the test's own output (each
// line as the test printed it: without mail quotes, "# " prefixes and the
// blanks around it):
//   runner (kselftest/runner.sh)
//     "selftests: kvm: NAME"                          NAME starts
//     "ok N selftests: kvm: NAME [# SKIP ...]"        NAME passed (or skipped)
//     "not ok N selftests: kvm: NAME # TIMEOUT 120 seconds" / "# exit=254"
//   a test's own TAP (kselftest.h, kselftest_harness.h)
//     "not ok N NAME [# REASON]", "Bail out! MSG", "FAIL  FIXTURE.NAME",
//     "FAILED: P / N tests passed.", "Totals: pass:P fail:F ..." (F > 0)
//   the KVM selftests' TEST_ASSERT (lib/assert.c), a block:
//     "==== Test Assertion Failure ===="
//     "  FILE:LINE: EXPRESSION"
//     "  pid=P tid=T errno=E - STRERROR"
//     "     1  0x...: FUNCTION at FILE:LINE"     (the stack, "(inlined by)")
//     "  MESSAGE"                                 (the assertion's own words)
// A "# SKIP", "# TODO" or "# XFAIL" directive is not a failure.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench::parsers {

enum class OutcomeKind {
  none,         // not a status line
  test_start,   // the runner starts `test`
  test_passed,  // the runner's "ok" for `test` (skipped included)
  test_failed,  // a failure: of `test` when the runner names it, else of the test running
};

struct TestOutcome {
  OutcomeKind kind = OutcomeKind::none;
  std::string test;    // the runner's NAME (basename), "" when the line names none
  std::string reason;  // for a failure: "TIMEOUT 120 seconds", "exit=254", the line itself
};

TestOutcome kselftest_outcome(std::string_view line);

// The basename of a test as the runner or a command line names it
// ("x86/hyperv_svm_test" -> "hyperv_svm_test").
std::string_view test_basename(std::string_view name);

// Reads a TEST_ASSERT block one line at a time: begin() at its first line,
// then take() each next one until it returns false (the line is not the
// block's). reason() says where it failed and why, in the test's words:
// "Test Assertion Failure at lib/kvm_util.c:1411: false (No vm physical
// memory at 0xffbffff000)".
class AssertionBlock {
 public:
  static bool starts(std::string_view line);
  void begin();
  // `line` trimmed; false when the block ended before it (the caller reads
  // it as any other line).
  bool take(std::string_view line);
  bool open() const { return open_; }
  std::string reason() const;

 private:
  bool open_ = false;
  int step_ = 0;  // 0 location, 1 pid, 2 stack or message, 3 done
  std::string where_, message_;
};

}  // namespace kvmbench::parsers
