#include "suites/make_shared/measure.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include <chrono>
#include <thread>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hostlib/kvm/gmem_conversion.h"
#include "analysis/parse/meminfo.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::suites::make_shared {

// The suite-neutral pieces: Kvm, Vm, run_parallel, pinning, knobs.
using namespace kvmbench::host;

namespace {

constexpr std::uint64_t kPage = 4096;

std::uint64_t mem_available_bytes() {
  return meminfo_field(host::read_kernel_file("/proc/meminfo").value_or(""), "MemAvailable").value_or(0);
}

std::uint64_t largest_pow2_at_most(std::uint64_t v) {
  std::uint64_t p = kPage;
  while (p * 2 <= v) p *= 2;
  return p;
}

// The slot's GPA: clear of the legacy holes below 4 GiB (the document's
// benchmark puts its slot at 4G too).
constexpr std::uint64_t kConversionGpa = 1ULL << 32;

double elapsed_ns(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}

std::uint64_t tsc() {
  _mm_lfence();  // keep rdtsc from drifting over the ioctl boundary
  std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

void fallocate_or_throw(int fd, int mode, std::uint64_t size, const char* what) {
  if (::fallocate(fd, mode, 0, static_cast<off_t>(size)) != 0)
    throw std::runtime_error(fmt::format("fallocate({}) of {} bytes on the guest_memfd failed: {}",
                                         what, size, errno_description(errno)));
}

}  // namespace

std::string prefault_refusal(const PrivateVm& pvm) {
  if (!pvm.launch_finished)
    return fmt::format("KVM_PRE_FAULT_MEMORY is refused on a {} VM before its launch is finished",
                       vm_type_name(pvm.vm.type()));
  if (pvm.vm.check_extension(KVM_CAP_PRE_FAULT_MEMORY) <= 0) return "KVM_CAP_PRE_FAULT_MEMORY is 0 on this VM";
  return "";
}

std::string prefaulted_state(std::uint32_t type) {
  switch (type) {
    case KVM_X86_SNP_VM:
      return "pre-faulted after KVM_SEV_SNP_LAUNCH_FINISH: RMP-assigned to the guest and in its NPT, not "
             "PVALIDATEd by a guest";
    case KVM_X86_TDX_VM:
      return "pre-faulted after KVM_TDX_FINALIZE_VM: in the S-EPT (TDH.MEM.PAGE.AUG, pending), not accepted by a "
             "guest";
    default:
      return "pre-faulted into the guest's page tables";
  }
}

VmTypeChoice make_shared_vm_choice(const std::string& wanted, const std::vector<std::uint32_t>& order,
                                   ConversionNeed need) {
  std::optional<std::uint32_t> forced = parse_vm_type(wanted);
  Kvm kvm = Kvm::open();
  return choose_private_vm_type(probe_vm_type_offer(kvm), order, forced, need);
}

std::string no_vm_type_reason(const VmTypeChoice& choice, const std::string& wanted,
                              const std::vector<std::uint32_t>& order) {
  std::vector<std::string> tried;
  std::optional<std::uint32_t> forced = parse_vm_type(wanted);
  for (std::uint32_t t : forced ? std::vector<std::uint32_t>{*forced} : order) tried.push_back(vm_type_name(t));
  return fmt::format("no private-memory VM type here (tried {}): {}", fmt::join(tried, ", "), choice.reason());
}

std::uint64_t conversion_case_bytes(std::uint64_t requested, std::uint64_t limit) {
  if (limit < kPage) limit = kPage;
  return requested <= limit ? requested : largest_pow2_at_most(limit);
}

// Keep in step with the conversion body in measure.
std::vector<std::string> conversion_build_plan(std::uint32_t type, ConversionIoctl ioctl, const std::string& size,
                                               int conversions, bool populate, bool prefault,
                                               std::uint64_t snp_policy, unsigned guest_phys_bits) {
  std::vector<std::string> steps = private_vm_launch_plan(type, snp_policy, guest_phys_bits);
  steps.push_back(fmt::format("KVM_CREATE_GUEST_MEMFD(size={}, flags=0)", size));
  steps.push_back(fmt::format("mmap {} bytes of anonymous memory: the slot's shared half, never touched", size));
  steps.push_back(fmt::format("KVM_SET_USER_MEMORY_REGION2(slot=0, flags=KVM_MEM_GUEST_MEMFD, gpa={:#x}, size={}, "
                              "guest_memfd_offset=0)",
                              kConversionGpa, size));
  if (populate) steps.push_back(fmt::format("fallocate(guest_memfd, FALLOC_FL_KEEP_SIZE, 0, {})", size));
  steps.push_back("KVM_CREATE_VCPU(0)");
  for (auto& s : private_vm_vcpu_plan(type)) steps.push_back(s);
  for (auto& s : private_vm_finish_plan(type)) steps.push_back(s);
  auto convert = [&](const char* attributes) {
    return ioctl == ConversionIoctl::gmem_attributes2
               ? fmt::format("KVM_SET_MEMORY_ATTRIBUTES2(guest_memfd fd, offset=0, size={}, attributes={})", size,
                             attributes)
               : fmt::format("KVM_SET_MEMORY_ATTRIBUTES(VM fd, address={:#x}, size={}, attributes={})",
                             kConversionGpa, size, attributes);
  };
  steps.push_back(convert("PRIVATE"));
  const std::string each = fmt::format("{} conversion{}, each:", conversions, conversions == 1 ? "" : "s");
  if (prefault)
    steps.push_back(fmt::format("{} KVM_PRE_FAULT_MEMORY(vcpu 0, gpa={:#x}, size={}), untimed, then", each,
                                kConversionGpa, size));
  steps.push_back(fmt::format("{} timed (lfence;rdtsc and CLOCK_MONOTONIC around it): {}", prefault ? "  " : each,
                              convert("0 (shared)")));
  steps.push_back(fmt::format("  then, timed: {}", convert("PRIVATE")));
  steps.push_back("close the guest_memfd, the vCPU and the VM (the next repetition builds a new one)");
  return steps;
}

BenchOutcome measure(const MakeSharedHostParams& params, const SampleSink& sink) {
  if (params.conversions_per_build < 1) throw std::invalid_argument("conversions_per_build must be >= 1");
  for (std::uint64_t s : params.sizes)
    if (s == 0 || s % kPage != 0)
      throw std::invalid_argument(fmt::format("guest_memfd size {} is not a multiple of 4096", s));

  BenchOutcome outcome;
  std::string no_gmem;
  try {
    Kvm kvm = Kvm::open();
    if (kvm.check_extension(KVM_CAP_GUEST_MEMFD) <= 0)
      no_gmem = "KVM has no guest_memfd (KVM_CAP_GUEST_MEMFD = 0)";
  } catch (const KvmError& e) {
    no_gmem = e.what();
  }
  std::uint64_t limit = params.memory_limit ? params.memory_limit : mem_available_bytes() / 2;
  if (limit < kPage) limit = kPage;

  std::string no_private;
  VmTypeChoice choice;
  if (no_gmem.empty() && params.conversions) {
    choice = make_shared_vm_choice(params.vm_type, params.vm_type_order, params.need);
    if (choice.type < 0) no_private = no_vm_type_reason(choice, params.vm_type, params.vm_type_order);
  }
  const int vm_type = choice.type;

  std::vector<SkippedCase> prefault_notes;

  for (std::uint64_t requested : params.sizes) {
    // Without population a conversion allocates nothing, so only populated
    // runs (and the fallocate timing) are bound by memory.
    std::uint64_t size = conversion_case_bytes(requested, limit);
    std::string case_name = fmt::format("nr_pages={}", size / kPage);
    nlohmann::json extra = {{"bytes", size}, {"requested_bytes", requested}, {"keys", {{"nr_pages", size / kPage}}}};
    if (size != requested) extra["scaled_down_to_fit"] = limit;

    if (params.gmem_ops) {
      if (!no_gmem.empty()) {
        outcome.skipped.push_back({case_name, "guest_memfd", no_gmem});
      } else {
        CaseSpec c;
        c.case_name = case_name;
        c.variant = "guest_memfd";
        c.units = {{"gmem_create_time", "ns"},
                   {"gmem_fallocate_time", "ns"},
                   {"gmem_fallocate_rate", "GB/s"},
                   {"gmem_punch_hole_time", "ns"}};
        c.extra = extra;
        measure_case(c, [size](CaseValues& values) {
          using clock = std::chrono::steady_clock;
          Kvm kvm = Kvm::open();
          Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
          auto t0 = clock::now();
          UniqueFd fd = vm.create_guest_memfd(size, 0);
          auto t1 = clock::now();
          fallocate_or_throw(fd.get(), FALLOC_FL_KEEP_SIZE, size, "KEEP_SIZE");
          auto t2 = clock::now();
          fallocate_or_throw(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, size,
                             "PUNCH_HOLE");
          auto t3 = clock::now();
          values.record("gmem_create_time", elapsed_ns(t0, t1));
          values.record("gmem_fallocate_time", elapsed_ns(t1, t2));
          values.record("gmem_fallocate_rate", static_cast<double>(size) / elapsed_ns(t1, t2));
          values.record("gmem_punch_hole_time", elapsed_ns(t2, t3));
        }, sink, outcome);
      }
    }

    if (!params.conversions) continue;
    if (!no_gmem.empty() || vm_type < 0) {
      outcome.skipped.push_back({case_name, params.vm_type.empty() ? "conversion" : params.vm_type,
                                 no_gmem.empty() ? no_private : no_gmem});
      continue;
    }
    CaseSpec c;
    c.case_name = case_name;
    c.variant = vm_type_name(static_cast<std::uint32_t>(vm_type));
    c.units = {{"to_shared_cycles", "cycles"},
               {"to_shared_time", "ns"},
               {"to_private_cycles", "cycles"},
               {"to_private_time", "ns"}};
    c.extra = extra;
    c.extra["populated"] = params.populate;
    c.extra["vm_type"] = c.variant;
    const ConversionIoctl ioctl = choice.conversion;
    c.extra["conversion_ioctl"] = to_string(ioctl);
    if (vm_type == KVM_X86_SNP_VM || vm_type == KVM_X86_TDX_VM)
      c.extra["vm_init"] = vm_type == KVM_X86_SNP_VM
                               ? fmt::format("KVM_SEV_INIT2, KVM_SEV_SNP_LAUNCH_START(policy={:#x}), "
                                             "KVM_SEV_SNP_LAUNCH_FINISH",
                                             snp_guest_policy(host_smt_active()))
                               : std::string("KVM_ENABLE_CAP(SPLIT_IRQCHIP), KVM_TDX_CAPABILITIES, "
                                             "KVM_TDX_INIT_VM(attributes=0), KVM_SET_CPUID2, KVM_TDX_INIT_VCPU, "
                                             "KVM_TDX_FINALIZE_VM");
    int conversions = params.conversions_per_build;
    bool populate = params.populate;
    bool prefault = params.prefault;
    std::string no_prefault;  // why not, from the body
    auto type = static_cast<std::uint32_t>(vm_type);
    if (prefault) c.extra["guest_state"] = prefaulted_state(type);
    const bool settle = type == KVM_X86_SNP_VM && params.teardown_settle_s > 0;
    if (settle) c.extra["teardown_settle_s"] = params.teardown_settle_s;
    measure_case(c, [&, size](CaseValues& values) {
      using clock = std::chrono::steady_clock;
      Kvm kvm = Kvm::open();
      // SNP / TDX init as the selftests do (UNTESTED ON HARDWARE).
      PrivateVm pvm = create_private_vm(kvm, type);
      Vm& vm = pvm.vm;
      UniqueFd gmem = vm.create_guest_memfd(size, 0);
      // The shared half of the slot: ordinary anonymous memory, never touched.
      void* shared = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (shared == MAP_FAILED)
        throw std::runtime_error(fmt::format("mmap of {} bytes failed: {}", size,
                                             errno_description(errno)));
      struct Unmap {
        void* p;
        std::uint64_t n;
        ~Unmap() { ::munmap(p, n); }
      } unmap{shared, size};
      vm.set_user_memory_region2(0, KVM_MEM_GUEST_MEMFD, kConversionGpa, size, shared, gmem.get(), 0);
      if (populate) fallocate_or_throw(gmem.get(), FALLOC_FL_KEEP_SIZE, size, "KEEP_SIZE");
      // The vCPU comes before the end of the launch: SNP encrypts its VMSA
      // at LAUNCH_FINISH, TDX initialises it before FINALIZE_VM. Without it
      // a confidential launch cannot finish (the error skips the case).
      std::optional<Vcpu> vcpu;
      std::string why_not = prefault ? std::string() : std::string("not asked");
      try {
        vcpu.emplace(vm.create_vcpu(kvm));
        prepare_vcpu_for_launch(pvm, *vcpu);
      } catch (const KvmError& e) {
        if (type == KVM_X86_SNP_VM || type == KVM_X86_TDX_VM) throw;
        vcpu.reset();
        if (why_not.empty()) why_not = e.what();
      }
      finish_launch(pvm);
      convert_memory(ioctl, vm, gmem.get(), kConversionGpa, size, KVM_MEMORY_ATTRIBUTE_PRIVATE);
      // The document's step 2, "get the guest to fault them in": the vCPU
      // pre-faults the private memory before every conversion (untimed).
      if (why_not.empty()) why_not = prefault_refusal(pvm);
      for (int k = 0; k < conversions; ++k) {
        if (vcpu && why_not.empty()) try {
            vcpu->pre_fault_memory(kConversionGpa, size);
          } catch (const KvmError& e) {
            why_not = e.what();
          }
        const long long faulted = why_not.empty() ? 1 : 0;
        auto w0 = clock::now();
        std::uint64_t c0 = tsc();
        convert_memory(ioctl, vm, gmem.get(), kConversionGpa, size, 0);
        std::uint64_t c1 = tsc();
        auto w1 = clock::now();
        convert_memory(ioctl, vm, gmem.get(), kConversionGpa, size, KVM_MEMORY_ATTRIBUTE_PRIVATE);
        std::uint64_t c2 = tsc();
        auto w2 = clock::now();
        const std::map<std::string, long long> keys = {{"conversion", k}, {"prefaulted", faulted}};
        values.record("to_shared_cycles", static_cast<double>(c1 - c0), keys);
        values.record("to_shared_time", elapsed_ns(w0, w1), keys);
        values.record("to_private_cycles", static_cast<double>(c2 - c1), keys);
        values.record("to_private_time", elapsed_ns(w1, w2), keys);
      }
      if (!why_not.empty() && prefault) no_prefault = why_not;
    }, sink, outcome);
    // The VM is gone: its teardown's RMPOPT sweep runs now, not in the
    // next build's conversions.
    if (settle) std::this_thread::sleep_for(std::chrono::duration<double>(params.teardown_settle_s));
    if (!no_prefault.empty())
      prefault_notes.push_back(
          {case_name, c.variant,
           "conversions ran on fallocated memory, not pre-faulted into the guest's page tables: " + no_prefault});
  }
  // After the cases' own skips, as one list of what the run could not do.
  outcome.skipped.insert(outcome.skipped.end(), prefault_notes.begin(), prefault_notes.end());
  return outcome;
}

}  // namespace kvmbench::suites::make_shared
