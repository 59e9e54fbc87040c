// How rmpopt results look: RMPOPT cycle stats per group (e.g. during boot
// vs after guest shutdown), the sweep wall time per kernel variant (ms, with
// the time per 1GB region: the loop issues one on_each_cpu_mask() per
// region), and the change of each variant against the base variant with its
// 95% CI, Welch p and verdict; for the host preset's emulated sweep, its
// wall time per strategy and page layout (mean ±95% CI, in ms or the unit
// that reads). Reads samples named as
// analysis/parse/kernel_log.h names them (metrics "rmpopt_cycles_<stat>",
// "sweep_time" with extra range_start/range_end) and as
// suites/rmpopt/measure.h does ("emulated_sweep_wall" with extra layout and
// regions).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/report/table.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites::rmpopt {

// Empty when the samples hold no RMPOPT cycle stats, sweep times or emulated
// sweeps (whose tables come first).
// `base_variant` is the variant the others are compared against; the first
// variant seen when it is absent. With `tsc_ghz` (the TSC rate of the
// machine that printed the cycles, in GHz), a second cycle table gives the
// wall-clock equivalents, ns = cycles / tsc_ghz.
std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source,
                                 std::string_view base_variant = "all-cpus",
                                 std::optional<double> tsc_ghz = std::nullopt);

// The document's tables from the reference data in `reference_dir`
// (suites/framework/reproduce.h; this suite's Suite::reproduce).
Reproduction reproduce_document(const std::filesystem::path& reference_dir, const ReproduceOptions& options);

}  // namespace kvmbench::suites::rmpopt
