// hostlib/state/boot_loader.h's pure parts: kvmbench's GRUB entry written
// into custom.cfg beside what the machine has there, and the paths GRUB
// reads a kernel by.
#include <gtest/gtest.h>

#include "hostlib/state/boot_loader.h"

using namespace kvmbench::host;

TEST(GrubEntry, ReplacesOnlyItsOwnBlockAndQuotesThePaths) {
  const std::string own = "menuentry 'memtest' {\n\tlinux16 /memtest86+.bin\n}\n";
  const std::string one = with_kvmbench_grub_entry(own, "/boot/vmlinuz-6.19", "/boot/initrd.img-6.19",
                                                   "root=/dev/vda1 ro kvmbench.ab=x:0");
  EXPECT_EQ(one.substr(0, own.size()), own);
  EXPECT_NE(one.find("menuentry 'kvmbench ab' --id kvmbench-ab {\n\tlinux '/boot/vmlinuz-6.19' root=/dev/vda1 ro "
                     "kvmbench.ab=x:0\n\tinitrd '/boot/initrd.img-6.19'\n}\n"),
            std::string::npos)
      << one;
  // The next step's entry replaces it: one kvmbench entry at a time.
  const std::string two = with_kvmbench_grub_entry(one, "/it's/bzImage", "", "kvmbench.ab=x:1");
  EXPECT_EQ(two.find("kvmbench.ab=x:0"), std::string::npos) << two;
  EXPECT_NE(two.find("\tlinux '/it'\\''s/bzImage' kvmbench.ab=x:1\n}\n"), std::string::npos) << two;
  EXPECT_EQ(two.find("initrd"), std::string::npos) << two;
  // Removed: the machine's own lines, as they were.
  EXPECT_EQ(with_kvmbench_grub_entry(two, "", "", ""), own);
  EXPECT_EQ(with_kvmbench_grub_entry("", "", "", ""), "");
}

TEST(GrubEntry, PathsRelativeToASeparateBootFilesystem) {
  BootLoader same;
  same.kind = BootLoaderKind::grub;
  EXPECT_EQ(grub_path(same, "/srv/kernels/bzImage"), "/srv/kernels/bzImage");
  BootLoader own = same;
  own.boot_own_filesystem = true;
  EXPECT_EQ(grub_path(own, "/boot/vmlinuz-6.19"), "/vmlinuz-6.19");
  EXPECT_EQ(grub_path(own, "/srv/kernels/bzImage"), "");
  kvmbench::ab::KernelChoice k;
  k.spec = "/srv/kernels/bzImage";
  k.image = k.spec;
  EXPECT_NE(reboot_refusal(own, k).find("copy it under /boot"), std::string::npos);
  EXPECT_EQ(reboot_refusal(same, k), "");
}

// The ESP's device as efibootmgr's --disk and --part want it.
TEST(UefiBootNext, DiskAndPartitionOfADevice) {
  using P = std::pair<std::string, int>;
  EXPECT_EQ(disk_and_partition("/dev/nvme0n1p1"), (P{"/dev/nvme0n1", 1}));
  EXPECT_EQ(disk_and_partition("/dev/sda2"), (P{"/dev/sda", 2}));
  EXPECT_EQ(disk_and_partition("/dev/vda15"), (P{"/dev/vda", 15}));
  EXPECT_EQ(disk_and_partition("/dev/mmcblk0p12"), (P{"/dev/mmcblk0", 12}));
  // Whole disks and what is no device.
  EXPECT_EQ(disk_and_partition("/dev/nvme0n1"), (P{"", 0}));
  EXPECT_EQ(disk_and_partition("/dev/sda"), (P{"", 0}));
  EXPECT_EQ(disk_and_partition("UUID=1234"), (P{"", 0}));
  EXPECT_EQ(disk_and_partition(""), (P{"", 0}));
}

// efibootmgr's listing as version 18 prints it (Debian 12's): active
// entries with '*', the label, a tab, the device path; verbose or not.
TEST(UefiBootNext, EntriesByTheirLabel) {
  const std::string out =
      "BootCurrent: 0001\nTimeout: 1 seconds\nBootOrder: 0001,0000,0002\n"
      "Boot0000* UiApp\tFvVol(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)\n"
      "Boot0001* debian\tHD(1,GPT,0b6b5ac2-1f85-4d3a-9dfe-6f4cd0e1b1f4,0x800,0x100000)/File(\\EFI\\debian\\shimx64.efi)\n"
      "Boot0007  kvmbench-ab\tHD(1,GPT,0b6b5ac2-1f85-4d3a-9dfe-6f4cd0e1b1f4,0x800,0x100000)/File(\\kvmbench-ab\\linux.efi)"
      "69 00 6e 00\n"
      "Boot000A* kvmbench-ab-other\tHD(1)\n"
      "BootNext: 0007\n";
  EXPECT_EQ(efi_entries_labelled(out, "kvmbench-ab"), std::vector<std::string>{"0007"});
  EXPECT_EQ(efi_entries_labelled(out, "debian"), std::vector<std::string>{"0001"});
  EXPECT_TRUE(efi_entries_labelled(out, "kvmbench").empty());
  EXPECT_TRUE(efi_entries_labelled("", "kvmbench-ab").empty());
}

// Older efibootmgr (0.x, as published in askubuntu.com/questions/489967's
// `efibootmgr -v` and the tool's own README) separates the label from the
// device path with spaces, not a tab, and leaves trailing blanks.
TEST(UefiBootNext, EntriesByTheirLabelInTheOlderSpacedListing) {
  const std::string out =
      "BootCurrent: 0008\nTimeout: 0 seconds\nBootOrder: 0010,0003\n"
      "Boot0000  Setup \n"
      "Boot0003* ATA HDD2: WDC WD5000LPVT-08G33T1                      ACPI(a0341d0,0)PCI(1f,2)03120a00010000000000"
      "..bYVD.A...O.*..\n"
      "Boot0010* Windows Boot Manager  HD(2,1f4800,82000,72931328-061b-42e0-8fd8-8a5ac7775074)File(\\EFI\\Microsoft\\"
      "Boot\\bootmgfw.efi)WINDOWS.........x...\n"
      "Boot0014  Setup \n"
      "Boot0004* Linux\n";
  EXPECT_EQ(efi_entries_labelled(out, "Setup"), (std::vector<std::string>{"0000", "0014"}));
  EXPECT_EQ(efi_entries_labelled(out, "Windows Boot Manager"), std::vector<std::string>{"0010"});
  EXPECT_EQ(efi_entries_labelled(out, "Linux"), std::vector<std::string>{"0004"});
  EXPECT_TRUE(efi_entries_labelled(out, "Windows").empty());
}
