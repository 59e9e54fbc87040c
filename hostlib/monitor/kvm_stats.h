// KVM's binary statistics (KVM_GET_STATS_FD, Documentation/virt/kvm/api.rst
// 4.133) of the VMs and vCPUs kvmbench opens itself: read just before each
// fd is closed (hostlib/kvm/kvm_vm.h's closing hook), and of the guests QEMU
// runs under KVM, as QEMU's query-stats reports them when the guest shuts
// down (hostlib/kvm/kvm_stat.h's guest sink); summed over the VMs and vCPUs
// of a repetition, as kvm.<name>.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hostlib/kvm/kvm_stat.h"

namespace kvmbench::host {


// The statistics in a stats fd's contents (header, descriptors, data),
// histograms and booleans left out. Throws std::runtime_error for contents
// that do not hold together.
std::vector<KvmStat> parse_kvm_stats(std::string_view bytes);

// The statistics of a VM or vCPU fd: KVM_GET_STATS_FD, its contents read
// whole. Throws std::runtime_error naming the call and errno's text.
std::vector<KvmStat> read_kvm_stats(int vm_or_vcpu_fd);

// Sums over the fds closed and the QEMU guests ended between begin() and
// end() (one at a time: the hooks are process-wide).
struct KvmStatTotals {
  std::map<std::string, KvmStat> stats;  // by name; peaks are the largest seen
  std::vector<std::string> errors;       // "KVM_GET_STATS_FD on a vCPU: ...", each once
  unsigned vms = 0, vcpus = 0;           // the VMs and vCPUs read
};

// Installs the closing hook and the guest sink and starts counting (`all`: instant and peak
// statistics too; else the cumulative ones and the pages_* mapped).
void kvm_stats_begin(bool all);
// What was counted since kvm_stats_begin(); removes the hooks.
KvmStatTotals kvm_stats_end();

}  // namespace kvmbench::host
