#include "suites/framework/plan.h"

#include <fmt/format.h>

#include <sstream>

#include "analysis/model/text_wrap.h"
#include "hostlib/qemu/qemu_paths.h"

namespace kvmbench::suites {

namespace {

constexpr std::uint16_t kPortPlaceholder = 1;  // replaced by "PORT" in the printed argv

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
}

// `text` wrapped at 80 columns, every line starting with `indent`, lines
// after the first with `more` besides.
std::string wrapped(const std::string& text, const std::string& indent, const std::string& more = "    ") {
  std::istringstream in(wrap_text(text, 80 - indent.size(), more));
  std::string line, out;
  while (std::getline(in, line)) out += indent + line + "\n";
  return out;
}

// "   1. text", wrapped under the text with a further indent.
std::string numbered(std::size_t n, const std::string& text) {
  const std::string first = fmt::format("  {:>2}. ", n);
  std::istringstream in(wrap_text(text, 80 - first.size() - 4, ""));
  std::string line, out;
  for (bool head = true; std::getline(in, line); head = false)
    out += (head ? first : std::string(first.size() + 4, ' ')) + line + "\n";
  return out;
}

// One QEMU option a line: "-machine q35,..." together, flags alone.
std::vector<std::string> argv_lines(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string line = argv[i];
    if (i > 0 && line.starts_with("-") && i + 1 < argv.size() && !argv[i + 1].starts_with("-")) {
      line += " " + argv[i + 1];
      ++i;
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace

void Plan::check(const std::string& reason) {
  would_run_ = reason.empty();
  sections_.push_back({"check", "", {reason.empty() ? "would run on this host" : "would not run: " + reason}});
}

void Plan::guest(const std::string& label, const std::vector<std::string>& argv) {
  sections_.push_back({"guest", label, argv_lines(argv)});
}

void Plan::ioctls(const std::string& title, std::vector<std::string> sequence) {
  sections_.push_back({"ioctls", title, std::move(sequence)});
}

void Plan::boot(const BootNeed& need) {
  sections_.push_back({"boot", need.this_boot ? "this one" : "another",
                       {fmt::format("{} ({}): {}", need.setting,
                                    need.this_boot ? "the boot planned for has it" : "the boot planned for has not",
                                    need.why)}});
}

void Plan::knob(const std::string& what) { sections_.push_back({"knob", "", {what}}); }
void Plan::capture(const std::string& what) { sections_.push_back({"capture", "", {what}}); }
void Plan::skip(const std::string& part, const std::string& reason) { sections_.push_back({"skip", part, {reason}}); }
void Plan::note(const std::string& text) { sections_.push_back({"note", "", {text}}); }
void Plan::cannot_run(const std::string& reason) {
  would_run_ = false;
  sections_.push_back({"skip", "the whole run (exit 77)", {reason}});
}

void plan_guest(Plan& plan, const RunContext& ctx, host::GuestSpec spec, const std::string& label) {
  const HostCaps& caps = ctx.host();
  host::LaunchPlan lp;
  lp.qemu = !spec.qemu.empty() ? spec.qemu
            : !caps.qemu_path.empty() ? std::filesystem::path(caps.qemu_path)
                                      : std::filesystem::path("QEMU");
  lp.kernel = !spec.kernel.empty() ? spec.kernel
              : !caps.guest_kernel.empty() ? std::filesystem::path(caps.guest_kernel)
                                           : std::filesystem::path("GUEST_KERNEL");
  if (spec.initramfs.empty()) {
    host::FoundPath i = host::default_guest_initramfs();
    lp.initramfs = i ? i.path : std::filesystem::path("INITRAMFS");
  } else {
    lp.initramfs = spec.initramfs;
  }
  lp.accel = spec.accel == host::Accel::automatic ? (caps.kvm.runs_guests ? host::Accel::kvm : host::Accel::tcg)
                                                  : spec.accel;
  lp.console_log = std::filesystem::path("RUN_DIR/raw") / fmt::format("{}.it0.console.log", label);
  if (!spec.pin_host_cpus.empty() || spec.pin_numa_node) {
    lp.qmp_socket = "QMP_DIR/qmp.sock";
    lp.start_paused = true;
  }
  // As the launcher does where the monitors count a KVM guest.
  if (ctx.monitors_count && lp.accel == host::Accel::kvm) {
    lp.qmp_socket = "QMP_DIR/qmp.sock";
    lp.hold_at_shutdown = true;
  }
  lp.host_port = kPortPlaceholder;

  std::vector<std::string> refusals;
  std::string cbit_placeholder;
  if (spec.confidential != host::Confidential::none) {
    host::ConfidentialSupport support;
    support.kvm_runs_guests = caps.kvm.runs_guests;
    support.kvm_vm_types = caps.kvm.vm_types;
    const char* type = spec.confidential == host::Confidential::sev_snp ? "snp" : "tdx";
    if (const auto it = caps.kvm.memory_attributes_by_vm_type.find(type);
        it != caps.kvm.memory_attributes_by_vm_type.end())
      support.vm_memory_attributes = it->second;
    if (caps.confidential.sev_bits) support.host_cbitpos = caps.confidential.sev_bits->cbitpos;
    const char* object = spec.confidential == host::Confidential::sev_snp ? "sev-snp-guest" : "tdx-guest";
    if (caps.qemu_objects) {
      support.qemu_objects = *caps.qemu_objects;
    } else {
      support.qemu_objects = {object};
      plan.note(fmt::format("{}: whether QEMU has the '{}' object is not known here (the launcher asks "
                            "`qemu -object help` before starting the guest)",
                            label, object));
    }
    auto& firmware = spec.confidential == host::Confidential::sev_snp ? spec.snp.firmware : spec.tdx.firmware;
    if (firmware.empty()) {
      firmware = "FIRMWARE";
      refusals.push_back("parameter firmware is not given (--set firmware=/path/OVMF.fd): this guest cannot "
                         "start without it");
    }
    host::GuestSpec checked = spec;
    checked.accel = lp.accel;
    if (std::string why = host::confidential_refusal(checked, support); !why.empty()) refusals.push_back(why);
    if (spec.confidential == host::Confidential::sev_snp) {
      if (!host::resolve_snp_cbitpos(spec.snp, support.host_cbitpos).empty()) {
        spec.snp.cbitpos = 1;  // only to build the argv; printed as HOST_CBITPOS
        cbit_placeholder = "HOST_CBITPOS";
      }
      if (spec.snp.kernel_hashes)
        plan.note(fmt::format("{}: kernel-hashes=on needs the AmdSev OVMF build (its SEV hash table); with other "
                              "firmware QEMU refuses to start (\"SEV: kernel specified but guest firmware has no "
                              "hashes table GUID\")",
                              label));
    }
  }
  std::vector<std::string> argv;
  try {
    argv = host::build_qemu_argv(spec, lp);
  } catch (const std::invalid_argument& e) {
    plan.skip(label, std::string("the guest cannot be built: ") + e.what());
    return;
  }
  for (auto& a : argv) {
    replace_all(a, fmt::format("127.0.0.1:{}-:", kPortPlaceholder), "127.0.0.1:PORT-:");
    if (!cbit_placeholder.empty()) replace_all(a, "cbitpos=1,", "cbitpos=" + cbit_placeholder + ",");
  }
  plan.guest(label, argv);
  for (const auto& r : refusals) plan.skip(label, r);
}

std::string render_plan(const std::string& suite, const Preset& preset, const Plan& plan,
                        const std::map<std::string, std::string>& params, int repetitions) {
  const std::string reps = repetitions < 0 ? std::string("-r auto")
                                            : fmt::format("{} repetition{}", repetitions, repetitions == 1 ? "" : "s");
  std::string out = fmt::format("== {} / {} [source: {}], {} ==\n", suite, preset.name, to_string(preset.source), reps);
  std::string p;
  for (const auto& [k, v] : params) p += fmt::format("{}{}={}", p.empty() ? "" : " ", k, v.empty() ? "''" : v);
  out += wrapped("parameters: " + p, "");
  for (const auto& s : plan.sections()) {
    if (s.kind == "check") {
      out += wrapped(s.lines.front(), "", "  ");
      continue;
    }
    const std::string head = s.title.empty() ? fmt::format("[{}]", s.kind) : fmt::format("[{}] {}", s.kind, s.title);
    if (s.kind == "guest" || s.kind == "ioctls") {
      out += wrapped(head + ":", "");
      for (std::size_t i = 0; i < s.lines.size(); ++i)
        out += s.kind == "ioctls" ? numbered(i + 1, s.lines[i]) : "    " + s.lines[i] + "\n";
      continue;
    }
    for (const auto& l : s.lines) out += wrapped(head + (s.title.empty() ? " " : ": ") + l, "");
  }
  return out;
}

}  // namespace kvmbench::suites
