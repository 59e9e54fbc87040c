// Glue shared by the suites that measure inside a guest (QEMU) or run the
// same workload natively on the host as a baseline.
#pragma once

#include <string>
#include <vector>

#include "hostlib/qemu/qemu_launcher.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

// A guest's run as the collector gave it (ctx.collector().guest(), suites/
// framework/collector.h): records a cannot_run as a skip, throws on a failed
// guest (reason and console tail), emits the samples otherwise.
void emit_guest_result(RunContext& ctx, const host::GuestRunResult& r, const std::string& label,
                       const std::string& variant);

// An SEV-SNP guest's options from the preset parameters "firmware" and
// "kernel-hashes" (on/off; ExitError(2) otherwise), for a preset's parse.
// The C-bit position is left to the launcher, which takes the host's
// (hostlib/qemu/qemu_launcher.h).
host::SevSnpOptions parse_snp_options(const ParamText& params);

// The two parameters snp_options() reads, for a preset's parameter list.
std::vector<Param> snp_params(const std::string& firmware_help);

}  // namespace kvmbench::suites
