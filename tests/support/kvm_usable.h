// Whether /dev/kvm can be opened here (tests of the KVM wrappers skip,
// saying why, where it cannot), and the message of a KvmError a call must
// throw.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::test_support {

inline bool kvm_usable() {
  try {
    host::Kvm::open();
    return true;
  } catch (const host::KvmError&) {
    return false;
  }
}

// Runs `f`, which must throw KvmError; returns its message.
template <typename F>
std::string kvm_error_of(F f) {
  try {
    f();
  } catch (const host::KvmError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no KvmError";
  return "";
}

}  // namespace kvmbench::test_support
