// asid: static per-VM vs dynamic per-vCPU SVM ASIDs (documents/003): netperf
// style tcp_rr / tcp_stream, cpuid_rate and mmap_churn (mmap, touch, munmap
// 100M x 100) in a guest, 5 iterations each; the patched and unpatched
// kernels are two runs put side by side with `kvmbench compare`.
//   document: in a KVM guest on an SVM host; NPT as the kvm_amd module has
//             it now (recorded in meta.json: a reload with npt=0 is a second
//             run); FLUSHBYASID cannot be hidden from the host's KVM.
//   host:     the same workloads natively on the host, the baseline.
//   smoke:    all four in a tiny TCG guest (functional only).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "suites/common/capture.h"
#include "suites/common/guest_glue.h"
#include "suites/common/requirements.h"
#include "suites/kvmbench/exit.h"
#include "suites/suite.h"

namespace kvmbench::suites {

namespace {

struct WorkloadArgs {
  std::string name;
  std::vector<std::string> args;
};

std::vector<WorkloadArgs> workloads(RunContext& ctx, bool native) {
  const std::string secs = ctx.param("seconds");
  std::vector<WorkloadArgs> all = {
      {"tcp_rr", {"--seconds=" + secs}},
      {"tcp_stream", {"--seconds=" + secs}},
      {"cpuid_rate", {"--seconds=" + secs}},
      {"mmap_churn", {"--bytes=" + ctx.param("mmap-bytes"), "--rounds=" + ctx.param("mmap-rounds")}},
  };
  if (native)
    for (auto& w : all)
      if (w.name.rfind("tcp_", 0) == 0) w.args.push_back("--self-peer");
  std::vector<std::string> wanted = split_list(ctx.param("workloads"));
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

std::string npt_state() {
  std::ifstream in("/sys/module/kvm_amd/parameters/npt");
  std::string v;
  if (!(in >> v)) return "unknown";
  return (v == "Y" || v == "1") ? "on" : "off";
}

// Under replay the NPT state is the captured host's: DIR/npt[.it<N>].txt
// holding the kvm_amd parameter as read there (Y/N, 1/0), else unknown.
std::string replayed_npt_state(const RunContext& ctx) {
  std::istringstream in(read_optional_capture(ctx, "npt", "txt"));
  std::string line, v;
  while (std::getline(in, line))  // the first line that is not a # comment
    if (!line.empty() && line[0] != '#') {
      v = line;
      break;
    }
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  if (v == "Y" || v == "1" || v == "on") return "on";
  if (v == "N" || v == "0" || v == "off") return "off";
  return "unknown";
}

void run_in_guests(RunContext& ctx, host::Accel accel, const std::string& variant) {
  for (auto& w : workloads(ctx, false)) {
    if (ctx.interrupted()) return;
    host::GuestSpec spec;
    spec.workload = w.name;
    spec.args = w.args;
    spec.accel = accel;
    spec.vcpus = static_cast<int>(ctx.param_int("vcpus"));
    spec.memory_mib = ctx.param_bytes("guest-mem") >> 20;
    spec.timeout_s = ctx.param_double("timeout");
    run_guest_and_emit(ctx, spec, w.name, variant);
  }
}

void run_document(RunContext& ctx) {
  if (ctx.iteration() <= 0)
    ctx.note_skip("flushbyasid=off",
                  "the host's KVM uses FLUSHBYASID whenever the CPU has it; there is no knob to hide it "
                  "(run on a CPU without it, or a kernel that ignores it, and compare the runs)");
  run_in_guests(ctx, host::Accel::kvm, "npt=" + (ctx.replaying() ? replayed_npt_state(ctx) : npt_state()));
}

void run_smoke(RunContext& ctx) { run_in_guests(ctx, host::Accel::tcg, ""); }

void run_host(RunContext& ctx) {
  for (auto& w : workloads(ctx, true)) {
    if (ctx.interrupted()) return;
    run_native_workload(ctx, w.name, w.args, w.name);
  }
}

std::vector<Param> params(const std::string& seconds, const std::string& bytes, const std::string& rounds,
                          const std::string& mem, const std::string& timeout) {
  return {
      {"workloads", "", "tcp_rr,tcp_stream,cpuid_rate,mmap_churn (empty: all)"},
      {"seconds", seconds, "duration of tcp_rr, tcp_stream and cpuid_rate"},
      {"mmap-bytes", bytes, "mmap_churn: bytes mapped, touched and unmapped per round"},
      {"mmap-rounds", rounds, "mmap_churn: rounds"},
      {"vcpus", "1", "guest vCPUs"},
      {"guest-mem", mem, "guest memory"},
      {"timeout", timeout, "seconds before a guest is killed"},
  };
}

}  // namespace

Suite make_asid_suite() {
  Suite s;
  s.name = "asid";
  s.description = "SVM static vs dynamic ASIDs: netperf, cpuid, mmap churn (documents/003)";

  Preset doc;
  doc.name = "document";
  doc.description = "the four workloads in a KVM guest, 5 iterations; NPT as loaded";
  doc.source = Source::hardware;
  doc.default_repetitions = 5;
  doc.params = params("10", "100M", "100", "1G", "300");
  doc.unsupported_reason = [](const HostCaps& caps) {
    return first_reason({require_cpu_feature(caps, "svm", "AMD SVM host"), require_kvm_runs_guests(caps),
                         require_qemu(caps, "kvm"), require_guest_kernel(caps)});
  };
  doc.run = run_document;
  doc.primary_metrics = {"transaction_rate", "throughput", "cpuid_rate", "time_per_round"};
  s.presets.push_back(doc);

  Preset host;
  host.name = "host";
  host.description = "the same workloads natively on this host (baseline)";
  host.source = Source::hardware;
  host.default_repetitions = 5;
  host.params = params("2", "100M", "100", "1G", "120");
  host.unsupported_reason = runs_anywhere;
  host.run = run_host;
  s.presets.push_back(host);

  Preset smoke;
  smoke.name = "smoke";
  smoke.description = "the four workloads in a tiny TCG guest (functional only)";
  smoke.source = Source::emulated;
  smoke.default_repetitions = 1;
  smoke.params = params("1", "4M", "4", "256M", "120");
  smoke.unsupported_reason = require_tcg_guest;
  smoke.run = run_smoke;
  s.presets.push_back(smoke);
  return s;
}

}  // namespace kvmbench::suites
