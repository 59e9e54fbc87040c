// `kvmbench probe [--json]`: what this host can run and why not. The same
// metadata goes into every run's meta.json (hostlib/describe/host_metadata.h).
// `--labels` / `--require L...`: its capability labels for lab engines
// (hostlib/describe/capability_labels.h); `--host FILE` reads another host's
// `probe --json` instead of probing this one.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analysis/model/json_input.h"
#include "hostlib/describe/capability_labels.h"
#include "hostlib/facts/confidential_host.h"
#include "hostlib/describe/host_metadata.h"
#include "hostlib/qemu/qemu_launcher.h"
#include "hostlib/qemu/qemu_paths.h"
#include "hostlib/facts/rmpopt_boot_state.h"
#include "analysis/model/host_meta_types.h"
#include "suites/engine/host_description.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

constexpr std::size_t kLabel = 13;  // width of the label column
constexpr std::size_t kWidth = 80;

// "label        value", the value word-wrapped under itself within 80 columns.
void line(const std::string& label, const std::string& value) {
  std::string out = fmt::format("{:<{}}", label, kLabel);
  std::size_t col = out.size();
  std::size_t pos = 0;
  bool first = true;
  while (pos < value.size()) {
    auto sp = value.find(' ', pos);
    auto word = value.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? value.size() : sp + 1;
    if (word.empty()) continue;
    if (!first && col + 1 + word.size() > kWidth) {
      out += "\n" + std::string(kLabel, ' ');
      col = kLabel;
      first = true;
    }
    if (!first) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first = false;
  }
  fmt::print("{}\n", out);
}

std::string bytes(const nlohmann::json& v) {
  if (!v.is_number()) return "?";
  double b = v.get<double>();
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

std::string str(const nlohmann::json& v, const std::string& none = "?") {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return none;
  return v.dump();
}

std::string join(const nlohmann::json& arr, const std::string& sep, const std::string& none = "none") {
  std::string s;
  if (arr.is_array())
    for (auto& x : arr) s += (s.empty() ? "" : sep) + str(x);
  return s.empty() ? none : s;
}

std::string yes_no(const nlohmann::json& v) { return v.is_boolean() ? (v.get<bool>() ? "yes" : "no") : "unknown"; }

// `m` by value: a host description need not have every key a probe of
// this version writes (an older probe, a hand-made file), and a missing one
// reads as null ("?") here instead of failing.
void print_text(nlohmann::json m) {
  const std::string emulated = host::emulation_reason(m);
  fmt::print("kvmbench probe: {} (source: {}, probed {})\n\n", str(m["hostname"]), emulated.empty() ? "hardware" : "emulated",
             str(m["collected_at"]));
  line("Kernel", str(m["kernel"]["release"]));
  line("Cmdline", str(m["kernel"]["cmdline"]));
  auto& c = m["cpu"];
  line("CPU", fmt::format("{} ({} family {} model {} stepping {}, microcode {}){}", str(c["model_name"]),
                          str(c["vendor_id"]), c["family"].dump(), c["model"].dump(), c["stepping"].dump(),
                          str(c["microcode"], "unknown"), c["hypervisor"] == true ? ", running in a VM" : ""));
  if (m.contains("virtualization") && m["virtualization"].value("in_vm", false)) {
    const auto& v = m["virtualization"];
    line("Hypervisor", fmt::format("{} (CPUID 0x40000000 \"{}\"){}", str(v["hypervisor"]), str(v["signature"]),
                                   v.contains("note") ? "; " + str(v["note"]) : ""));
  }
  std::string absent;
  for (auto* f : {"svm", "npt", "flushbyasid", "sev", "sev_es", "sev_snp", "rmpopt", "vmx", "tdx"}) {
    bool have = false;
    for (auto& x : c["features"]) have |= x == f;
    if (!have) absent += (absent.empty() ? "" : " ") + std::string(f);
  }
  line("Features", fmt::format("present: {}; absent: {}", join(c["features"], " "), absent.empty() ? "none" : absent));

  auto& k = m["kvm"];
  line("KVM", fmt::format("/dev/kvm {}, module {}, runs guests: {}", k["present"] == true ? "usable" : "not usable",
                          str(k["module"], "none").empty() ? "none" : str(k["module"], "none"), yes_no(k["runs_guests"])));
  line("", fmt::format("why: {}", str(k["reason"])));
  if (k.contains("vm_types")) line("", fmt::format("VM types: {}", join(k["vm_types"], ", ")));
  if (k.contains("private_vm_types") && k["private_vm_types"].is_array()) {
    std::string types;
    for (auto& t : k["private_vm_types"])
      types += fmt::format("{}{}: {}", types.empty() ? "" : "; ", str(t.value("type", nlohmann::json())),
                           str(t.value("state", nlohmann::json())));
    line("", "private memory (make_shared): " + types);
  }
  if (k.contains("guest_memfd"))
    line("", fmt::format("guest_memfd: {} (flags: {}); memory attributes mask {}; pre-fault: {}",
                         yes_no(k["guest_memfd"]), join(k["guest_memfd_flags"], ", "), str(k["memory_attributes"]),
                         yes_no(k["pre_fault_memory"])));
  std::string params;
  for (auto& [mod, info] : m["kvm_modules"].items()) {
    for (auto* p : {"npt", "sev", "sev_es", "sev_snp", "tdx", "ept", "tdp_mmu", "nx_huge_pages",
                    "vm_memory_attributes"})
      if (info["parameters"].contains(p)) params += fmt::format("{}{}.{}={}", params.empty() ? "" : " ", mod, p,
                                                                str(info["parameters"][p]));
  }
  if (!params.empty()) line("", "parameters: " + params);

  if (m.contains("confidential") && m["confidential"].is_object()) {
    auto& cc = m["confidential"];
    line("Confidential",
         fmt::format("SEV C-bit {}, reduced phys bits {}; FLUSHBYASID in /proc/cpuinfo: {}{}; kernel log: {}",
                     str(cc["sev_cbitpos"], "none"), str(cc["sev_reduced_phys_bits"], "none"), str(cc["flushbyasid"]),
                     cc["clearcpuid_flushbyasid"] == true ? " (clearcpuid=flushbyasid)" : "",
                     str(cc["kmsg_error"]).empty() ? "readable" : str(cc["kmsg_error"])));
    const host::RmpoptBootState r = host::confidential_host_from_json(cc).rmpopt;
    const std::string said = host::rmpopt_boot_summary(r);
    line("", fmt::format("RMPOPT in the kernel log{}: {}{}", r.from.empty() ? "" : " (" + r.from + ")",
                         host::to_string(r.state), said.empty() ? "" : ": " + said));
  }
  auto& mem = m["memory"];
  auto& dm = mem["directmap"];
  line("Memory", fmt::format("MemTotal {}; DirectMap 4k {}, 2M {}, 1G {}", bytes(mem["total_bytes"]), bytes(dm["4k"]),
                             bytes(dm["2M"]), bytes(dm["1G"])));
  std::string pools;
  for (auto& p : m["hugepages"])
    pools += fmt::format("{}{} kB: {} (free {})", pools.empty() ? "" : "; ", p["page_kb"].dump(),
                         str(p.value("nr_hugepages", nlohmann::json())), str(p.value("free_hugepages", nlohmann::json())));
  line("Hugepages", pools.empty() ? "no hugetlb pools" : pools);
  line("THP", fmt::format("enabled {}, defrag {}, shmem {}", str(m["thp"]["enabled"]), str(m["thp"]["defrag"]),
                          str(m["thp"]["shmem_enabled"])));
  auto& t = m["topology"];
  line("Topology", fmt::format("{} package(s), {} core(s), {} thread(s), SMT {} per core (control {}); "
                               "primary threads {} (hwloc)",
                               t["packages"].dump(), t["cores"].dump(), t["threads"].dump(),
                               t["smt_threads_per_core"].dump(), str(m["smt"]["control"], "n/a"),
                               str(t["primary_threads"])));
  for (auto& n : m["numa"]["nodes"])
    line("NUMA", fmt::format("node {}: CPUs {}, {}", n["node"].dump(), str(n["cpus"]), bytes(n["memory_bytes"])));
  auto& tsc = m["tsc"];
  bool calibrated = str(tsc["method"]).rfind("calibrated", 0) == 0;
  line("TSC", fmt::format("{} MHz; method: {}{}; constant/nonstop: {}",
                          m["tsc_hz"].is_number() ? fmt::format("{:.3f}", m["tsc_hz"].get<double>() / 1e6) : "?",
                          str(tsc["method"]),
                          !calibrated && tsc["calibrated_hz"].is_number() && tsc["calibrated_hz"].get<double>() > 0
                              ? fmt::format(" (calibration gives {:.3f} MHz)", tsc["calibrated_hz"].get<double>() / 1e6)
                              : "",
                          yes_no(tsc["constant_tsc"])));
  line("Clocksource", fmt::format("{} (available: {})", str(m["clocksource"]["current"]),
                                  str(m["clocksource"]["available"])));
  auto& f = m["cpufreq"];
  std::string govs;
  for (auto& [g, cpus] : f["governors"].items()) govs += fmt::format("{}{} on CPUs {}", govs.empty() ? "" : ", ", g, str(cpus));
  line("cpufreq", govs.empty() ? str(f.value("note", nlohmann::json("none")))
                               : fmt::format("driver {}, governor {}; boost {}", str(f["driver"]), govs,
                                             f["boost"].is_null() ? "unknown" : yes_no(f["boost"]["enabled"])));
  auto& q = m["qemu"];
  line("QEMU", q["found"] == true ? fmt::format("{} version {}, accelerators: {}", str(q["path"]), str(q["version"]),
                                                join(q["accels"], " "))
                                  : fmt::format("not found: {}", str(q.value("error", nlohmann::json()))));
  if (q.contains("error") && q["found"] == true) line("", "error: " + str(q["error"]));
  line("Root", m["running_as_root"] == true ? "running as root"
                                            : fmt::format("not root; needed root for: {}", join(m["needs_root"], " ")));
  if (!m["unreadable"].empty()) {
    std::string u;
    for (auto& x : m["unreadable"]) u += fmt::format("{}{} ({})", u.empty() ? "" : "; ", str(x["path"]), str(x["error"]));
    line("Unreadable", u);
  }
}

// This host, probed (the KVM test guest included).
nlohmann::json probe_this_host(int kvm_timeout_ms) {
  host::MetadataOptions o;
  o.kvm_timeout_ms = kvm_timeout_ms;
  auto m = host::collect_metadata(o);
  // What a result measured on this host would be labelled.
  m["source"] = host::emulation_reason(m).empty() ? "hardware" : "emulated";

  // What a dry run on another machine needs to plan for this one
  // (`kvmbench run ... --dry-run --host FILE`).
  m["confidential"] = host::to_json(host::probe_confidential_host());
  const host::FoundPath kernel = host::default_guest_kernel();
  m["guest_kernel"] = kernel ? nlohmann::json(kernel.path.string()) : nlohmann::json(nullptr);
  if (m["qemu"]["found"] == true && m["qemu"]["path"].is_string()) {
    nlohmann::json objects = nlohmann::json::array();
    for (const auto& t : host::qemu_object_types(m["qemu"]["path"].get<std::string>()))
      if (t == "sev-guest" || t == "sev-snp-guest" || t == "tdx-guest") objects.push_back(t);
    m["qemu"]["confidential_objects"] = objects;
  }
  return m;
}

// Another host's `kvmbench probe --json`; exit 2 when it is not one.
}  // namespace

void add_probe_command(CLI::App& app) {
  struct Opts {
    std::string format = "text";
    bool json = false, labels = false;
    int kvm_timeout = 500;
    std::string host, kmsg;
    std::vector<std::string> require;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("probe", "What this host can run and why not (KVM, CPU features, memory, QEMU)");
  cmd->footer("Exit status: 0 probed (what cannot run is said, not an error); 77 a label --require "
              "names is missing; 2 a bad option.");
  // --format as every other command has it; --json, its older spelling
  // (`ab` runs `probe --json` on machines that may have an older kvmbench).
  cmd->add_option("--format", o->format, "Output: text, or json (the host metadata, as meta.json records it)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "As --format json");
  cmd->add_flag("--labels", o->labels, "Print the capability labels for lab engines, one a line (name or name=value)");
  cmd->add_option("--require", o->require,
                  "Exit 77 naming the labels this host lacks (LABEL or LABEL=VALUE), 0 when it has them all")
      ->expected(1, -1);
  cmd->add_option("--host", o->host, "Read a host described by `kvmbench probe --json` instead of probing this one");
  cmd->add_option("--kmsg", o->kmsg,
                  "Read what the kernel said (RMPOPT) from this captured kernel log (dmesg or journalctl -k "
                  "output) instead of /dev/kmsg; with --host, that host's");
  cmd->add_option("--kvm-timeout-ms", o->kvm_timeout, "How long the KVM test guest may run")
      ->check(CLI::Range(10, 10000));
  cmd->callback([o] {
    if (o->format == "json") o->json = true;
    nlohmann::json m = o->host.empty() ? probe_this_host(o->kvm_timeout) : engine::read_host_description(o->host);
    if (!o->kmsg.empty()) {
      host::ConfidentialHost c;
      try {
        c = host::confidential_host_from_json(m.value("confidential", nlohmann::json()));
      } catch (const std::invalid_argument& e) {
        usage_error(fmt::format("--host {}: {}", o->host, e.what()));
      }
      try {
        c.rmpopt = host::rmpopt_boot_state_from_file(o->kmsg);
      } catch (const std::invalid_argument& e) {
        usage_error(e.what());
      }
      m["confidential"] = host::to_json(c);
    }
    if (o->labels || !o->require.empty()) {
      const auto labels = host::capability_labels(m);
      if (o->labels)
        for (const auto& l : labels) fmt::print("{}\n", host::to_string(l));
      if (o->require.empty()) return;
      const auto missing = host::missing_labels(labels, o->require);
      if (!missing.empty()) {
        std::vector<std::string> have;
        for (const auto& l : labels) have.push_back(host::to_string(l));
        cannot_run(fmt::format("missing capability labels: {} (this host has: {})", fmt::join(missing, " "),
                               have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, " "))));
      }
      if (!o->labels) fmt::print("all required labels present: {}\n", fmt::join(o->require, " "));
      return;
    }
    if (o->json)
      fmt::print("{}\n", m.dump(2));
    else
      print_text(m);
  });
}

}  // namespace kvmbench::cli
