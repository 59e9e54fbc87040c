// Whether /dev/kvm can be opened here (tests of the KVM wrappers skip,
// saying why, where it cannot).
#pragma once

#include "hostlib/kvm_vm.h"

namespace kvmbench::test_support {

inline bool kvm_usable() {
  try {
    host::Kvm::open();
    return true;
  } catch (const host::KvmError&) {
    return false;
  }
}

}  // namespace kvmbench::test_support
