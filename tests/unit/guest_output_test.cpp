#include "analysis/parse/guest_output.h"

#include <gtest/gtest.h>

using kvmbench::parsers::parse_guest_output;

namespace {

const char* kGood =
    "[    0.000000] Linux version 6.1.0-57-cloud-amd64\n"
    "KVMBENCH-BEGIN workload=cpuid_rate\n"
    "KVMBENCH-RESULT {\"case\":\"leaf=0\",\"variant\":\"\",\"metric\":\"cpuid_rate\",\"unit\":\"ops/s\","
    "\"value\":1.5e7,\"iteration\":2,\"count\":100}\r\n"
    "[    2.000000] random: crng init done\n"
    "KVMBENCH-END workload=cpuid_rate status=0\n"
    "[    2.100000] reboot: Power down\n";

}  // namespace

TEST(GuestOutput, ParsesResultsAmongConsoleNoise) {
  auto out = parse_guest_output(kGood);
  EXPECT_TRUE(out.ok()) << out.failure();
  EXPECT_EQ(out.failure(), "");
  EXPECT_EQ(out.workload, "cpuid_rate");
  ASSERT_EQ(out.result.samples.size(), 1u);
  const auto& s = out.result.samples[0];
  EXPECT_EQ(s.case_name, "leaf=0");
  EXPECT_EQ(s.metric, "cpuid_rate");
  EXPECT_EQ(s.unit, "ops/s");
  EXPECT_DOUBLE_EQ(s.value, 1.5e7);
  EXPECT_EQ(s.iteration, 2);
  EXPECT_EQ(s.extra["count"], 100);
  EXPECT_EQ(s.extra["line"], 3);
  EXPECT_EQ(out.result.lines_ignored, 3u);
  EXPECT_EQ(out.result.format, "guest-output");
}

TEST(GuestOutput, MarkerAfterNoiseOnTheSameLine) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN workload=x\n"
      "[ 1.0] some kernel text without newlineKVMBENCH-RESULT {\"case\":\"c\",\"metric\":\"m\","
      "\"unit\":\"ns\",\"value\":3,\"iteration\":0}\n"
      "KVMBENCH-END workload=x status=0\n");
  EXPECT_TRUE(out.ok()) << out.failure();
  ASSERT_EQ(out.result.samples.size(), 1u);
  EXPECT_EQ(out.result.samples[0].value, 3);
}

TEST(GuestOutput, ReportsMalformedResultLines) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN workload=x\n"
      "KVMBENCH-RESULT {\"case\":\"c\",\"metric\":\"m\",\"unit\":\"ns\",\"val\n"
      "KVMBENCH-RESULT {\"case\":\"c\",\"unit\":\"ns\",\"value\":1,\"iteration\":0}\n"
      "KVMBENCH-END workload=x status=0\n");
  EXPECT_FALSE(out.ok());
  ASSERT_EQ(out.malformed.size(), 2u);
  EXPECT_NE(out.malformed[0].find("line 2"), std::string::npos) << out.malformed[0];
  EXPECT_NE(out.malformed[0].find("not valid JSON"), std::string::npos) << out.malformed[0];
  EXPECT_NE(out.malformed[1].find("line 3"), std::string::npos) << out.malformed[1];
  EXPECT_NE(out.malformed[1].find("metric"), std::string::npos) << out.malformed[1];
  EXPECT_NE(out.failure().find("malformed"), std::string::npos);
  EXPECT_TRUE(out.result.samples.empty());
}

TEST(GuestOutput, DetectsStartedButNeverFinished) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN workload=faultin\n"
      "KVMBENCH-RESULT {\"case\":\"c\",\"metric\":\"m\",\"unit\":\"ns\",\"value\":1,\"iteration\":0}\n"
      "[ 30.0] watchdog: BUG: soft lockup\n");
  EXPECT_TRUE(out.began);
  EXPECT_FALSE(out.ended);
  EXPECT_TRUE(out.unfinished());
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(out.failure(), "workload 'faultin' started but never finished");
  EXPECT_EQ(out.result.samples.size(), 1u);  // what arrived is kept
}

TEST(GuestOutput, NeverStarted) {
  auto out = parse_guest_output("[ 0.1] booting\n[ 0.2] still booting\n");
  EXPECT_FALSE(out.began);
  EXPECT_FALSE(out.unfinished());
  EXPECT_NE(out.failure().find("never started"), std::string::npos);
  EXPECT_FALSE(parse_guest_output("").ok());
}

TEST(GuestOutput, NonZeroStatusAndErrors) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN workload=tcp_rr\n"
      "KVMBENCH-ERROR tcp_rr: no peer connected within 30 s\n"
      "KVMBENCH-END workload=tcp_rr status=2\n");
  EXPECT_TRUE(out.ended);
  EXPECT_EQ(out.exit_status, 2);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "line 2: tcp_rr: no peer connected within 30 s");
  EXPECT_NE(out.failure().find("no peer connected"), std::string::npos);

  auto status_only = parse_guest_output("KVMBENCH-BEGIN workload=w\nKVMBENCH-END workload=w status=3\n");
  EXPECT_EQ(status_only.failure(), "workload 'w' exited with status 3");
}

TEST(GuestOutput, KernelPanic) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN workload=panic\n"
      "[    3.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\n");
  EXPECT_TRUE(out.kernel_panic);
  EXPECT_NE(out.failure().find("Attempted to kill init"), std::string::npos);
}

TEST(GuestOutput, BadMarkers) {
  auto out = parse_guest_output(
      "KVMBENCH-BEGIN\n"
      "KVMBENCH-BEGIN workload=a\n"
      "KVMBENCH-END workload=b status=0\n"
      "KVMBENCH-END workload=a status=zero\n");
  EXPECT_EQ(out.malformed.size(), 3u);
  EXPECT_FALSE(out.ended);
  // Something that merely mentions the prefix family is noise.
  auto noise = parse_guest_output("KVMBENCH-BEGIN workload=a\nKVMBENCH-XYZ hello\nKVMBENCH-END workload=a status=0\n");
  EXPECT_TRUE(noise.ok()) << noise.failure();
}

TEST(GuestOutput, ResultOutsideBeginEndIsKeptWithAWarning) {
  auto out = parse_guest_output(
      "KVMBENCH-RESULT {\"case\":\"c\",\"metric\":\"m\",\"unit\":\"ns\",\"value\":1,\"iteration\":0}\n");
  EXPECT_EQ(out.result.samples.size(), 1u);
  ASSERT_EQ(out.result.warnings.size(), 1u);
  EXPECT_NE(out.result.warnings[0].find("before KVMBENCH-BEGIN"), std::string::npos);
}
