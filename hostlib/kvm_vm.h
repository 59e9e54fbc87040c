// Thin wrappers over the KVM ioctls kvmbench needs, one function per ioctl,
// named after what it does (in the spirit of the KVM selftests' kvm_util).
// A VM is built directly through /dev/kvm, without QEMU: that is how the
// make_shared conversions are timed and how the probe tries a tiny guest.
//
// Every failing ioctl throws KvmError, whose message names the ioctl, the
// errno and the arguments, e.g.
//   "KVM_CREATE_VM(type=1 sw_protected) failed: EINVAL (Invalid argument)".
#pragma once

#include <linux/kvm.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvmbench::host {

struct KvmError : std::runtime_error {
  std::string ioctl_name;
  int error_number;  // errno of the failed call
  KvmError(std::string ioctl, int err, const std::string& args);
};

// Owns one file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// x86 VM types, the KVM_CREATE_VM argument.
enum class VmType : std::uint32_t { default_vm = 0, sw_protected = 1, sev = 2, sev_es = 3, snp = 4, tdx = 5 };
// "default", "sw_protected", "sev", "sev_es", "snp", "tdx" (or "type<N>").
std::string vm_type_name(std::uint32_t type);

// /dev/kvm, the system fd.
class Kvm {
 public:
  // Throws KvmError("open(/dev/kvm)") when it cannot be opened.
  static Kvm open(const char* path = "/dev/kvm");
  int fd() const { return fd_.get(); }
  int api_version() const;                  // KVM_GET_API_VERSION (12)
  // KVM_CHECK_EXTENSION on the system fd: 0 when unsupported, else the
  // capability's value (a bitmask for VM_TYPES, GUEST_MEMFD_FLAGS, ...).
  long check_extension(unsigned cap) const;
  std::size_t vcpu_mmap_size() const;       // KVM_GET_VCPU_MMAP_SIZE

 private:
  UniqueFd fd_;
};

class Vcpu;

// One VM (KVM_CREATE_VM); its fd closes with it.
class Vm {
 public:
  static Vm create(const Kvm& kvm, std::uint32_t type = 0);
  int fd() const { return fd_.get(); }
  std::uint32_t type() const { return type_; }
  // KVM_CHECK_EXTENSION on the VM fd: answers for this VM's type (memory
  // attributes, for instance, differ between a default and a protected VM).
  long check_extension(unsigned cap) const;

  // KVM_CREATE_GUEST_MEMFD; flags are GUEST_MEMFD_FLAG_*.
  UniqueFd create_guest_memfd(std::uint64_t size, std::uint64_t flags = 0);
  // KVM_SET_USER_MEMORY_REGION (no guest_memfd).
  void set_user_memory_region(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                              std::uint64_t size, void* hva);
  // KVM_SET_USER_MEMORY_REGION2; pass KVM_MEM_GUEST_MEMFD in flags to back
  // the slot's private memory with `guest_memfd` at `guest_memfd_offset`.
  void set_user_memory_region2(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                               std::uint64_t size, void* hva, int guest_memfd,
                               std::uint64_t guest_memfd_offset);
  // KVM_SET_MEMORY_ATTRIBUTES over [gpa, gpa+size); attributes 0 = shared,
  // KVM_MEMORY_ATTRIBUTE_PRIVATE = private.
  void set_memory_attributes(std::uint64_t gpa, std::uint64_t size, std::uint64_t attributes);

  Vcpu create_vcpu(const Kvm& kvm, unsigned id = 0);

 private:
  UniqueFd fd_;
  std::uint32_t type_ = 0;
};

// How one run_for() ended.
struct RunOutcome {
  bool timed_out = false;        // the timer fired before KVM_RUN came back by itself
  std::uint32_t exit_reason = 0; // kvm_run.exit_reason when !timed_out
};

// One vCPU (KVM_CREATE_VCPU) with its mmap'ed kvm_run.
class Vcpu {
 public:
  Vcpu(UniqueFd fd, kvm_run* run, std::size_t run_size);
  Vcpu(Vcpu&& o) noexcept;
  Vcpu& operator=(Vcpu&&) = delete;
  Vcpu(const Vcpu&) = delete;
  ~Vcpu();
  int fd() const { return fd_.get(); }
  kvm_run& run_state() { return *run_; }

  kvm_regs get_regs() const;
  void set_regs(const kvm_regs& r);
  kvm_sregs get_sregs() const;
  void set_sregs(const kvm_sregs& s);

  // KVM_PRE_FAULT_MEMORY over [gpa, gpa+size), repeated until done (the
  // kernel reports progress by shrinking the range and may return EINTR or
  // EAGAIN part-way).
  void pre_fault_memory(std::uint64_t gpa, std::uint64_t size);

  // KVM_RUN under a timer: if the guest has not exited by `timeout`, a
  // signal kicks the vCPU out (KVM_RUN returns EINTR; a signal that lands
  // just before the ioctl is caught through kvm_run.immediate_exit, and the
  // kick repeats every few ms, so this never blocks for long). Other errors
  // throw KvmError.
  RunOutcome run_for(std::chrono::milliseconds timeout);

 private:
  UniqueFd fd_;
  kvm_run* run_ = nullptr;
  std::size_t run_size_ = 0;
};

// "KVM_EXIT_IO", "KVM_EXIT_HLT", ... or "exit_reason N".
std::string exit_reason_name(std::uint32_t reason);
// "EINVAL (Invalid argument)".
std::string errno_description(int err);

}  // namespace kvmbench::host
