// make_shared: guest_memfd to-shared conversions (post 002), with VMs
// built directly through KVM ioctls as the KVM selftests do (no QEMU).
//   document: the document's benchmark (gmem_benchmark_tdx_convert: private
//             memory faulted into the guest, converted to shared and back,
//             5 conversions per VM build, slots of 4K / 1G / 4G) on an SNP
//             or TDX VM (tried in that order) whose launch is finished (SNP:
//             KVM_SEV_INIT2, SNP_LAUNCH_START, LAUNCH_FINISH; TDX:
//             CAPABILITIES, INIT_VM, INIT_VCPU, FINALIZE_VM) so that KVM may
//             map the private memory (KVM_PRE_FAULT_MEMORY before each
//             conversion), converted through KVM_SET_MEMORY_ATTRIBUTES2 on
//             the guest_memfd fd: the only ioctl that runs the arch
//             make_shared callback the document times (in-place conversion
//             series). Primary: the kernel's own "guest_memfd to_shared:"
//             lines (make_shared and total cycles), captured from /dev/kmsg;
//             beside them the user-space timing of the same ioctl (TSC and
//             wall clock). A kernel without that ioctl is skipped with the
//             reason (its conversions never reach the callback). No guest
//             code runs: the pages are RMP-assigned / S-EPT-mapped by the
//             pre-fault, not validated / accepted by a guest (extra
//             guest_state). UNTESTED ON HARDWARE.
//   host:     the same on the first VM type with a conversion ioctl of
//             sw_protected, snp, tdx (the VM-wide one first), plus
//             guest_memfd create/fallocate/punch.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/parse/kernel_log.h"
#include "analysis/model/units.h"
#include "suites/make_shared/measure.h"
#include "hostlib/kvm/private_vm.h"
#include "suites/collect/capture.h"
#include "suites/framework/collector.h"
#include "suites/framework/plan.h"
#include "suites/collect/guest_glue.h"
#include "suites/collect/kernel_boot.h"
#include "suites/framework/requirements.h"
#include "suites/framework/errors.h"
#include "suites/framework/param_check.h"
#include "suites/make_shared/report.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace {

// `order`: the VM types tried when vm-type is empty (hostlib/kvm/private_vm.h).
make_shared::MakeSharedHostParams params_from(const ParamText& t, const std::vector<std::uint32_t>& order) {
  make_shared::MakeSharedHostParams p;
  p.vm_type_order = order;
  p.sizes.clear();
  for (auto& s : t.list("sizes")) {
    auto b = parse_bytes(s);
    if (!b || *b == 0 || *b % 4096) usage_error(fmt::format("parameter sizes: '{}' is not a multiple of 4K", s));
    p.sizes.push_back(*b);
  }
  p.conversions_per_build = static_cast<int>(t.integer("conversions"));
  if (p.conversions_per_build < 1) usage_error("parameter conversions: at least 1");
  p.vm_type = t.text("vm-type");
  try {
    (void)host::parse_vm_type(p.vm_type);
  } catch (const std::invalid_argument& e) {
    usage_error(std::string("parameter vm-type: ") + e.what());
  }
  p.memory_limit = t.bytes("memory-limit");
  // "auto": decided by the host when the run starts (settle_after_teardown).
  const std::string settle = t.text("rmpopt-settle");
  p.teardown_settle_s = settle == "auto" ? -1 : *finite_number(settle);
  return p;
}

// The RMPOPT series re-optimises RMPOPT_WORK_TIMEOUT (10 s) after the last
// SNP guest's exit; 15 s lets that sweep end before the next build, as
// rmpopt's document preset settles.
constexpr double kRmpoptTeardownSettleS = 15;

// rmpopt-settle=auto: the wait where this boot's kernel log says RMPOPT
// optimises (the series' range line), else none.
make_shared::MakeSharedHostParams settled_for(const HostCaps& caps, make_shared::MakeSharedHostParams p) {
  if (p.teardown_settle_s < 0)
    p.teardown_settle_s =
        caps.confidential.rmpopt.state == host::RmpoptBootState::State::enabled ? kRmpoptTeardownSettleS : 0;
  return p;
}

std::string settle_text(const make_shared::MakeSharedHostParams& p) {
  return p.teardown_settle_s > 0
             ? fmt::format("after each SNP VM's teardown, {:g} s before the next build (rmpopt-settle): the RMPOPT "
                           "series' re-optimisation sweep, queued 10 s after the last SNP guest's exit, runs "
                           "between builds, not beside a conversion",
                           p.teardown_settle_s)
             : std::string("no wait after an SNP VM's teardown (rmpopt-settle=0, or auto on a kernel whose log "
                           "shows no RMPOPT optimisation): a re-optimisation sweep would run beside the next "
                           "build's conversions");
}

make_shared::MakeSharedHostParams parse_host_params(const ParamText& t) {
  return params_from(t, host::kHostVmTypeOrder);
}

make_shared::MakeSharedHostParams parse_document_params(const ParamText& t) {
  auto p = params_from(t, host::kDocumentVmTypeOrder);
  p.need = host::ConversionNeed::arch_make_shared;
  p.gmem_ops = false;
  return p;
}

void emit_all(RunContext& ctx, const host::BenchOutcome& outcome, const std::vector<Sample>& samples) {
  for (const auto& s : samples) ctx.emit(s);
  if (ctx.iteration() <= 0)
    for (auto& sk : outcome.skipped) ctx.note_skip(sk.case_name, sk.reason);
}

void run_host(RunContext& ctx, const make_shared::MakeSharedHostParams& asked) {
  ctx.progress("guest_memfd operations and conversions");
  const auto p = settled_for(ctx.host(), asked);
  std::vector<Sample> got;
  auto outcome = make_shared::measure(p, [&](const Sample& s) { got.push_back(s); });
  emit_all(ctx, outcome, got);
}

// The kernel's to_shared lines of one repetition, whichever way they came.
void emit_kernel_lines(RunContext& ctx, const std::string& text) {
  const std::string raw_name = fmt::format("kmsg.it{}.log", ctx.iteration());
  ctx.save_raw(raw_name, text);
  std::size_t n = 0;
  for (Sample s : kernel_log_samples(ctx, text, raw_name))
    if (s.metric.find("make_shared") != std::string::npos || s.metric.find("total") != std::string::npos) {
      s.variant = "kernel";
      ctx.emit(s);
      ++n;
    }
  if (n == 0)
    ctx.collector().kernel_log_lacks(ctx, "kernel to_shared lines",
                                     "the kernel printed no 'guest_memfd to_shared:' lines (its rdtsc "
                                     "instrumentation is not in this kernel); user-space timings only",
                                     "'guest_memfd to_shared:' line");
}

// As host, on an SNP/TDX VM, with the kernel's own to_shared lines captured.
// A replay feeds only those lines: the user-space timings are measurements
// of a live VM, not a capture.
void run_document(RunContext& ctx, const make_shared::MakeSharedHostParams& asked) {
  const auto p = settled_for(ctx.host(), asked);
  Collector& collect = ctx.collector();
  const std::optional<std::string> text =
      collect.kernel_log_while(ctx, {"kernel to_shared lines", "cannot read /dev/kmsg: ", true}, [&] {
        collect.on_this_host(
            ctx,
            [&] {
              std::vector<Sample> got;
              auto outcome = make_shared::measure(p, [&](const Sample& s) { got.push_back(s); });
              emit_all(ctx, outcome, got);
            },
            "user-space conversion timings",
            "they time KVM ioctls on a live host; the capture feeds the kernel's to_shared lines");
      });
  if (text) emit_kernel_lines(ctx, *text);
}

// `run --dry-run`: the same choices from the host's (or a described host's)
// probe answers, and each VM build as the ioctl sequence the body runs.
bool smt_active_on(const HostCaps& caps) {
  const auto& smt = caps.metadata.value("smt", nlohmann::json::object());
  return smt.is_object() && smt.value("active", nlohmann::json()) == "1";
}

std::uint64_t memory_available_on(const HostCaps& caps) {
  const auto& mem = caps.metadata.value("memory", nlohmann::json::object());
  if (!mem.is_object() || !mem.contains("meminfo") || !mem["meminfo"].is_object()) return 0;
  const auto& v = mem["meminfo"].value("MemAvailable", nlohmann::json());
  return v.is_number_unsigned() ? v.get<std::uint64_t>() : 0;
}

void plan_document(RunContext& ctx, Plan& plan, const make_shared::MakeSharedHostParams& p) {
  const HostCaps& caps = ctx.host();
  if (!require_guest_memfd(caps).empty()) {
    plan.skip("conversions", require_guest_memfd(caps));
    return;
  }
  const host::VmTypeChoice choice = host::choose_private_vm_type(
      host::vm_type_offer_from(caps.kvm), p.vm_type_order, host::parse_vm_type(p.vm_type), p.need);
  if (choice.type < 0) {
    plan.skip("conversions", make_shared::no_vm_type_reason(choice, p.vm_type, p.vm_type_order));
    return;
  }
  const auto type = static_cast<std::uint32_t>(choice.type);
  plan.note(fmt::format("VM type {}, converted through {}{}", choice.name(), host::to_string(choice.conversion),
                        choice.unavailable.empty() ? "" : "; passed over: " + choice.reason()));
  if (!caps.kvm.pre_fault_memory)
    plan.skip("pre-fault", "KVM_CAP_PRE_FAULT_MEMORY is 0: the conversions would run on fallocated memory, never "
                           "RMP-assigned or S-EPT-mapped");
  else
    plan.note("private memory before each conversion: " + make_shared::prefaulted_state(type) +
              " (the document's guest accepted and touched every page; no guest code runs here)");
  const std::uint64_t available = memory_available_on(caps);
  const std::uint64_t limit = p.memory_limit ? p.memory_limit : available / 2;
  const std::uint64_t policy = host::snp_guest_policy(smt_active_on(caps));
  std::vector<std::string> sizes;
  for (std::uint64_t requested : p.sizes) {
    const std::uint64_t size = limit ? make_shared::conversion_case_bytes(requested, limit) : requested;
    sizes.push_back(fmt::format("{:#x} (nr_pages={}{})", size, size / 4096,
                                size == requested ? "" : fmt::format(", {} scaled down to fit {}",
                                                                     format_bytes(requested), format_bytes(limit))));
  }
  if (type == KVM_X86_SNP_VM) plan.note(settle_text(settled_for(caps, p)));
  plan.ioctls(fmt::format("each repetition, one VM build per SIZE = {}", fmt::join(sizes, ", ")),
              make_shared::conversion_build_plan(type, choice.conversion, "SIZE", p.conversions_per_build, p.populate,
                                                 p.prefault, policy, caps.kvm.guest_phys_bits));
  if (caps.confidential.kmsg_error.empty())
    plan.capture("/dev/kmsg, read from the run's start: the kernel's \"guest_memfd to_shared: nr_pages=N, "
                 "make_shared=C cycles, total=T cycles\" lines -> make_shared_cycles and total_cycles (variant "
                 "kernel; the primary metrics), kept in RUN_DIR/raw/kmsg.it<N>.log; none printed (a kernel without "
                 "the rdtsc instrumentation) is a skip of that part");
  else
    plan.skip("kernel to_shared lines", "cannot read /dev/kmsg: " + caps.confidential.kmsg_error +
                                            " (user-space timings only)");
  plan.capture(fmt::format("user space, beside the kernel's: to_shared_cycles / to_shared_time and "
                           "to_private_cycles / to_private_time around each {} (extra conversion_ioctl)",
                           host::to_string(choice.conversion)));
  plan.knob("none");
}

// The document measures the arch make_shared callback: a confidential VM
// type (SNP or TDX, tried in that order, host::kDocumentVmTypeOrder) whose
// guest_memfd converts through KVM_SET_MEMORY_ATTRIBUTES2, each with the
// reason it is unavailable. Force a type with --set vm-type=T; a
// software-protected VM is the host preset's.
std::string document_unsupported(const HostCaps& caps) {
  std::string g = require_guest_memfd(caps);
  if (!g.empty()) return g;
  host::VmTypeChoice c = host::choose_private_vm_type(host::vm_type_offer_from(caps.kvm), host::kDocumentVmTypeOrder,
                                                      std::nullopt, host::ConversionNeed::arch_make_shared);
  if (c.type >= 0) return "";
  return "needs an SNP or TDX VM with private memory (tried snp, then tdx): " + c.reason();
}

// `order`: the VM types the preset tries, in order, when vm-type is empty.
std::vector<Param> common_params(const std::string& order) {
  return {
      {"sizes", "4K,1G,4G", "slot sizes converted (scaled down when memory-limit is smaller)"},
      {"conversions", "5", "to-shared conversions per VM build", integer_at_least(1)},
      {"vm-type", "", "force a VM type: sw_protected, snp or tdx (empty: the first usable of " + order + ")"},
      {"memory-limit", "0", "bytes one case may allocate (0: half of MemAvailable)"},
      {"rmpopt-settle", "auto",
       "seconds waited after each SNP VM's teardown so that an RMPOPT kernel's re-optimisation sweep is not timed "
       "with the next conversions (auto: 15 where the boot log shows RMPOPT optimising, else 0)",
       [](const std::string& v, const HostCaps&) {
         if (v == "auto") return;
         const auto n = finite_number(v);
         if (!n || *n < 0) throw std::invalid_argument("auto, or seconds >= 0");
       }},
  };
}

// User space times each conversion with the TSC and the wall clock: two
// clocks on one interval, one measurement.
std::map<std::string, std::string> conversion_derived() {
  return {{"to_shared_time", "to_shared_cycles"}, {"to_private_time", "to_private_cycles"}};
}

}  // namespace

Suite make_shared_suite() {
  std::map<std::string, std::string> doc_derived = conversion_derived();
  doc_derived["make_shared_pct"] = "make_shared_cycles";  // of total_cycles, the same conversion
  std::map<std::string, std::string> host_derived = conversion_derived();
  host_derived["gmem_fallocate_time"] = "gmem_fallocate_rate";  // the bytes over that rate
  std::vector<Param> host_params = common_params("sw_protected, snp, tdx");
  host_params[0].default_value = "4K,64M,256M";
  return {
      .name = "make_shared",
      .description = "guest_memfd to-shared conversion cost (post 002)",
      .presets =
          {
              {
                  .name = "document",
                  .description = "SNP/TDX VM with its launch finished, 4K/1G/4G private slots faulted in, 5 "
                                 "to-shared conversions per build through KVM_SET_MEMORY_ATTRIBUTES2; the "
                                 "kernel's to_shared lines",
                  .source = Source::hardware,
                  .params = common_params("snp, tdx"),
                  .parse = parse_as(parse_document_params),
                  .unsupported_reason = document_unsupported,
                  .boot = [](const HostCaps& caps, const ParamText&) { return per_file_attributes_boot(caps, {"snp", "tdx"}); },
                  .run = run_with(run_document),
                  .default_repetitions = 2,
                  // The kernel's own figures (its "guest_memfd to_shared:"
                  // lines); the user-space to_shared_cycles / _time are shown
                  // beside them.
                  .primary_metrics = {"make_shared_cycles", "total_cycles"},
                  .derived_metrics = doc_derived,
                  .repetition = "a fresh VM build (its conversions are sub-units)",
                  .plan = plan_with(plan_document),
              },
              {
                  .name = "host",
                  .description = "guest_memfd ops and conversions on the VM types this host offers",
                  .source = Source::hardware,
                  .params = host_params,
                  .parse = parse_as(parse_host_params),
                  .unsupported_reason = require_guest_memfd,
                  .run = run_with(run_host),
                  .default_repetitions = 2,
                  .primary_metrics = {"to_shared_cycles", "gmem_fallocate_rate"},
                  .derived_metrics = host_derived,
                  .repetition = "a fresh VM build (its conversions are sub-units)",
              },
          },
      .owns_metric = [](std::string_view m) { return m == "make_shared_cycles" || m == "total_cycles"; },
      .tables = make_shared::report_tables,
      // and the host preset's guest_memfd and conversion tables
      .layout_shows =
          [](std::string_view m) {
            return m == "make_shared_cycles" || m == "total_cycles" || m.starts_with("gmem_") ||
                   m == "to_shared_cycles" || m == "to_private_cycles" || m == "to_shared_time";
          },
      .reproduce = make_shared::reproduce_document,
  };
}

}  // namespace kvmbench::suites
