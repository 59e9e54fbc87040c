// Where kvmbench's data is at run time, found from the binary's own place:
// nothing compiled in points into the build tree, so one build runs from
// build/, from `cmake --install` under any prefix, and from the Debian
// package. A prefix holds share/kvmbench (reference data, guest images) and
// libexec/kvmbench (the guest workloads); the build tree is laid out as a
// prefix by the build itself (build/share/kvmbench, build/libexec/kvmbench:
// symlinks to the source's results/reference and the build's guests/).
#pragma once

#include <filesystem>

namespace kvmbench::host {

// $KVMBENCH_PREFIX if set, else the first of <exe dir>/.. (bin/kvmbench in
// an installed prefix; build/tests/<test> in the build tree) and <exe dir>
// (build/kvmbench) that has share/kvmbench. Empty when none has.
std::filesystem::path install_prefix();
// <prefix>/share/kvmbench: reference/ (the documents' raw data), guest/
// (kvmbench-initramfs.cpio, kvmbench-lab-initramfs.cpio).
std::filesystem::path data_dir();
// <prefix>/libexec/kvmbench: kvmbench-<workload>, kvmbench-mkinitramfs.
std::filesystem::path libexec_dir();
// The guest kernel cache (what scripts/fetch-guest-kernel.sh fills):
// $KVMBENCH_GUEST_KERNEL_CACHE if set, else <data dir>/guest-kernel where it
// exists (the build tree: the source's .cache/guest-kernel), else
// /var/cache/kvmbench/guest-kernel (an installed copy).
std::filesystem::path guest_kernel_cache();

}  // namespace kvmbench::host
