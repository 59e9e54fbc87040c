// `kvmbench ab`'s decisions about its boots (analysis/verdicts/ab_boot.h):
// which machine facts refuse a kexec experiment and what the refusal says,
// how an image is loaded, the words that end a hang, the boot timeout.
#include <gtest/gtest.h>

#include "analysis/model/kexec_facts.h"
#include "analysis/verdicts/ab_boot.h"

using namespace kvmbench::ab;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

KexecKernel kernel(const std::string& side, const std::string& cmdline = "root=/dev/vda1 ro") {
  KexecKernel k;
  k.side = side;
  k.spec = side == "base" ? "running" : "6.19.0-rc1+";
  k.image = "/boot/vmlinuz-" + k.spec;
  k.initrd = "/boot/initrd.img-" + k.spec;
  k.release = k.spec;
  k.cmdline = cmdline;
  return k;
}

std::string refusal(const KexecHost& h, const std::vector<KexecKernel>& ks) {
  const auto r = preflight_refusal(h, ks);
  return r ? *r : std::string();
}

}  // namespace

TEST(AbBoot, LockdownModeIsTheSelectedWord) {
  EXPECT_EQ(lockdown_mode("[none] integrity confidentiality"), "none");
  EXPECT_EQ(lockdown_mode("none [integrity] confidentiality\n"), "integrity");
  EXPECT_EQ(lockdown_mode("none integrity [confidentiality]"), "confidentiality");
  EXPECT_EQ(lockdown_mode(""), "");
}

TEST(AbBoot, FileLoadWhereLockedDownOrSigned) {
  EXPECT_FALSE(use_kexec_file_load("", false));
  EXPECT_FALSE(use_kexec_file_load("none", false));
  EXPECT_TRUE(use_kexec_file_load("none", true));
  EXPECT_TRUE(use_kexec_file_load("integrity", false));
  EXPECT_TRUE(use_kexec_file_load("confidentiality", true));
}

TEST(AbBoot, RootsTheKernelCannotFindAlone) {
  EXPECT_EQ(root_device("BOOT_IMAGE=/vmlinuz root=UUID=1234-abcd ro quiet"), "UUID=1234-abcd");
  // The last root= wins; init's words after -- are not the kernel's.
  EXPECT_EQ(root_device("root=UUID=1 root=/dev/sda2 -- root=UUID=2"), "/dev/sda2");
  EXPECT_TRUE(root_needs_initrd("root=UUID=1234 ro"));
  EXPECT_TRUE(root_needs_initrd("root=LABEL=root"));
  EXPECT_TRUE(root_needs_initrd("root=/dev/mapper/vg-root"));
  EXPECT_TRUE(root_needs_initrd("root=/dev/disk/by-uuid/1234"));
  EXPECT_FALSE(root_needs_initrd("root=PARTUUID=0a1b-02 ro"));
  EXPECT_FALSE(root_needs_initrd("root=/dev/vda1"));
  EXPECT_FALSE(root_needs_initrd("console=ttyS0"));
  EXPECT_FALSE(root_needs_initrd("root=UUID=1 root=/dev/sda2"));
}

TEST(AbBoot, AMachineThatCanKexecIsNotRefused) {
  KexecHost h;
  h.lockdown = "none";
  auto ks = std::vector<KexecKernel>{kernel("base"), kernel("cand")};
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);
  for (auto& k : ks) k.trial_load = "";
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);
  // Not reported (securityfs not mounted): the trial load decides.
  h.lockdown = "";
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);
}

// Each fact that refuses, alone, and what the refusal names: the cause and
// the way out.
TEST(AbBoot, EachCauseRefusesNamingItAndTheWayOut) {
  const auto ks = std::vector<KexecKernel>{kernel("base"), kernel("cand")};
  struct Case {
    const char* what;
    void (*change)(KexecHost&);
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"no kexec-tools", [](KexecHost& h) { h.kexec_tool = false; }, {"kexec-tools", "--boot-via reboot"}},
      {"not root", [](KexecHost& h) { h.root = false; }, {"needs root"}},
      {"no KEXEC_CORE", [](KexecHost& h) { h.kexec_core = false; },
       {"no /sys/kernel/kexec_loaded", "CONFIG_KEXEC_CORE", "--boot-via reboot"}},
      {"kexec_load_disabled", [](KexecHost& h) { h.load_disabled = true; },
       {"kexec_load_disabled is 1", "--boot-via reboot"}},
      {"TDX partial-write erratum", [](KexecHost& h) { h.tdx_pw_mce = true; }, {"tdx_pw_mce", "--boot-via reboot"}},
      {"TDX initialised", [](KexecHost& h) { h.tdx_initialised = true; },
       {"TDX is initialised", "TDH.SYS.DISABLE", "kvm_intel.tdx=0", "--boot-via reboot"}},
      {"lockdown, unsigned images", [](KexecHost& h) { h.lockdown = "integrity"; },
       {"locked down ([integrity]", "base kernel running", "not signed", "--boot-via reboot"}},
  };
  for (const auto& c : cases) {
    KexecHost h;
    c.change(h);
    const std::string r = refusal(h, ks);
    ASSERT_FALSE(r.empty()) << c.what;
    for (const auto& w : c.says) EXPECT_TRUE(has(r, w)) << c.what << ": " << r;
  }
}

TEST(AbBoot, LockdownTakesSignedImages) {
  KexecHost h;
  h.lockdown = "confidentiality";
  auto ks = std::vector<KexecKernel>{kernel("base"), kernel("cand")};
  ks[0].image_signed = true;
  const std::string r = refusal(h, ks);
  EXPECT_TRUE(has(r, "the cand kernel 6.19.0-rc1+ (/boot/vmlinuz-6.19.0-rc1+) is not signed")) << r;
  ks[1].image_signed = true;
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);
}

TEST(AbBoot, AKernelWithoutInitrdIsRefusedWhereItsRootNeedsOne) {
  KexecHost h;
  auto ks = std::vector<KexecKernel>{kernel("base", "root=UUID=77aa ro"), kernel("cand", "root=UUID=77aa ro")};
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);  // both have theirs
  ks[1].initrd.clear();
  std::string r = refusal(h, ks);
  EXPECT_TRUE(has(r, "the cand kernel 6.19.0-rc1+ has no initrd")) << r;
  EXPECT_TRUE(has(r, "neither /boot/initrd.img-6.19.0-rc1+ nor /boot/initramfs-6.19.0-rc1+.img")) << r;
  EXPECT_TRUE(has(r, "root=UUID=77aa")) << r;
  EXPECT_TRUE(has(r, "--cand-append root=PARTUUID=")) << r;
  // A bzImage: no release, no initrd.
  ks[1].release.clear();
  r = refusal(h, ks);
  EXPECT_TRUE(has(r, "a bzImage gets none")) << r;
  // A root it finds itself.
  ks[1].cmdline = "root=UUID=77aa ro root=/dev/nvme0n1p2";
  EXPECT_EQ(preflight_refusal(h, ks), std::nullopt);
}

TEST(AbBoot, ARefusedTrialLoadIsNamedWithKexecsWords) {
  KexecHost h;
  h.lockdown = "integrity";
  auto ks = std::vector<KexecKernel>{kernel("base"), kernel("cand")};
  ks[0].image_signed = ks[1].image_signed = true;
  ks[0].trial_load = "";
  ks[1].trial_load = "exit 255: kexec_file_load failed: Operation not permitted";
  const std::string r = refusal(h, ks);
  EXPECT_TRUE(has(r, "kexec refuses to load the cand kernel 6.19.0-rc1+")) << r;
  EXPECT_TRUE(has(r, "`kexec -s -l /boot/vmlinuz-6.19.0-rc1+`")) << r;
  EXPECT_TRUE(has(r, "Operation not permitted")) << r;
  EXPECT_TRUE(has(r, "--boot-via reboot")) << r;
  // A static cause is named before a trial's words.
  h.load_disabled = true;
  EXPECT_TRUE(has(refusal(h, ks), "kexec_load_disabled")) << refusal(h, ks);
}

TEST(AbBoot, HangWords) {
  EXPECT_EQ(hang_words(), "panic=10 softlockup_panic=1 hung_task_panic=1");
  EXPECT_EQ(hang_words(30), "panic=30 softlockup_panic=1 hung_task_panic=1");
}

TEST(AbBoot, SecondsBetweenIsoTimes) {
  // Independently: 2026-12-06T17:45:00Z to 2026-12-07T00:00:10Z is 6 h 15 min 10 s.
  EXPECT_EQ(seconds_between("2026-12-06T17:45:00Z", "2026-12-07T00:00:10Z"), 22510.0);
  // Across a month's end and a leap day: 2028-02-28T23:59:59Z + 1 day + 1 s.
  EXPECT_EQ(seconds_between("2028-02-28T23:59:59Z", "2028-03-01T00:00:00Z"), 86401.0);
  EXPECT_EQ(seconds_between("2026-12-06T17:45:00Z", "2026-12-06T17:44:00Z"), -60.0);
  EXPECT_EQ(seconds_between("", "2026-12-06T17:45:00Z"), std::nullopt);
  EXPECT_EQ(seconds_between("2026-12-06 17:45:00", "2026-12-06T17:45:00Z"), std::nullopt);
  EXPECT_EQ(seconds_between("2026-13-06T17:45:00Z", "2026-12-06T17:45:00Z"), std::nullopt);
}

TEST(AbBoot, BootProblem) {
  EXPECT_EQ(boot_problem(true, 35.0, 600, "6.19.0"), std::nullopt);
  EXPECT_EQ(boot_problem(true, std::nullopt, 600, "6.19.0"), std::nullopt);
  EXPECT_EQ(boot_problem(true, 812.0, 600, "6.19.0"),
            "its kernel came back after 812 s, beyond --boot-timeout 600 s");
  const auto other = boot_problem(false, 95.0, 600, "6.1.0-57-amd64");
  ASSERT_TRUE(other);
  EXPECT_TRUE(has(*other, "did not come back: this boot is 6.1.0-57-amd64 without the step's marker")) << *other;
  EXPECT_TRUE(has(*other, "95 s after the jump")) << *other;
}

TEST(AbBoot, ACandidateThatNeverCameBack) {
  Experiment e;
  e.n = 2;
  for (auto s : invocation_order(2, "abba", 0)) {
    Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  EXPECT_EQ(candidate_never_came_back(e), std::nullopt);
  e.steps[0].status = StepStatus::done;
  e.steps[1].status = StepStatus::no_boot;
  e.steps[1].note = "its kernel did not come back: this boot is 6.1.0";
  EXPECT_EQ(candidate_never_came_back(e),
            "the candidate kernel did not come back (step 2: its kernel did not come back: this boot is 6.1.0)");
  // Once a candidate boot came back, a later one that did not is no verdict of its own.
  e.steps[2].status = StepStatus::done;
  EXPECT_EQ(candidate_never_came_back(e), std::nullopt);
  e.steps[2].status = StepStatus::failed;
  EXPECT_EQ(candidate_never_came_back(e), std::nullopt);
  // A base boot that did not come back is not the candidate's.
  e.steps[1].status = StepStatus::pending;
  e.steps[2].status = StepStatus::pending;
  e.steps[0].status = StepStatus::no_boot;
  EXPECT_EQ(candidate_never_came_back(e), std::nullopt);
}

// The suites' words first, the user's after; a word the user gave already
// is not repeated; a module parameter the user sets to another value is a
// conflict; clearcpuid= and the like add up.
TEST(MergeBootWords, SuitesWordsFirstNoRepeatsAndAContradictionSaid) {
  const std::vector<SuiteBootWord> needs = {{"kvm.vm_memory_attributes=0", "make_shared / document", "why"},
                                            {"clearcpuid=flushbyasid", "asid / document", "off"}};
  EXPECT_EQ(merge_boot_words(needs, "", "--base-append").append,
            "kvm.vm_memory_attributes=0 clearcpuid=flushbyasid");
  const MergedAppend user = merge_boot_words(needs, "mitigations=off  clearcpuid=flushbyasid", "--cand-append");
  EXPECT_EQ(user.append, "kvm.vm_memory_attributes=0 mitigations=off  clearcpuid=flushbyasid");
  EXPECT_EQ(user.conflict, "");
  EXPECT_EQ(merge_boot_words(needs, "clearcpuid=pku", "--cand-append").conflict, "");
  const MergedAppend bad = merge_boot_words(needs, "kvm.vm_memory_attributes=1", "--cand-append");
  EXPECT_EQ(bad.conflict,
            "--cand-append kvm.vm_memory_attributes=1 contradicts what make_shared / document needs on every boot "
            "(kvm.vm_memory_attributes=0: why)");
  EXPECT_EQ(merge_boot_words({}, "x=1", "--base-append").append, "x=1");
}
