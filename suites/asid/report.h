// How asid results look: every guest figure beside the same workload run
// natively on the host in the same run, as a ratio guest/native with a 95%
// CI (Fieller, stats::relative_change). One table; one row per workload
// metric and guest variant ("npt=on", "npt=off"; "tcg" for the smoke preset).
// Sample names: case and metric as the workload prints them (e.g. case
// "request=1,response=1", metric "transaction_rate"); guest samples carry
// the variant, native samples the variant "native"; a guest sample's
// extra "flushbyasid" ("yes"/"no"/"unknown") says whether the CPU has
// FLUSHBYASID (CPUID 0x8000000A EDX[6]).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/table.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites::asid {

inline constexpr std::string_view kNative = "native";

// The workload that prints a metric: "tcp_rr" for transaction_rate, ...;
// "" for a metric no asid workload prints.
std::string_view workload_of(std::string_view metric);

struct Ratio {
  double ratio = 0;              // guest mean / native mean (NaN: native mean 0)
  double ci95_low = 0, ci95_high = 0;  // NaN when n < 2 or the CI is unbounded
};
Ratio guest_to_native(const stats::Summary& guest, const stats::Summary& native);

// Empty when the samples have no guest/native pair of an asid workload.
std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source);

// The document's tables from the reference data in `reference_dir`
// (suites/framework/reproduce.h; this suite's Suite::reproduce).
Reproduction reproduce_document(const std::filesystem::path& reference_dir, const ReproduceOptions& options);

}  // namespace kvmbench::suites::asid
