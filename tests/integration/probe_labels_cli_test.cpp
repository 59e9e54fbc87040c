// `kvmbench probe --labels / --require` through the real binary, for this
// host and for the made-up SNP and TDX descriptions (--host FILE).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

namespace {

const std::string kHosts = std::string(KVMBENCH_TEST_DATA) + "/hosts/";
std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

bool has_line(const std::string& out, const std::string& line) {
  return ("\n" + out).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST(ProbeLabelsCli, SnpHostFile) {
  auto r = run_kvmbench({"probe", "--labels", "--host", kHosts + "snp.json"}, 30, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* l : {"kvm=kvm_amd", "kvm-runs-guests", "svm", "npt", "sev-snp", "rmpopt", "gmem-mmap", "numa-2"})
    EXPECT_TRUE(has_line(r.out, l)) << l << "\n" << r.out;
  EXPECT_FALSE(has_line(r.out, "tdx")) << r.out;
}

TEST(ProbeLabelsCli, RequireNamesWhatIsMissingWith77) {
  auto r = run_kvmbench({"probe", "--host", kHosts + "tdx.json", "--require", "tdx", "sev-snp", "vmx", "rmpopt"}, 30,
                        "", env());
  EXPECT_EQ(r.exit_code, 77) << r.out << r.err;
  EXPECT_NE(r.err.find("missing capability labels: sev-snp rmpopt"), std::string::npos) << r.err;
  auto ok = run_kvmbench({"probe", "--host", kHosts + "tdx.json", "--require", "tdx", "vmx", "ept"}, 30, "", env());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("all required labels present: tdx vmx ept"), std::string::npos) << ok.out;
}

// This host: whatever it has, the labels agree with --require of each.
TEST(ProbeLabelsCli, ThisHostSatisfiesItsOwnLabels) {
  auto r = run_kvmbench({"probe", "--labels"}, 60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> args = {"probe", "--require"};
  std::istringstream lines(r.out);
  // Pool sizes by name only: a test beside this one may grow a hugetlb pool
  // for its run and put it back between the two probes.
  for (std::string l; std::getline(lines, l);) args.push_back(l.rfind("hugetlb-", 0) == 0 ? l.substr(0, l.find('=')) : l);
  if (args.size() == 2) GTEST_SKIP() << "this host has no capability label at all";
  auto again = run_kvmbench(args, 60, "", env());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  auto missing = run_kvmbench({"probe", "--require", "no-such-label"}, 60, "", env());
  EXPECT_EQ(missing.exit_code, 77);
  EXPECT_NE(missing.err.find("no-such-label"), std::string::npos) << missing.err;
}

TEST(ProbeLabelsCli, BadHostFileIsExit2) {
  TempDir t;
  write_text(t.path / "cut.json", "{\"cpu\": {\"features\": [");
  for (const std::string& f : {(t.path / "cut.json").string(), (t.path / "absent.json").string()}) {
    auto r = run_kvmbench({"probe", "--labels", "--host", f}, 30, "", env());
    EXPECT_EQ(r.exit_code, 2) << f;
    EXPECT_NE(r.err.find("--host"), std::string::npos) << r.err;
  }
}

// A probe that read the SEV and SNP firmware versions (host metadata
// "firmware"): they are the labels' values, and --require takes a version
// or a shorter one it begins with.
TEST(ProbeLabelsCli, FirmwareVersionsAreLabelValues) {
  TempDir t;
  std::ifstream in(kHosts + "snp.json");
  auto m = nlohmann::json::parse(in);
  m["firmware"]["sev"] = "1.55.21";
  m["firmware"]["sev_snp"] = "1.55.22";
  write_text(t.path / "snp.json", m.dump());
  const std::string host = (t.path / "snp.json").string();
  auto r = run_kvmbench({"probe", "--labels", "--host", host}, 30, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* l : {"sev=1.55.21", "sev-es=1.55.21", "sev-snp=1.55.22"})
    EXPECT_TRUE(has_line(r.out, l)) << l << "\n" << r.out;
  auto ok = run_kvmbench({"probe", "--host", host, "--require", "sev-snp=1.55", "sev-snp=1.55.22"}, 30, "", env());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto older = run_kvmbench({"probe", "--host", host, "--require", "sev-snp=1.57"}, 30, "", env());
  EXPECT_EQ(older.exit_code, 77) << older.out;
  EXPECT_NE(older.err.find("missing capability labels: sev-snp=1.57"), std::string::npos) << older.err;
}
