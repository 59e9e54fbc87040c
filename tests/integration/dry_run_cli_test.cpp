// `kvmbench run ... --dry-run [--host FILE]` through the real binary: the
// plans for the made-up SNP, TDX and plain host descriptions in
// tests/data/hosts/ (each marked made up in its "_note"), that a dry run
// touches nothing, and that a bad description is exit 2 with a message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

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

// snp.json: booted with the in-place conversion series' default
// kvm.vm_memory_attributes=Y: QEMU's SNP guests run, the guest_memfd ioctl
// make_shared's document needs is ENOTTY, and the plan says which boot.
TEST(DryRunCli, SnpHostPlan) {
  auto r = run_kvmbench({"run", "all", "--dry-run", "--host", kHosts + "snp.json", "--set",
                         "firmware=/usr/share/ovmf/OVMF.fd"},
                        60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(has(unwrapped(r.out), "kvmbench dry run for lab-snp-1 (from " + kHosts + "snp.json)")) << r.out;
  EXPECT_TRUE(has(unwrapped(r.out), "its note: MADE UP for kvmbench's tests")) << r.out;

  const std::string ms = unwrapped(section(r.out, "make_shared / document"));
  EXPECT_TRUE(has(ms, "would not run: needs another boot, with kvm.vm_memory_attributes=0: "
                      "KVM_SET_MEMORY_ATTRIBUTES2 on a guest_memfd returns ENOTTY while"))
      << ms;
  EXPECT_FALSE(has(ms, "[boot]")) << ms;  // the check says it

  // rmpopt: what the kernel said (v8's lines), the coverage it gives, the
  // host's C-bit, no kernel hashes.
  const std::string rm = unwrapped(section(r.out, "rmpopt / document"));
  EXPECT_TRUE(has(rm, "would run on this host")) << rm;
  EXPECT_TRUE(has(rm, "[boot] this one: kvm.vm_memory_attributes=1 (the boot planned for has it)")) << rm;
  EXPECT_TRUE(has(rm, "what the kernel log (/dev/kmsg) says of RMPOPT: SEV-SNP: Attempt RMP optimizations on "
                      "physical address range"))
      << rm;
  EXPECT_TRUE(has(rm, "[skip] RMPOPT above the kernel's range: the kernel says \"SEV-SNP: RMPOPT coverage limited to "
                      "2TB; memory above 0x20000000000 not optimized\"; RAM ends at 0x20080000000 (/proc/iomem): the "
                      "2G above 0x20000000000 are never swept"))
      << rm;
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

  // The boots a document campaign on this machine needs.
  const std::string boots = unwrapped(section(r.out, "boots"));
  EXPECT_TRUE(has(boots, "this boot (kvm.vm_memory_attributes=Y): rmpopt / document, directmap / document, asid / "
                         "document"))
      << boots;
  EXPECT_TRUE(has(boots, "a boot with kvm.vm_memory_attributes=0: make_shared / document")) << boots;
}

// rmpopt-settle=0 asks for no wait, and says what that risks; a negative
// wait is refused.
TEST(DryRunCli, MakeSharedSettleAfterTeardownIsAParameter) {
  auto none = run_kvmbench({"run", "make_shared", "--preset", "document", "--dry-run", "--host",
                            kHosts + "snp-vmattr0.json", "--set", "rmpopt-settle=0"},
                           60, "", env());
  ASSERT_EQ(none.exit_code, 0) << none.err << none.out;
  EXPECT_TRUE(has(unwrapped(none.out), "[note] no wait after an SNP VM's teardown (rmpopt-settle=0")) << none.out;
  auto bad = run_kvmbench({"run", "make_shared", "--preset", "document", "--dry-run", "--host",
                           kHosts + "snp-vmattr0.json", "--set", "rmpopt-settle=-1"},
                          60, "", env());
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(has(bad.err, "rmpopt-settle is auto, or seconds >= 0")) << bad.err;
}

// The same host booted with kvm.vm_memory_attributes=0: make_shared's
// document runs through the guest_memfd ioctl; QEMU's SNP guests need the
// other boot.
TEST(DryRunCli, SnpHostBootedForInPlaceConversion) {
  auto r = run_kvmbench({"run", "all", "--dry-run", "--host", kHosts + "snp-vmattr0.json", "--set",
                         "firmware=/usr/share/ovmf/OVMF.fd", "--set", "confidential=snp"},
                        60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string ms = unwrapped(section(r.out, "make_shared / document"));
  EXPECT_TRUE(has(ms, "would run on this host")) << ms;
  EXPECT_TRUE(has(ms, "[boot] this one: kvm.vm_memory_attributes=0 (the boot planned for has it)")) << ms;
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
  // Its log shows RMPOPT optimising: each SNP VM's teardown is followed by
  // the wait for the sweep it queues (issue 42, D7), before the next build.
  EXPECT_TRUE(has(ms, "[note] after each SNP VM's teardown, 15 s before the next build (rmpopt-settle)")) << ms;
  EXPECT_LT(at(ms, "after each SNP VM's teardown"), at(ms, "[ioctls]")) << ms;

  const std::string rm = unwrapped(section(r.out, "rmpopt / document"));
  EXPECT_TRUE(has(rm, "would not run: needs another boot, with kvm.vm_memory_attributes=1: QEMU sets up the "
                      "private memory of QEMU's SEV-SNP guests through the VM-wide KVM_SET_MEMORY_ATTRIBUTES"))
      << rm;
  // And the guests' own refusal, from the VM type's attributes.
  EXPECT_TRUE(has(rm, "KVM does not take the PRIVATE memory attribute through the VM-wide KVM_SET_MEMORY_ATTRIBUTES "
                      "on a snp VM (KVM_CAP_MEMORY_ATTRIBUTES on its fd = 0x0)"))
      << rm;
  const std::string boots = unwrapped(section(r.out, "boots"));
  EXPECT_TRUE(has(boots, "this boot (kvm.vm_memory_attributes=N): make_shared / document, asid / document")) << boots;
  EXPECT_TRUE(has(boots, "a boot with kvm.vm_memory_attributes=1: rmpopt / document, directmap / document")) << boots;
}

// --kmsg FILE: the plan for a lab machine from its probe and its dmesg, for
// each revision of the RMPOPT series (tests/data/kmsg/README.md).
TEST(DryRunCli, RmpoptPlanFromACapturedKernelLog) {
  const std::string kmsg = std::string(KVMBENCH_TEST_DATA) + "/kmsg/";
  auto plan = [&](const std::string& log) {
    return run_kvmbench({"run", "rmpopt", "--preset", "document", "--dry-run", "--host", kHosts + "snp.json",
                         "--kmsg", kmsg + log, "--set", "firmware=/fw/OVMF.fd"},
                        60, "", env());
  };
  for (const char* log : {"rmpopt-v2.dmesg", "rmpopt-v3.dmesg", "rmpopt-v8.dmesg", "rmpopt-v10.journal"}) {
    auto r = plan(log);
    EXPECT_EQ(r.exit_code, 0) << log << "\n" << r.err << r.out;
    EXPECT_TRUE(has(unwrapped(r.out), "would run on this host")) << log << "\n" << r.out;
    EXPECT_TRUE(has(unwrapped(r.out), "with its kernel log from " + kmsg + log)) << r.out;
  }
  auto v8 = unwrapped(plan("rmpopt-v8.dmesg").out);
  EXPECT_TRUE(has(v8, "(v3+, 2 range lines: one per sweep); SEV-SNP: RMPOPT coverage limited to 2TB; memory above "
                      "0x20000000000 not optimized"))
      << v8;
  EXPECT_TRUE(has(v8, "[skip] RMPOPT above the kernel's range: the kernel says")) << v8;
  auto v10 = unwrapped(plan("rmpopt-v10.journal").out);
  EXPECT_TRUE(has(v10, "the log holds 2 boots; the last is read")) << v10;
  // v3 on a 512 GiB host part of the 2 TiB one described: the range it
  // printed ends below where RAM ends, so the rest is said.
  auto v3 = unwrapped(plan("rmpopt-v3.dmesg").out);
  EXPECT_TRUE(has(v3, "[skip] RMPOPT above the kernel's range: the kernel sweeps up to 0x8080000000")) << v3;

  auto none = plan("no-series.dmesg");
  EXPECT_EQ(none.exit_code, 77) << none.err << none.out;
  EXPECT_TRUE(has(unwrapped(none.out), "would not run: the kernel log holds none of the RMPOPT series' lines"))
      << none.out;
  auto both = plan("contradictory.dmesg");
  EXPECT_EQ(both.exit_code, 77) << both.err << both.out;
  EXPECT_TRUE(has(unwrapped(both.out), "whether RMPOPT is on cannot be told, so rmpopt is refused")) << both.out;
  auto off = plan("rmpopt-v3-not-enabled.dmesg");
  EXPECT_EQ(off.exit_code, 77) << off.err << off.out;
  EXPECT_TRUE(has(unwrapped(off.out), "segmented RMP required")) << off.out;
}

TEST(DryRunCli, ABadKmsgFileIsAUsageError) {
  TempDir tmp;
  std::ofstream(tmp.path / "empty.log") << "";
  std::ofstream(tmp.path / "probe.json") << "{\"cpu\": {}, \"kvm\": {\"present\": true}}\n";
  for (const auto& [file, what] : std::vector<std::pair<fs::path, std::string>>{
           {tmp.path / "empty.log", "empty"},
           {tmp.path / "probe.json", "not a kernel log"},
           {tmp.path / "nonexistent.log", "cannot read it"}}) {
    auto r = run_kvmbench({"run", "rmpopt", "--dry-run", "--host", kHosts + "snp.json", "--kmsg", file.string()}, 60,
                          "", env());
    EXPECT_EQ(r.exit_code, 2) << file << r.err << r.out;
    EXPECT_TRUE(has(r.err, "--kmsg " + file.string())) << r.err;
    EXPECT_TRUE(has(r.err, what)) << r.err;
    EXPECT_EQ(r.out, "") << "a plan was printed for " << file;
  }
  // The probe reads it too, and a run (not a dry run) refuses it.
  auto p = run_kvmbench({"probe", "--host", kHosts + "snp.json", "--kmsg", (tmp.path / "empty.log").string()}, 60, "",
                        env());
  EXPECT_EQ(p.exit_code, 2) << p.err;
  auto live = run_kvmbench({"run", "rmpopt", "--kmsg", (tmp.path / "empty.log").string()}, 60, "", env());
  EXPECT_EQ(live.exit_code, 2) << live.err;
  EXPECT_TRUE(has(live.err, "it needs --dry-run")) << live.err;
}

TEST(DryRunCli, ProbeReadsACapturedKernelLog) {
  const std::string v10 = std::string(KVMBENCH_TEST_DATA) + "/kmsg/rmpopt-v10.journal";
  auto r = run_kvmbench({"probe", "--json", "--host", kHosts + "plain.json", "--kmsg", v10}, 60, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& rm = j["confidential"]["rmpopt_boot"];
  EXPECT_EQ(rm["state"], "enabled");
  EXPECT_EQ(rm["revision"], "v3+");
  EXPECT_EQ(rm["range_lines"], 3);  // SNP init and two guests' exits
  EXPECT_EQ(rm["boots"], 2);
  EXPECT_EQ(rm["not_optimized_above"], 0x20000000000ULL);
  EXPECT_EQ(rm["from"], v10);
  auto text = run_kvmbench({"probe", "--host", kHosts + "plain.json", "--kmsg", v10}, 60, "", env());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(unwrapped(text.out), "RMPOPT in the kernel log (" + v10 + "): enabled: SEV-SNP: Attempt RMP")) << text.out;
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
  // The monitors (basic by default) hold QEMU at the guest's shutdown to ask
  // it for KVM's statistics; --monitors off does not.
  EXPECT_TRUE(has(dm, "-no-shutdown")) << dm;
  auto off = run_kvmbench({"run", "directmap", "--dry-run", "--host", kHosts + "snp.json", "--set", "confidential=snp",
                           "--set", "firmware=/fw/OVMF.fd", "--monitors", "off"},
                          60, "", env());
  ASSERT_EQ(off.exit_code, 0) << off.err << off.out;
  EXPECT_FALSE(has(unwrapped(off.out), "-no-shutdown")) << off.out;
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
  EXPECT_TRUE(has(seq, "with 0x80000008 EAX[23:16] = GPAW 48: KVM's GuestPhysBits is 46, so 4-level EPT; KVM takes "
                       "only 48 or 52"))
      << seq;
  // The vCPU's CPUID is the TD's, from KVM_TDX_GET_CPUID (x2APIC fixed 1).
  EXPECT_LT(at(seq, "KVM_TDX_INIT_VM"), at(seq, "KVM_TDX_GET_CPUID(vcpu 0)")) << seq;
  EXPECT_LT(at(seq, "KVM_TDX_GET_CPUID(vcpu 0)"), at(seq, "KVM_SET_CPUID2(vcpu 0, that CPUID)")) << seq;
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
      // A kernel log given by mistake: where it stops being JSON, not the
      // JSON library's own words.
      {write("dmesg.txt", "[    0.000000] Linux version 6.1.0\n"), "it stops being JSON at byte 16"},
      {write("nokvm.json", R"({"cpu": {"features": []}})"), "no \"kvm\" object"},
      {write("badtype.json", R"({"cpu": {}, "kvm": {"present": "yes"}})"), "\"kvm\".\"present\" is string where true or false belongs"},
      {write("badfeatures.json", R"({"cpu": {"features": "svm"}, "kvm": {"present": true}})"),
       "\"cpu\".\"features\" is string where an array belongs"},
      {write("badcbit.json", R"({"cpu": {}, "kvm": {"present": true}, "confidential": {"sev_cbitpos": "51"}})"),
       "confidential.sev_cbitpos"},
  };
  for (const auto& [file, message] : cases) {
    auto r = run_kvmbench({"run", "make_shared", "--dry-run", "--host", file}, 60, "", env());
    EXPECT_EQ(r.exit_code, 2) << file << "\n" << r.err << r.out;
    EXPECT_TRUE(has(r.err, message)) << file << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << file << ": " << r.out;  // nothing half-printed
    EXPECT_FALSE(has(r.err, "json.exception")) << file << ": " << r.err;
    // probe --host reads it alike.
    auto p = run_kvmbench({"probe", "--host", file}, 60, "", env());
    EXPECT_EQ(p.exit_code, 2) << file << "\n" << p.err;
    EXPECT_TRUE(has(p.err, message)) << file << ": " << p.err;
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

// --format json: each preset, whether it would run, its boot need, and why
// it could not run besides the boot (what ab's preflight reads); only with
// --dry-run.
TEST(DryRunCli, JsonSaysEachPresetsBootNeedAndWhatElseRefusesIt) {
  auto r = run_kvmbench({"run", "make_shared", "--dry-run", "--format", "json", "--host", kHosts + "snp.json"}, 60,
                        "", env());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 77) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["presets"].size(), 1u) << r.out;
  const auto& p = j["presets"][0];
  EXPECT_EQ(p["suite"], "make_shared");
  EXPECT_EQ(p["boot"]["setting"], "kvm.vm_memory_attributes=0");
  EXPECT_EQ(p["boot"]["this_boot"], false);
  EXPECT_EQ(p["refusal_besides_boot"], "");  // only the boot stands in the way
  auto plain = run_kvmbench({"run", "rmpopt", "--dry-run", "--format", "json", "--host", kHosts + "plain.json"}, 60,
                            "", env());
  EXPECT_EQ(plain.exit_code, 77) << plain.err;
  const auto q = nlohmann::json::parse(plain.out);
  EXPECT_TRUE(q["presets"][0]["boot"].is_null());
  EXPECT_EQ(q["presets"][0]["refusal_besides_boot"], "CPU lacks sev_snp (SEV-SNP guests)");
  const auto not_dry = run_kvmbench({"run", "directmap", "--format", "json"}, 60, "", env());
  EXPECT_EQ(not_dry.exit_code, 2) << not_dry.err;
  EXPECT_TRUE(has(unwrapped(not_dry.err), "--format json is the dry run's")) << not_dry.err;
}
