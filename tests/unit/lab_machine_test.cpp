// The emulated lab machine's pure parts (QEMU and virtiofsd argument
// vectors, the command script and its quoting, the console markers of
// guests/image/lab-init) and the staging of a lab kernel's modules.
#include "hostlib/lab/lab_machine.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hostlib/lab/lab_kernel.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;
namespace fs = std::filesystem;

namespace {

LabSpec spec_with(std::vector<std::string> command) {
  LabSpec s;
  s.kernel.vmlinuz = "/cache/k/vmlinuz-6.1.0-57-cloud-amd64";
  s.kernel.release = "6.1.0-57-cloud-amd64";
  s.command = std::move(command);
  s.cwd = "/work/main";
  s.hostname = "vm-lab";
  return s;
}

// The value after `flag` in argv ("" when absent).
std::string after(const std::vector<std::string>& argv, const std::string& flag) {
  auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

}  // namespace

TEST(LabMachine, QemuArgvIsTcgWithSvmNestedPagingAndASharedMemoryBackend) {
  LabSpec s = spec_with({"/b/kvmbench", "probe"});
  s.vcpus = 2;
  s.memory_mib = 4096;
  LabPaths p{"/usr/bin/qemu-system-x86_64", "/s/lab.cpio", "/s/console.log", "/s/hostfs.sock", "/s/control.sock",
             "/s/qmp.sock"};
  auto a = build_lab_qemu_argv(s, p);
  EXPECT_EQ(a.front(), "/usr/bin/qemu-system-x86_64");
  // Single-threaded TCG: with one host thread per vCPU the lab wedged.
  EXPECT_EQ(after(a, "-accel"), "tcg,thread=single");
  EXPECT_EQ(after(a, "-cpu"), "qemu64,+svm,+npt");
  EXPECT_EQ(after(a, "-smp"), "2");
  EXPECT_EQ(after(a, "-m"), "4096M");
  // vhost-user needs guest RAM virtiofsd can map: a shared memfd backend,
  // the machine's memory.
  EXPECT_EQ(after(a, "-machine"), "q35,memory-backend=labmem");
  EXPECT_EQ(after(a, "-object"), "memory-backend-memfd,id=labmem,size=4096M,share=on");
  EXPECT_EQ(after(a, "-device"), "vhost-user-fs-pci,chardev=hostfs,tag=kvmbench-host");
  EXPECT_EQ(after(a, "-kernel"), "/cache/k/vmlinuz-6.1.0-57-cloud-amd64");
  EXPECT_EQ(after(a, "-initrd"), "/s/lab.cpio");
  EXPECT_NE(after(a, "-append").find("console=ttyS0"), std::string::npos);
  s.extra_cmdline = "rdinit=/nonexistent";
  EXPECT_EQ(after(build_lab_qemu_argv(s, p), "-append"), after(a, "-append") + " rdinit=/nonexistent");
  s.extra_cmdline.clear();
  // ttyS0 the console file, ttyS1 the control socket, in that order.
  std::vector<std::string> serials;
  for (std::size_t i = 0; i + 1 < a.size(); ++i)
    if (a[i] == "-serial") serials.push_back(a[i + 1]);
  EXPECT_EQ(serials, (std::vector<std::string>{"chardev:con0", "chardev:ctl0"}));
  EXPECT_NE(std::find(a.begin(), a.end(), "file,id=con0,path=/s/console.log"), a.end());
  EXPECT_NE(std::find(a.begin(), a.end(), "socket,id=ctl0,path=/s/control.sock,server=on,wait=off"), a.end());
  s.memory_mib = 256;
  EXPECT_THROW(build_lab_qemu_argv(s, p), std::invalid_argument);
  s.memory_mib = 4096;
  s.vcpus = 0;
  EXPECT_THROW(build_lab_qemu_argv(s, p), std::invalid_argument);
}

TEST(LabMachine, VirtiofsdSharesTheRootFromAChroot) {
  auto c = build_virtiofsd_argv("/usr/lib/qemu/virtiofsd", false, "/s/hostfs.sock");
  EXPECT_EQ(c, (std::vector<std::string>{"/usr/lib/qemu/virtiofsd", "--socket-path=/s/hostfs.sock", "-o", "source=/",
                                         "-o", "cache=auto", "-o", "sandbox=chroot"}));
  auto r = build_virtiofsd_argv("/usr/libexec/virtiofsd", true, "/s/hostfs.sock");
  EXPECT_NE(std::find(r.begin(), r.end(), "--shared-dir=/"), r.end());
  EXPECT_NE(std::find(r.begin(), r.end(), "--sandbox=chroot"), r.end());
}

TEST(LabMachine, ShellQuoteSurvivesARealShell) {
  // What /bin/sh makes of the quoted word must be the text itself.
  for (std::string text : {"plain", "two words", "it's", "'", "''", "a\"b", "$HOME `id` \\ * ?", "line\nbreak", ""}) {
    auto r = run_command({"/bin/sh", "-c", "printf %s " + shell_quote(text)});
    EXPECT_EQ(r.exit_code, 0) << text;
    EXPECT_EQ(r.out, text);
  }
}

TEST(LabMachine, CommandScriptSetsTheEnvironmentEntersCwdAndExecs) {
  LabSpec s = spec_with({"/b/kvmbench", "run", "asid", "--set", "npt=on,off", "--out", "/r/it's here"});
  s.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/run/kvmbench-lab/home"}, {"TMPDIR", "/tmp/x"},
           {"KVMBENCH_LAB", R"({"id":"1"})"}};
  const std::string script = lab_command_script(s);
  EXPECT_NE(script.find("export KVMBENCH_LAB='{\"id\":\"1\"}'\n"), std::string::npos) << script;
  EXPECT_NE(script.find("cd '/work/main' ||"), std::string::npos) << script;
  EXPECT_NE(script.find("exec '/b/kvmbench' 'run' 'asid' '--set' 'npt=on,off' '--out' '/r/it'\\''s here'\n"),
            std::string::npos)
      << script;
  EXPECT_THROW(lab_command_script(spec_with({})), std::invalid_argument);

  // Run it for real with a stand-in binary: the arguments arrive whole.
  TempDir dir;
  const fs::path fake = dir.path / "kvmbench";
  write_text(fake, "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\nprintf ' %s' \"$KVMBENCH_LAB\"\n");
  fs::permissions(fake, fs::perms::owner_all);
  s.command[0] = fake.string();
  s.cwd = dir.path;
  s.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", (dir.path / "home").string()}, {"TMPDIR", (dir.path / "tmp").string()},
           {"KVMBENCH_LAB", "{}"}};
  write_text(dir.path / "command", lab_command_script(s));
  // (the script also links kvmbench into /run/kvmbench-lab/bin; not here)
  auto r = run_command({"/bin/sh", "-c", "sed -e '/kvmbench-lab/d' " + shell_quote((dir.path / "command").string()) +
                                             " | sh"});
  EXPECT_EQ(r.out, "[run][asid][--set][npt=on,off][--out][/r/it's here] {}") << r.err;
}

TEST(LabMachine, ConfigNamesTheWritableDirectoriesAndTheScratch) {
  LabSpec s = spec_with({"/b/kvmbench", "probe"});
  s.writable = {"/work/main/results/runs"};
  auto c = lab_config_text(s, "/tmp/kvmbench-lab-abc");
  EXPECT_NE(c.find("LAB_HOSTNAME='vm-lab'\n"), std::string::npos) << c;
  EXPECT_NE(c.find("LAB_SCRATCH='/tmp/kvmbench-lab-abc'\n"), std::string::npos) << c;
  EXPECT_NE(c.find("LAB_WRITABLE='/work/main/results/runs\n/tmp/kvmbench-lab-abc\n'\n"), std::string::npos) << c;
  // It is sourced by lab-init's shell: it must parse as shell.
  TempDir dir;
  write_text(dir.path / "config", c);
  auto r = run_command({"/bin/sh", "-c", ". " + (dir.path / "config").string() + " && printf '%s|' \"$LAB_SCRATCH\""});
  EXPECT_EQ(r.out, "/tmp/kvmbench-lab-abc|");
}

TEST(LabMachine, ConsoleMarkers) {
  auto c = parse_lab_console(
      "[    0.000000] Linux version 6.1.0\n"
      "KVMBENCH-LAB-BOOTED uptime=1.43\r\n"
      "KVMBENCH-LAB-WARNING kvm_amd did not load: no such device\n"
      "KVMBENCH-LAB-READY uptime=2.28 kvm=loaded npt=Y release=6.1.0-57-cloud-amd64\n"
      "[    9.1] random kernel line\n"
      "KVMBENCH-LAB-END status=77 uptime=9.50");  // no newline at the end
  EXPECT_TRUE(c.booted);
  EXPECT_TRUE(c.ready);
  EXPECT_EQ(c.ready_line, "uptime=2.28 kvm=loaded npt=Y release=6.1.0-57-cloud-amd64");
  EXPECT_EQ(c.warnings, std::vector<std::string>{"kvm_amd did not load: no such device"});
  EXPECT_TRUE(c.errors.empty());
  EXPECT_TRUE(c.ended);
  EXPECT_EQ(c.end_status, 77);
  auto e = parse_lab_console("KVMBENCH-LAB-BOOTED uptime=1\nKVMBENCH-LAB-ERROR cannot mount the host's filesystem\n");
  EXPECT_TRUE(e.booted);
  EXPECT_FALSE(e.ready);
  EXPECT_EQ(e.errors, std::vector<std::string>{"cannot mount the host's filesystem"});
  EXPECT_FALSE(parse_lab_console("").booted);
}

TEST(LabKernel, ReleaseFromTheImageName) {
  EXPECT_EQ(release_of_vmlinuz("/boot/vmlinuz-6.1.0-57-cloud-amd64"), "6.1.0-57-cloud-amd64");
  EXPECT_EQ(release_of_vmlinuz("/boot/bzImage"), "");
  EXPECT_EQ(release_of_vmlinuz("vmlinuz-"), "");
}

namespace {

// A kernel's modules directory as a package holds it, with fake modules.
void fake_modules(const fs::path& dir, bool with_kvm_amd, bool virtiofs_builtin) {
  for (const char* m : {"kernel/arch/x86/kvm/kvm.ko", "kernel/virt/lib/irqbypass.ko", "kernel/fs/fuse/fuse.ko",
                        "kernel/fs/overlayfs/overlay.ko", "kernel/drivers/virtio/virtio_pci.ko",
                        "kernel/drivers/net/virtio_net.ko", "kernel/sound/core/snd.ko"})
    write_text(dir / m, std::string("module ") + m);
  if (with_kvm_amd) write_text(dir / "kernel/arch/x86/kvm/kvm-amd.ko", "module kvm-amd");
  write_text(dir / "modules.order", "kernel/arch/x86/kvm/kvm.ko\n");
  if (virtiofs_builtin) write_text(dir / "modules.builtin", "kernel/fs/fuse/virtiofs.ko\n");
  else write_text(dir / "kernel/fs/fuse/virtiofs.ko", "module virtiofs");
}

}  // namespace

TEST(LabKernel, StagesOnlyTheLabsModulesAndUncompressesThem) {
  TempDir dir;
  const fs::path mods = dir.path / "lib/modules/6.9.0-lab";
  fake_modules(mods, true, false);
  // A compressed module (Debian since 6.x): staged as plain .ko.
  write_text(dir.path / "ccp.ko", "module ccp, compressed");
  auto xz = run_command({"/bin/sh", "-c", "xz -z " + (dir.path / "ccp.ko").string() + " 2>&1 || busybox xz -z " +
                                              (dir.path / "ccp.ko").string()});
  ASSERT_TRUE(fs::exists(dir.path / "ccp.ko.xz")) << xz.out;
  fs::create_directories(mods / "kernel/drivers/crypto/ccp");
  fs::rename(dir.path / "ccp.ko.xz", mods / "kernel/drivers/crypto/ccp/ccp.ko.xz");
  write_text(dir.path / "vmlinuz-6.9.0-lab", "not really a kernel");

  auto k = stage_lab_kernel_image(dir.path / "vmlinuz-6.9.0-lab", mods, dir.path / "cache");
  EXPECT_EQ(k.release, "6.9.0-lab");
  EXPECT_EQ(read_text(k.vmlinuz), "not really a kernel");
  const fs::path staged = k.modules_root / "lib/modules/6.9.0-lab";
  EXPECT_EQ(read_text(staged / "kernel/arch/x86/kvm/kvm-amd.ko"), "module kvm-amd");
  EXPECT_EQ(read_text(staged / "kernel/drivers/crypto/ccp/ccp.ko"), "module ccp, compressed");
  EXPECT_FALSE(fs::exists(staged / "kernel/drivers/crypto/ccp/ccp.ko.xz"));
  EXPECT_TRUE(fs::exists(staged / "kernel/fs/fuse/virtiofs.ko"));
  EXPECT_TRUE(fs::exists(staged / "modules.order"));
  // Not what the lab needs: left out.
  EXPECT_FALSE(fs::exists(staged / "kernel/sound/core/snd.ko"));
  EXPECT_FALSE(fs::exists(staged / "kernel/drivers/net/virtio_net.ko"));
  // Staged once: a second call reuses it.
  fs::remove(staged / "modules.order");
  auto again = stage_lab_kernel_image(dir.path / "vmlinuz-6.9.0-lab", mods, dir.path / "cache");
  EXPECT_EQ(again.modules_root, k.modules_root);
  EXPECT_FALSE(fs::exists(staged / "modules.order"));
}

TEST(LabKernel, RefusesAKernelWithoutWhatTheLabNeeds) {
  TempDir dir;
  write_text(dir.path / "vmlinuz-6.9.0-nokvm", "k");
  fake_modules(dir.path / "nokvm", false, false);
  try {
    stage_lab_kernel_image(dir.path / "vmlinuz-6.9.0-nokvm", dir.path / "nokvm", dir.path / "cache");
    FAIL() << "staged a kernel without kvm-amd";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("kvm-amd"), std::string::npos) << e.what();
  }
  // Nothing half-staged is left to be taken for a staged kernel later.
  std::error_code ec;
  for (auto& de : fs::directory_iterator(dir.path / "cache", ec)) ADD_FAILURE() << "left " << de.path();
  // virtiofs built in (modules.builtin) is as good as a module.
  write_text(dir.path / "vmlinuz-6.9.0-builtin", "k");
  fake_modules(dir.path / "builtin", true, true);
  EXPECT_NO_THROW(stage_lab_kernel_image(dir.path / "vmlinuz-6.9.0-builtin", dir.path / "builtin", dir.path / "cache"));
  EXPECT_THROW(stage_lab_kernel_package(dir.path / "missing.deb", dir.path / "cache"), std::runtime_error);
  write_text(dir.path / "bad.deb", "not a deb");
  EXPECT_THROW(stage_lab_kernel_package(dir.path / "bad.deb", dir.path / "cache"), std::runtime_error);
}
