// rmpopt: the SEV-SNP RMPOPT sweep of post 000.
//   document: two SNP guests, one terminated; the kernel's own sweep timing
//             lines and the cycle statistics come from the kernel log. Needs
//             SEV-SNP, RMPOPT, a kernel with the series whose log says it
//             uses RMPOPT (hostlib/facts/rmpopt_boot_state.h: every revision's
//             lines), its timing print, a readable /dev/kmsg, and a boot
//             whose VM-wide memory attributes QEMU can use (else a skip
//             with the reason).
//   host:     the structure of the sweep emulated on this host (an RMP-like
//             table scanned per 1 GiB region, cross-CPU broadcast per region),
//             timed for real. Never RMPOPT itself: every metric says so.
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "analysis/parse/kernel_log.h"
#include "hostlib/facts/kmsg_reader.h"
#include "analysis/model/units.h"
#include "suites/rmpopt/measure.h"
#include "hostlib/os/cpu_list.h"
#include "hostlib/qemu/qemu_launcher.h"
#include "hostlib/facts/rmpopt_boot_state.h"
#include "suites/collect/capture.h"
#include "suites/framework/collector.h"
#include "suites/collect/guest_glue.h"
#include "suites/framework/param_text.h"
#include "suites/collect/kernel_boot.h"
#include "suites/framework/plan.h"
#include "suites/framework/requirements.h"
#include "suites/framework/errors.h"
#include "suites/framework/param_check.h"
#include "suites/rmpopt/emulated_sweep.h"
#include "suites/rmpopt/sweep_window.h"
#include "suites/rmpopt/report.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace {

// The document's guests are QEMU SNP guests: the VM-wide memory attributes.
BootNeed snp_guest_boot(const HostCaps& caps) { return vm_wide_attributes_boot(caps, "snp", "QEMU's SEV-SNP guests"); }

std::string document_unsupported(const HostCaps& caps) {
  const BootNeed boot = snp_guest_boot(caps);
  return first_reason({
      require_cpu_feature(caps, "sev_snp", "SEV-SNP guests"),
      require_cpu_feature(caps, "rmpopt", "CPUID 0x80000025 EDX[0]"),
      // CPUID says the CPU has the instruction, not that the kernel uses it:
      // the series says so in its log (from v4 on, a contiguous RMP turns it
      // off without a word).
      require_kernel_log(caps),
      host::rmpopt_boot_refusal(caps.confidential.rmpopt),
      require_kvm_runs_guests(caps),
      require_vm_type(caps, "snp"),
      boot.this_boot ? "" : fmt::format("needs a boot with {}: {}", boot.setting, boot.why),
      require_vm_private_memory(caps, "snp", "QEMU's SEV-SNP guests"),
      require_qemu(caps, "kvm"),
      require_guest_kernel(caps),
  });
}

// The series sweeps from the lowest RAM address (aligned down to 1 GiB) to
// max_pfn (aligned up), at most 2 TiB of it. What RAM it never reaches,
// from the kernel's own coverage line (v8 on), else from the range it
// printed, else from the 2 TiB cap, against where RAM ends by address (not
// MemTotal: the PCI hole puts the top of RAM above it); "" when all of it
// is covered or nothing says otherwise.
std::string coverage_note(const HostCaps& caps) {
  const auto& r = caps.confidential.rmpopt;
  const auto& mem = caps.metadata.value("memory", nlohmann::json::object());
  std::optional<unsigned long long> ram_end;
  std::string ram_end_from = "MemTotal, a lower bound";
  if (mem.is_object() && mem.contains("ram_end") && mem["ram_end"].is_number_unsigned()) {
    ram_end = mem["ram_end"].get<unsigned long long>();
    ram_end_from = mem.value("ram_end_from", std::string("the probe"));
  } else if (caps.memory_bytes) {
    ram_end = caps.memory_bytes;
  }
  auto above = [&](unsigned long long end) {
    if (!ram_end || *ram_end <= end) return std::string();
    return fmt::format("; RAM ends at {:#x} ({}): the {} above {:#x} are never swept", *ram_end, ram_end_from,
                       format_bytes(*ram_end - end), end);
  };
  if (!r.coverage_line.empty())
    return fmt::format("the kernel says \"{}\"{}", r.coverage_line,
                       r.not_optimized_above ? above(*r.not_optimized_above) : "");
  constexpr unsigned long long kCap = 2ULL << 40;
  if (r.range_end) {
    // The series prints the end exclusive and 1 GiB aligned; an end in ...fff
    // is the last byte.
    const unsigned long long end = (*r.range_end & ((1ULL << 30) - 1)) == 0 ? *r.range_end : *r.range_end + 1;
    const std::string beyond = above(end);
    return beyond.empty() ? "" : fmt::format("the kernel sweeps up to {:#x} (\"{}\"){}", end, r.line, beyond);
  }
  const unsigned long long start = r.range_start.value_or(0);
  const std::string beyond = above(start + kCap);
  return beyond.empty() ? ""
                        : fmt::format("the series sweeps at most 2 TiB from the lowest RAM address ({:#x}){}", start,
                                      beyond);
}

// The host preset's parameters: the sweep's (its seed and calibration are
// per repetition) and the RAM as given.
struct HostParams {
  rmpopt::RmpoptEmulationParams sweep;
  std::uint64_t ram = 0;
};

HostParams parse_host_params(const ParamText& t) {
  HostParams h;
  rmpopt::RmpoptEmulationParams& p = h.sweep;
  h.ram = t.bytes("ram");
  if (h.ram < (1ULL << 30)) usage_error("parameter ram: at least 1G (one region)");
  p.ram_gb = h.ram >> 30;
  p.layouts = t.list("layouts");
  p.strategies = t.list("strategies");
  if (t.text("cpus") != "all") {
    try {
      p.cpus = host::parse_cpu_list(t.text("cpus"));
    } catch (const std::invalid_argument& e) {
      usage_error(std::string("parameter cpus: ") + e.what());
    }
  }
  p.dirty_fraction = t.number("dirty-fraction");
  return h;
}

void run_host(RunContext& ctx, const HostParams& h) {
  rmpopt::RmpoptEmulationParams p = h.sweep;
  p.calibrate = ctx.iteration() <= 0;
  p.seed = 1 + static_cast<std::uint64_t>(std::max(0, ctx.iteration()));
  ctx.progress(fmt::format("emulated sweep over a table for {} of RAM", format_bytes(h.ram)));
  auto outcome = rmpopt::measure(p, [&](const Sample& s) { ctx.emit(s); });
  for (auto& sk : outcome.skipped) ctx.note_skip(sk.case_name, sk.reason);
}

// The document preset's parameters.
struct DocumentParams {
  int guests = 2;
  int vcpus = 1;
  std::uint64_t guest_mem = 0;
  double hold_s = 0;           // the first guest's life
  double sweep_timeout_s = 0;  // the others' beyond it
  double settle_s = 0;         // after the last guest's exit, before the next repetition
  std::string kernel_variant;  // the samples' variant: the kernel's loop
  host::SevSnpOptions snp;
};

DocumentParams parse_document_params(const ParamText& t) {
  DocumentParams p;
  p.guests = static_cast<int>(t.integer("guests"));
  if (p.guests < 1) usage_error("parameter guests: at least 1");
  p.guest_mem = t.bytes("guest-mem");
  p.vcpus = static_cast<int>(t.integer("vcpus"));
  p.hold_s = t.number("hold");
  p.sweep_timeout_s = t.number("sweep-timeout");
  p.settle_s = t.number("settle");
  p.kernel_variant = t.text("kernel-variant");
  p.snp = parse_snp_options(t);
  return p;
}

host::GuestSpec snp_guest_spec(const DocumentParams& p, double hold) {
  host::GuestSpec spec;
  spec.workload = "faultin";
  spec.args = {"--threads=1", "--bytes=64M", fmt::format("--hold={}", hold)};
  spec.accel = host::Accel::kvm;
  spec.vcpus = p.vcpus;
  spec.memory_mib = p.guest_mem >> 20;
  spec.backend = host::MemoryBackend::memfd;
  spec.confidential = host::Confidential::sev_snp;
  spec.snp = p.snp;
  spec.timeout_s = hold + 600;
  return spec;
}

std::string guest_label(int g) { return fmt::format("snp-guest{}", g); }

void run_document(RunContext& ctx, const DocumentParams& p) {
  const int nguests = p.guests;
  const double hold_s = p.hold_s;
  const double sweep_timeout_s = p.sweep_timeout_s;
  Collector& collect = ctx.collector();
  collect.on_this_host(ctx, [&] {
    if (p.snp.firmware.empty())
      usage_error("parameter firmware: an SNP-capable OVMF is required (--set firmware=/path/OVMF.fd)");
  });

  // post 000: the guests start together; guest 0 terminates first
  // (after a short hold) and its teardown triggers the sweep, whose timing
  // the kernel prints; the others hold until the sweep had time to run. A
  // kernel log that cannot be opened is a skip, before any guest starts.
  // Marks in the kernel log say when snp-guest0 and then every guest has
  // exited, and the log is read on for --set settle seconds: the series'
  // sweep after the last exit lands there, not in the next repetition's
  // window (sweep_window.h).
  std::vector<std::pair<host::GuestSpec, std::string>> specs;
  for (int g = 0; g < nguests; ++g)
    specs.emplace_back(snp_guest_spec(p, g == 0 ? hold_s : hold_s + sweep_timeout_s), guest_label(g));
  std::vector<host::GuestRunResult> guests;
  std::string unmarked;  // why a mark could not be written (live)
  auto mark = [&](std::string_view text) {
    collect.on_this_host(ctx, [&] {
      if (const std::string why = host::mark_kernel_log(std::string(text)); !why.empty() && unmarked.empty())
        unmarked = why;
    });
  };
  const std::optional<std::string> kmsg_text =
      collect.kernel_log_while(ctx, {"RMPOPT sweep timing", "cannot read the kernel log: ", false}, [&] {
        guests = collect.guests_together(ctx, specs, [&](std::size_t g) {
          if (g == 0) mark(rmpopt::kMarkFirstExit);
        });
        mark(rmpopt::kMarkAllExited);
        collect.on_this_host(ctx, [&] {
          ctx.progress(fmt::format("settling {} s for the sweep after the last guest's exit", p.settle_s));
          const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(p.settle_s);
          while (std::chrono::steady_clock::now() < until && !ctx.interrupted())
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        });
      });
  if (!kmsg_text) return;
  if (ctx.iteration() <= 0)
    collect.on_this_host(ctx, [&] {
      if (const std::string note = coverage_note(ctx.host()); !note.empty())
        ctx.note_skip("RMPOPT above the kernel's range", note);
    });

  const std::string raw_name = fmt::format("kmsg.it{}.log", ctx.iteration());
  ctx.save_raw(raw_name, *kmsg_text);
  for (auto& r : guests)
    if (!r.ok()) throw std::runtime_error("SNP guest failed: " + r.reason + "\n" + r.console_tail);
  const rmpopt::SweepWindow window = rmpopt::repetition_sweep_window(*kmsg_text, "raw/" + raw_name);
  if (!window.refusal.empty())
    throw std::runtime_error(window.refusal + (unmarked.empty() ? "" : " (the marks could not be written: " +
                                                                             unmarked + ")"));
  std::size_t sweeps = 0;
  for (Sample s : kernel_log_samples(ctx, window.text, raw_name)) {
    s.variant = p.kernel_variant;
    if (s.metric == "sweep_time") {
      ++sweeps;
      // Which sweep this is, and the others of the log left out.
      s.extra["window"] = window.marked ? "the first sweep after snp-guest0's exit (kvmbench's mark)"
                                        : "the capture's only sweep (no marks)";
      s.extra["sweeps_left_out"] = nlohmann::json{{"before_first_exit", window.before_first_exit},
                                                  {"more_before_last_exit", window.more_in_window},
                                                  {"after_last_exit", window.after_last_exit}};
    }
    ctx.emit(s);
  }
  if (sweeps == 0)
    throw std::runtime_error(fmt::format(
        "no 'SEV-SNP: RMPOPT execution time' line in the kernel log after snp-guest0 exited{}, though the kernel "
        "uses RMPOPT: it lacks the sweep's timing print (test instrumentation around the loop, not in the "
        "patches), or the sweep came later than --set sweep-timeout allowed",
        window.before_first_exit + window.after_last_exit > 0
            ? fmt::format(" ({} sweep(s) outside that window: before it, or after the last guest's exit)",
                          window.before_first_exit + window.after_last_exit)
            : std::string()));
}

// `run --dry-run`: the guests as they would be launched, what is read from
// the kernel log, and what the kernel said about RMPOPT at boot.
void plan_document(RunContext& ctx, Plan& plan, const DocumentParams& p) {
  const int nguests = p.guests;
  const double hold_s = p.hold_s;
  const double sweep_timeout_s = p.sweep_timeout_s;
  const HostCaps& caps = ctx.host();
  const auto& rmpopt = caps.confidential.rmpopt;
  if (const std::string said = host::rmpopt_boot_summary(rmpopt); !said.empty())
    plan.note(fmt::format("what the kernel log{} says of RMPOPT: {}", rmpopt.from.empty() ? "" : " (" + rmpopt.from + ")",
                          said));
  if (const std::string note = coverage_note(caps); !note.empty()) plan.skip("RMPOPT above the kernel's range", note);
  if (caps.confidential.kmsg_error.empty())
    plan.capture("/dev/kmsg, opened before the guests start and read until they have all exited: \"SEV-SNP: "
                 "RMPOPT execution time N ns for physical address range 0x... - 0x... on all cpus\" -> sweep_time "
                 "(primary) and \"SEV-SNP: RMPOPT largest/smallest/average cycles N\" -> the cycle statistics, kept "
                 "in RUN_DIR/raw/kmsg.it<N>.log; marks written into the kernel log as snp-guest0 and then every "
                 "guest has exited, and the log read on for the settle time: the repetition's sweep is the first "
                 "after snp-guest0's exit, the others (before it, after the last exit: the series' sweep 10 s "
                 "after the last SNP guest) are left out and counted in the sample's extra; no sweep after "
                 "snp-guest0's exit fails the run (the timing print is test instrumentation, not in the patches)");
  else
    plan.skip("RMPOPT sweep timing", "cannot read the kernel log: " + caps.confidential.kmsg_error);
  plan.note(fmt::format("{} SNP guests start together; snp-guest0 exits after {} s, and its teardown triggers the "
                        "sweep; the others hold {} s more (hold + sweep-timeout) so that the sweep runs while they "
                        "live; then {} s for the sweep after the last exit",
                        nguests, hold_s, sweep_timeout_s, p.settle_s));
  for (int g = 0; g < nguests; ++g)
    plan_guest(plan, ctx, snp_guest_spec(p, g == 0 ? hold_s : hold_s + sweep_timeout_s), guest_label(g));
  plan.knob("none");
}

// --set layouts: each item one parse_page_layout() takes (what the sweep
// itself parses).
ParamCheck layouts_check() {
  return [](const std::string& v, const HostCaps&) {
    const std::string what = "a comma-separated list of none, first, last, random:K (K from 1 to 1000000)";
    const auto items = split_list(v);
    if (items.empty()) throw std::invalid_argument(what + "; it is empty");
    for (const auto& item : items) {
      try {
        rmpopt::parse_page_layout(item);
      } catch (const std::invalid_argument&) {
        throw std::invalid_argument(fmt::format("{}; '{}' is not one", what, item));
      }
    }
  };
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (auto st : rmpopt::all_sweep_strategies()) out.emplace_back(rmpopt::to_string(st));
  return out;
}

}  // namespace

Suite rmpopt_suite() {
  std::vector<Param> doc_params = {
      {"guests", "2", "SNP guests to launch", integer_at_least(1)},
      {"guest-mem", "100G", "memory of each guest", size_at_least(1ULL << 20)},
      {"vcpus", "4", "vCPUs of each guest", integer_at_least(1)},
      {"hold", "20", "seconds the first guest lives before it terminates", positive_number()},
      {"sweep-timeout", "30", "seconds to wait for the sweep's log line", positive_number()},
      {"settle", "15", "seconds the log is read on after the last guest's exit, before the next repetition: from "
                       "v7 the series sweeps 10 s after the last SNP guest's exit (RMPOPT_WORK_TIMEOUT)",
       positive_number()},
      {"kernel-variant", "all-cpus", "label of the kernel's loop (all-cpus, leader-primary)"},
  };
  for (auto& p : snp_params("SNP-capable OVMF image")) doc_params.push_back(p);
  return {
      .name = "rmpopt",
      .description = "SEV-SNP RMPOPT sweep cost (post 000)",
      .presets =
          {
              {
                  .name = "document",
                  .description = "2 SNP guests of 100G, one terminated; the kernel's sweep time and cycle stats",
                  .source = Source::hardware,
                  .params = doc_params,
                  .parse = parse_as(parse_document_params),
                  .unsupported_reason = document_unsupported,
                  .boot = [](const HostCaps& caps, const ParamText&) { return snp_guest_boot(caps); },
                  .run = run_with(run_document),
                  .default_repetitions = 2,
                  .primary_metrics = {"sweep_time"},
                  .repetition = "fresh SNP guests, one of them terminated",
                  .plan = plan_with(plan_document),
              },
              {
                  .name = "host",
                  .description = "the sweep's structure emulated and timed on this host (not RMPOPT)",
                  .source = Source::hardware,
                  .params =
                      {
                          {"ram", "16G", "RAM the RMP-like table describes (16 bytes per 4K page)", size_at_least(1ULL << 30)},
                          {"layouts", "none,first,last,random:4", "private-page layouts per 1G region", layouts_check()},
                          {"strategies", "", "one-cpu,all-cpus,leader-first,leader-primary,dirty-regions (empty: all)",
                           list_of(strategy_names(), "all")},
                          {"cpus", "all", "CPU list, the first is the leader", cpu_list_on_host()},
                          {"dirty-fraction", "0.125", "share of regions the dirty-regions sweep revisits"},
                      },
                  .parse = parse_as(parse_host_params),
                  .unsupported_reason = runs_anywhere,
                  .run = run_with(run_host),
                  .default_repetitions = 3,
                  .primary_metrics = {"emulated_sweep_wall"},
                  // Per region is the wall time over the regions; the scan
                  // bandwidth the table bytes over the CPUs' busy time; the
                  // broadcast's mean and 90th percentile are statistics of the
                  // rounds its median summarises.
                  .derived_metrics = {{"emulated_sweep_per_region", "emulated_sweep_wall"},
                                      {"emulated_scan_bandwidth", "emulated_sweep_cpu_busy"},
                                      {"broadcast_cost_mean", "broadcast_cost"},
                                      {"broadcast_cost_p90", "broadcast_cost"}},
                  .repetition = "a fresh sweep over the table, in one kvmbench process",
              },
          },
      .owns_metric = [](std::string_view m) { return m == "sweep_time" || m.starts_with("rmpopt_cycles_"); },
      .tables = [](const std::vector<Sample>& samples,
                   std::string_view source) { return rmpopt::report_tables(samples, source); },
      // and the host preset's strategy x layout table
      .layout_shows =
          [](std::string_view m) {
            return m == "sweep_time" || m.starts_with("rmpopt_cycles_") || m == "emulated_sweep_wall";
          },
      .reproduce = rmpopt::reproduce_document,
  };
}

}  // namespace kvmbench::suites
