// The QEMU argument vector and kernel command line built from a GuestSpec
// (pure: nothing is started).
#include <gtest/gtest.h>

#include <algorithm>

#include "hostlib/qemu_launcher.h"

using namespace kvmbench::host;

namespace {

LaunchPlan plan(Accel accel = Accel::tcg) {
  LaunchPlan p;
  p.qemu = "/usr/bin/qemu-system-x86_64";
  p.kernel = "/k/vmlinuz";
  p.initramfs = "/i/initramfs.cpio";
  p.accel = accel;
  p.console_log = "/run/x/console.log";
  return p;
}

// The value following `flag` (first occurrence), "" if absent.
std::string after(const std::vector<std::string>& argv, const std::string& flag, int nth = 0) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag && nth-- == 0) return argv[i + 1];
  return "";
}

bool has(const std::vector<std::string>& argv, const std::string& x) {
  return std::find(argv.begin(), argv.end(), x) != argv.end();
}

GuestSpec spec(const std::string& workload = "cpuid_rate") {
  GuestSpec s;
  s.workload = workload;
  return s;
}

}  // namespace

TEST(GuestQemuArgv, PlainTcgGuest) {
  GuestSpec s = spec();
  s.args = {"--seconds=0.5", "--iteration=3"};
  auto a = build_qemu_argv(s, plan());
  EXPECT_EQ(a[0], "/usr/bin/qemu-system-x86_64");
  EXPECT_EQ(after(a, "-accel"), "tcg");
  EXPECT_EQ(after(a, "-cpu"), "max");
  EXPECT_EQ(after(a, "-smp"), "1");
  EXPECT_EQ(after(a, "-m"), "256M");
  EXPECT_EQ(after(a, "-machine"), "q35,memory-backend=ram0");
  EXPECT_EQ(after(a, "-object"), "memory-backend-ram,id=ram0,size=256M");
  EXPECT_EQ(after(a, "-kernel"), "/k/vmlinuz");
  EXPECT_EQ(after(a, "-initrd"), "/i/initramfs.cpio");
  EXPECT_EQ(after(a, "-chardev"), "file,id=con0,path=/run/x/console.log");
  EXPECT_EQ(after(a, "-serial"), "chardev:con0");
  EXPECT_TRUE(has(a, "-no-reboot"));
  EXPECT_TRUE(has(a, "-nodefaults"));
  EXPECT_FALSE(has(a, "-S"));
  EXPECT_FALSE(has(a, "-netdev"));
  const std::string cmd = after(a, "-append");
  EXPECT_NE(cmd.find("console=ttyS0"), std::string::npos);
  EXPECT_NE(cmd.find("panic=-1"), std::string::npos);
  EXPECT_NE(cmd.find("kvmbench.workload=cpuid_rate"), std::string::npos);
  EXPECT_NE(cmd.find("kvmbench.args=--seconds=0.5,--iteration=3"), std::string::npos);
  EXPECT_EQ(cmd.find("kvmbench.net"), std::string::npos);
}

TEST(GuestQemuArgv, KvmUsesTheHostCpu) {
  GuestSpec s = spec();
  s.vcpus = 4;
  s.memory_mib = 2048;
  auto a = build_qemu_argv(s, plan(Accel::kvm));
  EXPECT_EQ(after(a, "-accel"), "kvm");
  EXPECT_EQ(after(a, "-cpu"), "host");
  EXPECT_EQ(after(a, "-smp"), "4");
  EXPECT_EQ(after(a, "-m"), "2048M");
}

TEST(GuestQemuArgv, MemoryBackends) {
  GuestSpec s = spec();
  s.backend = MemoryBackend::hugetlbfs;
  s.hugetlbfs_mount = "/mnt/huge1g";
  s.prealloc = true;
  s.host_numa_node = 1;
  EXPECT_EQ(after(build_qemu_argv(s, plan()), "-object"),
            "memory-backend-file,id=ram0,size=256M,mem-path=/mnt/huge1g,share=on,prealloc=on,"
            "host-nodes=1,policy=bind");
  s = spec();
  s.backend = MemoryBackend::memfd;
  EXPECT_EQ(after(build_qemu_argv(s, plan()), "-object"), "memory-backend-memfd,id=ram0,size=256M,share=on");
  s.host_numa_node = 0;
  EXPECT_EQ(after(build_qemu_argv(s, plan()), "-object"),
            "memory-backend-memfd,id=ram0,size=256M,share=on,host-nodes=0,policy=bind");
}

TEST(GuestQemuArgv, SevSnp) {
  GuestSpec s = spec();
  s.confidential = Confidential::sev_snp;
  s.snp.firmware = "/fw/OVMF.amdsev.fd";
  s.snp.cbitpos = 51;
  s.snp.reduced_phys_bits = 1;
  auto a = build_qemu_argv(s, plan(Accel::kvm));
  EXPECT_EQ(after(a, "-machine"), "q35,confidential-guest-support=sev0,memory-backend=ram0");
  EXPECT_EQ(after(a, "-object", 0), "memory-backend-memfd,id=ram0,size=256M,share=on");
  EXPECT_EQ(after(a, "-object", 1),
            "sev-snp-guest,id=sev0,cbitpos=51,reduced-phys-bits=1,policy=0x30000,kernel-hashes=on");
  EXPECT_EQ(after(a, "-bios"), "/fw/OVMF.amdsev.fd");
  // Not under TCG, not without firmware.
  EXPECT_THROW(build_qemu_argv(s, plan(Accel::tcg)), std::invalid_argument);
  s.snp.firmware.clear();
  EXPECT_THROW(build_qemu_argv(s, plan(Accel::kvm)), std::invalid_argument);
}

TEST(GuestQemuArgv, Tdx) {
  GuestSpec s = spec();
  s.confidential = Confidential::tdx;
  s.tdx.firmware = "/fw/OVMF.tdx.fd";
  auto a = build_qemu_argv(s, plan(Accel::kvm));
  EXPECT_EQ(after(a, "-machine"), "q35,kernel-irqchip=split,confidential-guest-support=tdx0,memory-backend=ram0");
  EXPECT_EQ(after(a, "-object", 1), "tdx-guest,id=tdx0");
  EXPECT_EQ(after(a, "-bios"), "/fw/OVMF.tdx.fd");
  EXPECT_THROW(build_qemu_argv(s, plan(Accel::tcg)), std::invalid_argument);
}

TEST(GuestQemuArgv, NetworkIsLoopbackOnly) {
  GuestSpec s = spec("tcp_rr");
  LaunchPlan p = plan();
  EXPECT_THROW(build_qemu_argv(s, p), std::invalid_argument);  // no host port
  p.host_port = 40123;
  auto a = build_qemu_argv(s, p);
  EXPECT_EQ(after(a, "-netdev"), "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:40123-:5201");
  EXPECT_EQ(after(a, "-device"), "virtio-net-pci,netdev=net0");
  EXPECT_NE(after(a, "-append").find("kvmbench.net=1"), std::string::npos);
}

TEST(GuestQemuArgv, PinningStartsPausedWithQmp) {
  LaunchPlan p = plan();
  p.qmp_socket = "/tmp/q/qmp.sock";
  p.start_paused = true;
  auto a = build_qemu_argv(spec(), p);
  EXPECT_EQ(after(a, "-qmp"), "unix:/tmp/q/qmp.sock,server=on,wait=off");
  EXPECT_TRUE(has(a, "-S"));
}

TEST(GuestQemuArgv, RejectsWhatCannotTravelOnTheCommandLine) {
  GuestSpec s = spec();
  s.args = {"--case=a b"};
  EXPECT_THROW(guest_cmdline(s), std::invalid_argument);
  s.args = {"--x=1,2"};
  EXPECT_THROW(guest_cmdline(s), std::invalid_argument);
  s.args = {};
  s.workload = "faultin; reboot";
  EXPECT_THROW(guest_cmdline(s), std::invalid_argument);
  s.workload = "";
  EXPECT_THROW(guest_cmdline(s), std::invalid_argument);
  s = spec();
  s.vcpus = 0;
  EXPECT_THROW(build_qemu_argv(s, plan()), std::invalid_argument);
  LaunchPlan unresolved = plan(Accel::automatic);
  EXPECT_THROW(build_qemu_argv(spec(), unresolved), std::invalid_argument);
}

TEST(GuestQemuArgv, ConfidentialRefusals) {
  GuestSpec s = spec();
  ConfidentialSupport none;
  EXPECT_EQ(confidential_refusal(s, none), "");  // nothing asked for
  s.confidential = Confidential::sev_snp;
  s.snp.firmware = "/fw/ovmf.fd";
  EXPECT_NE(confidential_refusal(s, none).find("KVM on this host cannot run guests"), std::string::npos);
  ConfidentialSupport kvm{true, {"default", "sev"}, {"sev-guest"}};
  EXPECT_NE(confidential_refusal(s, kvm).find("snp VM type"), std::string::npos);
  kvm.kvm_vm_types.push_back("snp");
  EXPECT_NE(confidential_refusal(s, kvm).find("no 'sev-snp-guest' object"), std::string::npos);
  kvm.qemu_objects.push_back("sev-snp-guest");
  EXPECT_EQ(confidential_refusal(s, kvm), "");
  s.accel = Accel::tcg;
  EXPECT_NE(confidential_refusal(s, kvm).find("TCG"), std::string::npos);
  s = spec();
  s.confidential = Confidential::tdx;
  s.tdx.firmware = "/fw/tdvf.fd";
  EXPECT_NE(confidential_refusal(s, kvm).find("tdx VM type"), std::string::npos);
}
