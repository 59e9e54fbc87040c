// Captures read by a replayed run (`kvmbench run SUITE --replay DIR`): each
// live collection path (kernel log, meminfo series, guest console) has a
// file name in DIR, per iteration or shared by all of them:
//   DIR/<stem>.it<N>.<ext>   for iteration N, else
//   DIR/<stem>.<ext>         for every iteration.
// A missing capture is bad input: ExitError(2) naming both file names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "suites/suite.h"

namespace kvmbench::suites {

// The capture file for the context's iteration; throws ExitError(2) when
// neither name exists.
std::filesystem::path capture_path(const RunContext& ctx, const std::string& stem, const std::string& ext);

// Its whole text (ExitError(2) when missing or unreadable).
std::string read_capture(const RunContext& ctx, const std::string& stem, const std::string& ext);

// Like read_capture, but "" when neither file exists (optional captures).
std::string read_optional_capture(const RunContext& ctx, const std::string& stem, const std::string& ext);

// A meminfo series as the live run stores it (raw/meminfo-<variant>.it<N>.csv):
// header "t_s,<field>_bytes", then "t,value" rows; lines starting with '#'
// are comments. Throws ExitError(2) naming `origin` and the line when the
// text is malformed or its header names another field.
void parse_meminfo_csv(const std::string& text, const std::string& field, const std::string& origin,
                       std::vector<double>& t, std::vector<double>& v);

// The kernel log records of one repetition (live or replayed), as samples.
// A record the kernel printed inconsistently (make_shared > total, a zero
// total, ...) does not end the run: it is skipped and recorded, with its line
// in raw/<raw_name>, as a skipped part of the run.
std::vector<Sample> kernel_log_samples(RunContext& ctx, const std::string& text, const std::string& raw_name);

// The field a series' header names ("t_s,<field>_bytes" -> <field>), "" when the
// text has no such header.
std::string meminfo_csv_field(const std::string& text);

// The CSV text for a series (what parse_meminfo_csv reads back).
std::string meminfo_csv(const std::string& field, const std::vector<double>& t, const std::vector<double>& v);

}  // namespace kvmbench::suites
