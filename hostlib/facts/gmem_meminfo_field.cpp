#include "hostlib/facts/gmem_meminfo_field.h"
#include "hostlib/os/kernel_files.h"

#include <fcntl.h>
#include <linux/falloc.h>

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/model/units.h"
#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

namespace {

Meminfo read_meminfo() {
  return parse_meminfo(read_kernel_file("/proc/meminfo").value_or(""));
}

std::string signed_bytes(double delta) {
  return (delta < 0 ? "-" : "+") + format_bytes(static_cast<unsigned long long>(delta < 0 ? -delta : delta));
}

}  // namespace

GrowingField choose_growing_field(const Meminfo& before, const Meminfo& after, std::uint64_t allocated,
                                  const std::vector<std::string>& candidates) {
  GrowingField g;
  std::vector<std::string> seen;
  for (const auto& f : candidates) {
    const auto b = before.find(f), a = after.find(f);
    if (b == before.end() || a == after.end()) {
      seen.push_back(f + " absent");
      continue;
    }
    const double delta = static_cast<double>(a->second) - static_cast<double>(b->second);
    seen.push_back(f + " " + signed_bytes(delta));
    if (g.field.empty() && delta >= 0.9 * static_cast<double>(allocated) &&
        delta <= 1.5 * static_cast<double>(allocated))
      g.field = f;
  }
  g.how = fmt::format("fallocate of {} of guest_memfd: {}", format_bytes(allocated), fmt::join(seen, ", "));
  if (g.field.empty())
    g.reason = fmt::format("no meminfo field grew with guest_memfd memory ({}; a field is taken when it rises by "
                           "90-150% of the allocation)",
                           g.how);
  return g;
}

GrowingField calibrate_guest_memfd_field(std::uint32_t vm_type, std::uint64_t bytes) {
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, vm_type);
  UniqueFd gmem = vm.create_guest_memfd(bytes, 0);
  const Meminfo before = read_meminfo();
  if (::fallocate(gmem.get(), FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) != 0)
    throw std::runtime_error(fmt::format("fallocate of {} of guest_memfd failed: {}", format_bytes(bytes),
                                         errno_description(errno)));
  const Meminfo after = read_meminfo();
  return choose_growing_field(before, after, bytes);
}

}  // namespace kvmbench::host
