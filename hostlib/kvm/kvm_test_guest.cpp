#include "hostlib/kvm/kvm_test_guest.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "hostlib/os/interrupt.h"
#include "hostlib/kvm/kvm_uapi.h"

namespace kvmbench::host {

namespace {

enum class GuestMode { real, long64 };

// Guest physical layout (one 2 MiB memslot at GPA 0).
constexpr std::uint64_t kMemSize = 0x200000;
constexpr std::uint64_t kCodeAddr = 0x1000;
constexpr std::uint64_t kPml4 = 0x2000, kPdpt = 0x3000, kPd = 0x4000;
constexpr std::uint64_t kStoreAddr = 0x5000;  // the loop guest stores its counter here
constexpr std::uint64_t kIdt = 0x6000, kGdt = 0x7000, kHandler = 0x8000;

// One guest: VM, memory, one vCPU set up for `mode` with `code` at 0x1000.
// KVM takes the hidden segment state from KVM_SET_SREGS, so real mode needs
// no BIOS; long mode gets identity-mapped page tables (one 2 MiB page), a
// GDT and an IDT whose every vector points at a handler that does
// `mov al, 0x99; out 0x10, al; hlt`.
class TestGuest {
 public:
  TestGuest(const Kvm& kvm, GuestMode mode, const std::vector<std::uint8_t>& code)
      : vm_(Vm::create(kvm, KVM_X86_DEFAULT_VM)) {
    mem_ = ::mmap(nullptr, kMemSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem_ == MAP_FAILED) throw KvmError("mmap(guest memory)", errno, "2 MiB");
    std::memcpy(bytes() + kCodeAddr, code.data(), code.size());
    vm_.set_user_memory_region(0, 0, 0, kMemSize, mem_);
    vcpu_.emplace(vm_.create_vcpu(kvm, 0));
    kvm_sregs s = vcpu_->get_sregs();
    if (mode == GuestMode::real) {
      for (kvm_segment* seg : {&s.cs, &s.ds, &s.es, &s.ss, &s.fs, &s.gs}) {
        seg->base = 0;
        seg->selector = 0;
      }
    } else {
      setup_long_mode(s);
    }
    vcpu_->set_sregs(s);
    kvm_regs r{};
    r.rip = kCodeAddr;
    r.rflags = 0x2;
    r.rsp = kMemSize;
    vcpu_->set_regs(r);
  }
  ~TestGuest() {
    vcpu_.reset();
    if (mem_ != MAP_FAILED) ::munmap(mem_, kMemSize);
  }
  TestGuest(const TestGuest&) = delete;
  TestGuest& operator=(const TestGuest&) = delete;

  Vcpu& vcpu() { return *vcpu_; }
  std::uint8_t byte_at(std::uint64_t gpa) const { return bytes()[gpa]; }

 private:
  std::uint8_t* bytes() const { return static_cast<std::uint8_t*>(mem_); }

  void setup_long_mode(kvm_sregs& s) {
    auto* pml4 = reinterpret_cast<std::uint64_t*>(bytes() + kPml4);
    auto* pdpt = reinterpret_cast<std::uint64_t*>(bytes() + kPdpt);
    auto* pd = reinterpret_cast<std::uint64_t*>(bytes() + kPd);
    pml4[0] = kPdpt | 0x7;  // present, writable, user
    pdpt[0] = kPd | 0x7;
    pd[0] = 0x87;  // 2 MiB page at 0: present, writable, user, PS

    auto* gdt = reinterpret_cast<std::uint64_t*>(bytes() + kGdt);
    gdt[0] = 0;
    gdt[1] = 0x00af9b000000ffffULL;  // 64-bit code, DPL 0
    gdt[2] = 0x00cf93000000ffffULL;  // data
    const std::uint8_t handler[] = {0xb0, 0x99, 0xe6, 0x10, 0xf4};
    std::memcpy(bytes() + kHandler, handler, sizeof handler);
    for (int vec = 0; vec < 256; ++vec) {  // 64-bit interrupt gates to kHandler
      std::uint8_t* e = bytes() + kIdt + vec * 16;
      std::memset(e, 0, 16);
      e[0] = kHandler & 0xff;
      e[1] = (kHandler >> 8) & 0xff;
      e[2] = 8;  // code selector
      e[5] = 0x8e;
      e[6] = (kHandler >> 16) & 0xff;
      e[7] = (kHandler >> 24) & 0xff;
    }

    kvm_segment code_seg{};
    code_seg.limit = 0xffffffff;
    code_seg.selector = 8;
    code_seg.type = 11;  // execute/read, accessed
    code_seg.present = 1;
    code_seg.s = 1;
    code_seg.g = 1;
    code_seg.l = 1;
    kvm_segment data_seg = code_seg;
    data_seg.selector = 16;
    data_seg.type = 3;  // read/write, accessed
    data_seg.db = 1;
    data_seg.l = 0;
    s.cs = code_seg;
    s.ds = s.es = s.fs = s.gs = s.ss = data_seg;
    s.gdt.base = kGdt;
    s.gdt.limit = 3 * 8 - 1;
    s.idt.base = kIdt;
    s.idt.limit = 256 * 16 - 1;
    s.cr3 = kPml4;
    s.cr4 = 1U << 5;                                  // PAE
    s.cr0 = 0x1 | 0x2 | 0x10 | 0x20 | 0x10000 | 0x80000000U;  // PE MP ET NE WP PG
    s.efer = (1U << 8) | (1U << 10);                  // LME, LMA
  }

  Vm vm_;
  void* mem_ = MAP_FAILED;
  std::optional<Vcpu> vcpu_;
};

// Runs `g` expecting exactly KVM_EXIT_IO (OUT port 0x10, one byte `value`)
// and then KVM_EXIT_HLT. Returns "" when that happened, else what happened.
// `on_timeout` adds what the guest got done before the timer stopped it;
// `keep_going` (given the time so far) may let it run one timeout more.
template <typename OnTimeout, typename KeepGoing>
std::string expect_out_then_hlt(TestGuest& g, std::uint8_t value, int timeout_ms,
                                OnTimeout on_timeout, KeepGoing keep_going) {
  auto start = std::chrono::steady_clock::now();
  RunOutcome o = g.vcpu().run_for(std::chrono::milliseconds(timeout_ms));
  while (o.timed_out && !interrupted() && keep_going(std::chrono::steady_clock::now() - start))
    o = g.vcpu().run_for(std::chrono::milliseconds(timeout_ms));
  if (o.timed_out) return on_timeout(std::chrono::steady_clock::now() - start);
  kvm_run& run = g.vcpu().run_state();
  if (o.exit_reason == KVM_EXIT_INTERNAL_ERROR)
    return fmt::format("KVM_RUN returned KVM_EXIT_INTERNAL_ERROR (suberror {}{}) instead of "
                       "KVM_EXIT_IO",
                       run.internal.suberror,
                       run.internal.suberror == KVM_INTERNAL_ERROR_EMULATION
                           ? ": KVM's instruction emulator gave up"
                           : "");
  if (o.exit_reason != KVM_EXIT_IO)
    return fmt::format("KVM_RUN returned {} instead of KVM_EXIT_IO (OUT to port 0x10)",
                       exit_reason_name(o.exit_reason));
  const auto* data = reinterpret_cast<const std::uint8_t*>(&run) + run.io.data_offset;
  if (run.io.direction != KVM_EXIT_IO_OUT || run.io.port != 0x10 || run.io.size != 1 ||
      run.io.count != 1 || *data != value)
    return fmt::format(
        "unexpected port access: {} port {:#x} size {} count {} value {:#x} (expected OUT port "
        "0x10 value {:#x})",
        run.io.direction == KVM_EXIT_IO_OUT ? "OUT" : "IN", run.io.port, run.io.size,
        run.io.count, *data, value);
  o = g.vcpu().run_for(std::chrono::milliseconds(timeout_ms));
  if (o.timed_out)
    return fmt::format("KVM_RUN did not return within {} ms after the OUT: vCPU hung before HLT",
                       timeout_ms);
  if (o.exit_reason != KVM_EXIT_HLT)
    return fmt::format("KVM_RUN returned {} after the OUT instead of KVM_EXIT_HLT",
                       exit_reason_name(o.exit_reason));
  return "";
}

std::string plain_timeout(int timeout_ms) {
  return fmt::format(
      "KVM_RUN did not return within {} ms: vCPU hung (only a timer signal got it out)",
      timeout_ms);
}

void append_imm32(std::vector<std::uint8_t>& c, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) c.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// The minimal and exception guests run a handful of instructions: a
// timeout is a hang, never slowness.
auto no_more_time = [](auto) { return false; };

GuestCheck check_minimal(const Kvm& kvm, int timeout_ms) {
  GuestCheck c{"minimal real-mode", false, ""};
  // mov al, 0x42; out 0x10, al; hlt
  TestGuest g(kvm, GuestMode::real, {0xb0, 0x42, 0xe6, 0x10, 0xf4});
  std::string why = expect_out_then_hlt(
      g, 0x42, timeout_ms, [&](auto) { return plain_timeout(timeout_ms); }, no_more_time);
  c.ok = why.empty();
  c.detail = c.ok ? "mov al,0x42; out 0x10,al; hlt: KVM_EXIT_IO port 0x10 value 0x42, then "
                    "KVM_EXIT_HLT"
                  : why;
  return c;
}

GuestCheck check_long_loop(const Kvm& kvm, int timeout_ms) {
  GuestCheck c{"long-mode loop", false, ""};
  // mov ecx, N; loop: mov [kStoreAddr], cl; dec ecx; jnz loop; mov al,0x44; out 0x10,al; hlt
  std::vector<std::uint8_t> code = {0xb9};
  append_imm32(code, kGuestLoopIterations);
  for (std::uint8_t b : {0x88, 0x0c, 0x25}) code.push_back(b);  // mov [abs32], cl
  append_imm32(code, kStoreAddr);
  for (std::uint8_t b : {0xff, 0xc9, 0x75, 0xf5, 0xb0, 0x44, 0xe6, 0x10, 0xf4}) code.push_back(b);
  TestGuest g(kvm, GuestMode::long64, code);
  // How far did it get? RCX counts down from N.
  auto done = [&] {
    std::uint64_t left = g.vcpu().get_regs().rcx & 0xffffffffULL;
    return left <= kGuestLoopIterations ? kGuestLoopIterations - left : 0;
  };
  auto seconds = [](auto elapsed) { return std::chrono::duration<double>(elapsed).count(); };
  auto on_timeout = [&](auto elapsed) {
    const std::uint64_t n = done();
    const double s = seconds(elapsed);
    return fmt::format(
        "KVM_RUN did not return within {} ms: vCPU hung{} ({} of {} loop iterations done, "
        "{:.2g}/s where hardware virtualization runs about 1e9/s)",
        // The timeouts it had (the timer's kick lands a little after each).
        std::max(1L, std::lround(s * 1000) / timeout_ms) * timeout_ms,
        n > 0 ? " in effect: it crawls, apparently emulating instruction by instruction" : "", n,
        kGuestLoopIterations, s > 0 ? n / s : 0.0);
  };
  auto keep_going = [&](auto elapsed) {
    return loop_guest_would_finish(done(), seconds(elapsed), timeout_ms / 1000.0);
  };
  std::string why = expect_out_then_hlt(g, 0x44, timeout_ms, on_timeout, keep_going);
  c.ok = why.empty() && g.byte_at(kStoreAddr) == 1;
  if (why.empty() && !c.ok)
    why = fmt::format("reached its HLT but left {:#x} at GPA {:#x} instead of 0x1 (its memory "
                      "writes did not land)",
                      g.byte_at(kStoreAddr), kStoreAddr);
  c.detail = c.ok ? fmt::format("{} iterations with a store each, then OUT 0x44 and HLT",
                                kGuestLoopIterations)
                  : why;
  return c;
}

GuestCheck check_long_exception(const Kvm& kvm, int timeout_ms) {
  GuestCheck c{"long-mode exception", false, ""};
  // int3: delivered through the IDT to the handler, which does OUT 0x99 and HLT.
  TestGuest g(kvm, GuestMode::long64, {0xcc});
  std::string why = expect_out_then_hlt(
      g, 0x99, timeout_ms, [&](auto) { return plain_timeout(timeout_ms); }, no_more_time);
  c.ok = why.empty();
  c.detail = c.ok ? "int3 reached its IDT handler (OUT 0x99, HLT)" : "int3 through the IDT: " + why;
  return c;
}

}  // namespace

bool loop_guest_would_finish(unsigned long long done, double elapsed_s, double timeout_s) {
  if (done == 0 || done >= kGuestLoopIterations || elapsed_s <= 0) return false;
  const double rate = static_cast<double>(done) / elapsed_s;
  const double budget_s = kGuestLoopPatience * timeout_s;
  return elapsed_s < budget_s && kGuestLoopIterations / rate <= budget_s;
}

std::vector<GuestCheck> run_guest_checks(const Kvm& kvm, int timeout_ms) {
  std::vector<GuestCheck> out;
  for (auto check : {check_minimal, check_long_loop, check_long_exception}) {
    out.push_back(check(kvm, timeout_ms));
    if (!out.back().ok) break;
  }
  return out;
}

}  // namespace kvmbench::host
