// make_shared's VM type through the real binary: `kvmbench list` says why
// the document preset cannot run, type by type (snp, then tdx), on a host
// that offers neither; a bad vm-type is a usage error that leaves no run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::unwrapped;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

}  // namespace

TEST(MakeSharedVmTypeCli, ListSaysWhyEachDocumentTypeIsUnavailable) {
  auto probe = run_kvmbench({"probe", "--json"}, 60, "", env());
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  auto j = nlohmann::json::parse(probe.out);
  const auto& kvm = j["kvm"];
  if (!kvm.value("present", false) || !kvm.value("guest_memfd", false))
    GTEST_SKIP() << "no KVM with guest_memfd here: the document preset fails earlier";
  std::vector<std::string> types = kvm.value("vm_types", std::vector<std::string>{});
  for (const char* t : {"snp", "tdx"})
    if (std::find(types.begin(), types.end(), t) != types.end())
      GTEST_SKIP() << "this host offers the " << t << " VM type";
  auto list = run_kvmbench({"list"}, 60, "", env());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::string text = unwrapped(list.out);
  EXPECT_NE(text.find("needs an SNP or TDX VM with private memory (tried snp, then tdx): snp: not offered by KVM "
                      "(KVM_CAP_VM_TYPES: "),
            std::string::npos)
      << list.out;
  EXPECT_NE(text.find("; tdx: not offered by KVM (KVM_CAP_VM_TYPES: "), std::string::npos) << list.out;
}

TEST(MakeSharedVmTypeCli, UnknownVmTypeIsAUsageError) {
  TempDir out;
  auto r = run_kvmbench({"run", "make_shared", "--preset", "host", "-r", "1", "--set", "vm-type=sev-snp", "--set",
                         "sizes=4K", "--out", out.path.string()},
                        60, "", env());
  if (r.exit_code == 77) GTEST_SKIP() << "the host preset cannot run here: " << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("parameter vm-type: unknown VM type 'sev-snp' (known: default, sw_protected"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(out.path));
}
