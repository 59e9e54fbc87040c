// `kvmbench lab` refuses what it cannot run before it boots anything: no
// command, a lab inside the lab, a bad size, a kernel file that is not there
// (exit 2 with the reason). The lab itself: tests/integration/lab_*_test.cpp.
#include <gtest/gtest.h>

#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::run_kvmbench;

namespace {

void expect_usage_error(std::vector<std::string> args, const std::string& says) {
  args.insert(args.begin(), "lab");
  auto r = run_kvmbench(args, 30, "", {private_state_dir_env()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("booting"), std::string::npos) << "booted before refusing: " << r.err;
}

}  // namespace

TEST(LabCli, RefusesBadInputBeforeBooting) {
  expect_usage_error({}, "give a kvmbench command to run inside");
  expect_usage_error({"lab", "probe"}, "cannot boot a lab of its own");
  expect_usage_error({"--lab-memory", "12", "probe"}, "--lab-memory 12");
  expect_usage_error({"--lab-memory", "lots", "probe"}, "--lab-memory lots");
  expect_usage_error({"--lab-vcpus", "0", "probe"}, "--lab-vcpus");
  expect_usage_error({"--lab-kernel", "/nonexistent/vmlinuz-1.2.3", "probe"}, "no such file");
  expect_usage_error({"--lab-sh", "true", "probe"}, "either a command or --lab-sh");
}

TEST(LabCli, HelpNamesTheLabsOwnOptions) {
  auto r = run_kvmbench({"lab", "--help"}, 30);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* o : {"--lab-vcpus", "--lab-memory", "--lab-kernel", "--lab-append", "--lab-timeout", "--lab-silence",
                        "--lab-out", "--lab-console", "--lab-sh", "Exit status"})
    EXPECT_NE(r.out.find(o), std::string::npos) << o << "\n" << r.out;
}
