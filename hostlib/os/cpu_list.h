// The kernel's CPU-list text ("0-3,8,10-11", /sys/devices/system/cpu/online,
// cpuset.cpus, taskset -c): read and written in one place, for the pinning
// of measure/, the topology of facts/ and QEMU's vCPU threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11} (sorted, unique). Also accepts
// "0-7:2" (stride, as in the kernel's cpulist). Empty text -> empty set.
// Throws std::invalid_argument with the offending part on bad input.
std::vector<int> parse_cpu_list(std::string_view text);
// {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace kvmbench::host
