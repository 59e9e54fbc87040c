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
// delivery through an IDT. A loop that runs, only slowly (the emulated lab
// on a loaded machine), gets more time: the rate tells it from a crawl.
#pragma once

#include <string>
#include <vector>

#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

struct GuestCheck {
  std::string name;    // "minimal real-mode", "long-mode loop", "long-mode exception"
  bool ok = false;
  std::string detail;  // what happened, e.g. the exits seen or how far the loop got
};

// Runs the checks in order and stops at the first failure (so the whole
// call takes at most about one `timeout_ms` plus setup, or
// kGuestLoopPatience of them for a loop guest that runs slowly). Throws KvmError
// only when a guest cannot even be set up.
std::vector<GuestCheck> run_guest_checks(const Kvm& kvm, int timeout_ms);

// The loop guest's iteration count.
inline constexpr unsigned kGuestLoopIterations = 10'000'000;

// A loop guest stopped by its timer after `elapsed_s` with `done` of
// kGuestLoopIterations done: whether it runs guest code, only slowed down
// (a busy host, or KVM nested under QEMU's emulator, as in the emulated
// lab), rather than crawls through it an instruction at a time. It runs
// when, at its rate so far, it ends within kGuestLoopPatience times the
// timeout in all; then it is given that time. Pure.
inline constexpr int kGuestLoopPatience = 10;
bool loop_guest_would_finish(unsigned long long done, double elapsed_s, double timeout_s);

}  // namespace kvmbench::host
