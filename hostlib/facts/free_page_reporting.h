// Free page reporting: a guest whose virtio-balloon device offers
// VIRTIO_BALLOON_F_REPORTING hands free blocks of 2^order pages (and larger)
// back to its hypervisor, which discards them; memory the guest allocates
// from such a block later faults in at the host as well. A measurement of
// fault-in rates inside such a guest has repetitions that are many times
// slower than the others (huge-page backings most: a 2 MiB page is a whole
// block at order 9). The run records it and warns.
#pragma once

#include <filesystem>
#include <optional>

namespace kvmbench::host {

// The order above which free blocks are reported, when a balloon device
// that reports is bound; nullopt when none is (bare metal, most VMs).
// `sysfs`: the root of sysfs ("/sys"; a made-up tree in tests).
std::optional<int> free_page_reporting_order(const std::filesystem::path& sysfs = "/sys");

}  // namespace kvmbench::host
