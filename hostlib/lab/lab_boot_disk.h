// The lab machine's boot disk, for `kvmbench lab ... ab --boot-via reboot`:
// the lab boots from it as a lab machine boots, through its firmware
// (SeaBIOS) and GRUB 2, so that each reboot is a real reset that GRUB
// resolves, grubenv's next_entry included, and not QEMU's -kernel again.
//
//   sector 0        GRUB's boot.img (440 bytes) and one partition, bootable
//   sectors 1..     GRUB's core.img (grub-mkimage -O i386-pc: biosdisk,
//                   part_msdos, ext2; prefix (hd0,msdos1)/grub)
//   1 MiB on        the partition: ext2 (mke2fs -d, no mount needed) with
//                   vmlinuz-<release>, initrd.img-<release> (the lab's
//                   initramfs), grub/grub.cfg, grub/grubenv and GRUB's
//                   i386-pc modules
//
// grub.cfg does what Debian's update-grub writes for grub-reboot (load_env,
// a next_entry taken once and cleared with save_env, else the default) and
// sources grub/custom.cfg as 41_custom does; its default entry boots the
// lab kernel with the lab's command line. Inside the lab the partition is
// /boot (lab-init mounts it) and /etc/default/grub says GRUB_DEFAULT=saved,
// so `ab`'s GRUB path (hostlib/state/boot_loader.h) runs there unchanged.
// Built per lab from Debian's grub-pc-bin, grub-common and e2fsprogs in a
// second or so (the initramfs on it is each lab's own): nothing to cache.
// The disk is NVMe: SeaBIOS boots it and the Debian cloud kernel has the
// driver built in.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kvmbench::host {

// The partition as the lab kernel names it (one NVMe disk).
inline constexpr const char* kLabBootPartition = "/dev/nvme0n1p1";
// The line GRUB prints before it boots an entry (parse_lab_console's
// boot_entries).
inline constexpr const char* kLabGrubMarker = "KVMBENCH-LAB-GRUB";

// grub.cfg for the lab kernel `release` booted with `cmdline`. Pure.
std::string lab_grub_cfg(const std::string& release, const std::string& cmdline);

// Sector 0: `boot_img`'s code (its first 440 bytes) and one bootable Linux
// partition from `first_lba`, `sectors` long, with the 0x55AA signature.
// Pure; throws std::invalid_argument for a boot_img shorter than 440 bytes.
std::string lab_disk_mbr(std::string_view boot_img, std::uint32_t first_lba, std::uint32_t sectors);

// Where GRUB's BIOS files are ("" and the packages to install in `why`
// when this host lacks them).
std::filesystem::path grub_bios_dir(std::string& why);

// Builds `image` from the lab kernel `vmlinuz` (of `release`), the lab's
// `initramfs` and its `cmdline`, working in `work`. Throws
// std::runtime_error naming what failed (a missing program says its
// Debian package).
void build_lab_boot_disk(const std::filesystem::path& vmlinuz, const std::string& release,
                         const std::filesystem::path& initramfs, const std::string& cmdline,
                         const std::filesystem::path& work, const std::filesystem::path& image);

}  // namespace kvmbench::host
