// Capability labels (hostlib/describe/capability_labels.h) from the made-up SNP, TDX
// and plain host descriptions in tests/data/hosts/, and from probes edited
// to lose what a label needs: a label follows what was verified (VM types
// KVM accepts, module parameters, /proc/cpuinfo), not the CPUID bits alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "hostlib/describe/capability_labels.h"

using kvmbench::host::capability_labels;
using kvmbench::host::CapabilityLabel;
using kvmbench::host::missing_labels;
using kvmbench::host::to_string;

namespace {

nlohmann::json host(const std::string& name) {
  std::ifstream in(std::string(KVMBENCH_TEST_DATA) + "/hosts/" + name + ".json");
  return nlohmann::json::parse(in);
}

std::vector<std::string> names(const nlohmann::json& m) {
  std::vector<std::string> out;
  for (const auto& l : capability_labels(m)) out.push_back(to_string(l));
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST(CapabilityLabels, SnpHost) {
  const auto l = names(host("snp"));
  for (const char* want : {"kvm=kvm_amd", "kvm-runs-guests", "svm", "npt", "flushbyasid", "sev", "sev-es", "sev-snp",
                           "rmpopt", "guest-memfd", "gmem-mmap", "hugetlb-2m=0", "hugetlb-1g=0", "numa-2"})
    EXPECT_TRUE(has(l, want)) << want;
  for (const char* not_here : {"vmx", "ept", "tdx", "emulated", "nested"}) EXPECT_FALSE(has(l, not_here)) << not_here;
}

TEST(CapabilityLabels, TdxHost) {
  const auto l = names(host("tdx"));
  for (const char* want : {"kvm=kvm_intel", "kvm-runs-guests", "vmx", "ept", "tdx", "guest-memfd", "numa-2"})
    EXPECT_TRUE(has(l, want)) << want;
  for (const char* not_here : {"svm", "npt", "sev", "sev-snp", "flushbyasid", "hugetlb-2m"})
    EXPECT_FALSE(has(l, not_here)) << not_here;
}

// SEV and SEV-ES in CPUID, but kvm_amd loaded with sev=N: KVM offers no SEV
// VM type, so no sev label; FLUSHBYASID cleared on the command line.
TEST(CapabilityLabels, PlainHostHasNoConfidentialLabels) {
  const auto l = names(host("plain"));
  EXPECT_TRUE(has(l, "svm"));
  EXPECT_TRUE(has(l, "npt"));
  EXPECT_TRUE(has(l, "numa-1"));
  for (const char* not_here : {"sev", "sev-es", "sev-snp", "rmpopt", "flushbyasid"})
    EXPECT_FALSE(has(l, not_here)) << not_here;
}

TEST(CapabilityLabels, FollowWhatWasVerified) {
  auto m = host("snp");
  m["kvm_modules"]["kvm_amd"]["parameters"]["npt"] = "N";     // loaded with npt=0
  m["confidential"]["rmpopt_boot"]["state"] = "disabled";     // the kernel did not enable it
  m["kvm"]["runs_guests"] = false;                            // the test guest did not finish
  m["kvm"]["vm_types"] = {"default", "sw_protected"};         // SNP firmware not initialised
  const auto l = names(m);
  for (const char* gone : {"npt", "rmpopt", "kvm-runs-guests", "sev", "sev-snp"}) EXPECT_FALSE(has(l, gone)) << gone;
  EXPECT_TRUE(has(l, "svm"));
  EXPECT_TRUE(has(l, "kvm=kvm_amd"));
}

TEST(CapabilityLabels, EmulatedAndNested) {
  auto m = host("plain");
  m["cpu"]["hypervisor"] = true;
  m["cpu"]["hypervisor_name"] = "tcg";
  m["cpu"]["hypervisor_signature"] = "TCGTCGTCGTCG";
  m["virtualization"] = {{"in_vm", true}, {"hypervisor", "tcg"}, {"kvm_nested", true}};
  const auto l = names(m);
  EXPECT_TRUE(has(l, "emulated"));
  EXPECT_TRUE(has(l, "nested=tcg"));
}

TEST(CapabilityLabels, NothingFromAnEmptyOrOldProbe) {
  EXPECT_TRUE(capability_labels(nlohmann::json::object()).empty());
  EXPECT_TRUE(capability_labels(nlohmann::json{{"kvm", "not an object"}, {"cpu", {{"features", 3}}}}).empty());
}

TEST(CapabilityLabels, MissingLabels) {
  const std::vector<CapabilityLabel> have = {{"kvm", "kvm_amd"}, {"svm", ""}, {"hugetlb-1g", "4"}};
  EXPECT_TRUE(missing_labels(have, {"kvm", "svm", "kvm=kvm_amd", "hugetlb-1g=4", "hugetlb-1g=2", "hugetlb-1g=0"})
                  .empty());  // a count is a floor
  EXPECT_EQ(missing_labels(have, {"tdx", "svm", "kvm=kvm_intel", "hugetlb-1g=5", "hugetlb-2m"}),
            (std::vector<std::string>{"tdx", "kvm=kvm_intel", "hugetlb-1g=5", "hugetlb-2m"}));
}

// The firmware versions the probe read (host metadata "firmware") are the
// values of the confidential labels; absent, the label has none.
TEST(CapabilityLabels, FirmwareVersionsAsValues) {
  auto snp = host("snp");
  snp["firmware"]["sev"] = "1.55.21";
  snp["firmware"]["sev_snp"] = "1.55.22";
  auto l = names(snp);
  EXPECT_TRUE(has(l, "sev=1.55.21"));
  EXPECT_TRUE(has(l, "sev-es=1.55.21"));
  EXPECT_TRUE(has(l, "sev-snp=1.55.22"));
  auto tdx = host("tdx");
  tdx["firmware"]["tdx_module"] = "1.5.06";
  EXPECT_TRUE(has(names(tdx), "tdx=1.5.06"));
  // A version without the VM type KVM accepts gives no label.
  tdx["kvm"]["vm_types"] = {"default"};
  EXPECT_FALSE(has(names(tdx), "tdx=1.5.06"));
}

TEST(CapabilityLabels, VersionRequirementNamesItsPrefix) {
  const std::vector<CapabilityLabel> have = {{"sev-snp", "1.55.21"}, {"tdx", "1.5.06"}};
  EXPECT_TRUE(missing_labels(have, {"sev-snp=1.55.21", "sev-snp=1.55", "sev-snp=1", "tdx=1.5", "tdx"}).empty());
  EXPECT_EQ(missing_labels(have, {"sev-snp=1.56", "sev-snp=1.5", "sev-snp=1.55.2", "tdx=1.5.0", "tdx=2"}),
            (std::vector<std::string>{"sev-snp=1.56", "sev-snp=1.5", "sev-snp=1.55.2", "tdx=1.5.0", "tdx=2"}));
}
