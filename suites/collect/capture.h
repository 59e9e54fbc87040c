// The text formats a live run keeps in raw/ and a replay reads back
// (suites/framework/collector.h): meminfo series as CSV, and the kernel log's
// records as samples.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

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
