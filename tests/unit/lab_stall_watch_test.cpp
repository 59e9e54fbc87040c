// The lab's stall watch fed a made-up console: heartbeats and the
// command's output are life; silence or a kernel stall report with none
// after it is a stalled machine, said with its reason.
#include "hostlib/lab/lab_stall_watch.h"

#include <gtest/gtest.h>

#include <string>

using namespace kvmbench::host;

namespace {

std::string heartbeats(int n) {
  std::string s = "KVMBENCH-LAB-BOOTED uptime=1.0\nKVMBENCH-LAB-READY uptime=3.0 kvm=loaded\n";
  for (int i = 1; i <= n; ++i) s += "KVMBENCH-LAB-ALIVE uptime=" + std::to_string(10 * i) + ".00\n";
  return s;
}

}  // namespace

TEST(LabStallWatch, AHeartbeatEveryTenSecondsKeepsASilentCommandAlive) {
  LabStallWatch w({.silence_s = 30, .stall_grace_s = 20, .progress_note_s = 60});
  for (int t = 1; t <= 600; ++t) {
    auto v = w.observe(t, heartbeats(t / 10), false);
    ASSERT_EQ(v.stalled, "") << "at " << t;
  }
}

TEST(LabStallWatch, NoSignOfLifeForTheSilenceLimitIsAStallSaidWithTheLastUptime) {
  LabStallWatch w({.silence_s = 30, .stall_grace_s = 20, .progress_note_s = 1000});
  const std::string console = heartbeats(12);  // then nothing more
  for (int t = 1; t <= 120; ++t) {
    auto v = w.observe(t, t < 120 ? heartbeats(t / 10) : console, false);
    if (t < 120) ASSERT_EQ(v.stalled, "") << t;
  }
  std::string stalled;
  for (int t = 121; t <= 200 && stalled.empty(); ++t) {
    stalled = w.observe(t, console, false).stalled;
    if (!stalled.empty()) EXPECT_EQ(t, 150);
  }
  EXPECT_NE(stalled.find("no sign of life (heartbeat or command output) for 30 s (--lab-silence 30)"),
            std::string::npos)
      << stalled;
  EXPECT_NE(stalled.find("uptime 120.00 s"), std::string::npos) << stalled;
}

TEST(LabStallWatch, TheCommandsOutputIsLifeToo) {
  LabStallWatch w({.silence_s = 30, .stall_grace_s = 20, .progress_note_s = 1000});
  const std::string console = heartbeats(0);
  for (int t = 1; t <= 300; ++t) ASSERT_EQ(w.observe(t, console, t % 25 == 0).stalled, "") << t;
}

TEST(LabStallWatch, AKernelStallReportWithNoLifeAfterItEndsTheRunBeforeTheSilenceLimit) {
  LabStallWatch w({.silence_s = 300, .stall_grace_s = 20, .progress_note_s = 1000});
  std::string console = heartbeats(5);
  for (int t = 1; t <= 50; ++t) w.observe(t, heartbeats(t / 10), false);
  console += "[  61.2] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [qemu-system-x86:812]\n";
  auto v = w.observe(61, console, false);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("the lab kernel reports a stall at 61 s: [  61.2] watchdog: BUG: soft lockup"),
            std::string::npos);
  EXPECT_EQ(v.stalled, "");
  // The lockup repeats (console output, but no heartbeat): still stalled.
  console += "[  85.2] watchdog: BUG: soft lockup - CPU#0 stuck for 45s! [qemu-system-x86:812]\n";
  EXPECT_EQ(w.observe(75, console, false).stalled, "");
  v = w.observe(81, console, false);
  EXPECT_NE(v.stalled.find("its kernel reported \"[  61.2] watchdog: BUG: soft lockup"), std::string::npos)
      << v.stalled;
}

TEST(LabStallWatch, AStallReportThatTheMachineRecoversFromIsOnlyANote) {
  LabStallWatch w({.silence_s = 300, .stall_grace_s = 20, .progress_note_s = 1000});
  std::string console = heartbeats(5) + "[  55.0] INFO: task kvmbench:301 blocked for more than 120 seconds.\n";
  EXPECT_EQ(w.observe(55, console, false).notes.size(), 1u);
  console += "KVMBENCH-LAB-ALIVE uptime=60.00\n";
  EXPECT_EQ(w.observe(60, console, false).stalled, "");
  for (int t = 61; t <= 200; ++t) {
    if (t % 10 == 0) console += "KVMBENCH-LAB-ALIVE uptime=" + std::to_string(t) + ".00\n";
    auto v = w.observe(t, console, false);
    ASSERT_EQ(v.stalled, "") << t;
    EXPECT_TRUE(v.notes.empty()) << "the report is said once";
  }
}

TEST(LabStallWatch, ACommandQuietForAMinuteGetsAProgressNote) {
  LabStallWatch w({.silence_s = 300, .stall_grace_s = 20, .progress_note_s = 60});
  std::vector<std::string> notes;
  for (int t = 1; t <= 130; ++t)
    for (auto& n : w.observe(t, heartbeats(t / 10), t == 5).notes) notes.push_back(n);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "still running at 65 s: lab uptime 60.00 s, the command's last output 60 s ago");
  EXPECT_EQ(notes[1], "still running at 125 s: lab uptime 120.00 s, the command's last output 120 s ago");
}
