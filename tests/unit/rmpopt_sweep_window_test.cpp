// suites/rmpopt/sweep_window.h: which of a repetition's kernel-log lines
// time its sweep, on logs laid out as the live run writes them (the
// series' lines, kvmbench's two marks) and as captures before the marks.
#include <gtest/gtest.h>

#include <string>

#include "suites/rmpopt/sweep_window.h"

using namespace kvmbench::suites::rmpopt;

namespace {

std::string sweep(int ms) {
  return "SEV-SNP: RMPOPT execution time " + std::to_string(ms) +
         "000000 ns for physical address range 0x0 - 0x20000000000 on all cpus\n";
}
const std::string kCycles = "SEV-SNP: RMPOPT largest cycles 90210\n";
const std::string kFirst = std::string(kMarkFirstExit) + "\n";
const std::string kAll = std::string(kMarkAllExited) + "\n";

}  // namespace

TEST(RmpoptSweepWindow, MarkedTheFirstSweepAfterTheFirstExitWithItsCyclesAndTheOthersCounted) {
  // The previous repetition's late sweep, the mark, this one's cycle lines
  // and sweep, a second sweep before the last exit (v3's periodic one), the
  // last mark and the series' sweep 10 s after it.
  const std::string log = sweep(111) + kFirst + kCycles + sweep(400) + sweep(300) + kAll + sweep(222);
  const SweepWindow w = repetition_sweep_window(log, "raw/kmsg.it1.log");
  EXPECT_TRUE(w.refusal.empty()) << w.refusal;
  EXPECT_TRUE(w.marked);
  EXPECT_EQ(w.text, kCycles + sweep(400));
  EXPECT_EQ(w.before_first_exit, 1);
  EXPECT_EQ(w.more_in_window, 1);
  EXPECT_EQ(w.after_last_exit, 1);
}

TEST(RmpoptSweepWindow, MarkedWithoutASweepAfterTheFirstExitKeepsNone) {
  const SweepWindow w = repetition_sweep_window(sweep(111) + kFirst + kCycles + kAll + sweep(222), "k");
  EXPECT_TRUE(w.refusal.empty());
  EXPECT_EQ(w.text.find("execution time"), std::string::npos) << w.text;
  EXPECT_EQ(w.before_first_exit + w.after_last_exit, 2);
}

TEST(RmpoptSweepWindow, UnmarkedOneSweepIsTheWholeCaptureTwoAreRefused) {
  const std::string one = kCycles + sweep(400);
  const SweepWindow w = repetition_sweep_window(one, "k");
  EXPECT_FALSE(w.marked);
  EXPECT_EQ(w.text, one);
  const SweepWindow two = repetition_sweep_window(sweep(111) + one, "raw/kmsg.it1.log");
  EXPECT_NE(two.refusal.find("raw/kmsg.it1.log holds 2 RMPOPT sweeps and no mark"), std::string::npos)
      << two.refusal;
  EXPECT_TRUE(two.text.empty());
  // The mark after the first exit as the kernel log keeps it, with a /dev/kmsg prefix.
  const SweepWindow kmsg =
      repetition_sweep_window("6,1,5,-;" + sweep(111) + "13,2,6,-;" + kFirst + "6,3,7,-;" + sweep(400), "k");
  EXPECT_TRUE(kmsg.marked);
  EXPECT_EQ(kmsg.text, "6,3,7,-;" + sweep(400));
}
