// Where the guest pieces are: the initramfs and workloads the build made,
// and the guest kernel cached by scripts/fetch-guest-kernel.sh. Each lookup
// says why it found nothing, so callers can skip with the reason.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kvmbench::host {

struct FoundPath {
  std::filesystem::path path;  // empty when not found
  std::string reason;          // why not (empty when found)
  explicit operator bool() const { return !path.empty(); }
};

// $KVMBENCH_GUEST_KERNEL if set, else the newest vmlinuz-* in the guest
// kernel cache (hostlib/os/install_layout.h).
FoundPath default_guest_kernel();
// $KVMBENCH_GUEST_INITRAMFS if set, else <data dir>/guest/kvmbench-initramfs.cpio.
FoundPath default_guest_initramfs();
// The entry list the initramfs was built from (for the reproducibility test).
std::filesystem::path guest_initramfs_entries();
// <prefix>/libexec/kvmbench: kvmbench-<workload> and kvmbench-mkinitramfs.
std::filesystem::path guest_bin_dir();
// qemu-system-x86_64 from $KVMBENCH_QEMU or PATH.
FoundPath find_qemu();

// The emulated lab machine (hostlib/lab/lab_machine.h):
// <data dir>/guest/kvmbench-lab-initramfs.cpio (lab-init and busybox).
FoundPath lab_base_initramfs();
// The kernel package the lab boots by default: $KVMBENCH_LAB_KERNEL if set,
// else the newest .deb under <guest kernel cache>/deb/ (what
// scripts/fetch-guest-kernel.sh downloads).
FoundPath default_lab_kernel_package();
// QEMU's virtiofsd: $KVMBENCH_VIRTIOFSD, else /usr/libexec/virtiofsd (the
// virtiofsd package) or /usr/lib/qemu/virtiofsd (QEMU 7.2's own).
FoundPath find_virtiofsd();

}  // namespace kvmbench::host
