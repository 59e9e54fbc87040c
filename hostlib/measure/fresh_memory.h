// Fresh memory of one backing for a measurement to fault in: mapped and
// never touched when constructed, unmapped (and its fd closed) when
// destroyed, so that each repetition starts from memory the kernel has not
// populated yet (as KVM selftests' memstress does for its vCPUs).
//
// The backings and how each is mapped: hostlib/measure/backing.h.
#pragma once

#include <cstdint>
#include <string>

#include "hostlib/measure/backing.h"
#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

// The bytes a mapping of `bytes` takes for `backing` (whole pages of its size).
std::uint64_t mapped_bytes(Backing backing, std::uint64_t bytes);

// What guest_memfd memory needs from KVM: a VM whose fd stays open for as
// long as its guest_memfds are in use.
struct GuestMemfdContext {
  Kvm kvm;
  Vm vm;
};

class FreshMemory {
 public:
  // `gmem` is needed for guest_memfd only. Throws std::runtime_error with
  // the failed call and errno, std::invalid_argument for guest_memfd without `gmem`.
  FreshMemory(Backing backing, std::uint64_t bytes, GuestMemfdContext* gmem);
  ~FreshMemory();
  FreshMemory(const FreshMemory&) = delete;
  FreshMemory& operator=(const FreshMemory&) = delete;

  // One write per 4 KiB page: each first write faults the page in.
  void touch();
  // memset of the whole mapping (write bandwidth once faulted).
  void fill();
  std::uint64_t size() const { return len_; }
  const void* data() const { return addr_; }

 private:
  void map_shared();
  [[noreturn]] void fail(const char* what);

  UniqueFd fd_;
  void* map_;
  std::uint64_t map_len_ = 0;
  char* addr_ = nullptr;
  std::uint64_t len_ = 0;
};

}  // namespace kvmbench::host
