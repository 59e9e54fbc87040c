// directmap: guest fault-in rate vs the host directmap (post 001).
//   document: one big guest (default 1T / 128 vCPUs, or what the host has)
//             runs `faultin` (stress --vm N --vm-bytes B --vm-keep) while the
//             host's allocation of guest memory is sampled from /proc/meminfo
//             at 10 Hz and its rate fitted over the ramp; unpinned and pinned
//             to NUMA node 0; DirectMap lines recorded. Needs KVM that runs
//             guests (SEV-SNP for the document's setting: confidential=snp,
//             whose rate follows the meminfo field that grows with
//             guest_memfd on the running kernel, and whose NUMA binding,
//             hugetlbfs and prealloc reach only the shared half).
//   host:     fault-in rate of fresh host memory by backing (real, any host).
//   smoke:    the document's pipeline in a tiny TCG guest (emulated).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "analysis/parse/meminfo.h"
#include "analysis/stats/rate_fit.h"
#include "analysis/model/units.h"
#include "suites/directmap/measure.h"
#include "hostlib/facts/gmem_meminfo_field.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "suites/collect/capture.h"
#include "suites/framework/collector.h"
#include "suites/collect/guest_glue.h"
#include "suites/collect/kernel_boot.h"
#include "suites/framework/plan.h"
#include "suites/framework/requirements.h"
#include "suites/directmap/ramp_charts.h"
#include "suites/directmap/report.h"
#include "suites/framework/errors.h"
#include "suites/framework/param_check.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace {

std::string read_directmap_lines() {
  std::istringstream in(host::read_kernel_file("/proc/meminfo").value_or(""));
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("DirectMap", 0) == 0) out += line + "\n";
  return out;
}

// The guest presets' parameters (document, lab, smoke), parsed and checked
// before anything runs.
struct GuestFaultinParams {
  int vcpus = 1;
  std::uint64_t bytes = 0;      // each thread faults in
  std::uint64_t guest_mem = 0;
  host::MemoryBackend backend = host::MemoryBackend::memfd;
  bool snp = false;             // confidential=snp
  host::SevSnpOptions snp_options;
  std::string meminfo_field;    // not SNP: the field that grows with guest memory
  std::string snp_meminfo_field;  // SNP: that field, or "auto" (ask the running kernel)
  double sample_hz = 10;
  double timeout_s = 0;
};

// ExitError(2) for a value the guest cannot take: vcpus below 1, or the
// threads' bytes more than guest-mem less what the guest kernel keeps.
GuestFaultinParams parse_guest_params(const ParamText& t) {
  GuestFaultinParams p;
  p.vcpus = static_cast<int>(t.integer("vcpus"));
  p.bytes = t.bytes("bytes");
  p.guest_mem = t.bytes("guest-mem");
  if (p.vcpus < 1) usage_error("parameter vcpus: at least 1");
  if (static_cast<unsigned long long>(p.vcpus) * p.bytes > p.guest_mem - std::min<std::uint64_t>(p.guest_mem, 192ULL << 20))
    usage_error(fmt::format("vcpus x bytes ({} x {}) does not fit in guest-mem {} (192M kept for the guest kernel)",
                            p.vcpus, format_bytes(p.bytes), format_bytes(p.guest_mem)));
  const auto backend = host::find_memory_backend(t.text("backing"));
  if (!backend)
    usage_error(fmt::format("parameter backing: '{}' is not one of {}", t.text("backing"),
                            fmt::join(host::memory_backend_names(), ", ")));
  p.backend = *backend;
  p.snp = t.either("confidential", "snp", "none");
  if (p.snp) p.snp_options = parse_snp_options(t);
  p.meminfo_field = t.text("meminfo-field");
  p.snp_meminfo_field = t.text("snp-meminfo-field");
  p.sample_hz = t.number("sample-hz");
  p.timeout_s = t.number("timeout");
  return p;
}

directmap::DirectmapHostParams parse_host_params(const ParamText& t) {
  directmap::DirectmapHostParams p;
  p.bytes_per_thread = t.bytes("bytes");
  for (auto& n : t.list("threads")) p.threads.push_back(std::stoi(n));  // counts_list() checked them
  try {
    for (const auto& b : t.list("backings")) p.backings.push_back(host::parse_backing(b));
  } catch (const std::invalid_argument& e) {
    usage_error(fmt::format("parameter backings: {}", e.what()));
  }
  p.write_bandwidth = t.either("write-bandwidth", "1", "0");
  return p;
}

// The meminfo field whose ramp is the host allocation rate, and how it was
// chosen. Not SNP: the parameter meminfo-field (the memfd backend's
// memory is Shmem). SNP: the guest's private memory is guest_memfd, which
// grows FileHugePages only on kernels with huge-page guest_memfd, so the
// field is asked of the running kernel (hostlib/facts/gmem_meminfo_field.h)
// unless snp-meminfo-field names one (a replay: its capture's header).
struct FieldChoice {
  std::string field;  // "" when none could be found (why says why)
  std::string why;
};

constexpr std::uint64_t kCalibrationBytes = 256ULL << 20;

FieldChoice allocation_field(RunContext& ctx, const GuestFaultinParams& p, const std::string& variant) {
  if (!p.snp) return {p.meminfo_field, "parameter meminfo-field"};
  const std::string& set = p.snp_meminfo_field;
  if (set != "auto") return {set, "parameter snp-meminfo-field"};
  const Finding f = ctx.collector().meminfo_field(ctx, "meminfo-" + variant, [&]() -> Finding {
    const auto& types = ctx.host().kvm.vm_types;
    const bool snp_type = std::find(types.begin(), types.end(), "snp") != types.end();
    try {
      host::GrowingField g =
          host::calibrate_guest_memfd_field(snp_type ? KVM_X86_SNP_VM : KVM_X86_DEFAULT_VM, kCalibrationBytes);
      if (g.field.empty()) return {"", g.reason};
      return {g.field, fmt::format("the field that grew with guest_memfd memory on this kernel ({} VM, {})",
                                   snp_type ? "snp" : "default", g.how)};
    } catch (const std::exception& e) {
      return {"", std::string("cannot ask this kernel which meminfo field grows with guest_memfd memory: ") +
                      e.what()};
    }
  });
  return {f.value, f.why};
}

// For an SNP guest the memory backend holds only the shared half: QEMU
// creates the guest_memfd for private memory itself, whatever backend is
// configured (QEMU docs, "guest-memfd support"). "" when nothing applies.
std::string shared_half_only(const host::GuestSpec& spec) {
  std::vector<std::string> what;
  if (spec.host_numa_node) what.push_back(fmt::format("NUMA binding (host-nodes={},policy=bind)", *spec.host_numa_node));
  if (spec.backend == host::MemoryBackend::hugetlbfs) what.push_back("hugetlbfs backing");
  if (spec.prealloc) what.push_back("prealloc");
  if (what.empty()) return "";
  return fmt::format("the memory backend's {} reach{} only the shared half of an SNP guest's memory: its private "
                     "memory is guest_memfd, which QEMU creates itself, independent of the backend (vCPU pinning "
                     "still applies)",
                     fmt::join(what, ", "), what.size() == 1 ? "es" : "");
}

// One guest fault-in measured from both sides: the guest's own rate, and the
// host allocation rate fitted over the ramp of the meminfo field.
// The fault-in guest of a variant.
host::GuestSpec faultin_spec(const GuestFaultinParams& p, host::Accel accel, std::optional<int> node) {
  host::GuestSpec spec;
  spec.workload = "faultin";
  spec.args = {fmt::format("--threads={}", p.vcpus), fmt::format("--bytes={}", p.bytes), "--hold=1"};
  spec.accel = accel;
  spec.vcpus = p.vcpus;
  spec.memory_mib = p.guest_mem >> 20;
  spec.backend = p.backend;
  if (p.snp) {
    spec.confidential = host::Confidential::sev_snp;
    spec.snp = p.snp_options;
  }
  spec.pin_numa_node = node;
  spec.host_numa_node = node;
  spec.timeout_s = p.timeout_s;
  return spec;
}

// The node a variant is pinned to, as data beside the name that shows it
// ("pinned-node0"): the report's column label reads it.
void key_node(std::vector<Sample>& samples, std::optional<int> node) {
  if (node)
    for (auto& s : samples) set_sample_key(s, "numa_node", *node);
}

void guest_faultin(RunContext& ctx, const GuestFaultinParams& p, host::Accel accel, const std::string& variant,
                   std::optional<int> node) {
  const bool snp = p.snp;
  const host::GuestSpec spec = faultin_spec(p, accel, node);
  const int vcpus = spec.vcpus;
  const auto bytes = p.bytes;
  const std::string label = "faultin-" + variant;
  if (snp)
    if (const std::string note = shared_half_only(spec); !note.empty())
      ctx.note_skip(fmt::format("private memory placement ({})", variant), note);
  const FieldChoice choice = allocation_field(ctx, p, variant);
  if (choice.field.empty()) {
    ctx.note_skip(fmt::format("host allocation rate ({})", variant), choice.why);
    host::GuestRunResult guest = ctx.collector().guest(ctx, spec, label);
    key_node(guest.samples, node);
    emit_guest_result(ctx, guest, label, variant);
    return;
  }
  const std::string& field = choice.field;
  // The host's meminfo series of the field while the guest runs, with the
  // DirectMap lines from before the run (a replay: the capture's
  // meminfo-<variant>[.it<N>].csv, and optionally directmap[.it<N>].txt).
  Collector& collect = ctx.collector();
  const std::string directmap = collect.host_text(ctx, "directmap", read_directmap_lines);
  host::GuestRunResult guest;
  const MeminfoSeries m = collect.meminfo_while(
      ctx, "meminfo-" + variant, field, [&] { return p.sample_hz; },
      [&] { guest = collect.guest(ctx, spec, label); });
  key_node(guest.samples, node);
  emit_guest_result(ctx, guest, label, variant);
  if (!guest.ok()) return;

  ctx.save_raw(fmt::format("meminfo-{}.it{}.csv", variant, ctx.iteration()), meminfo_csv(field, m.t, m.v));

  RampOptions ro;
  ro.min_rise = static_cast<double>(bytes) * 0.25;  // a real ramp is the guest's working set
  RampRate rate = fit_ramp_rate(m.t, m.v, ro);
  if (!rate.ok) {
    ctx.note_skip(fmt::format("host allocation rate ({}, {})", variant, field),
                  fmt::format("no ramp in {}: {}", field, rate.reason));
    return;
  }
  Sample s;
  s.case_name = fmt::format("vcpus={}/bytes={}", vcpus, format_bytes(bytes));
  s.variant = variant;
  s.metric = "host_alloc_rate";
  s.unit = "GB/s";
  s.value = rate.fit.slope / 1e9;
  s.extra = {{"meminfo_field", field},
             {"meminfo_field_chosen_by", choice.why},
             {"ramp_t_begin", rate.t_begin},
             {"ramp_t_end", rate.t_end},
             {"fit_points", rate.fit.n},
             {"fit_intercept_bytes", rate.fit.intercept},  // the line the HTML report draws over the ramp
             {"slope_stderr_gbps", rate.fit.slope_stderr / 1e9},
             {"r2", rate.fit.r2},
             {"directmap", directmap}};
  if (m.late_samples) s.extra["late_samples"] = *m.late_samples;
  if (node) set_sample_key(s, "numa_node", *node);
  ctx.emit(s);
}

std::string document_unsupported(const HostCaps& caps) {
  return first_reason({require_kvm_runs_guests(caps), require_qemu(caps, "kvm"), require_guest_kernel(caps)});
}

// `run --dry-run`: both variants' guests, what is sampled, and (SNP) how
// the meminfo field would be found.
void plan_document(RunContext& ctx, Plan& plan, const GuestFaultinParams& p) {
  const bool snp = p.snp;
  const double hz = p.sample_hz;
  if (!snp) {
    plan.capture(fmt::format("/proc/meminfo {} and MemFree at {} Hz while each guest runs -> host_alloc_rate (GB/s, "
                             "the slope of a linear fit over the ramp; primary), kept in "
                             "RUN_DIR/raw/meminfo-<variant>.it<N>.csv (field: parameter meminfo-field)",
                             p.meminfo_field, hz));
  } else if (p.snp_meminfo_field != "auto") {
    plan.capture(fmt::format("/proc/meminfo {} (parameter snp-meminfo-field) and MemFree at {} Hz while each guest "
                             "runs -> host_alloc_rate (GB/s; primary)",
                             p.snp_meminfo_field, hz));
  } else {
    const auto& types = ctx.host().kvm.vm_types;
    const bool snp_type = std::find(types.begin(), types.end(), "snp") != types.end();
    plan.ioctls("before each guest: which /proc/meminfo field grows with guest_memfd on this kernel",
                {fmt::format("KVM_CREATE_VM({})", snp_type ? "snp" : "default"),
                 fmt::format("KVM_CREATE_GUEST_MEMFD(size={:#x}, flags=0)", kCalibrationBytes),
                 "read /proc/meminfo",
                 fmt::format("fallocate(guest_memfd, FALLOC_FL_KEEP_SIZE, 0, {:#x})", kCalibrationBytes),
                 "read /proc/meminfo again; close the guest_memfd and the VM (the memory is freed)",
                 fmt::format("the field: the first of {} that rose by 90-150% of {} (FileHugePages only where "
                             "guest_memfd has huge pages; upstream allocates order-0 folios); none: the host rate is "
                             "skipped with what each field did",
                             fmt::join(host::kGuestMemfdFieldCandidates, ", "), format_bytes(kCalibrationBytes))});
    plan.capture(fmt::format("/proc/meminfo <that field> and MemFree at {} Hz while each guest runs -> "
                             "host_alloc_rate (GB/s; primary), the field and how it was chosen in each sample",
                             hz));
  }
  plan.capture("the DirectMap lines of /proc/meminfo before each guest (the run's 4K/2M+split label); the guest's own "
               "KVMBENCH-RESULT lines (faultin_rate) from its console, RUN_DIR/raw/faultin-<variant>.it<N>.console.log");
  for (const auto& [variant, node] : {std::pair<std::string, std::optional<int>>{"unpinned", std::nullopt},
                                      {"pinned-node0", 0}}) {
    const host::GuestSpec spec = faultin_spec(p, host::Accel::kvm, node);
    plan_guest(plan, ctx, spec, "faultin-" + variant);
    if (snp)
      if (const std::string note = shared_half_only(spec); !note.empty())
        plan.skip(fmt::format("private memory placement ({})", variant), note);
  }
  plan.knob("none (the directmap is as the host's kernel left it: DirectMap4K or 2M+split are two boots or two "
            "kernels, compared with `kvmbench report RUN_4K RUN_2M`)");
}

void run_document(RunContext& ctx, const GuestFaultinParams& p) {
  guest_faultin(ctx, p, host::Accel::kvm, "unpinned", std::nullopt);
  if (!ctx.interrupted()) guest_faultin(ctx, p, host::Accel::kvm, "pinned-node0", 0);
}

void run_smoke(RunContext& ctx, const GuestFaultinParams& p) {
  guest_faultin(ctx, p, host::Accel::tcg, "unpinned", std::nullopt);
}

void run_host(RunContext& ctx, const directmap::DirectmapHostParams& p) {
  ctx.progress("fault-in by backing");
  auto outcome = directmap::measure(p, [&](const Sample& s) { ctx.emit(s); });
  if (ctx.iteration() <= 0)
    for (auto& sk : outcome.skipped) ctx.note_skip(sk.case_name, sk.reason, sk.not_offered);
}

// The parameters of a guest fault-in (document and smoke presets differ only
// in their defaults). The document's defaults (1T, 128 vCPUs, 5G each) are
// not scaled to the host: override them on smaller machines.
std::vector<Param> guest_params(const std::string& mem, const std::string& vcpus, const std::string& bytes,
                                const std::string& timeout) {
  std::vector<Param> p = {
      {"guest-mem", mem, "guest memory"},
      {"vcpus", vcpus, "vCPUs = faultin threads", integer_at_least(1)},
      {"bytes", bytes, "bytes each thread faults in (stress --vm-bytes)", size_at_least(4096)},
      {"backing", "memfd", "guest RAM backend: memfd, anonymous, hugetlbfs", one_of(host::memory_backend_names())},
      {"confidential", "none", "none or snp (private memory in guest_memfd)", one_of({"none", "snp"})},
      {"meminfo-field", "Shmem", "meminfo field that grows with guest memory (non-SNP)"},
      {"snp-meminfo-field", "auto",
       "SNP: the meminfo field that grows with private memory; auto: the one that grows with guest_memfd on this "
       "kernel (FileHugePages only where guest_memfd has huge pages)"},
      {"sample-hz", "10", "meminfo sampling rate", positive_number()},
      {"timeout", timeout, "seconds before the guest is killed", positive_number()},
  };
  for (auto& s : snp_params("SNP-capable OVMF (confidential=snp)")) p.push_back(s);
  return p;
}

// confidential=snp: QEMU's SNP guest needs the VM-wide memory attributes.
BootNeed snp_guest_boot(const HostCaps& caps, const ParamText& t) {
  if (t.text("confidential") != "snp") return {};
  return vm_wide_attributes_boot(caps, "snp", "SEV-SNP guests (confidential=snp)");
}

// The guest's faultin workload (guests/workloads/faultin.cpp): its time and
// per-thread rates are views of the one fault-in its faultin_rate measures.
std::map<std::string, std::string> guest_faultin_derived() {
  return {{"faultin_time", "faultin_rate"}, {"thread_faultin_rate", "faultin_rate"}};
}

}  // namespace

Suite directmap_suite() {
  const Preset doc{
      .name = "document",
      .description = "1 guest, N vCPUs x B bytes faultin; host allocation rate from meminfo",
      .source = Source::hardware,
      .params = guest_params("1T", "128", "5G", "1800"),
      .parse = parse_as(parse_guest_params),
      .unsupported_reason = document_unsupported,
      .boot = snp_guest_boot,
      .run = run_with(run_document),
      .default_repetitions = 3,
      .primary_metrics = {"host_alloc_rate"},
      .derived_metrics = guest_faultin_derived(),
      .repetition = "a fresh guest boot",
      .plan = plan_with(plan_document),
  };
  // The document's pipeline at the emulated lab's size (`kvmbench lab`):
  // a TCG-speed fault-in of 192M still makes a ramp of ~100 meminfo samples.
  Preset lab = doc;
  lab.name = "lab";
  lab.for_emulated_lab = true;
  lab.unsupported_reason = [](const HostCaps& caps) {
    const std::string why = document_unsupported(caps);
    return why.empty() ? why : why + " (run it in the emulated lab: `kvmbench lab run directmap --preset lab`)";
  };
  lab.description = "the document's pipeline scaled for the emulated lab (`kvmbench lab`): 1G guest, 1 vCPU x 192M";
  lab.default_repetitions = 2;
  lab.params = guest_params("1G", "1", "192M", "600");
  return {
      .name = "directmap",
      .description = "guest fault-in rate vs host directmap (post 001)",
      .presets =
          {
              doc,
              lab,
              {
                  .name = "host",
                  .description = "fault-in rate of fresh host memory by backing (anon, THP, hugetlb, memfd, "
                                 "guest_memfd)",
                  .source = Source::hardware,
                  .params =
                      {
                          {"bytes", "64M", "bytes each thread touches", size_at_least(4096)},
                          {"threads", "", "thread counts, e.g. 1,2 (empty: 1 and all CPUs)", counts_list()},
                          {"backings", "", "anon-4k,thp,hugetlb-2m,hugetlb-1g,memfd,guest_memfd (empty: all)",
                           list_of(host::backing_names(), "all")},
                          {"write-bandwidth", "1", "also measure write bandwidth of faulted memory (1/0)", one_of({"1", "0"})},
                      },
                  .parse = parse_as(parse_host_params),
                  .unsupported_reason = runs_anywhere,
                  .run = run_with(run_host),
                  .default_repetitions = 3,
                  .primary_metrics = {"faultin_rate"},
                  // One fault-in, one measurement: its time and the per-thread
                  // rates are views of the same wall time.
                  .derived_metrics = {{"faultin_time", "faultin_rate"}, {"faultin_rate_per_thread", "faultin_rate"}},
                  .repetition = "fresh memory in one kvmbench process",
              },
              {
                  .name = "smoke",
                  .description = "the document's pipeline in a tiny TCG guest (functional only)",
                  .source = Source::emulated,
                  .params = guest_params("320M", "1", "32M", "120"),
                  .parse = parse_as(parse_guest_params),
                  .unsupported_reason = require_tcg_guest,
                  .run = run_with(run_smoke),
                  .default_repetitions = 1,
                  .derived_metrics = guest_faultin_derived(),
                  .repetition = "a fresh guest boot",
              },
          },
      .owns_metric = [](std::string_view m) { return m == directmap::kMetric || m == directmap::kHostMetric; },
      .tables = directmap::report_tables,
      .detail_tables = directmap::detail_tables,
      .tables_of_runs = directmap::document_tables,
      .run_charts = directmap::ramp_charts,
      .reproduce = directmap::reproduce_document,
      .measures_thp = true,
  };
}

}  // namespace kvmbench::suites
