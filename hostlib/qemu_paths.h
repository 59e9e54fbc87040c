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

// $KVMBENCH_GUEST_KERNEL if set, else the newest .cache/guest-kernel/vmlinuz-*.
FoundPath default_guest_kernel();
// $KVMBENCH_GUEST_INITRAMFS if set, else <build>/guests/image/kvmbench-initramfs.cpio.
FoundPath default_guest_initramfs();
// The entry list the initramfs was built from (for the reproducibility test).
std::filesystem::path guest_initramfs_entries();
// <build>/guests/bin: kvmbench-<workload> and kvmbench-mkinitramfs.
std::filesystem::path guest_bin_dir();
// qemu-system-x86_64 from $KVMBENCH_QEMU or PATH.
FoundPath find_qemu();

}  // namespace kvmbench::host
