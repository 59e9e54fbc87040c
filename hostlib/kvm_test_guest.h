// Tiny guests, built straight from KVM ioctls, that tell whether KVM on this
// host really runs guest code. Each one ends with `out 0x10, al; hlt`, so
// success is an exact exit sequence: KVM_EXIT_IO (OUT, port 0x10, the
// expected byte) and then KVM_EXIT_HLT. Every KVM_RUN is under a timer, so
// a vCPU that spins or crawls is reported instead of hanging the caller.
//
// Why several: a KVM can get through a handful of instructions by
// emulating them (the paravirtual kvm_pvm here does) and still be unable to
// run an ordinary guest. The loop guest needs native speed (10 million
// iterations take a few ms on VMX/SVM), the exception guest needs event
// delivery through an IDT.
#pragma once

#include <string>
#include <vector>

#include "hostlib/kvm_vm.h"

namespace kvmbench::host {

struct GuestCheck {
  std::string name;    // "minimal real-mode", "long-mode loop", "long-mode exception"
  bool ok = false;
  std::string detail;  // what happened, e.g. the exits seen or how far the loop got
};

// Runs the checks in order and stops at the first failure (so the whole
// call takes at most about one `timeout_ms` plus setup). Throws KvmError
// only when a guest cannot even be set up.
std::vector<GuestCheck> run_guest_checks(const Kvm& kvm, int timeout_ms);

// The loop guest's iteration count.
inline constexpr unsigned kGuestLoopIterations = 10'000'000;

}  // namespace kvmbench::host
