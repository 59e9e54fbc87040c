// The closing block of `kvmbench run`: one line per suite/preset, the run
// directories named once, each warning kind once with its count, every
// line within 80 columns.
#include "suites/engine/run_summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using kvmbench::engine::RunSummary;

namespace {

std::size_t count_lines_with(const std::vector<std::string>& lines, const std::string& what) {
  std::size_t n = 0;
  for (const auto& l : lines) n += l.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST(RunSummary, OneLinePerPresetAndEachWarningKindOnceWithItsCount) {
  RunSummary s;
  s.not_run("directmap: not run here: document: " + std::string(120, 'r'));
  s.ran("rmpopt", "host", "ran, 3 repetitions", "/tmp/out/rmpopt-20261201T000000Z-h", 1.3);
  s.ran("asid", "host", "NOTHING MEASURED: 4 parts skipped", "/tmp/out/asid-1", 0.5);
  const std::string aslr = "ASLR is on (randomize_va_space = 2): address layout varies between runs; " +
                           std::string("echo 0 > /proc/sys/kernel/randomize_va_space for steadier results");
  for (int i = 0; i < 6; ++i) s.warn("ASLR is on (randomize_va_space = 2)", aslr);
  s.warn("high variation", "a: high variation, CV 8.2% (> 5%) over 5 runs");
  s.warn("high variation", "b: high variation, CV 9.9% (> 5%) over 5 runs");

  const auto lines = s.render(12.34);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "kvmbench: summary (wall time 12.3 s):");
  // (Wrapped: a word longer than a line stays whole, on a line of its own.)
  const std::string r120 = "    " + std::string(120, 'r');
  for (const auto& l : lines)
    if (l != r120) EXPECT_LE(l.size(), 80u) << l;
  EXPECT_EQ(count_lines_with(lines, "  rmpopt / host: ran, 3 repetitions, 1.3 s -> rmpopt-20261201T000000Z-h"), 1u);
  EXPECT_EQ(count_lines_with(lines, "  asid / host: NOTHING MEASURED: 4 parts skipped, 0.5 s -> asid-1"), 1u);
  EXPECT_EQ(count_lines_with(lines, "  directmap: not run here: document:"), 1u);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), r120), 1);
  EXPECT_EQ(count_lines_with(lines, "  runs in /tmp/out"), 1u);
  // A host setting's warning starts with its kind: said once, counted at its end.
  EXPECT_EQ(count_lines_with(lines, "  ASLR is on (randomize_va_space = 2): address layout"), 1u);
  EXPECT_EQ(count_lines_with(lines, "ASLR is on"), 1u);
  EXPECT_EQ(count_lines_with(lines, "results (6x)"), 1u);
  EXPECT_EQ(count_lines_with(lines, "high variation (2x), e.g.:"), 1u);
  // The first text of a kind in full, wrapped; the others only counted.
  EXPECT_EQ(count_lines_with(lines, "randomize_va_space for steadier results"), 1u);
  EXPECT_EQ(count_lines_with(lines, "b: high variation"), 0u);
}

TEST(RunSummary, ADirectoryThatDoesNotFitGoesUnderItsLine) {
  RunSummary s;
  s.ran("make_shared", "document", "PARTIAL: 1 part skipped", "/tmp/out/make_shared-20261201T000000Z-" +
        std::string(30, 'h'), 0.6);
  const auto lines = s.render(1);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[1], "  make_shared / document: PARTIAL: 1 part skipped, 0.6 s");
  EXPECT_EQ(lines[2].rfind("    -> make_shared-20261201T000000Z-hhh", 0), 0u) << lines[2];
}

TEST(RunSummary, RunsInSeveralFoldersKeepTheirPaths) {
  RunSummary s;
  s.ran("rmpopt", "host", "ran, 1 repetition", "/a/rmpopt-1", 1);
  s.ran("asid", "host", "ran, 1 repetition", "/b/asid-1", 1);
  const auto lines = s.render(2);
  EXPECT_EQ(count_lines_with(lines, "-> /a/rmpopt-1"), 1u);
  EXPECT_EQ(count_lines_with(lines, "-> /b/asid-1"), 1u);
  EXPECT_EQ(count_lines_with(lines, "runs in"), 0u);
  EXPECT_EQ(count_lines_with(lines, "warnings"), 0u) << "no warning, no heading";
}

// A live `run all` on a boot that cannot run every document preset names the
// boot the others need, once per boot, within 80 columns.
TEST(RunSummary, TheOtherBootIsNamedOncePerSetting) {
  RunSummary s;
  s.not_run("make_shared: not run here: document: needs another boot, with kvm.vm_memory_attributes=0: ...");
  s.other_boot("kvm.vm_memory_attributes=0", "make_shared / document");
  s.other_boot("kvm.vm_memory_attributes=0", "make_shared / document");  // asked twice: named once
  s.other_boot("clearcpuid=flushbyasid", "asid / document");
  const auto lines = s.render(1.0);
  std::string text;  // the lines unwrapped
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 80u) << l;
    text += " " + l.substr(l.find_first_not_of(' '));
  }
  const std::string boot0 =
      "on another boot, with kvm.vm_memory_attributes=0 on the kernel command line: make_shared / document";
  ASSERT_NE(text.find(boot0), std::string::npos) << text;
  EXPECT_EQ(text.find(boot0, text.find(boot0) + 1), std::string::npos) << text;
  EXPECT_EQ(count_lines_with(lines, "on another boot, with clearcpuid=flushbyasid"), 1u);
}

// A reason too long for one line is wrapped, not cut: its end is often the
// one hint that helps ("run it in the emulated lab: ...").
TEST(RunSummary, ALongReasonKeepsItsHint) {
  RunSummary s;
  s.not_run("directmap: not run here: document: KVM cannot run guests here: the minimal guest did not reach its "
            "workload; run it in the emulated lab: kvmbench lab run directmap --preset lab");
  const auto lines = s.render(1.0);
  std::string text;
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 80u) << l;
    text += " " + l.substr(l.find_first_not_of(' '));
  }
  EXPECT_NE(text.find("run it in the emulated lab: kvmbench lab run directmap --preset lab"), std::string::npos) << text;
  EXPECT_EQ(text.find("..."), std::string::npos) << text;
}
