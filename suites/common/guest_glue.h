// Glue shared by the suites that measure inside a guest (QEMU) or run the
// same workload natively on the host as a baseline.
#pragma once

#include <string>
#include <vector>

#include "hostlib/qemu_launcher.h"
#include "suites/suite.h"

namespace kvmbench::suites {

// One guest workload, in two halves. obtain: boots the guest (live) or,
// under replay, reads the console capture <label>.it<N>.console.log (else
// <label>.console.log) and parses it with parsers::parse_guest_output, as
// the live launcher does; either way the console is kept in the run as
// raw/<label>.it<N>.console.log. A missing capture is ExitError(2).
host::GuestRunResult obtain_guest_run(RunContext& ctx, const host::GuestSpec& spec, const std::string& label);
// emit: records a cannot_run as a skip, throws on a failed guest (reason and
// console tail), emits the samples otherwise.
void emit_guest_result(RunContext& ctx, const host::GuestRunResult& r, const std::string& label,
                       const std::string& variant);

// Runs a workload program natively (build/guests/bin/kvmbench-<workload>)
// with `args`, under a timeout, parses its KVMBENCH-* output like a guest's
// console, emits the samples with variant "native" and keeps the output as
// raw/<label>.it<N>.native.log. Throws with the reason when it fails. Under
// replay it reads that output from the capture <label>.it<N>.native.log
// (else <label>.native.log) instead, and records a skip when neither exists.
void run_native_workload(RunContext& ctx, const std::string& workload, const std::vector<std::string>& args,
                         const std::string& label, double timeout_s = 120);

// An SEV-SNP guest's options from the preset parameters "firmware" and
// "kernel-hashes" (on/off; ExitError(2) otherwise). The C-bit position is
// left to the launcher, which takes the host's (hostlib/qemu_launcher.h).
host::SevSnpOptions snp_options(const RunContext& ctx);

// The two parameters snp_options() reads, for a preset's parameter list.
std::vector<Param> snp_params(const std::string& firmware_help);

// Splits "a,b,c" into its non-empty items.
std::vector<std::string> split_list(const std::string& text);

}  // namespace kvmbench::suites
