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
