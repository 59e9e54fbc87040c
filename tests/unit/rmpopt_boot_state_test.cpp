// The rmpopt document preset asks the kernel, not CPUID, whether RMPOPT is
// in use. The RMPOPT series (Ashish Kalra, arch/x86/virt/svm/sev.c, pr_fmt
// "SEV-SNP: ") says so differently by revision; tests/data/kmsg/ holds a log
// per revision with each line as its format string prints it (README
// there), and each is read here as a lab engineer would hand it over.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hostlib/facts/confidential_host.h"
#include "hostlib/facts/rmpopt_boot_state.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;
using State = RmpoptBootState::State;

TEST(RmpoptBootState, SegmentedRmpMissingIsTheKernelsOwnReason) {
  auto s = rmpopt_boot_state_from_log(
      "Linux version 6.19.0\n"
      "SEV-SNP: RMP table physical range [0x0000000035600000 - 0x0000000075bfffff]\n"
      "SEV-SNP: RMPOPT optimizations not enabled, segmented RMP required\n");
  EXPECT_EQ(s.state, State::not_enabled);
  EXPECT_EQ(s.line, "SEV-SNP: RMPOPT optimizations not enabled, segmented RMP required");
  EXPECT_EQ(rmpopt_boot_refusal(s),
            "the kernel did not enable RMPOPT: \"SEV-SNP: RMPOPT optimizations not enabled, segmented RMP "
            "required\" (the series needs segmented RMP)");
}

TEST(RmpoptBootState, EnabledWithItsRange) {
  auto s = rmpopt_boot_state_from_log(
      "SEV-SNP: RMP optimizations enabled on physical address range 0x0000000000000000 - 0x000001ffffffffff\n");
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(rmpopt_boot_refusal(s), "");
  ASSERT_TRUE(s.range_end);
  EXPECT_EQ(*s.range_end, 0x1ffffffffffULL);  // 2 TiB - 1: the series' limit
  // Without a parsable range it is still enabled.
  s = rmpopt_boot_state_from_log("SEV-SNP: RMP optimizations enabled on physical address range\n");
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_FALSE(s.range_end);
}

TEST(RmpoptBootState, NeitherLineMeansNoSeriesNotAMissingTimingPrint) {
  auto s = rmpopt_boot_state_from_log("SEV-SNP: RMP table physical range [0x35600000 - 0x75bfffff]\n");
  EXPECT_EQ(s.state, State::no_line);
  const std::string why = rmpopt_boot_refusal(s);
  EXPECT_NE(why.find("this kernel does not carry the series"), std::string::npos) << why;
  EXPECT_NE(why.find("Attempt RMP optimizations on physical address range"), std::string::npos) << why;
  EXPECT_EQ(why.find("timing print"), std::string::npos) << why;
}

TEST(RmpoptBootState, AnUnreadableLogIsAReasonNotAnError) {
  auto s = read_rmpopt_boot_state("/nonexistent/kmsg");
  EXPECT_EQ(s.state, State::unreadable);
  EXPECT_NE(rmpopt_boot_refusal(s).find("cannot read the kernel log"), std::string::npos);
  EXPECT_NE(s.detail.find("/nonexistent/kmsg"), std::string::npos) << s.detail;
}

TEST(RmpoptBootState, ReadsAKmsgFormatFileFromItsStart) {
  kvmbench::test_support::TempDir dir;
  const auto path = dir.path / "kmsg";
  // One record: /dev/kmsg gives one per read(), a regular file all at once.
  std::ofstream(path) << "6,2,200,-;SEV-SNP: RMPOPT optimizations not enabled, segmented RMP required\n";
  auto s = read_rmpopt_boot_state(path.string());
  EXPECT_EQ(s.state, State::not_enabled) << s.detail;
}

TEST(RmpoptBootState, NamesRoundTripThroughTheHostDescription) {
  for (State st : {State::not_checked, State::unreadable, State::no_line, State::not_enabled, State::enabled,
                   State::contradictory})
    EXPECT_EQ(rmpopt_boot_state_from_name(to_string(st)), st);
  EXPECT_THROW(rmpopt_boot_state_from_name("on"), std::invalid_argument);
  ConfidentialHost c;
  c.rmpopt = rmpopt_boot_state_from_log(
      "SEV-SNP: RMP optimizations enabled on physical address range 0x0 - 0xffffffffff\n");
  c.sev_bits = SevEncryptionBits{51, 1};
  c.flushbyasid = "no";
  c.clearcpuid_flushbyasid = true;
  c.kmsg_error = "";
  ConfidentialHost back = confidential_host_from_json(to_json(c));
  EXPECT_EQ(back.rmpopt.state, State::enabled);
  EXPECT_EQ(back.rmpopt.range_end, 0xffffffffffULL);
  ASSERT_TRUE(back.sev_bits);
  EXPECT_EQ(back.sev_bits->cbitpos, 51u);
  EXPECT_EQ(back.flushbyasid, "no");
  EXPECT_TRUE(back.clearcpuid_flushbyasid);
  EXPECT_EQ(back.kmsg_error, "");
  // An older probe without the object: everything unknown, nothing invented.
  ConfidentialHost old = confidential_host_from_json(nullptr);
  EXPECT_FALSE(old.sev_bits);
  EXPECT_EQ(old.flushbyasid, "unknown");
  EXPECT_EQ(old.rmpopt.state, State::not_checked);
  // Wrong types are errors naming the key.
  EXPECT_THROW(confidential_host_from_json({{"sev_cbitpos", "51"}}), std::invalid_argument);
  EXPECT_THROW(confidential_host_from_json({{"flushbyasid", "maybe"}}), std::invalid_argument);
  EXPECT_THROW(confidential_host_from_json({{"rmpopt_boot", {{"state", "on"}}}}), std::invalid_argument);
}

namespace {

std::string kmsg_fixture(const std::string& name) { return std::string(KVMBENCH_TEST_DATA) + "/kmsg/" + name; }

std::string read_fixture(const std::string& name) {
  std::ifstream in(kmsg_fixture(name));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// v1/v2: the kthread prints "RMP optimizations enabled ..." on every sweep.
TEST(RmpoptBootState, RevisionTwoPrintsEnabledOnEverySweep) {
  auto s = rmpopt_boot_state_from_log(read_fixture("rmpopt-v2.dmesg"));
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.revision, "v1-v2");
  EXPECT_EQ(s.range_lines, 2);
  EXPECT_EQ(s.range_start, 0ULL);
  EXPECT_EQ(s.range_end, 0x10080000000ULL);
  EXPECT_EQ(s.boots, 1);
  EXPECT_TRUE(s.coverage_line.empty());
  EXPECT_EQ(rmpopt_boot_refusal(s), "");
}

TEST(RmpoptBootState, RevisionThreeRefusesAContiguousRmp) {
  auto s = rmpopt_boot_state_from_log(read_fixture("rmpopt-v3-not-enabled.dmesg"));
  EXPECT_EQ(s.state, State::not_enabled);
  EXPECT_NE(rmpopt_boot_refusal(s).find("segmented RMP required"), std::string::npos);
}

// v3 on: "Attempt RMP optimizations ..." from the work handler, here once at
// SNP init, in dmesg -T's format.
TEST(RmpoptBootState, RevisionThreeOnAttemptsAtSnpInit) {
  auto s = rmpopt_boot_state_from_log(read_fixture("rmpopt-v3.dmesg"));
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.revision, "v3+");
  EXPECT_EQ(s.range_lines, 1);
  EXPECT_EQ(s.range_end, 0x8080000000ULL);
  EXPECT_EQ(s.line,
            "SEV-SNP: Attempt RMP optimizations on physical address range @1GB alignment [0x0000000000000000 - "
            "0x0000008080000000]");
  EXPECT_EQ(rmpopt_boot_refusal(s), "");
}

// v8 on: the coverage line where the physical range runs past 2 TiB.
TEST(RmpoptBootState, RevisionEightSaysWhatItDoesNotCover) {
  auto s = rmpopt_boot_state_from_log(read_fixture("rmpopt-v8.dmesg"));
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.range_lines, 2);  // SNP init, then a guest's exit
  EXPECT_EQ(s.coverage_line, "SEV-SNP: RMPOPT coverage limited to 2TB; memory above 0x20000000000 not optimized");
  EXPECT_EQ(s.not_optimized_above, 0x20000000000ULL);
  EXPECT_EQ(s.range_end, 0x20000000000ULL);
  const std::string summary = rmpopt_boot_summary(s);
  EXPECT_NE(summary.find("v3+, 2 range lines"), std::string::npos) << summary;
  EXPECT_NE(summary.find("RMPOPT coverage limited to 2TB"), std::string::npos) << summary;
}

// journalctl -k without -b: the last boot is the one that counts.
TEST(RmpoptBootState, RevisionTenInAJournalOfTwoBoots) {
  auto s = rmpopt_boot_state_from_log(read_fixture("rmpopt-v10.journal"));
  EXPECT_EQ(s.boots, 2);
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.range_lines, 3);
  EXPECT_EQ(s.not_optimized_above, 0x20000000000ULL);
  EXPECT_NE(rmpopt_boot_summary(s).find("the log holds 2 boots; the last is read"), std::string::npos);
  // The first boot alone said nothing: SNP was not yet initialised.
  const std::string text = read_fixture("rmpopt-v10.journal");
  auto first = rmpopt_boot_state_from_log(text.substr(0, text.find("-- Boot ")));
  EXPECT_EQ(first.state, State::no_line);
  // An earlier boot's lines do not count for a later boot that said nothing.
  auto later = rmpopt_boot_state_from_log(text + "-- Boot 0123456789abcdef0123456789abcdef --\n"
                                                 "Jul 01 10:00:00 lab-snp-1 kernel: Linux version 6.19.0\n");
  EXPECT_EQ(later.state, State::no_line);
  EXPECT_EQ(later.boots, 3);
}

TEST(RmpoptBootState, QuotedInAMailItReadsTheSame) {
  std::string quoted;
  std::istringstream in(read_fixture("rmpopt-v8.dmesg"));
  for (std::string l; std::getline(in, l);) quoted += "> " + l + "\n";
  auto s = rmpopt_boot_state_from_log(quoted);
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.not_optimized_above, 0x20000000000ULL);
}

TEST(RmpoptBootState, NoSeriesAndContradictions) {
  auto none = rmpopt_boot_state_from_log(read_fixture("no-series.dmesg"));
  EXPECT_EQ(none.state, State::no_line);
  EXPECT_NE(rmpopt_boot_refusal(none).find("SNP has not been initialised yet"), std::string::npos);
  auto both = rmpopt_boot_state_from_log(read_fixture("contradictory.dmesg"));
  EXPECT_EQ(both.state, State::contradictory);
  const std::string why = rmpopt_boot_refusal(both);
  EXPECT_NE(why.find("in one boot"), std::string::npos) << why;
  EXPECT_NE(why.find("segmented RMP required"), std::string::npos) << why;
}

TEST(RmpoptBootState, DebugfsTableInAPhrase) {
  EXPECT_EQ(rmpopt_table_summary("Memory @  0GB: CPU(s): none\nMemory @  1GB: CPU(s): none\n"
                                 "Memory @  2GB: CPU(s): 0-1023\nMemory @  3GB: CPU(s): 0-1023\n"),
            "4 regions of 1 GiB listed, 2 optimised on some CPU");
  EXPECT_EQ(rmpopt_table_summary(""), "0 regions of 1 GiB listed, 0 optimised on some CPU");
}

// --kmsg FILE: a file that is no kernel log is refused by name.
TEST(RmpoptBootState, AKmsgFileMustBeAKernelLog) {
  auto s = rmpopt_boot_state_from_file(kmsg_fixture("rmpopt-v8.dmesg"));
  EXPECT_EQ(s.state, State::enabled);
  EXPECT_EQ(s.from, kmsg_fixture("rmpopt-v8.dmesg"));
  kvmbench::test_support::TempDir dir;
  auto refused = [&](const std::string& path, const std::string& what) {
    try {
      rmpopt_boot_state_from_file(path);
      ADD_FAILURE() << path << " was read";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find(what), std::string::npos) << m;
    }
  };
  std::ofstream(dir.path / "empty.log") << "\n  \n";
  refused((dir.path / "empty.log").string(), "empty");
  std::ofstream(dir.path / "host.json") << "{\"cpu\": {}, \"kvm\": {\"present\": true}}\n";
  refused((dir.path / "host.json").string(), "not a kernel log");
  refused((dir.path / "missing.log").string(), "cannot read it");
  refused(dir.path.string(), "a directory");
}
