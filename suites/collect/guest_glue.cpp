#include "suites/collect/guest_glue.h"

#include <fmt/format.h>

#include "suites/framework/errors.h"

namespace kvmbench::suites {

host::SevSnpOptions parse_snp_options(const ParamText& params) {
  host::SevSnpOptions o;
  o.firmware = params.text("firmware");
  o.kernel_hashes = params.either("kernel-hashes", "on", "off");
  return o;
}

std::vector<Param> snp_params(const std::string& firmware_help) {
  return {
      {"firmware", "", firmware_help},
      {"kernel-hashes", "off",
       "on: measure kernel, initrd and command line into the SNP launch digest (needs the AmdSev OVMF build, "
       "whose SEV hash table QEMU fills; other firmware makes QEMU refuse to start)"},
  };
}

void emit_guest_result(RunContext& ctx, const host::GuestRunResult& r, const std::string& label,
                       const std::string& variant) {
  if (r.status == host::GuestRunStatus::cannot_run) {
    ctx.note_skip(label, r.reason);
    return;
  }
  if (r.status == host::GuestRunStatus::interrupted) return;
  if (!r.ok())
    throw std::runtime_error(fmt::format("{}: guest failed: {}\n--- console tail ---\n{}", label, r.reason,
                                         r.console_tail));
  for (Sample s : r.samples) {
    if (!variant.empty()) s.variant = s.variant.empty() ? variant : variant + "/" + s.variant;
    s.extra["accel"] = std::string(host::to_string(r.accel));
    ctx.emit(s);
  }
}

}  // namespace kvmbench::suites
