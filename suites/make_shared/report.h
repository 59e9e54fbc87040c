// How make_shared results look: the document's table (one row per
// to-shared conversion: nr_pages, make_shared cycles, total cycles,
// percentage with 4 decimals), a summary of the percentage per nr_pages, and
// the thread's question per nr_pages: the mean share vs the CV of total
// across the conversions (is make_shared above the run-to-run noise?);
// then what user space measured (guest_memfd operations, conversions).
// Reads samples named as analysis/parse/kernel_log.h names them (case
// "nr_pages=N", metrics "make_shared_cycles" and "total_cycles").
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/report/table.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites::make_shared {

// The kernel's lines' tables, then measured_tables(); empty when the
// samples hold neither.
std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source);

// The user-space measurements per nr_pages (the host preset's figures):
// guest_memfd create / fallocate / punch hole, and the conversions' cycles
// and time per VM type; mean ±95% CI, each cell in the unit it reads in.
std::vector<Table> measured_tables(const std::vector<Sample>& samples, std::string_view source);

// The document's table only (002_e68ad5e7b1fb71fb.txt lines 83-104 layout).
Table conversion_table(const std::vector<Sample>& samples, std::string_view source);

// The document's tables from the reference data in `reference_dir`
// (suites/framework/reproduce.h; this suite's Suite::reproduce).
Reproduction reproduce_document(const std::filesystem::path& reference_dir, const ReproduceOptions& options);

}  // namespace kvmbench::suites::make_shared
