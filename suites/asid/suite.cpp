// asid: static per-VM vs dynamic per-vCPU SVM ASIDs (post 003): netperf
// style tcp_rr / tcp_stream, cpuid_rate and mmap_churn (mmap, touch, munmap
// 100M x 100) in a guest, 5 iterations each; the patched and unpatched
// kernels are two runs put side by side with `kvmbench compare`.
//   document: the workloads natively on the host (variant "native") and in a
//             KVM guest per NPT setting (parameter npt: "on,off" by default,
//             variants "npt=on" / "npt=off"; "as-loaded" keeps the module as
//             it is). kvm_amd's npt is fixed at load time: a setting other
//             than the loaded one reloads kvm_amd through a journaled host
//             knob (hostlib/state/knobs.h reload_module), put back at the end of
//             each repetition, on Ctrl-C, or by the next live kvmbench run /
//             `kvmbench restore` after a crash. A reload that is refused
//             (VMs running, module not loaded or built in, modprobe failing)
//             skips that variant with the reason. FLUSHBYASID is as this boot
//             has it (/proc/cpuinfo flags): off is a second boot with
//             clearcpuid=flushbyasid, compared with the first
//             (suites/asid/flushbyasid.h; parameter flushbyasid refuses a
//             boot that does not give the state asked for), and the state
//             is recorded (skip reason in meta.json, sample extra
//             "flushbyasid", report note).
//             The report shows every guest figure as a ratio to native.
//   host:     the same workloads natively on the host, the baseline.
//   smoke:    all four natively and in a tiny TCG guest (variant "tcg";
//             functional only: its ratio is not a performance figure).
// Replay captures (as tests/data/replay/asid/ holds them): per NPT setting S,
// consoles <workload>.npt-S[.it<N>].console.log and the state read back
// npt-S[.it<N>].txt (optional); native output <workload>[.it<N>].native.log
// (optional); flushbyasid[.it<N>].txt (optional, Y/N); npt=as-loaded reads
// the older layout <workload>.console.log and npt.txt.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

#include "hostlib/os/kernel_files.h"
#include "hostlib/state/knobs.h"
#include "hostlib/qemu/qemu_paths.h"
#include "suites/asid/flushbyasid.h"
#include "suites/asid/report.h"
#include "suites/framework/collector.h"
#include "suites/collect/guest_glue.h"
#include "suites/framework/param_text.h"
#include "suites/framework/plan.h"
#include "suites/framework/requirements.h"
#include "suites/framework/errors.h"
#include "suites/framework/param_check.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace {

struct WorkloadArgs {
  std::string name;
  std::vector<std::string> args;
};

// The chosen workloads with their arguments, as the guest runs them or
// natively (the TCP ones then their own peer). The arguments are the
// parameters' text, checked as numbers and sizes first.
std::vector<WorkloadArgs> workloads(const ParamText& t, bool native) {
  (void)t.number("seconds");
  (void)t.bytes("mmap-bytes");
  (void)t.integer("mmap-rounds");
  const std::string& secs = t.text("seconds");
  std::vector<WorkloadArgs> all = {
      {"tcp_rr", {"--seconds=" + secs}},
      {"tcp_stream", {"--seconds=" + secs}},
      {"cpuid_rate", {"--seconds=" + secs}},
      {"mmap_churn", {"--bytes=" + t.text("mmap-bytes"), "--rounds=" + t.text("mmap-rounds")}},
  };
  if (native)
    for (auto& w : all)
      if (w.name.rfind("tcp_", 0) == 0) w.args.push_back("--self-peer");
  std::vector<std::string> wanted = t.list("workloads");
  std::vector<WorkloadArgs> out;
  for (auto& w : all)
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), w.name) != wanted.end()) out.push_back(w);
  for (auto& n : wanted)
    if (std::none_of(all.begin(), all.end(), [&](auto& w) { return w.name == n; }))
      usage_error(fmt::format("parameter workloads: unknown workload '{}' (tcp_rr, tcp_stream, cpuid_rate, "
                              "mmap_churn)",
                              n));
  return out;
}

bool yes(const std::string& v) { return v == "Y" || v == "y" || v == "1" || v == "on"; }
bool no(const std::string& v) { return v == "N" || v == "n" || v == "0" || v == "off"; }

// "on", "off" or "unknown" from a kvm_amd parameter's text (Y/N, 1/0).
std::string on_off(const std::string& v) { return yes(v) ? "on" : no(v) ? "off" : "unknown"; }

std::string npt_state() {
  const auto v = host::read_kernel_value(host::default_knob_root() / "sys/module/kvm_amd/parameters/npt");
  if (!v || v->empty()) return "unknown";
  return yes(*v) ? "on" : "off";
}

// The first line of a host fact's text that is not a # comment, trimmed.
std::string first_value(const std::string& text) {
  std::istringstream in(text);
  std::string line, v;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') {
      v = line;
      break;
    }
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  return v;
}

// The NPT state of the host: this one's, or the captured one's from
// DIR/<stem>[.it<N>].txt (the kvm_amd parameter as read there, Y/N or 1/0;
// else unknown).
std::string npt_fact(RunContext& ctx, const std::string& stem) {
  const std::string fact = ctx.collector().host_text(ctx, stem, [] {
    const std::string s = npt_state();
    return s == "on" ? "Y" : s == "off" ? "N" : "";
  });
  return on_off(first_value(fact));
}

// A skip noted once per run, not once per repetition.
void note_skip_once(RunContext& ctx, const std::string& part, const std::string& reason, bool not_offered = false) {
  for (const auto& s : ctx.skips())
    if (s.value("part", "") == part) return;
  ctx.note_skip(part, reason, not_offered);
}

// The NPT settings in `text`: "on", "off" in the order given, or the single
// "as-loaded"; otherwise std::invalid_argument with what is valid (it
// follows "npt is", see ParamCheck).
std::vector<std::string> parse_npt(const std::string& text) {
  const std::string valid = "on, off, on,off, off,on or as-loaded";
  std::vector<std::string> out;
  for (const auto& v : split_list(text)) {
    if (v != "on" && v != "off" && v != "as-loaded")
      throw std::invalid_argument(fmt::format("{}; '{}' is not one of on, off, as-loaded", valid, v));
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw std::invalid_argument(fmt::format("{}; '{}' is given twice", valid, v));
    out.push_back(v);
  }
  if (out.empty()) throw std::invalid_argument(valid + "; it is empty");
  if (out.size() > 1 && std::find(out.begin(), out.end(), "as-loaded") != out.end())
    throw std::invalid_argument(valid + "; as-loaded cannot be combined with on or off");
  return out;
}

// Every preset's parameters; npt and flushbyasid are the document's (and
// lab's) only.
struct AsidParams {
  std::vector<WorkloadArgs> in_guest;
  std::vector<WorkloadArgs> native;
  int vcpus = 1;
  std::uint64_t guest_mem = 0;
  double timeout_s = 0;
  std::vector<std::string> npt;  // the NPT settings (parse_npt), in order
  asid::FlushByAsidWanted flushbyasid = asid::FlushByAsidWanted::as_booted;
};

AsidParams parse_params(const ParamText& t) {
  AsidParams p;
  p.in_guest = workloads(t, false);
  p.native = workloads(t, true);
  p.vcpus = static_cast<int>(t.integer("vcpus"));
  p.guest_mem = t.bytes("guest-mem");
  p.timeout_s = t.number("timeout");
  return p;
}

AsidParams parse_document_params(const ParamText& t) {
  AsidParams p = parse_params(t);
  try {
    p.npt = parse_npt(t.text("npt"));
  } catch (const std::invalid_argument& e) {
    usage_error(std::string("parameter npt is ") + e.what());
  }
  try {
    p.flushbyasid = asid::parse_flushbyasid_wanted(t.text("flushbyasid"));
  } catch (const std::invalid_argument& e) {
    usage_error(std::string("parameter flushbyasid: ") + e.what());
  }
  return p;
}

host::GuestSpec workload_guest_spec(const AsidParams& p, const WorkloadArgs& w, host::Accel accel) {
  host::GuestSpec spec;
  spec.workload = w.name;
  spec.args = w.args;
  spec.accel = accel;
  spec.vcpus = p.vcpus;
  spec.memory_mib = p.guest_mem >> 20;
  spec.timeout_s = p.timeout_s;
  return spec;
}

// `flushbyasid`: the state the samples record (none under TCG).
void run_in_guests(RunContext& ctx, const AsidParams& p, host::Accel accel, const std::string& variant,
                   const std::string& label_suffix, std::optional<asid::FlushByAsidState> flushbyasid,
                   const std::string& npt_loaded = "") {
  for (auto& w : p.in_guest) {
    if (ctx.interrupted()) return;
    const host::GuestSpec spec = workload_guest_spec(p, w, accel);
    host::GuestRunResult r = ctx.collector().guest(ctx, spec, w.name + label_suffix);
    for (auto& s : r.samples) {
      if (flushbyasid) s.extra["flushbyasid"] = std::string(asid::to_string(*flushbyasid));
      if (!npt_loaded.empty()) s.extra["npt"] = npt_loaded;
    }
    emit_guest_result(ctx, r, w.name + label_suffix, variant);
  }
}

void run_natively(RunContext& ctx, const AsidParams& p) {
  for (auto& w : p.native) {
    if (ctx.interrupted()) return;
    for (Sample& s : ctx.collector().native_run(ctx, w.name, w.args, w.name, 120)) ctx.emit(std::move(s));
  }
}

// One NPT setting in a guest: kvm_amd reloaded through `knobs` when its
// npt differs (back to `as_left`, the operator's setting, read before the
// first reload, by undoing the earlier reload); a refusal skips the
// setting with the reason. A replay takes the capture's npt-<setting>.txt.
void run_npt_setting(RunContext& ctx, const AsidParams& p, host::KnobSet& knobs, const std::string& setting,
                     std::optional<std::string>& as_left, asid::FlushByAsidState flushbyasid) {
  if (setting == "as-loaded") {
    // The variant names what was asked, the state the boot had goes with
    // each sample: so two boots (`kvmbench ab --cand-append kvm_amd.npt=0`)
    // compare the same series.
    run_in_guests(ctx, p, host::Accel::kvm, "npt=as-loaded", "", flushbyasid, npt_fact(ctx, "npt"));
    return;
  }
  const std::string variant = "npt=" + setting;
  auto reload = [&]() -> std::string {
    if (!as_left) as_left = npt_state();
    if (setting == *as_left) {
      // Undo rather than reload once more: the journal then holds nothing.
      auto errors = knobs.restore();
      if (!errors.empty()) return "cannot put kvm_amd back: " + errors.front();
    } else {
      try {
        knobs.reload_module("kvm_amd", {{"npt", setting == "on" ? "1" : "0"}});
      } catch (const std::exception& e) {
        return fmt::format("cannot reload kvm_amd with npt={}: {}", setting, e.what());
      }
    }
    if (npt_state() != setting) return fmt::format("kvm_amd reads npt={} after the reload", npt_state());
    return "";
  };
  const std::string refused = ctx.collector().apply(
      ctx, {.stem = "npt-" + setting,
            .name = "npt",
            .want = setting,
            .apply = reload,
            .state = [](const std::string& text) { return on_off(first_value(text)); }});
  if (!refused.empty()) {
    note_skip_once(ctx, variant, refused);
    return;
  }
  run_in_guests(ctx, p, host::Accel::kvm, variant, ".npt-" + setting, flushbyasid);
}

// FLUSHBYASID as this boot (or the capture) has it, checked against the
// parameter: a state the boot cannot give ends the run with 77 and the
// two-boot comparison that gives it. Live, from /proc/cpuinfo flags: KVM
// tests static_cpu_has(X86_FEATURE_FLUSHBYASID) (svm.c svm_flush_tlb_asid),
// which a boot with clearcpuid=flushbyasid clears while raw CPUID still
// shows the bit; replayed, from flushbyasid.txt (Y/N, else unknown).
asid::FlushByAsidState checked_flushbyasid(RunContext& ctx, const AsidParams& p) {
  using asid::FlushByAsidState;
  const asid::FlushByAsidBoot boot = ctx.collector().host_fact(
      ctx, "flushbyasid", [&] { return asid::this_boot(ctx.host().confidential); },
      [](const std::string& text) {
        const std::string v = first_value(text);
        return asid::captured_boot(yes(v) ? FlushByAsidState::yes : no(v) ? FlushByAsidState::no
                                                                          : FlushByAsidState::unknown);
      });
  const asid::FlushByAsidCheck c = asid::check_flushbyasid(p.flushbyasid, boot);
  if (!c.refusal.empty()) cannot_run(c.refusal);
  if (!c.note_part.empty()) note_skip_once(ctx, c.note_part, c.note, c.note_not_offered);
  return boot.state;
}

void run_document(RunContext& ctx, const AsidParams& p) {
  const auto& settings = p.npt;
  const asid::FlushByAsidState flushbyasid = checked_flushbyasid(ctx, p);
  run_natively(ctx, p);
  // Put back at the end of each repetition (and on Ctrl-C, by unwinding):
  // between repetitions the host is as the operator left it.
  host::KnobSet knobs;
  std::optional<std::string> as_left;
  // Odd repetitions take the settings in reverse, so that neither always
  // runs first (still two reloads per repetition for on,off).
  std::vector<std::string> order = settings;
  if (ctx.iteration() % 2 != 0) std::reverse(order.begin(), order.end());
  for (const auto& setting : order) {
    if (ctx.interrupted()) return;
    run_npt_setting(ctx, p, knobs, setting, as_left, flushbyasid);
  }
}

// `run --dry-run`: the FLUSHBYASID check, the native runs, the kvm_amd
// reloads and every guest, in the order of the first repetition.
void plan_document(RunContext& ctx, Plan& plan, const AsidParams& p) {
  const auto& settings = p.npt;
  const HostCaps& caps = ctx.host();
  const asid::FlushByAsidCheck fb = asid::check_flushbyasid(p.flushbyasid, asid::this_boot(caps.confidential));
  if (!fb.refusal.empty()) plan.cannot_run(fb.refusal);
  if (!fb.note_part.empty()) plan.skip(fb.note_part, fb.note);
  for (auto& w : p.native) {
    std::string argv = (host::guest_bin_dir() / ("kvmbench-" + w.name)).string();
    for (auto& a : w.args) argv += " " + a;
    plan.note(fmt::format("natively first (variant native): {}", argv));
  }
  const auto& amd = caps.metadata.value("kvm_modules", nlohmann::json::object()).value("kvm_amd", nlohmann::json());
  const std::string loaded =
      amd.is_object() && amd.contains("parameters") && amd["parameters"].is_object() &&
              amd["parameters"].value("npt", nlohmann::json()).is_string()
          ? amd["parameters"]["npt"].get<std::string>()
          : std::string("unknown");
  const std::string loaded_state = yes(loaded) ? "on" : no(loaded) ? "off" : "unknown";
  if (settings.size() > 1)
    plan.note(fmt::format("odd repetitions take the NPT settings in reverse ({}), so that neither always runs first",
                          fmt::join(std::vector<std::string>(settings.rbegin(), settings.rend()), ", ")));
  for (const auto& setting : settings) {
    const std::string suffix = setting == "as-loaded" ? "" : ".npt-" + setting;
    if (setting == "as-loaded" || setting == loaded_state)
      plan.knob(fmt::format("npt={}: kvm_amd as loaded (npt={}), no reload", setting, loaded));
    else
      plan.knob(fmt::format(
          "npt={}: reload kvm_amd with npt={} (the loaded module has npt={}; refused while VMs run), journaled "
          "and put back at the end of each repetition, on Ctrl-C, or by the next live kvmbench run / `kvmbench "
          "restore`; the value is read back from /sys/module/kvm_amd/parameters/npt before the guests run",
          setting, setting == "on" ? 1 : 0, loaded));
    for (auto& w : p.in_guest)
      plan_guest(plan, ctx, workload_guest_spec(p, w, host::Accel::kvm), w.name + suffix);
  }
  plan.capture("each workload's KVMBENCH-RESULT lines from its native output and guest consoles "
               "(RUN_DIR/raw/<workload>[.npt-S].it<N>.console.log); the report divides every guest figure by native "
               "(95% CI by Fieller)");
}

void run_smoke(RunContext& ctx, const AsidParams& p) {
  run_natively(ctx, p);
  run_in_guests(ctx, p, host::Accel::tcg, "tcg", "", std::nullopt);
}

void run_host(RunContext& ctx, const AsidParams& p) { run_natively(ctx, p); }

std::vector<Param> params(const std::string& seconds, const std::string& bytes, const std::string& rounds,
                          const std::string& mem, const std::string& timeout) {
  return {
      {"workloads", "", "tcp_rr,tcp_stream,cpuid_rate,mmap_churn (empty: all)",
       list_of({"tcp_rr", "tcp_stream", "cpuid_rate", "mmap_churn"}, "all")},
      {"seconds", seconds, "duration of tcp_rr, tcp_stream and cpuid_rate", positive_number()},
      {"mmap-bytes", bytes, "mmap_churn: bytes mapped, touched and unmapped per round", size_at_least(4096)},
      {"mmap-rounds", rounds, "mmap_churn: rounds", integer_at_least(1)},
      {"vcpus", "1", "guest vCPUs", integer_at_least(1)},
      {"guest-mem", mem, "guest memory", size_at_least(1ULL << 20)},
      {"timeout", timeout, "seconds before a guest is killed", positive_number()},
  };
}

// The document's experiment; the lab preset's defaults are the same
// pipeline scaled to what the emulated lab finishes in minutes. Its guest
// timeout is wall time, and a loaded host stretches a nested guest's boot
// several times over: it leaves a busy machine room.
std::vector<Param> document_params(bool lab = false) {
  auto p = lab ? params("1", "4M", "4", "256M", "300") : params("10", "100M", "100", "1G", "300");
  p.push_back({"npt", "on,off",
               "kvm_amd npt settings, each a variant: on, off, on,off, or as-loaded (no module reload)",
               [](const std::string& v, const HostCaps&) { parse_npt(v); }});
  p.push_back({"flushbyasid", "as-booted",
               "as-booted, on or off: FLUSHBYASID as this boot has it (/proc/cpuinfo); on/off refuse a boot without or "
               "with it (off is a second boot with clearcpuid=flushbyasid, compared with `kvmbench compare`)"});
  return p;
}

// tcp_rr's latency is 1 / its rate; mmap_churn's total the rounds times
// their mean (guests/workloads).
std::map<std::string, std::string> workload_derived() {
  return {{"latency", "transaction_rate"}, {"total_time", "time_per_round"}};
}

// The document needs an AMD SVM host whose KVM runs guests, QEMU with KVM
// and a guest kernel.
std::string document_unsupported(const HostCaps& caps) {
  return first_reason({require_cpu_feature(caps, "svm", "AMD SVM host"), require_kvm_runs_guests(caps),
                       require_qemu(caps, "kvm"), require_guest_kernel(caps)});
}

// flushbyasid=off on a CPU that has it is a boot with clearcpuid=flushbyasid
// (the kernel has no other switch); the other values take the boot as it is.
BootNeed flushbyasid_boot(const HostCaps& caps, const ParamText& t) {
  asid::FlushByAsidWanted wanted = asid::FlushByAsidWanted::as_booted;
  try {
    wanted = asid::parse_flushbyasid_wanted(t.text("flushbyasid"));
  } catch (const std::invalid_argument&) {
    return {};  // the parameter's own check says what is wrong
  }
  if (wanted != asid::FlushByAsidWanted::off) return {};
  const asid::FlushByAsidBoot boot = asid::this_boot(caps.confidential);
  return {"clearcpuid=flushbyasid", boot.state == asid::FlushByAsidState::no,
          "KVM flushes by ASID whenever the kernel has FLUSHBYASID (there is no module parameter), so its off "
          "case is a boot whose command line hides it"};
}

}  // namespace

Suite asid_suite() {
  const Preset doc{
      .name = "document",
      .description = "the four workloads natively and in a KVM guest with NPT on and off (kvm_amd reloaded), "
                     "5 iterations; guest/native ratios",
      .source = Source::hardware,
      .params = document_params(),
      .parse = parse_as(parse_document_params),
      .unsupported_reason = document_unsupported,
      .boot = flushbyasid_boot,
      .run = run_with(run_document),
      .default_repetitions = 5,
      .primary_metrics = {"transaction_rate", "throughput", "cpuid_rate", "time_per_round"},
      .derived_metrics = workload_derived(),
      .plan = plan_with(plan_document),
  };
  // What `kvmbench lab` runs: the document's pipeline (native, kvm_amd
  // reloaded per NPT setting, KVM guests) with workloads small enough for
  // the emulated lab machine (the document's own did not finish there in 25
  // minutes). Its results are emulated.
  Preset lab = doc;
  lab.name = "lab";
  lab.for_emulated_lab = true;
  lab.unsupported_reason = [](const HostCaps& caps) {
    const std::string why = document_unsupported(caps);
    return why.empty() ? why : why + " (run it in the emulated lab: `kvmbench lab run asid --preset lab`)";
  };
  lab.description = "the document's pipeline scaled for the emulated lab (`kvmbench lab`): 1 s workloads, "
                    "4 x 4M mmap rounds, 256M guests, 2 iterations";
  lab.default_repetitions = 2;
  lab.params = document_params(true);
  return {
      .name = "asid",
      .description = "SVM static vs dynamic ASIDs: netperf, cpuid, mmap churn (post 003)",
      .presets =
          {
              doc,
              lab,
              {
                  .name = "host",
                  .description = "the same workloads natively on this host (baseline)",
                  .source = Source::hardware,
                  .params = params("2", "100M", "100", "1G", "120"),
                  .parse = parse_as(parse_params),
                  .unsupported_reason = runs_anywhere,
                  .run = run_with(run_host),
                  .default_repetitions = 5,
                  .derived_metrics = workload_derived(),
              },
              {
                  .name = "smoke",
                  .description = "the four workloads natively and in a tiny TCG guest (functional only)",
                  .source = Source::emulated,
                  .params = params("1", "4M", "4", "256M", "120"),
                  .parse = parse_as(parse_params),
                  .unsupported_reason = require_tcg_guest,
                  .run = run_with(run_smoke),
                  .default_repetitions = 1,
                  .derived_metrics = workload_derived(),
              },
          },
      .tables = asid::report_tables,
      .layout_shows = [](std::string_view m) { return !asid::workload_of(m).empty(); },
      .workload_of = asid::workload_of,
      .reproduce = asid::reproduce_document,
  };
}

}  // namespace kvmbench::suites
