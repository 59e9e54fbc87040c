// Issue 14 item 6: FLUSHBYASID as the kernel uses it. arch/x86/kvm/svm/svm.c
// svm_flush_tlb_asid: static_cpu_has(X86_FEATURE_FLUSHBYASID) ?
// TLB_CONTROL_FLUSH_ASID : a new ASID generation; no module parameter.
// cpufeatures.h: word 15 (CPUID 0x8000000a EDX) bit 6, /proc/cpuinfo name
// "flushbyasid". kernel-parameters.txt: clearcpuid=X[,X...] takes those
// names and "prevents it from being used by the kernel" (and taints it), so
// a boot with clearcpuid=flushbyasid has the CPUID bit but not the flag
// (research/confidential_paths_review.md section 4).
#include <gtest/gtest.h>

#include "hostlib/facts/confidential_host.h"
#include "suites/asid/flushbyasid.h"

using namespace kvmbench::host;
using kvmbench::suites::asid::check_flushbyasid;

namespace {
const char* kCpuinfo =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
    "flags\t\t: fpu vme svm npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists\n\n"
    "processor\t: 1\nflags\t\t: fpu\n";
const char* kCpuinfoCleared =
    "processor\t: 0\nflags\t\t: fpu vme svm npt lbrv svm_lock nrip_save vmcb_clean decodeassists\n";
}  // namespace

TEST(FlushByAsidState, FromTheFirstFlagsLineOfCpuinfo) {
  EXPECT_EQ(cpuinfo_flag_state(kCpuinfo, "flushbyasid"), "yes");
  EXPECT_EQ(cpuinfo_flag_state(kCpuinfoCleared, "flushbyasid"), "no");
  EXPECT_EQ(cpuinfo_flag_state(kCpuinfo, "flushbyasi"), "no");  // whole names only
  EXPECT_EQ(cpuinfo_flag_state("processor\t: 0\n", "flushbyasid"), "unknown");
}

TEST(FlushByAsidState, ClearcpuidOnTheCommandLine) {
  EXPECT_TRUE(cmdline_clears_cpu_flag("ro quiet clearcpuid=flushbyasid", "flushbyasid"));
  EXPECT_TRUE(cmdline_clears_cpu_flag("clearcpuid=pku,flushbyasid,154 ro", "flushbyasid"));
  EXPECT_FALSE(cmdline_clears_cpu_flag("clearcpuid=pku ro", "flushbyasid"));
  EXPECT_FALSE(cmdline_clears_cpu_flag("noclearcpuid=flushbyasid", "flushbyasid"));
  EXPECT_FALSE(cmdline_clears_cpu_flag("", "flushbyasid"));
}

namespace {
using kvmbench::suites::asid::captured_boot;
using kvmbench::suites::asid::FlushByAsidState;
using kvmbench::suites::asid::FlushByAsidWanted;
using kvmbench::suites::asid::parse_flushbyasid_wanted;
using kvmbench::suites::asid::this_boot;

// This boot as probed: `state` as /proc/cpuinfo gave it.
kvmbench::suites::asid::FlushByAsidBoot booted(const char* state, bool clearcpuid) {
  ConfidentialHost c;
  c.flushbyasid = state;
  c.clearcpuid_flushbyasid = clearcpuid;
  return this_boot(c);
}
}  // namespace

TEST(FlushByAsidState, OffOnABootWithItIsTheTwoBootComparison) {
  auto c = check_flushbyasid(FlushByAsidWanted::off, booted("yes", false));
  EXPECT_NE(c.refusal.find("this boot has FLUSHBYASID (/proc/cpuinfo flags)"), std::string::npos) << c.refusal;
  EXPECT_NE(c.refusal.find("clearcpuid=flushbyasid"), std::string::npos) << c.refusal;
  EXPECT_NE(c.refusal.find("kvmbench compare"), std::string::npos) << c.refusal;
  // As booted: it runs, and says how the other half is had; no "no knob".
  c = check_flushbyasid(FlushByAsidWanted::as_booted, booted("yes", false));
  EXPECT_EQ(c.refusal, "");
  EXPECT_EQ(c.note_part, "flushbyasid=off");
  EXPECT_NE(c.note.find("two-boot comparison"), std::string::npos) << c.note;
  EXPECT_EQ(c.note.find("no knob"), std::string::npos) << c.note;
}

TEST(FlushByAsidState, ABootWithClearcpuidIsTheOffCase) {
  auto c = check_flushbyasid(FlushByAsidWanted::off, booted("no", true));
  EXPECT_EQ(c.refusal, "");
  EXPECT_EQ(c.note_part, "flushbyasid=on");
  EXPECT_NE(c.note.find("hides FLUSHBYASID (clearcpuid=flushbyasid)"), std::string::npos) << c.note;
  c = check_flushbyasid(FlushByAsidWanted::on, booted("no", true));
  EXPECT_NE(c.refusal.find("the kernel command line hides it"), std::string::npos) << c.refusal;
  c = check_flushbyasid(FlushByAsidWanted::on, booted("no", false));
  EXPECT_NE(c.refusal.find("has no FLUSHBYASID"), std::string::npos) << c.refusal;
  EXPECT_EQ(check_flushbyasid(FlushByAsidWanted::on, booted("yes", false)).refusal, "");
}

// Without FLUSHBYASID in the CPU (the lab's QEMU has none) the with case
// is one no boot of this machine gives: not offered, unlike a boot that
// hides it, which another boot undoes.
TEST(FlushByAsidState, ACpuWithoutItNeverOffersTheWithCaseABootThatHidesItDoes) {
  auto c = check_flushbyasid(FlushByAsidWanted::as_booted, booted("no", false));
  EXPECT_EQ(c.note_part, "flushbyasid=on");
  EXPECT_TRUE(c.note_not_offered);
  EXPECT_FALSE(check_flushbyasid(FlushByAsidWanted::as_booted, booted("no", true)).note_not_offered);
  EXPECT_FALSE(check_flushbyasid(FlushByAsidWanted::as_booted, booted("yes", false)).note_not_offered);
}

TEST(FlushByAsidState, AReplayWithoutTheCaptureCannotClaimEither) {
  auto c = check_flushbyasid(FlushByAsidWanted::as_booted, captured_boot(FlushByAsidState::unknown));
  EXPECT_EQ(c.refusal, "");
  EXPECT_NE(c.note.find("the captured host does not say"), std::string::npos) << c.note;
  EXPECT_NE(check_flushbyasid(FlushByAsidWanted::off, captured_boot(FlushByAsidState::unknown))
                .refusal.find("no flushbyasid.txt"),
            std::string::npos);
  // This boot without a flags line says where it looked.
  EXPECT_NE(check_flushbyasid(FlushByAsidWanted::on, booted("unknown", false)).refusal.find("/proc/cpuinfo"),
            std::string::npos);
}

TEST(FlushByAsidState, TheParameterAndTheStateAreParsedOnceAndWrittenAsBefore) {
  EXPECT_EQ(parse_flushbyasid_wanted("as-booted"), FlushByAsidWanted::as_booted);
  EXPECT_EQ(parse_flushbyasid_wanted("on"), FlushByAsidWanted::on);
  EXPECT_EQ(parse_flushbyasid_wanted("off"), FlushByAsidWanted::off);
  EXPECT_THROW(parse_flushbyasid_wanted("sometimes"), std::invalid_argument);
  // The text samples store (extra "flushbyasid"), as the probe writes it.
  for (const char* s : {"yes", "no", "unknown"}) EXPECT_EQ(to_string(booted(s, false).state), s);
}
