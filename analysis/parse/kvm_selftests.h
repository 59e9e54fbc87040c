// The performance output of the KVM selftests (tools/testing/selftests/kvm),
// as the tests print it (pr_info to stdout), plain or in kselftest's TAP
// form (each line after "# "):
//   demand_paging_test         "Total guest execution time:\t%ld.%.9lds"
//                              "Per-vcpu demand paging rate:\t%f pgs/sec/vcpu"
//                              "Overall demand paging rate:\t%f pgs/sec"
//                              "vCPU %d execution time: %ld.%.9lds" (per vCPU)
//   dirty_log_perf_test        "Populate memory time: %ld.%.9lds"
//                              "Enabling dirty logging time: ..."
//                              "Iteration %d dirty memory time: ..."
//                              "Iteration %d get dirty log time: ..."
//                              "Iteration %d clear dirty log time: ..."
//                              "Disabling dirty logging time: ..."
//                              "Get dirty log over %lu iterations took %ld.%.9lds.
//                               (Avg %ld.%.9lds/iteration)", the same for Clear
//   memslot_perf_test          "Testing %s performance with %i runs, %d seconds each"
//                              "Best runtime result was %ld.%.9lds per iteration
//                               (with %lu iterations)"
//                              "Best slot setup time for the whole test area was %ld.%.9lds"
//   access_tracking_perf_test  "%-30s: %ld.%09lds" (one line per phase)
//   kvm_page_table_test        "KVM_CREATE_MAPPINGS: total execution time: %ld.%.9lds"
//                              (and KVM_UPDATE_MAPPINGS, KVM_ADJUST_MAPPINGS)
// Samples: case the test ("demand_paging_test", "memslot_perf_test/<its
// test>"; the best slot setup time, printed once after all of memslot_perf_
// test's tests, is "memslot_perf_test"), variant the guest mode where the
// test prints one ("Testing guest mode: ..."), times in "s", rates in
// "pages/s" (kvm_page_table_test's stages: "create_mappings_time", ...).
// "Iteration N" lines are the test's own repetitions (iteration
// N - 1); a vCPU's line is a sub-unit (extra "vcpu").
// The output is read as it is published: in a mail (quoted with "> ", at
// any depth, as kernel logs are read), under kselftest's runner (each line
// after "# "), several tests in one log, several runs of one test in one
// file. A run begins at a command line ("./dirty_log_perf_test -v 96"), the
// runner's "selftests: kvm: NAME", or where a figure of another test or one
// this run already printed (a guest mode, a memslot test seen again)
// shows that the test ran again; what a run set (its guest mode) ends with
// it. Several runs of one test are kept apart, never values of one
// repetition: each gets the text before it that ends in ':' ("Without this
// series, TDP MMU:") in its case, "dirty_log_perf_test [Without this
// series, TDP MMU]", and runs that no text tells apart are invocations
// (extra "invocation"); a note says which. A dirty-log summary whose
// "(Avg ...)" a mail wrapped onto the next line (quoted or not) is read
// joined, with a note; one that does not read even so is skipped with a
// warning (it is derived from the "Iteration N" lines, which are kept),
// never the run lost.
// A test that failed (kselftest_outcome.h: the runner's "not ok ... #
// TIMEOUT 120 seconds", a TEST_ASSERT block) is in ParseResult::failures
// with its reason as printed, and each figure it printed before is marked
// (extra "failed": the reason). One file is one invocation of its tests:
// several files are several.
#pragma once

#include <string_view>

#include "analysis/model/metric_roles.h"
#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

struct SelftestParse {
  ParseResult result;  // format "kvm-selftest"
  std::string test;    // "demand_paging_test", ...
  MetricRoles roles;   // the rates of demand paging and the dirty log totals are derived
};

// True when some line (after any "# ") is one of the lines above that
// names its test.
bool looks_like_kvm_selftest(std::string_view text);

// Throws ParseError with the line for a recognised line whose number is
// malformed, and when no line gives a value.
SelftestParse parse_kvm_selftest(std::string_view text);

}  // namespace kvmbench::parsers
