// `kvmbench ab`'s pure parts: the order of the boots, the record kept in the
// state directory, the marker on each boot's command line, and the command
// line a kexec'd kernel gets.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analysis/verdicts/ab_experiment.h"
#include "hostlib/state/kexec.h"

using namespace kvmbench;
using ab::Side;

namespace {

std::string letters(const std::vector<Side>& v) {
  std::string s;
  for (Side x : v) s += x == Side::base ? 'A' : 'B';
  return s;
}

}  // namespace

// ABBA blocks cut at 2n: each side as often first as last in a block.
TEST(AbExperiment, AbbaOrderCountsEachSideN) {
  EXPECT_EQ(letters(ab::invocation_order(2, "abba", 0)), "ABBA");
  EXPECT_EQ(letters(ab::invocation_order(3, "abba", 0)), "ABBAAB");
  EXPECT_EQ(letters(ab::invocation_order(5, "abba", 0)), "ABBAABBAAB");
  EXPECT_THROW(ab::invocation_order(1, "abba", 0), std::invalid_argument);
  EXPECT_THROW(ab::invocation_order(3, "aabb", 0), std::invalid_argument);
}

// Random: n of each, the same order for a seed (SplitMix64, not the
// standard library's shuffle), and not always the same order.
TEST(AbExperiment, RandomOrderIsASeededPermutation) {
  const auto a = ab::invocation_order(5, "random", 42);
  EXPECT_EQ(a, ab::invocation_order(5, "random", 42));
  EXPECT_EQ(std::count(a.begin(), a.end(), Side::base), 5);
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 50; ++seed) seen.insert(letters(ab::invocation_order(3, "random", seed)));
  EXPECT_GT(seen.size(), 5u);  // of the C(6,3) = 20 orders
}

TEST(AbExperiment, StateRoundTripsAndRefusesWhatIsNotOne) {
  ab::Experiment e;
  e.id = "ab-20261203T090000Z-1a2b";
  e.command = {"run", "asid", "--preset", "lab"};
  e.base = {"running", "", "/boot/vmlinuz-6.1.0-57-cloud-amd64", "/boot/initrd.img-6.1.0-57-cloud-amd64",
            "6.1.0-57-cloud-amd64", "root=/dev/vda1 ro"};
  e.cand = e.base;
  e.cand.append = "kvm_amd.npt=0";
  for (Side s : ab::invocation_order(2, "abba", 0)) {
    ab::Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  e.n = 2;
  e.steps[0].status = ab::StepStatus::done;
  e.steps[0].run_dir = "/r/step1-base/asid-x";
  e.steps[1].status = ab::StepStatus::no_boot;
  e.steps[1].note = "its kernel did not come back";
  e.kexec_step = 2;
  const ab::Experiment back = ab::experiment_from_json(to_json(e));
  EXPECT_EQ(back.id, e.id);
  EXPECT_EQ(back.cand.append, "kvm_amd.npt=0");
  EXPECT_EQ(back.steps[1].status, ab::StepStatus::no_boot);
  EXPECT_EQ(back.request_key(), e.request_key());
  EXPECT_EQ(back.next_step(), 2u);
  EXPECT_EQ(back.count(Side::base, ab::StepStatus::done), 1u);
  // Another request is another experiment.
  ab::Experiment other = e;
  other.cand.append = "";
  EXPECT_NE(other.request_key(), e.request_key());
  // Not a state file; a state file with a key of the wrong type.
  EXPECT_THROW(ab::experiment_from_json({{"id", "x"}}), std::invalid_argument);
  nlohmann::json bad = to_json(e);
  bad["steps"][0]["status"] = "finished";
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
  bad = to_json(e);
  bad["n"] = 3;  // 4 steps for n = 3
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
}

TEST(AbExperiment, MarkerOnTheCommandLine) {
  ab::Experiment e;
  e.id = "ab-1";
  EXPECT_EQ(e.marker(3), "kvmbench.ab=ab-1:3");
  EXPECT_EQ(e.marker(-1), "kvmbench.ab=ab-1:base");
  EXPECT_EQ(ab::marked_step("console=ttyS0 kvmbench.ab=ab-1:3 quiet", "ab-1"), 3);
  EXPECT_EQ(ab::marked_step("console=ttyS0 kvmbench.ab=ab-1:base", "ab-1"), -1);
  EXPECT_FALSE(ab::marked_step("console=ttyS0 kvmbench.ab=ab-2:3", "ab-1"));  // another experiment's
  EXPECT_FALSE(ab::marked_step("console=ttyS0", "ab-1"));
  EXPECT_FALSE(ab::marked_step("kvmbench.ab=ab-1:x3", "ab-1"));
}

// As LKP's kexec builds it: the boot
// loader's words go, init's words stay after "--", an earlier marker is
// replaced.
TEST(AbExperiment, KexecCommandLine) {
  EXPECT_EQ(host::kexec_cmdline("BOOT_IMAGE=/vmlinuz-6.1 root=UUID=x ro initrd=/initrd.img quiet", "kvm_amd.npt=0",
                                "kvmbench.ab=ab-1:2"),
            "root=UUID=x ro quiet kvm_amd.npt=0 kvmbench.ab=ab-1:2");
  EXPECT_EQ(host::kexec_cmdline("root=/dev/sda1 kvmbench.ab=ab-1:1 -- single", "", "kvmbench.ab=ab-1:2"),
            "root=/dev/sda1 kvmbench.ab=ab-1:2 -- single");
  EXPECT_EQ(host::kexec_cmdline("console=ttyS0 panic=-1 quiet\n", "", ""), "console=ttyS0 panic=-1 quiet");
}
