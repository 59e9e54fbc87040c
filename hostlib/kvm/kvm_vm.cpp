#include "hostlib/kvm/kvm_vm.h"
#include "hostlib/os/kernel_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/psp-sev.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>

#include <fmt/format.h>

#include "hostlib/os/interrupt.h"
#include "hostlib/kvm/kvm_uapi.h"

namespace kvmbench::host {

std::string errno_description(int err) {
  const char* name = strerrordesc_np(err) ? strerrorname_np(err) : nullptr;
  return fmt::format("{} ({})", name ? name : fmt::format("errno {}", err), std::strerror(err));
}

KvmError::KvmError(std::string ioctl, int err, const std::string& args, const std::string& detail)
    : std::runtime_error(fmt::format("{}({}) failed: {}{}", ioctl, args, errno_description(err),
                                     detail.empty() ? std::string() : "; " + detail)),
      ioctl_name(std::move(ioctl)),
      error_number(err) {}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

std::string vm_type_name(std::uint32_t type) {
  switch (type) {
    case KVM_X86_DEFAULT_VM: return "default";
    case KVM_X86_SW_PROTECTED_VM: return "sw_protected";
    case KVM_X86_SEV_VM: return "sev";
    case KVM_X86_SEV_ES_VM: return "sev_es";
    case KVM_X86_SNP_VM: return "snp";
    case KVM_X86_TDX_VM: return "tdx";
    default: return fmt::format("type{}", type);
  }
}

std::string exit_reason_name(std::uint32_t reason) {
  switch (reason) {
    case KVM_EXIT_UNKNOWN: return "KVM_EXIT_UNKNOWN";
    case KVM_EXIT_EXCEPTION: return "KVM_EXIT_EXCEPTION";
    case KVM_EXIT_IO: return "KVM_EXIT_IO";
    case KVM_EXIT_HLT: return "KVM_EXIT_HLT";
    case KVM_EXIT_MMIO: return "KVM_EXIT_MMIO";
    case KVM_EXIT_SHUTDOWN: return "KVM_EXIT_SHUTDOWN";
    case KVM_EXIT_FAIL_ENTRY: return "KVM_EXIT_FAIL_ENTRY";
    case KVM_EXIT_INTR: return "KVM_EXIT_INTR";
    case KVM_EXIT_INTERNAL_ERROR: return "KVM_EXIT_INTERNAL_ERROR";
    case KVM_EXIT_SYSTEM_EVENT: return "KVM_EXIT_SYSTEM_EVENT";
    case KVM_EXIT_MEMORY_FAULT: return "KVM_EXIT_MEMORY_FAULT";
    default: return fmt::format("exit_reason {}", reason);
  }
}

// ioctl that returns the result or throws KvmError; `describe` formats the
// arguments for the message only when the call failed.
template <typename Describe>
static long checked_ioctl(int fd, unsigned long request, void* arg, const char* name,
                          Describe describe) {
  long r = ::ioctl(fd, request, arg);
  if (r < 0) throw KvmError(name, errno, describe());
  return r;
}

// ---- Kvm ------------------------------------------------------------------

Kvm Kvm::open(const char* path) {
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) throw KvmError("open", errno, path);
  Kvm k;
  k.fd_ = UniqueFd(fd);
  return k;
}

int Kvm::api_version() const {
  return static_cast<int>(checked_ioctl(fd(), KVM_GET_API_VERSION, nullptr, "KVM_GET_API_VERSION",
                                        [] { return std::string(); }));
}

long Kvm::check_extension(unsigned cap) const {
  long r = ::ioctl(fd(), KVM_CHECK_EXTENSION, static_cast<unsigned long>(cap));
  if (r < 0) throw KvmError("KVM_CHECK_EXTENSION", errno, fmt::format("system fd, cap={}", cap));
  return r;
}

std::size_t Kvm::vcpu_mmap_size() const {
  return static_cast<std::size_t>(checked_ioctl(fd(), KVM_GET_VCPU_MMAP_SIZE, nullptr,
                                                "KVM_GET_VCPU_MMAP_SIZE",
                                                [] { return std::string(); }));
}

// A struct with a trailing `struct kvm_cpuid2` (header + nent entries) in
// one 8-byte aligned buffer, as the kernel reads and writes it.
namespace {
template <typename Head>
class WithCpuid {
 public:
  explicit WithCpuid(std::uint32_t nent)
      : buf_((sizeof(Head) + nent * sizeof(uapi::CpuidEntry2) + 7) / 8, 0) {
    head()->cpuid.nent = nent;
  }
  Head* head() { return reinterpret_cast<Head*>(buf_.data()); }
  uapi::CpuidEntry2* entries() {
    return reinterpret_cast<uapi::CpuidEntry2*>(reinterpret_cast<char*>(buf_.data()) + sizeof(Head));
  }
  std::uint32_t capacity() const {
    return static_cast<std::uint32_t>((buf_.size() * 8 - sizeof(Head)) / sizeof(uapi::CpuidEntry2));
  }

 private:
  std::vector<std::uint64_t> buf_;
};

struct BareCpuid2 {
  uapi::Cpuid2Header cpuid;
};

// The most CPUID entries asked for before giving up (KVM has about 60).
constexpr std::uint32_t kMaxCpuidEntries = 4096;
}  // namespace

std::vector<uapi::CpuidEntry2> Kvm::supported_cpuid() const {
  for (std::uint32_t n = 64;; n *= 2) {
    WithCpuid<BareCpuid2> c(n);
    if (::ioctl(fd(), KVM_GET_SUPPORTED_CPUID, c.head()) == 0) {
      std::uint32_t got = std::min(c.head()->cpuid.nent, c.capacity());
      return {c.entries(), c.entries() + got};
    }
    if (errno != E2BIG || n >= kMaxCpuidEntries)
      throw KvmError("KVM_GET_SUPPORTED_CPUID", errno, fmt::format("nent={}", n));
  }
}

// ---- Vm -------------------------------------------------------------------

namespace {
std::atomic<KvmFdClosingHook> fd_closing_hook{nullptr};
}  // namespace

void set_kvm_fd_closing_hook(KvmFdClosingHook hook) { fd_closing_hook.store(hook); }

Vm::~Vm() {
  if (const KvmFdClosingHook hook = fd_closing_hook.load(); hook && fd_) hook(fd_.get(), false);
}

Vm Vm::create(const Kvm& kvm, std::uint32_t type) {
  int fd;
  // KVM_CREATE_VM can fail with EINTR while the kernel tears down a previous
  // VM's mm; the selftests retry it too.
  do {
    fd = ::ioctl(kvm.fd(), KVM_CREATE_VM, static_cast<unsigned long>(type));
  } while (fd < 0 && errno == EINTR && !interrupted());
  if (fd < 0)
    throw KvmError("KVM_CREATE_VM", errno, fmt::format("type={} {}", type, vm_type_name(type)));
  Vm vm;
  vm.fd_ = UniqueFd(fd);
  vm.type_ = type;
  return vm;
}

long Vm::check_extension(unsigned cap) const {
  long r = ::ioctl(fd(), KVM_CHECK_EXTENSION, static_cast<unsigned long>(cap));
  if (r < 0)
    throw KvmError("KVM_CHECK_EXTENSION", errno,
                   fmt::format("vm fd ({}), cap={}", vm_type_name(type_), cap));
  return r;
}

UniqueFd Vm::create_guest_memfd(std::uint64_t size, std::uint64_t flags) {
  uapi::CreateGuestMemfd args{};
  args.size = size;
  args.flags = flags;
  long fd = checked_ioctl(this->fd(), uapi::kCreateGuestMemfd, &args, "KVM_CREATE_GUEST_MEMFD",
                          [&] { return fmt::format("size={:#x}, flags={:#x}", size, flags); });
  return UniqueFd(static_cast<int>(fd));
}

void Vm::set_user_memory_region(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                                std::uint64_t size, void* hva) {
  kvm_userspace_memory_region r{};
  r.slot = slot;
  r.flags = flags;
  r.guest_phys_addr = gpa;
  r.memory_size = size;
  r.userspace_addr = reinterpret_cast<std::uint64_t>(hva);
  checked_ioctl(fd(), KVM_SET_USER_MEMORY_REGION, &r, "KVM_SET_USER_MEMORY_REGION", [&] {
    return fmt::format("slot={}, flags={:#x}, gpa={:#x}, size={:#x}, hva={}", slot, flags, gpa,
                       size, hva);
  });
}

void Vm::set_user_memory_region2(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                                 std::uint64_t size, void* hva, int guest_memfd,
                                 std::uint64_t guest_memfd_offset) {
  uapi::UserspaceMemoryRegion2 r{};
  r.slot = slot;
  r.flags = flags;
  r.guest_phys_addr = gpa;
  r.memory_size = size;
  r.userspace_addr = reinterpret_cast<std::uint64_t>(hva);
  r.guest_memfd = static_cast<std::uint32_t>(guest_memfd);
  r.guest_memfd_offset = guest_memfd_offset;
  checked_ioctl(fd(), uapi::kSetUserMemoryRegion2, &r, "KVM_SET_USER_MEMORY_REGION2", [&] {
    return fmt::format(
        "slot={}, flags={:#x}, gpa={:#x}, size={:#x}, hva={}, guest_memfd={}, offset={:#x}", slot,
        flags, gpa, size, hva, guest_memfd, guest_memfd_offset);
  });
}

void Vm::set_memory_attributes(std::uint64_t gpa, std::uint64_t size, std::uint64_t attributes) {
  uapi::MemoryAttributes a{};
  a.address = gpa;
  a.size = size;
  a.attributes = attributes;
  // Not restarted on EINTR: a caller timing conversions must see the
  // interruption, and the kernel makes no partial progress it would report.
  checked_ioctl(fd(), uapi::kSetMemoryAttributes, &a, "KVM_SET_MEMORY_ATTRIBUTES", [&] {
    return fmt::format("address={:#x}, size={:#x}, attributes={:#x}", gpa, size, attributes);
  });
}

// ---- Confidential VM initialisation (KVM_MEMORY_ENCRYPT_OP) ---------------
// UNTESTED ON HARDWARE (no SEV-SNP or TDX where this was written): the
// sequence follows the KVM selftests (tools/testing/selftests/kvm/lib/x86/
// sev.c: snp_vm_init + snp_vm_launch_start; tdx/tdx_util.c: tdx_init_vm).

// One SEV sub-command; a refusal names it and the firmware's status.
static void sev_op(int vm_fd, std::uint32_t vm_type, std::uint32_t id, const char* name, int sev_fd,
                   void* data, const std::string& args) {
  uapi::SevCmd cmd{};
  cmd.id = id;
  cmd.data = reinterpret_cast<std::uint64_t>(data);
  cmd.sev_fd = static_cast<std::uint32_t>(sev_fd);
  if (::ioctl(vm_fd, uapi::kMemoryEncryptOp, &cmd) == 0) return;
  int err = errno;
  std::string detail;
  if (cmd.error != 0)
    detail = fmt::format("SEV firmware status {:#x} ({})", cmd.error, sev_firmware_status_name(cmd.error));
  throw KvmError("KVM_MEMORY_ENCRYPT_OP", err,
                 fmt::format("{}, vm type={}, sev_fd={}{}{}", name, vm_type_name(vm_type), sev_fd,
                             args.empty() ? "" : ", ", args),
                 detail);
}

// One TDX sub-command; returns errno (0 on success) so that a caller can
// retry on E2BIG, and fills hw_error.
static int tdx_op(int vm_fd, std::uint32_t id, std::uint32_t flags, void* data, std::uint64_t& hw_error) {
  uapi::TdxCmd cmd{};
  cmd.id = id;
  cmd.flags = flags;
  cmd.data = reinterpret_cast<std::uint64_t>(data);
  int r = ::ioctl(vm_fd, uapi::kMemoryEncryptOp, &cmd);
  hw_error = cmd.hw_error;
  return r == 0 ? 0 : errno;
}

[[noreturn]] static void throw_tdx(std::uint32_t vm_type, const char* name, int err, std::uint64_t hw_error,
                                   const std::string& args) {
  throw KvmError("KVM_MEMORY_ENCRYPT_OP", err,
                 fmt::format("{}, vm type={}{}{}", name, vm_type_name(vm_type), args.empty() ? "" : ", ", args),
                 hw_error ? fmt::format("TDX module status {:#018x}", hw_error) : std::string());
}

void Vm::sev_init2(int sev_fd, const uapi::SevInit& init) {
  uapi::SevInit copy = init;
  sev_op(fd(), type_, uapi::kSevInit2, "KVM_SEV_INIT2", sev_fd, &copy,
         fmt::format("vmsa_features={:#x}, flags={:#x}, ghcb_version={}", init.vmsa_features, init.flags,
                     init.ghcb_version));
}

void Vm::snp_launch_start(int sev_fd, std::uint64_t policy) {
  uapi::SevSnpLaunchStart start{};
  start.policy = policy;
  sev_op(fd(), type_, uapi::kSevSnpLaunchStart, "KVM_SEV_SNP_LAUNCH_START", sev_fd, &start,
         fmt::format("policy={:#x}", policy));
}

TdxCapabilities Vm::tdx_capabilities() {
  for (std::uint32_t n = 64;; n *= 2) {
    WithCpuid<uapi::TdxCapabilities> c(n);
    std::uint64_t hw = 0;
    int err = tdx_op(fd(), uapi::kTdxCapabilities, 0, c.head(), hw);
    if (err == 0) {
      TdxCapabilities out;
      out.supported_attrs = c.head()->supported_attrs;
      out.supported_xfam = c.head()->supported_xfam;
      std::uint32_t got = std::min(c.head()->cpuid.nent, c.capacity());
      out.configurable_cpuid.assign(c.entries(), c.entries() + got);
      return out;
    }
    // E2BIG: the module lists more CPUID leaves than the buffer holds.
    if (err != E2BIG || n >= kMaxCpuidEntries)
      throw_tdx(type_, "KVM_TDX_CAPABILITIES", err, hw, fmt::format("cpuid.nent={}", n));
  }
}

void Vm::tdx_init_vm(std::uint64_t attributes, const std::vector<uapi::CpuidEntry2>& cpuid) {
  WithCpuid<uapi::TdxInitVm> init(static_cast<std::uint32_t>(cpuid.size()));
  init.head()->attributes = attributes;
  std::copy(cpuid.begin(), cpuid.end(), init.entries());
  std::uint64_t hw = 0;
  int err = tdx_op(fd(), uapi::kTdxInitVm, 0, init.head(), hw);
  if (err != 0)
    throw_tdx(type_, "KVM_TDX_INIT_VM", err, hw,
              fmt::format("attributes={:#x}, cpuid entries={}", attributes, cpuid.size()));
}

void Vm::snp_launch_finish(int sev_fd) {
  uapi::SevSnpLaunchFinish finish{};
  sev_op(fd(), type_, uapi::kSevSnpLaunchFinish, "KVM_SEV_SNP_LAUNCH_FINISH", sev_fd, &finish,
         "no ID block, no host data");
}

void Vm::tdx_finalize_vm() {
  std::uint64_t hw = 0;
  int err = tdx_op(fd(), uapi::kTdxFinalizeVm, 0, nullptr, hw);
  if (err != 0) throw_tdx(type_, "KVM_TDX_FINALIZE_VM", err, hw, "");
}

void Vm::enable_split_irqchip(std::uint32_t ioapic_pins) {
  kvm_enable_cap cap{};
  cap.cap = KVM_CAP_SPLIT_IRQCHIP;
  cap.args[0] = ioapic_pins;
  checked_ioctl(fd(), KVM_ENABLE_CAP, &cap, "KVM_ENABLE_CAP",
                [&] { return fmt::format("KVM_CAP_SPLIT_IRQCHIP, pins={}", ioapic_pins); });
}

Vcpu Vm::create_vcpu(const Kvm& kvm, unsigned id) {
  long fd = checked_ioctl(this->fd(), KVM_CREATE_VCPU, reinterpret_cast<void*>(
                              static_cast<unsigned long>(id)),
                          "KVM_CREATE_VCPU", [&] { return fmt::format("id={}", id); });
  UniqueFd vcpu_fd(static_cast<int>(fd));
  std::size_t size = kvm.vcpu_mmap_size();
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu_fd.get(), 0);
  if (p == MAP_FAILED)
    throw KvmError("mmap(kvm_run)", errno, fmt::format("vcpu fd={}, size={}", vcpu_fd.get(), size));
  return Vcpu(std::move(vcpu_fd), static_cast<kvm_run*>(p), size);
}

// ---- Vcpu -----------------------------------------------------------------

Vcpu::Vcpu(UniqueFd fd, kvm_run* run, std::size_t run_size)
    : fd_(std::move(fd)), run_(run), run_size_(run_size) {}

Vcpu::Vcpu(Vcpu&& o) noexcept : fd_(std::move(o.fd_)), run_(o.run_), run_size_(o.run_size_) {
  o.run_ = nullptr;
  o.run_size_ = 0;
}

Vcpu::~Vcpu() {
  if (const KvmFdClosingHook hook = fd_closing_hook.load(); hook && fd_) hook(fd_.get(), true);
  if (run_) ::munmap(run_, run_size_);
}

kvm_regs Vcpu::get_regs() const {
  kvm_regs r{};
  checked_ioctl(fd(), KVM_GET_REGS, &r, "KVM_GET_REGS", [] { return std::string(); });
  return r;
}

void Vcpu::set_regs(const kvm_regs& r) {
  kvm_regs copy = r;
  checked_ioctl(fd(), KVM_SET_REGS, &copy, "KVM_SET_REGS", [] { return std::string(); });
}

kvm_sregs Vcpu::get_sregs() const {
  kvm_sregs s{};
  checked_ioctl(fd(), KVM_GET_SREGS, &s, "KVM_GET_SREGS", [] { return std::string(); });
  return s;
}

void Vcpu::set_sregs(const kvm_sregs& s) {
  kvm_sregs copy = s;
  checked_ioctl(fd(), KVM_SET_SREGS, &copy, "KVM_SET_SREGS", [] { return std::string(); });
}

void Vcpu::pre_fault_memory(std::uint64_t gpa, std::uint64_t size) {
  uapi::PreFaultMemory p{};
  p.gpa = gpa;
  p.size = size;
  while (p.size > 0) {
    long r = ::ioctl(fd(), uapi::kPreFaultMemory, &p);
    if (r < 0 && (errno == EINTR || errno == EAGAIN) && !interrupted()) continue;
    if (r < 0)
      throw KvmError("KVM_PRE_FAULT_MEMORY", errno,
                     fmt::format("gpa={:#x}, size={:#x} (remaining {:#x} at {:#x})", gpa, size,
                                 p.size, p.gpa));
  }
}

void Vcpu::set_cpuid(const std::vector<uapi::CpuidEntry2>& entries) {
  WithCpuid<BareCpuid2> c(static_cast<std::uint32_t>(entries.size()));
  std::copy(entries.begin(), entries.end(), c.entries());
  checked_ioctl(fd(), KVM_SET_CPUID2, c.head(), "KVM_SET_CPUID2",
                [&] { return fmt::format("nent={}", entries.size()); });
}

void Vcpu::tdx_init_vcpu(std::uint64_t initial_rcx) {
  uapi::TdxCmd cmd{};
  cmd.id = uapi::kTdxInitVcpu;
  cmd.data = initial_rcx;
  if (::ioctl(fd(), uapi::kMemoryEncryptOp, &cmd) == 0) return;
  const int err = errno;
  throw KvmError("KVM_MEMORY_ENCRYPT_OP", err, fmt::format("KVM_TDX_INIT_VCPU, vcpu fd, initial rcx={:#x}", initial_rcx),
                 cmd.hw_error ? fmt::format("TDX module status {:#018x}", cmd.hw_error) : std::string());
}

std::vector<uapi::CpuidEntry2> Vcpu::tdx_get_cpuid() {
  for (std::uint32_t n = 64;; n *= 2) {
    WithCpuid<BareCpuid2> c(n);
    uapi::TdxCmd cmd{};
    cmd.id = uapi::kTdxGetCpuid;
    cmd.data = reinterpret_cast<std::uint64_t>(c.head());
    if (::ioctl(fd(), uapi::kMemoryEncryptOp, &cmd) == 0) {
      const std::uint32_t got = std::min(c.head()->cpuid.nent, c.capacity());
      return {c.entries(), c.entries() + got};
    }
    const int err = errno;
    // E2BIG: KVM wrote back how many entries it has.
    if (err == E2BIG && n < kMaxCpuidEntries) {
      while (n < c.head()->cpuid.nent / 2 && n < kMaxCpuidEntries) n *= 2;
      continue;
    }
    throw KvmError("KVM_MEMORY_ENCRYPT_OP", err, fmt::format("KVM_TDX_GET_CPUID, vcpu fd, nent={}", n),
                   cmd.hw_error ? fmt::format("TDX module status {:#018x}", cmd.hw_error) : std::string());
  }
}

// The kick signal: a real-time signal nobody else in kvmbench uses. Its
// handler only sets immediate_exit on the kvm_run of the thread it lands on,
// so that a kick arriving just before KVM_RUN still makes it return at once.
static const int kKickSignal = SIGRTMIN + 5;
static thread_local kvm_run* volatile t_running = nullptr;

static void on_kick(int) {
  kvm_run* r = t_running;
  if (r) r->immediate_exit = 1;
}

static void install_kick_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_kick;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: KVM_RUN must come back with EINTR
    sigaction(kKickSignal, &sa, nullptr);
  });
}

RunOutcome Vcpu::run_for(std::chrono::milliseconds timeout) {
  install_kick_handler();
  sigset_t kick;
  sigemptyset(&kick);
  sigaddset(&kick, kKickSignal);
  pthread_sigmask(SIG_UNBLOCK, &kick, nullptr);

  sigevent sev{};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = kKickSignal;
  sev._sigev_un._tid = gettid();
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
    throw KvmError("timer_create", errno, "CLOCK_MONOTONIC, SIGEV_THREAD_ID");

  run_->immediate_exit = 0;
  t_running = run_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  itimerspec its{};
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
  if (ns <= 0) ns = 1;
  its.it_value.tv_sec = ns / 1000000000;
  its.it_value.tv_nsec = ns % 1000000000;
  its.it_interval.tv_nsec = 5'000'000;  // keep kicking until the vCPU is out
  timer_settime(timer, 0, &its, nullptr);

  RunOutcome out;
  int err = 0;
  long r;
  for (;;) {
    r = ::ioctl(fd(), KVM_RUN, nullptr);
    err = errno;
    if (r >= 0) break;
    if (err != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline || interrupted()) {
      out.timed_out = true;
      break;
    }
    run_->immediate_exit = 0;  // some other signal: carry on until the deadline
  }

  itimerspec off{};
  timer_settime(timer, 0, &off, nullptr);
  timer_delete(timer);
  t_running = nullptr;
  run_->immediate_exit = 0;
  // A kick still in flight is delivered on the way back to user space and
  // finds t_running == nullptr, so it cannot touch a later KVM_RUN.

  if (r < 0 && !out.timed_out)
    throw KvmError("KVM_RUN", err, fmt::format("timeout={} ms", timeout.count()));
  if (!out.timed_out) out.exit_reason = run_->exit_reason;
  return out;
}


std::uint64_t snp_guest_policy(bool smt_active, bool debug) {
  std::uint64_t p = uapi::kSnpPolicyRsvdMbo;
  if (smt_active) p |= uapi::kSnpPolicySmt;
  if (debug) p |= uapi::kSnpPolicyDebug;
  return p;
}

bool host_smt_active() {
  return read_kernel_value("/sys/devices/system/cpu/smt/active") == "1";
}

std::vector<uapi::CpuidEntry2> tdx_guest_cpuid(const std::vector<uapi::CpuidEntry2>& supported,
                                               const std::vector<uapi::CpuidEntry2>& configurable) {
  std::vector<uapi::CpuidEntry2> out;
  for (const auto& e : supported) {
    auto c = std::find_if(configurable.begin(), configurable.end(), [&](const uapi::CpuidEntry2& x) {
      return x.function == e.function && x.index == e.index;
    });
    if (c == configurable.end()) continue;
    uapi::CpuidEntry2 m = e;
    m.eax &= c->eax;
    m.ebx &= c->ebx;
    m.ecx &= c->ecx;
    m.edx &= c->edx;
    out.push_back(m);
  }
  return out;
}

unsigned guest_phys_bits(const std::vector<uapi::CpuidEntry2>& supported) {
  for (const auto& e : supported)
    if (e.function == 0x80000008 && e.index == 0) {
      const unsigned g = (e.eax >> 16) & 0xff;
      return g != 0 ? g : e.eax & 0xff;
    }
  return 0;
}

unsigned tdx_gpaw(unsigned guest_phys_bits) { return guest_phys_bits == 52 ? 52 : 48; }

void set_tdx_gpaw(std::vector<uapi::CpuidEntry2>& cpuid, unsigned gpaw) {
  auto it = std::find_if(cpuid.begin(), cpuid.end(),
                         [](const uapi::CpuidEntry2& e) { return e.function == 0x80000008 && e.index == 0; });
  if (it == cpuid.end()) {
    uapi::CpuidEntry2 leaf{};
    leaf.function = 0x80000008;
    it = cpuid.insert(cpuid.end(), leaf);
  }
  it->eax = (it->eax & ~0x00ff0000u) | ((gpaw & 0xffu) << 16);
}

std::string sev_firmware_status_name(std::uint32_t code) {
  // SEV API status codes (linux/psp-sev.h, enum sev_ret_code).
  static const char* const names[] = {
      "SUCCESS",          "INVALID_PLATFORM_STATE", "INVALID_GUEST_STATE", "INVALID_CONFIG",
      "INVALID_LEN",      "ALREADY_OWNED",          "INVALID_CERTIFICATE", "POLICY_FAILURE",
      "INACTIVE",         "INVALID_ADDRESS",        "BAD_SIGNATURE",       "BAD_MEASUREMENT",
      "ASID_OWNED",       "INVALID_ASID",           "WBINVD_REQUIRED",     "DFFLUSH_REQUIRED",
      "INVALID_GUEST",    "INVALID_COMMAND",        "ACTIVE",              "HWERROR_PLATFORM",
      "HWERROR_UNSAFE",   "UNSUPPORTED",            "INVALID_PARAM",       "RESOURCE_LIMIT",
      "SECURE_DATA_INVALID"};
  static_assert(std::size(names) == SEV_RET_MAX);
  if (code < std::size(names)) return names[code];
  return fmt::format("status {}", code);
}
}  // namespace kvmbench::host
