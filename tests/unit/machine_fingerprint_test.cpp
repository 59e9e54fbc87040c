// The machine fingerprint: stable fields only. Two runs of one machine
// under different kernels, clocks and loads read as the same machine; a
// microcode update, a BIOS update or another CPU does not.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/verdicts/machine_check.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/model/sha256.h"

using namespace kvmbench;

namespace {

nlohmann::json snp_host() {
  std::ifstream in(std::string(KVMBENCH_TEST_DATA) + "/hosts/snp.json");
  return nlohmann::json::parse(in);
}

nlohmann::json meta_of(const nlohmann::json& host) {
  return {{"suite", "rmpopt"}, {"source", "hardware"}, {"host", host}};
}

}  // namespace

TEST(MachineFingerprint, FieldsOfAKnownHostAndTheirHash) {
  const MachineIdentity id = machine_identity(meta_of(snp_host()));
  // Read off tests/data/hosts/snp.json by hand. Memory: DirectMap 4k + 2M +
  // 1G = 1073741824 + 68719476736 + 2130303778816 = 2200096997376 bytes =
  // 2049 GiB exactly.
  const std::vector<std::pair<std::string, std::string>> want = {
      {"cpu.vendor_id", "AuthenticAMD"},
      {"cpu.model_name", "AMD EPYC 9654 96-Core Processor (made up)"},
      {"cpu.family", "25"},
      {"cpu.model", "17"},
      {"cpu.stepping", "1"},
      {"cpu.microcode", "0xa101148"},
      {"topology.packages", "2"},
      {"topology.cores", "192"},
      {"topology.threads", "384"},
      {"memory.gib", "2049"},
      {"numa.nodes", "2"},
      {"numa.node0.cpus", "0-95,192-287"},
      {"numa.node1.cpus", "96-191,288-383"}};
  ASSERT_EQ(id.fields.size(), want.size());
  std::string text = "kvmbench machine identity v1\n";
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(id.fields[i].name, want[i].first);
    EXPECT_EQ(id.fields[i].value, want[i].second) << want[i].first;
    text += want[i].first + "=" + want[i].second + "\n";
  }
  EXPECT_EQ(id.fingerprint, sha256_hex(text).substr(0, 16));
  // A probe --json file names the same machine as a run's meta.json.
  EXPECT_EQ(machine_identity(snp_host()).fingerprint, id.fingerprint);
}

TEST(MachineFingerprint, ClocksLoadKernelAndNameDoNotChangeIt) {
  const nlohmann::json base = snp_host();
  nlohmann::json other = base;
  other["tsc_hz"] = 2399987654;
  other["cpufreq"] = {{"driver", "acpi-cpufreq"}, {"governors", {{"performance", "0-383"}}}};
  other["cpu"]["mhz"] = 3701.5;
  other["cpu"]["bogomips"] = 4800.12;
  other["memory"]["total_bytes"] = 2199023255552.0 - 100e6;  // another kernel reserves 100 MB more
  other["memory"]["meminfo"]["MemFree"] = 12345;
  other["memory"]["directmap"] = {{"4k", 3221225472ll}, {"2M", 2196875771904ll}, {"1G", 0}};  // split, same sum
  other["kernel"]["release"] = "6.20.0";
  other["hostname"] = "renamed";
  other["cpu"]["features"] = nlohmann::json::array({"svm"});
  EXPECT_EQ(machine_identity(other).fingerprint, machine_identity(base).fingerprint);
}

TEST(MachineFingerprint, MicrocodeBiosOrCpuChangeIt) {
  const MachineIdentity base = machine_identity(snp_host());
  for (auto change : std::vector<std::pair<std::string, nlohmann::json>>{
           {"/cpu/microcode", "0xa101150"},
           {"/cpu/stepping", 2},
           {"/topology/threads", 192},
           {"/firmware", {{"bios_version", "1.9.2"}}},
           {"/numa/nodes/1/cpus", "96-191"}}) {
    nlohmann::json h = snp_host();
    h[nlohmann::json::json_pointer(change.first)] = change.second;
    const MachineIdentity other = machine_identity(h);
    EXPECT_NE(other.fingerprint, base.fingerprint) << change.first;
    const auto diffs = machine_differences(base, other);
    ASSERT_FALSE(diffs.empty()) << change.first;
  }
  nlohmann::json h = snp_host();
  h["cpu"]["microcode"] = "0xa101150";
  const auto diffs = machine_differences(base, machine_identity(h));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].name, "cpu.microcode");
  EXPECT_EQ(diffs[0].a, "0xa101148");
  EXPECT_EQ(diffs[0].b, "0xa101150");
}

TEST(MachineFingerprint, NoCpuMeansUnknown) {
  EXPECT_FALSE(machine_identity(nlohmann::json{{"suite", "x"}, {"source", "hardware"}}).known());
  EXPECT_FALSE(machine_identity(nlohmann::json{{"context", {{"host_name", "a"}, {"mhz_per_cpu", 3000}}}}).known());
  EXPECT_FALSE(machine_identity(meta_of({{"kernel_release", "6.8.0"}})).known());
}

TEST(MachineCheck, SameDifferentAndUnknown) {
  const auto same = check_same_machine(meta_of(snp_host()), meta_of(snp_host()));
  EXPECT_EQ(same.outcome, MachineCheck::Outcome::same);
  EXPECT_FALSE(gate_machine_problem(same, false));

  nlohmann::json h = snp_host();
  h["cpu"]["microcode"] = "0xa101150";
  const auto diff = check_same_machine(meta_of(snp_host()), meta_of(h));
  EXPECT_EQ(diff.outcome, MachineCheck::Outcome::different);
  EXPECT_NE(diff.message.find("cpu.microcode 0xa101148 -> 0xa101150"), std::string::npos) << diff.message;
  auto problem = gate_machine_problem(diff, false);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("--cross-machine"), std::string::npos);
  EXPECT_FALSE(gate_machine_problem(diff, true));

  const auto unknown = check_same_machine(nlohmann::json{{"context", nlohmann::json::object()}}, meta_of(h));
  EXPECT_EQ(unknown.outcome, MachineCheck::Outcome::unknown);
  EXPECT_NE(unknown.message.find("base does not record"), std::string::npos) << unknown.message;
  EXPECT_FALSE(gate_machine_problem(unknown, false));
}
