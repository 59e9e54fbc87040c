// The boot of the kernel a preset needs, where the kernel's command line
// decides what can run. A lab machine may need two boots for one document
// campaign: the in-place guest_memfd conversion series gives the kvm module
// a read-only parameter, vm_memory_attributes (default Y), under which
// KVM_SET_MEMORY_ATTRIBUTES2 on a guest_memfd is ENOTTY, while with it off
// the VM-wide KVM_SET_MEMORY_ATTRIBUTES is gone and QEMU cannot set up
// private guest memory. A preset states which it needs
// (suites/collect/kernel_boot.h); `run --dry-run` groups the presets by
// boot, and `run` names the boot that the ones left out need.
#pragma once

#include <string>

namespace kvmbench::suites {

struct BootNeed {
  // The kernel command-line word the preset needs ("kvm.vm_memory_attributes=0");
  // "" when any boot will do.
  std::string setting;
  bool this_boot = true;  // the host as probed was booted with it (or any boot will do)
  std::string why;        // why the preset needs it, for the plan and the summary
};

}  // namespace kvmbench::suites
