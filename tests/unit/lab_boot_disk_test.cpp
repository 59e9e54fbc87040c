// The lab's boot disk (hostlib/lab/lab_boot_disk.h) and the lab machine
// booting it: the sector-0 layout by hand, the disk as e2fsprogs reads it
// back, and QEMU's arguments and lab-init's config for a lab that boots
// through GRUB.
#include "hostlib/lab/lab_boot_disk.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hostlib/lab/lab_machine.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;
namespace fs = std::filesystem;

namespace {

unsigned byte(const std::string& s, std::size_t at) { return static_cast<unsigned char>(s[at]); }

}  // namespace

// The classic MBR: code in bytes 0..439, the first partition entry at 446
// (16 bytes: status, CHS first, type, CHS last, LBA first, sectors, both
// little-endian), 0x55 0xAA at 510. 2048 = 0x00000800 -> 00 08 00 00;
// 196608 sectors (96 MiB) = 0x00030000 -> 00 00 03 00.
TEST(LabBootDisk, MbrHoldsTheBootCodeOneBootableLinuxPartitionAndTheSignature) {
  std::string code(512, '\0');
  for (std::size_t i = 0; i < code.size(); ++i) code[i] = static_cast<char>(i % 251 + 1);
  const std::string mbr = lab_disk_mbr(code, 2048, 196608);
  ASSERT_EQ(mbr.size(), 512u);
  EXPECT_EQ(mbr.substr(0, 440), code.substr(0, 440));
  // The disk signature and the other three entries stay zero.
  for (std::size_t i = 440; i < 446; ++i) EXPECT_EQ(byte(mbr, i), 0u) << i;
  for (std::size_t i = 462; i < 510; ++i) EXPECT_EQ(byte(mbr, i), 0u) << i;
  EXPECT_EQ(byte(mbr, 446), 0x80u);  // bootable
  EXPECT_EQ(byte(mbr, 450), 0x83u);  // Linux
  const std::vector<unsigned> lba = {byte(mbr, 454), byte(mbr, 455), byte(mbr, 456), byte(mbr, 457)};
  EXPECT_EQ(lba, (std::vector<unsigned>{0x00, 0x08, 0x00, 0x00}));
  const std::vector<unsigned> n = {byte(mbr, 458), byte(mbr, 459), byte(mbr, 460), byte(mbr, 461)};
  EXPECT_EQ(n, (std::vector<unsigned>{0x00, 0x00, 0x03, 0x00}));
  EXPECT_EQ(byte(mbr, 510), 0x55u);
  EXPECT_EQ(byte(mbr, 511), 0xaau);
  EXPECT_THROW(lab_disk_mbr(std::string(439, 'x'), 2048, 1), std::invalid_argument);
}

TEST(LabBootDisk, GrubCfgTakesNextEntryOnceThenTheLabKernelAndReadsCustomCfg) {
  const std::string cfg = lab_grub_cfg("6.1.0-57-cloud-amd64", "console=ttyS0 panic=-1 quiet");
  // grub-reboot's next_entry is the default once and cleared (save_env).
  const auto next = cfg.find("set default=\"${next_entry}\"");
  ASSERT_NE(next, std::string::npos) << cfg;
  EXPECT_LT(next, cfg.find("save_env next_entry")) << cfg;
  EXPECT_NE(cfg.find("load_env"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("set default=lab\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("--id lab {\n\tlinux /vmlinuz-6.1.0-57-cloud-amd64 console=ttyS0 panic=-1 quiet\n\tinitrd "
                     "/initrd.img-6.1.0-57-cloud-amd64\n}"),
            std::string::npos)
      << cfg;
  // What ab's GRUB path checks for (hostlib/state/boot_loader.cpp).
  EXPECT_NE(cfg.find("source $prefix/custom.cfg"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("echo \"KVMBENCH-LAB-GRUB entry=${default}\""), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("terminal_output serial"), std::string::npos) << cfg;
}

// The whole disk, built with this host's GRUB and e2fsprogs, read back
// with e2fsprogs' debugfs (no mount).
TEST(LabBootDisk, BuiltDiskHoldsTheKernelInitrdAndGrubWhereTheMbrSays) {
  std::string why;
  const fs::path grub = grub_bios_dir(why);
  if (grub.empty()) GTEST_SKIP() << why;
  if (run_command({"/bin/sh", "-c", "PATH=$PATH:/usr/sbin:/sbin; command -v debugfs && command -v grub-mkimage"})
          .exit_code != 0)
    GTEST_SKIP() << "no debugfs or grub-mkimage here";
  TempDir tmp;
  write_text(tmp.path / "vmlinuz", std::string(300000, 'k'));
  write_text(tmp.path / "lab.cpio", std::string(200000, 'i'));
  const fs::path image = tmp.path / "disk.img";
  build_lab_boot_disk(tmp.path / "vmlinuz", "6.1.0-57-cloud-amd64", tmp.path / "lab.cpio", "console=ttyS0",
                      tmp.path / "work", image);
  const std::string disk = read_text(image);
  ASSERT_GT(disk.size(), 2048u * 512);
  const std::string boot_img = read_text(grub / "boot.img");
  EXPECT_EQ(disk.substr(0, 440), boot_img.substr(0, 440));
  EXPECT_EQ(byte(disk, 510), 0x55u);
  // core.img from sector 1: its first sector is GRUB's diskboot.img (the
  // last 12 bytes, its blocklist, filled in by grub-mkimage).
  const std::string diskboot = read_text(grub / "diskboot.img");
  EXPECT_EQ(disk.substr(512, 500), diskboot.substr(0, 500));
  // The partition's length is the rest of the image.
  const std::uint32_t sectors = byte(disk, 458) | byte(disk, 459) << 8 | byte(disk, 460) << 16 |
                                static_cast<std::uint32_t>(byte(disk, 461)) << 24;
  EXPECT_EQ(2048u * 512 + std::uint64_t{sectors} * 512, disk.size());
  // The file system at 1 MiB: debugfs reads it from a copy of the partition.
  write_text(tmp.path / "part.img", disk.substr(2048 * 512));
  const auto cat = [&](const std::string& file) {
    return run_command({"/bin/sh", "-c", "PATH=$PATH:/usr/sbin:/sbin exec debugfs -R \"cat $0\" \"$1\" 2>/dev/null", file,
                        (tmp.path / "part.img").string()})
        .out;
  };
  EXPECT_TRUE(cat("/vmlinuz-6.1.0-57-cloud-amd64") == std::string(300000, 'k'));
  EXPECT_TRUE(cat("/initrd.img-6.1.0-57-cloud-amd64") == std::string(200000, 'i'));
  EXPECT_EQ(cat("/grub/grub.cfg"), lab_grub_cfg("6.1.0-57-cloud-amd64", "console=ttyS0"));
  const std::string env = cat("/grub/grubenv");
  EXPECT_EQ(env.size(), 1024u) << "GRUB's environment block, rewritten in place by save_env";
  EXPECT_EQ(env.rfind("# GRUB Environment Block", 0), 0u) << env;
  EXPECT_NE(cat("/grub/i386-pc/linux.mod").size(), 0u);
  EXPECT_NE(run_command({"/bin/sh", "-c", "PATH=$PATH:/usr/sbin:/sbin exec dumpe2fs -h \"$0\" 2>/dev/null",
                         (tmp.path / "part.img").string()})
                .out.find("Filesystem volume name:   kvmbench-boot"),
            std::string::npos);
}

TEST(LabBootDisk, TheLabBootsTheDiskAndAResetBootsItAgain) {
  LabSpec s;
  s.kernel.vmlinuz = "/cache/k/vmlinuz-6.1.0-57-cloud-amd64";
  s.kernel.release = "6.1.0-57-cloud-amd64";
  s.command = {"/b/kvmbench", "ab"};
  s.hostname = "vm-lab";
  LabPaths p{"/usr/bin/qemu-system-x86_64", "/s/lab.cpio", "/s/console.log", "/s/hostfs.sock", "/s/control.sock",
             "/s/qmp.sock", ""};
  const auto plain = build_lab_qemu_argv(s, p);
  EXPECT_NE(std::find(plain.begin(), plain.end(), "-no-reboot"), plain.end());
  EXPECT_NE(std::find(plain.begin(), plain.end(), "-kernel"), plain.end());
  s.boot_through_grub = true;
  EXPECT_THROW(build_lab_qemu_argv(s, p), std::invalid_argument) << "no disk named";
  p.boot_disk = "/s/boot-disk.img";
  const auto a = build_lab_qemu_argv(s, p);
  for (const char* gone : {"-no-reboot", "-kernel", "-initrd", "-append"})
    EXPECT_EQ(std::find(a.begin(), a.end(), gone), a.end()) << gone;
  EXPECT_NE(std::find(a.begin(), a.end(), "file=/s/boot-disk.img,if=none,id=bootdisk,format=raw"), a.end());
  EXPECT_NE(std::find(a.begin(), a.end(), "nvme,drive=bootdisk,serial=kvmbench-lab"), a.end());
  // lab-init mounts the partition as /boot.
  EXPECT_NE(lab_config_text(s, "/tmp/x").find("LAB_BOOT_DISK=/dev/nvme0n1p1\n"), std::string::npos);
  s.boot_through_grub = false;
  EXPECT_NE(lab_config_text(s, "/tmp/x").find("LAB_BOOT_DISK=\n"), std::string::npos);
}

// GRUB's line (behind the serial terminal's escape codes) names each
// boot's entry; each of lab-init's BOOTED lines is a boot.
TEST(LabBootDisk, ConsoleCountsBootsAndTheEntriesGrubBooted) {
  const auto c = parse_lab_console(
      "\x1b[H\x1b[J\x1b[1;1HKVMBENCH-LAB-GRUB entry=lab\r\n"
      "KVMBENCH-LAB-BOOTED uptime=4.43\n"
      "KVMBENCH-LAB-READY uptime=6 kvm=loaded npt=Y release=6.1.0-57-cloud-amd64\n"
      "[   30.1] reboot: Restarting system\n"
      "\x1b[H\x1b[J\x1b[1;1HKVMBENCH-LAB-GRUB entry=kvmbench-ab\r\n"
      "KVMBENCH-LAB-BOOTED uptime=4.50\n");
  EXPECT_EQ(c.boots, 2);
  EXPECT_EQ(c.grub_entries, (std::vector<std::string>{"lab", "kvmbench-ab"}));
}

// A real console (tests/data/lab/grub-candidate-panics.console.log: `lab ab
// --boot-via reboot --cand-append rdinit=/nonexistent -n 2`, 2026-12-07):
// GRUB's default entry, base's step, the candidate's (which panicked before
// lab-init: no BOOTED line), then the default again by itself.
TEST(LabBootDisk, ARealGrubConsoleWithAPanickedCandidate) {
  const std::string text = read_text(fs::path(KVMBENCH_TEST_DATA) / "lab" / "grub-candidate-panics.console.log");
  const auto c = parse_lab_console(text);
  EXPECT_EQ(c.grub_entries, (std::vector<std::string>{"lab", "kvmbench-ab", "kvmbench-ab", "lab"}));
  EXPECT_EQ(c.boots, 3);
  EXPECT_TRUE(c.ready);
  EXPECT_EQ(c.ready_line, "uptime=4.48 kvm=loaded npt=Y release=6.1.0-57-cloud-amd64");
}
