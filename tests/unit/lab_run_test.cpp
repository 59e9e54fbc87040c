// `kvmbench lab` through its engine (suites/engine/lab_run.h), without
// booting anything: what the lab runs and where its runs land on the host
// (lab_command), and the requests refused before anything is set up.
#include "suites/engine/lab_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/exit_error_of.h"

namespace kvmbench::engine {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

const fs::path kSelf = "/usr/bin/kvmbench";

LabRequest request(Argv command, std::string out = "/lab/out") {
  LabRequest req;
  req.command = std::move(command);
  req.out = std::move(out);
  return req;
}

TEST(LabCommand, ACommandThatStoresNoRunGetsNoOut) {
  const LabCommand c = lab_command(request({"probe", "--json"}), kSelf);
  EXPECT_EQ(c.argv, (Argv{"/usr/bin/kvmbench", "probe", "--json"}));
  EXPECT_TRUE(c.out_dir.empty());
  EXPECT_TRUE(c.ab_state.empty());
}

TEST(LabCommand, ARunLandsInTheLabsOutUnlessItHasItsOwn) {
  LabCommand c = lab_command(request({"run", "asid", "-r", "2"}), kSelf);
  EXPECT_EQ(c.argv, (Argv{"/usr/bin/kvmbench", "run", "asid", "-r", "2", "--out", "/lab/out"}));
  EXPECT_EQ(c.out_dir, "/lab/out");
  c = lab_command(request({"run", "asid", "--out", "/mine"}), kSelf);
  EXPECT_EQ(c.argv, (Argv{"/usr/bin/kvmbench", "run", "asid", "--out", "/mine"}));
  EXPECT_EQ(c.out_dir, "/mine");
  c = lab_command(request({"ingest", "dmesg.txt", "--out=/mine"}), kSelf);
  EXPECT_EQ(c.out_dir, "/mine");
  EXPECT_EQ(c.argv.size(), 4u);
  // A relative --lab-out is the host's, from where kvmbench runs.
  c = lab_command(request({"run", "asid"}, "results/runs"), kSelf);
  EXPECT_EQ(c.out_dir, fs::absolute("results/runs"));
}

TEST(LabCommand, AbGetsItsOutBeforeItsCommandAndItsStateBesideItsRuns) {
  LabCommand c = lab_command(request({"ab", "--cand", "k.deb", "--", "run", "asid", "--out", "/inner"}), kSelf);
  // The --out after `--` is the step's, not ab's: ab's own goes before it.
  EXPECT_EQ(c.argv, (Argv{"/usr/bin/kvmbench", "ab", "--cand", "k.deb", "--out", "/lab/out", "--", "run", "asid",
                          "--out", "/inner"}));
  EXPECT_EQ(c.out_dir, "/lab/out");
  EXPECT_EQ(c.ab_state, "/lab/out/ab-state");
  c = lab_command(request({"ab", "--out", "/mine", "--", "run", "asid"}), kSelf);
  EXPECT_EQ(c.argv, (Argv{"/usr/bin/kvmbench", "ab", "--out", "/mine", "--", "run", "asid"}));
  EXPECT_EQ(c.ab_state, "/mine/ab-state");
}

TEST(LabCommand, AScriptWritesToTheLabsOut) {
  LabRequest req = request({});
  req.shell = "kvmbench probe > \"$KVMBENCH_LAB_OUT/p\"";
  const LabCommand c = lab_command(req, kSelf);
  EXPECT_EQ(c.argv, (Argv{"/bin/sh", "-c", req.shell}));
  EXPECT_EQ(c.out_dir, "/lab/out");
}

// The usage error a request ends with before anything is set up ("" none).
std::string refusal(const LabRequest& req) {
  return test_support::usage_error_of([&] { run_in_lab(req); });
}

TEST(RunInLab, BadRequestsAreRefusedBeforeAnythingIsSetUp) {
  EXPECT_NE(refusal(request({})).find("give a kvmbench command to run inside"), std::string::npos);
  LabRequest both = request({"probe"});
  both.shell = "true";
  EXPECT_NE(refusal(both).find("either a command or --lab-sh"), std::string::npos);
  EXPECT_NE(refusal(request({"lab", "probe"})).find("cannot boot a lab of its own"), std::string::npos);
  LabRequest small = request({"probe"});
  small.memory = "256M";
  EXPECT_EQ(refusal(small), "--lab-memory 256M: give a size of at least 512M");
  LabRequest none = request({"probe"});
  none.vcpus = 0;
  EXPECT_EQ(refusal(none), "--lab-vcpus: 1..64");
}

}  // namespace
}  // namespace kvmbench::engine
