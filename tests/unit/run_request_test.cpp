// `kvmbench run`'s options checked together into a RunRequest
// (suites/engine/run_request.h), before anything runs: each refusal is
// exit 2 naming the option.
#include "suites/engine/run_request.h"

#include <gtest/gtest.h>

#include <string>

#include "suites/framework/errors.h"
#include "tests/support/exit_error_of.h"

namespace kvmbench::engine {
namespace {

RunCommandLine line_for(const std::string& target = "directmap") {
  RunCommandLine line;
  line.request.target = target;
  return line;
}

// The message of the usage error `line` is refused with ("" when it is not).
std::string refusal(const RunCommandLine& line) {
  return test_support::usage_error_of([&] { checked_run_request(line); });
}

TEST(RunRequest, TheBoundOptionsPassAsTheyAre) {
  RunCommandLine line = line_for("all");
  line.request.preset = "host";
  line.request.out_root = "/tmp/runs";
  line.request.max_runs = 7;
  const RunRequest req = checked_run_request(line);
  EXPECT_EQ(req.target, "all");
  EXPECT_EQ(req.preset, "host");
  EXPECT_EQ(req.out_root, "/tmp/runs");
  EXPECT_EQ(req.max_runs, 7);
  // Nothing given: the preset's repetitions, no warm-up, no wait for the lock.
  EXPECT_EQ(req.repetitions, 0);
  EXPECT_FALSE(req.adaptive);
  EXPECT_EQ(req.warmup, 0);
  EXPECT_EQ(req.wait_lock, std::chrono::seconds(0));
  EXPECT_TRUE(req.overrides.empty());
}

TEST(RunRequest, RepetitionsAreAPositiveNumberOrAuto) {
  RunCommandLine line = line_for();
  line.repetitions = "3";
  RunRequest req = checked_run_request(line);
  EXPECT_EQ(req.repetitions, 3);
  EXPECT_FALSE(req.adaptive);
  EXPECT_EQ(req.warmup, 0);

  // auto: one warm-up unless --warmup says otherwise.
  line.repetitions = "auto";
  req = checked_run_request(line);
  EXPECT_TRUE(req.adaptive);
  EXPECT_EQ(req.warmup, 1);
  line.warmup = 0;
  EXPECT_EQ(checked_run_request(line).warmup, 0);
  line.warmup = 2;
  line.repetitions = "5";
  EXPECT_EQ(checked_run_request(line).warmup, 2);

  for (const std::string bad : {"0", "-2", "3x", "three", "Auto", "99999999999999999999", "4294967297"}) {
    line.repetitions = bad;
    EXPECT_EQ(refusal(line), "-r: '" + bad + "' is neither a positive number nor 'auto'") << bad;
  }
}

TEST(RunRequest, SetsAreNameEqualsValueAndTheShorthandsWin) {
  RunCommandLine line = line_for();
  line.sets = {"vcpus=2", "layouts=first,last", "empty="};
  line.vcpus = "4";
  line.backing = "hugetlb";
  const RunRequest req = checked_run_request(line);
  const std::map<std::string, std::string> want = {
      {"vcpus", "4"}, {"layouts", "first,last"}, {"empty", ""}, {"backing", "hugetlb"}};
  EXPECT_EQ(req.overrides, want);

  for (const std::string bad : {"vcpus", "=4", ""}) {
    line.sets = {bad};
    EXPECT_EQ(refusal(line), "--set '" + bad + "': expected NAME=VALUE") << bad;
  }
}

TEST(RunRequest, WaitLockIsBareOrWholeSeconds) {
  RunCommandLine line = line_for();
  line.wait_lock = "true";  // CLI11's value of a bare flag
  EXPECT_EQ(checked_run_request(line).wait_lock, std::nullopt);
  line.wait_lock = "30";
  EXPECT_EQ(checked_run_request(line).wait_lock, std::chrono::seconds(30));
  line.wait_lock = "0";
  EXPECT_EQ(checked_run_request(line).wait_lock, std::chrono::seconds(0));
  for (const std::string bad : {"-1", "1.5", "directmap"}) {
    line.wait_lock = bad;
    EXPECT_NE(refusal(line).find("--wait-lock=" + bad + ": SECONDS is a whole number"), std::string::npos) << bad;
  }
}

TEST(RunRequest, AnotherHostsFilesNeedADryRun) {
  RunCommandLine line = line_for();
  line.request.host_file = "probe.json";
  EXPECT_EQ(refusal(line), "--host FILE plans for another host: it needs --dry-run");
  line.request.dry_run = true;
  EXPECT_EQ(checked_run_request(line).host_file, "probe.json");

  line = line_for();
  line.request.kmsg_file = "dmesg.txt";
  EXPECT_NE(refusal(line).find("--kmsg FILE plans with a captured kernel log: it needs --dry-run"), std::string::npos);
  line.request.dry_run = true;
  EXPECT_EQ(checked_run_request(line).kmsg_file, "dmesg.txt");
}

}  // namespace
}  // namespace kvmbench::engine
