// `kvmbench run ... --dry-run [--host FILE]` through the real binary: the
// plans for the made-up SNP, TDX and plain host descriptions in
// tests/data/hosts/ (each marked made up in its "_note"), that a dry run
// touches nothing, and that a bad description is exit 2 with a message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::unwrapped;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kHosts = std::string(KVMBENCH_TEST_DATA) + "/hosts/";

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

// The part of the output that is one preset's plan.
std::string section(const std::string& out, const std::string& head) {
  const auto b = out.find("== " + head + " ");
  if (b == std::string::npos) return "";
  const auto e = out.find("\n== ", b + 1);
  return out.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Position of `what` in `text` (npos when absent), for order checks.
std::size_t at(const std::string& text, const std::string& what) { return text.find(what); }

}  // namespace

TEST(DryRunCli, SnpHostPlan) {
  auto r = run_kvmbench({"run", "all", "--dry-run", "--host", kHosts + "snp.json", "--set",
                         "firmware=/usr/share/ovmf/OVMF.fd"},
                        60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(has(unwrapped(r.out), "kvmbench dry run for lab-snp-1 (from " + kHosts + "snp.json)")) << r.out;
  EXPECT_TRUE(has(unwrapped(r.out), "its note: MADE UP for kvmbench's tests")) << r.out;

  // make_shared: launch finished before the pre-fault, the guest_memfd ioctl.
  const std::string ms = unwrapped(section(r.out, "make_shared / document"));
  EXPECT_TRUE(has(ms, "would run on this host")) << ms;
  EXPECT_TRUE(has(ms, "VM type snp, converted through KVM_SET_MEMORY_ATTRIBUTES2 (guest_memfd fd)")) << ms;
  const std::string seq = ms.substr(ms.find("[ioctls]"));  // the ioctl sequence, after the notes
  EXPECT_LT(at(seq, "KVM_SEV_SNP_LAUNCH_START(policy=0x30000)"), at(seq, "KVM_CREATE_VCPU(0)")) << seq;
  EXPECT_LT(at(seq, "KVM_CREATE_VCPU(0)"), at(seq, "KVM_SEV_SNP_LAUNCH_FINISH")) << seq;
  EXPECT_LT(at(seq, "KVM_SEV_SNP_LAUNCH_FINISH"), at(seq, "KVM_PRE_FAULT_MEMORY")) << seq;
  EXPECT_TRUE(has(seq, "KVM_SET_MEMORY_ATTRIBUTES2(guest_memfd fd, offset=0, size=SIZE, attributes=0 (shared))"))
      << seq;
  EXPECT_FALSE(has(seq, "KVM_SET_MEMORY_ATTRIBUTES(VM fd")) << seq;
  EXPECT_TRUE(has(ms, "\"guest_memfd to_shared: nr_pages=N, make_shared=C cycles, total=T cycles\" lines -> "
                      "make_shared_cycles and total_cycles"))
      << ms;
  EXPECT_TRUE(has(ms, "not PVALIDATEd by a guest")) << ms;

  // rmpopt: the kernel's own RMPOPT line, the host's C-bit, no kernel hashes.
  const std::string rm = unwrapped(section(r.out, "rmpopt / document"));
  EXPECT_TRUE(has(rm, "would run on this host")) << rm;
  EXPECT_TRUE(has(rm, "RMP optimizations enabled on physical address range")) << rm;
  EXPECT_TRUE(has(rm, "[guest] snp-guest0:")) << rm;
  EXPECT_TRUE(has(rm, "[guest] snp-guest1:")) << rm;
  EXPECT_TRUE(has(rm, "-object sev-snp-guest,id=sev0,cbitpos=51,reduced-phys-bits=1,policy=0x30000 -bios "
                      "/usr/share/ovmf/OVMF.fd"))
      << rm;
  EXPECT_FALSE(has(rm, "kernel-hashes=on")) << rm;
  EXPECT_TRUE(has(rm, "-chardev file,id=con0,path=RUN_DIR/raw/snp-guest0.it0.console.log")) << rm;

  // asid: FLUSHBYASID from /proc/cpuinfo, off as a second boot.
  const std::string as = unwrapped(section(r.out, "asid / document"));
  EXPECT_TRUE(has(as, "[skip] flushbyasid=off: this boot has FLUSHBYASID (/proc/cpuinfo flags)")) << as;
  EXPECT_TRUE(has(as, "clearcpuid=flushbyasid")) << as;
  EXPECT_TRUE(has(as, "hostfwd=tcp:127.0.0.1:PORT-:5201")) << as;
}

TEST(DryRunCli, SnpDirectmapFollowsTheFieldThatGrowsWithGuestMemfd) {
  auto r = run_kvmbench({"run", "directmap", "--dry-run", "--host", kHosts + "snp.json", "--set", "confidential=snp",
                         "--set", "firmware=/fw/OVMF.fd"},
                        60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string dm = unwrapped(r.out);
  EXPECT_TRUE(has(dm, "KVM_CREATE_VM(snp)")) << dm;
  EXPECT_TRUE(has(dm, "KVM_CREATE_GUEST_MEMFD(size=0x10000000, flags=0)")) << dm;
  EXPECT_TRUE(has(dm, "the first of FileHugePages, Unevictable, Shmem, Cached that rose by 90-150% of 256M")) << dm;
  EXPECT_TRUE(has(dm, "[skip] private memory placement (pinned-node0): the memory backend's NUMA binding "
                      "(host-nodes=0,policy=bind) reaches only the shared half"))
      << dm;
  EXPECT_TRUE(has(dm, "-object memory-backend-memfd,id=ram0,size=1048576M,share=on,host-nodes=0,policy=bind")) << dm;
  EXPECT_TRUE(has(dm, "-qmp unix:QMP_DIR/qmp.sock,server=on,wait=off")) << dm;
}

TEST(DryRunCli, TdxHostPlan) {
  auto r = run_kvmbench({"run", "all", "--dry-run", "--host", kHosts + "tdx.json"}, 60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string ms = unwrapped(section(r.out, "make_shared / document"));
  EXPECT_TRUE(has(ms, "would run on this host")) << ms;
  // The VM-wide ioctl is off on this host (cap 0): not "no private memory".
  EXPECT_TRUE(has(ms, "VM type tdx, converted through KVM_SET_MEMORY_ATTRIBUTES2 (guest_memfd fd); passed over: "
                      "snp: not offered by KVM"))
      << ms;
  const std::string seq = ms.substr(ms.find("[ioctls]"));
  EXPECT_LT(at(seq, "KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, 24)"), at(seq, "KVM_TDX_INIT_VM")) << seq;
  EXPECT_LT(at(seq, "KVM_TDX_INIT_VM"), at(seq, "KVM_SET_CPUID2(vcpu 0")) << seq;
  EXPECT_LT(at(seq, "KVM_SET_CPUID2(vcpu 0"), at(seq, "KVM_TDX_INIT_VCPU")) << seq;
  EXPECT_LT(at(seq, "KVM_TDX_INIT_VCPU"), at(seq, "KVM_TDX_FINALIZE_VM")) << seq;
  EXPECT_LT(at(seq, "KVM_TDX_FINALIZE_VM"), at(seq, "KVM_PRE_FAULT_MEMORY")) << seq;
  EXPECT_TRUE(has(ms, "not accepted by a guest")) << ms;
  EXPECT_TRUE(has(unwrapped(section(r.out, "rmpopt / document")), "would not run: CPU lacks sev_snp")) << r.out;
  EXPECT_TRUE(has(unwrapped(section(r.out, "asid / document")), "would not run: CPU lacks svm")) << r.out;
}

TEST(DryRunCli, PlainHostPlanSaysWhyNothingConfidentialRuns) {
  auto r = run_kvmbench({"run", "make_shared", "--dry-run", "--host", kHosts + "plain.json"}, 60, "", env());
  EXPECT_EQ(r.exit_code, 77) << r.err << r.out;
  const std::string ms = unwrapped(r.out);
  EXPECT_TRUE(has(ms, "would not run: needs an SNP or TDX VM with private memory (tried snp, then tdx): snp: not "
                      "offered by KVM (KVM_CAP_VM_TYPES: default, sw_protected)"))
      << ms;
  EXPECT_FALSE(has(ms, "KVM_CREATE_VM(")) << ms;
  auto asid = run_kvmbench({"run", "asid", "--dry-run", "--host", kHosts + "plain.json"}, 60, "", env());
  EXPECT_EQ(asid.exit_code, 0) << asid.err;
  EXPECT_TRUE(has(unwrapped(asid.out), "[skip] flushbyasid=on: this boot hides FLUSHBYASID (clearcpuid=flushbyasid)"))
      << asid.out;
  // Asking for the case this boot cannot give: the run would exit 77.
  auto off = run_kvmbench({"run", "asid", "--dry-run", "--host", kHosts + "snp.json", "--set", "flushbyasid=off"}, 60,
                          "", env());
  EXPECT_EQ(off.exit_code, 77) << off.err;
  EXPECT_TRUE(has(unwrapped(off.out), "[skip] the whole run (exit 77): flushbyasid=off: this boot has FLUSHBYASID"))
      << off.out;
  auto rm = run_kvmbench({"run", "rmpopt", "--dry-run", "--host", kHosts + "plain.json"}, 60, "", env());
  EXPECT_EQ(rm.exit_code, 77) << rm.err;
  EXPECT_TRUE(has(unwrapped(rm.out), "would not run: CPU lacks sev_snp (SEV-SNP guests)")) << rm.out;
}

// No run directory, no state directory (run lock, knob journal: not even the
// start-up restore), no QEMU started (KVMBENCH_QEMU is a program that leaves
// a mark when it runs), no KVM ioctl (KVM is reported as not probed).
TEST(DryRunCli, TouchesNothing) {
  TempDir tmp;
  const fs::path marker = tmp.path / "qemu-was-run";
  const fs::path fake_qemu = tmp.path / "qemu-system-x86_64";
  std::ofstream(fake_qemu) << "#!/bin/sh\ntouch " << marker.string() << "\n";
  ::chmod(fake_qemu.c_str(), 0755);
  const fs::path out = tmp.path / "runs";
  const fs::path state = tmp.path / "state";
  for (const char* suite : {"all", "make_shared"}) {
    auto r = run_kvmbench({"run", suite, "--dry-run", "--out", out.string()}, 60, "",
                          {"KVMBENCH_STATE_DIR=" + state.string(), "KVMBENCH_QEMU=" + fake_qemu.string()});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 77) << r.exit_code << r.err;
    EXPECT_TRUE(has(unwrapped(r.out), "not probed: a dry run makes no ioctl")) << r.out;
    EXPECT_FALSE(fs::exists(out)) << suite;
    EXPECT_FALSE(fs::exists(state)) << suite;
    EXPECT_FALSE(fs::exists(marker)) << suite;
  }
  // The plan names the QEMU it would start without starting it.
  auto r = run_kvmbench({"run", "asid", "--dry-run", "--host", kHosts + "snp.json", "--out", out.string()}, 60, "",
                        {"KVMBENCH_STATE_DIR=" + state.string(), "KVMBENCH_QEMU=" + fake_qemu.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(state));
  EXPECT_FALSE(fs::exists(marker));
}

TEST(DryRunCli, BadHostDescriptionsAreUsageErrors) {
  TempDir tmp;
  std::string snp;
  {
    std::ifstream in(kHosts + "snp.json");
    snp.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(tmp.path / name) << text;
    return (tmp.path / name).string();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(tmp.path / "missing.json").string(), "cannot open"},
      {write("empty.json", ""), "empty (expected `kvmbench probe --json` output)"},
      {write("blank.json", "\n  \n"), "empty"},
      {write("truncated.json", snp.substr(0, snp.size() / 2)), "not JSON (truncated or malformed)"},
      {write("array.json", "[1, 2]"), "not a JSON object"},
      {write("nokvm.json", R"({"cpu": {"features": []}})"), "no \"kvm\" object"},
      {write("badtype.json", R"({"cpu": {}, "kvm": {"present": "yes"}})"), "kvm.present: expected true or false"},
      {write("badfeatures.json", R"({"cpu": {"features": "svm"}, "kvm": {"present": true}})"),
       "cpu.features: expected a list of strings"},
      {write("badcbit.json", R"({"cpu": {}, "kvm": {"present": true}, "confidential": {"sev_cbitpos": "51"}})"),
       "confidential.sev_cbitpos"},
  };
  for (const auto& [file, message] : cases) {
    auto r = run_kvmbench({"run", "make_shared", "--dry-run", "--host", file}, 60, "", env());
    EXPECT_EQ(r.exit_code, 2) << file << "\n" << r.err << r.out;
    EXPECT_TRUE(has(r.err, message)) << file << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << file << ": " << r.out;  // nothing half-printed
  }
  auto r = run_kvmbench({"run", "make_shared", "--host", kHosts + "snp.json"}, 60, "", env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--host FILE plans for another host: it needs --dry-run")) << r.err;
  r = run_kvmbench({"run", "make_shared", "--dry-run", "--replay", tmp.path.string()}, 60, "", env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "it does not take --replay")) << r.err;
  r = run_kvmbench({"run", "make_shared", "--dry-run", "--host", kHosts + "snp.json", "--set", "bogus=1"}, 60, "",
                   env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "'bogus' is not a parameter")) << r.err;
  r = run_kvmbench({"run", "make_shared", "--dry-run", "--host", kHosts + "snp.json", "--set", "sizes=4095"}, 60, "",
                   env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "parameter sizes: '4095' is not a multiple of 4K")) << r.err;
}

// The dry run refuses a bad --set value as the run does, before the plan's
// first line.
TEST(DryRunCli, BadParameterValuesAreRefusedAsARunRefusesThem) {
  for (const auto& [set, message] : std::vector<std::pair<std::string, std::string>>{
           {"bytes=0", "--set bytes=0: bytes is a size such as 4K, 1G or 2T, at least 4K; 0 is less"},
           {"vcpus=none", "--set vcpus=none: vcpus is a whole number of at least 1; 'none' is not a number"},
           {"backing=nope", "--set backing=nope: backing is one of memfd, anonymous, hugetlbfs"}}) {
    auto r = run_kvmbench({"run", "directmap", "--dry-run", "--host", kHosts + "snp.json", "--set", set}, 60, "",
                          env());
    EXPECT_EQ(r.exit_code, 2) << set << ": " << r.err;
    EXPECT_TRUE(has(r.err, message)) << r.err;
    EXPECT_TRUE(r.out.empty()) << set << ": " << r.out;
  }
}
