// Booting a kernel once through the boot loader, for `kvmbench ab
// --boot-via reboot` where kexec cannot go (a TDX host, Secure Boot with a
// self-built candidate): a one-shot entry that carries the step's command
// line (its marker included), then a reboot. The default entry is never
// changed, so a kernel that hangs comes back, after its panic= reset or a
// power cycle, in the machine's default: the base kernel.
//   GRUB 2          kvmbench's menuentry in /boot/grub/custom.cfg (which
//                   Debian's 41_custom sources at boot), chosen once by
//                   grub-reboot; needs GRUB_DEFAULT=saved
//   systemd-boot    a Type #1 entry on the ESP (the images copied there),
//                   chosen once by `bootctl set-oneshot`
//   UEFI            neither of them, an EFI machine with efibootmgr: the
//                   images copied to the ESP, a firmware boot entry
//                   "kvmbench-ab" loading the (EFI-stub) kernel with the
//                   step's command line, made without touching BootOrder
//                   and chosen once as BootNext
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "analysis/model/kernel_choice.h"

namespace kvmbench::host {

enum class BootLoaderKind { none, grub, systemd_boot, uefi };

struct BootLoader {
  BootLoaderKind kind = BootLoaderKind::none;
  std::string refusal;             // why `--boot-via reboot` cannot be used here ("" when it can)
  std::filesystem::path esp;       // systemd-boot: the ESP, as bootctl prints it; UEFI: where it is mounted
  bool boot_own_filesystem = false;  // GRUB: /boot is a filesystem of its own (paths relative to it)
  std::string esp_disk;            // UEFI: the ESP's disk ("/dev/nvme0n1") and partition number
  int esp_partition = 0;
};

// Pure: a partition's device ("/dev/nvme0n1p1", "/dev/sda2", "/dev/mmcblk0p1")
// as its disk and number ({"", 0} for a name that is not a partition's).
std::pair<std::string, int> disk_and_partition(const std::string& device);

// Pure: the numbers ("0007") of `efibootmgr`'s entries labelled `label`.
std::vector<std::string> efi_entries_labelled(const std::string& efibootmgr_output, const std::string& label);

// Which boot loader boots this machine (under $KVMBENCH_SYSFS_ROOT's
// /boot and /etc, with the programs on PATH), and whether ab may use it.
BootLoader probe_boot_loader();

// The path GRUB reads `file` by ("" where it cannot: a file outside /boot
// when /boot is a filesystem of its own).
std::string grub_path(const BootLoader& b, const std::string& file);

// Pure: `custom_cfg` with kvmbench's block (between its marks) replaced by
// one menuentry "kvmbench-ab" booting `linux` with `cmdline` (and `initrd`
// where not ""); "" for `linux` removes the block. Other entries stay.
std::string with_kvmbench_grub_entry(const std::string& custom_cfg, const std::string& linux,
                                     const std::string& initrd, const std::string& cmdline);

// Why kernel `k` cannot be booted this way ("" when it can).
std::string reboot_refusal(const BootLoader& b, const ab::KernelChoice& k);

// Writes the one-shot entry for `k` with `cmdline`, chooses it for the
// next boot only, and asks systemd to reboot. Returns when the reboot is
// under way; throws std::runtime_error (nothing chosen) where a step fails.
void reboot_into(const BootLoader& b, const ab::KernelChoice& k, const std::string& cmdline);

// Removes kvmbench's entry (the experiment is over).
void remove_reboot_entry(const BootLoader& b);

}  // namespace kvmbench::host
