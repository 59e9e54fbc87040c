// A run directory's meta.json and samples.jsonl (analysis/store/run_store.h),
// written by someone else: the input is meta.json's text, a line holding
// only the byte 0x1e, then samples.jsonl's (without that line: meta.json
// alone). Read as report, compare, gate and merge read it, and as db import
// does (analysis/store/run_record.h); a run that loads then goes through what
// those commands compute from it (report tables, a comparison with itself,
// every export, a merge).
#include "analysis/verdicts/compare.h"
#include "analysis/views/export_view.h"
#include "analysis/report/render/renderer.h"
#include "analysis/verdicts/fleet_merge.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/verdicts/run_export.h"
#include "analysis/store/run_record.h"
#include "analysis/store/run_store.h"
#include "suites/engine/run_report.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  constexpr std::string_view kSeparator = "\n\x1e\n";
  const std::size_t at = data.find(kSeparator);
  const std::string_view meta = data.substr(0, at == std::string_view::npos ? data.size() : at + 1);
  const std::optional<std::string_view> samples =
      at == std::string_view::npos ? std::nullopt : std::optional(data.substr(at + kSeparator.size()));
  const std::filesystem::path dir = "fuzz/replay-20260101T000000Z-lab1";
  bool stored = false;
  try {
    db::run_record_from_text(dir.filename().string(), std::string(meta), samples.value_or(""), dir);
    stored = true;
  } catch (const std::runtime_error&) {
  }
  // What db import stores, report reads: the database holds no run that
  // `report` of its directory would refuse.
  Run run;
  try {
    run = run_from_text(dir, meta, samples, SampleProvenance::drop);
    check_sample_count(run);
    engine::report_tables(run, engine::ReportDetail::data);
  } catch (const std::exception& e) {
    if (stored) fuzz_finding(std::string("db import stores a run that report refuses: ") + e.what());
    throw;
  }
  const ComparisonSide side = side_from_run(run, "base");
  compare(side, side);
  const ExportedRun exported = export_run(run, dir.filename().string());
  render(export_document({exported}), Format::junit);
  render_export_lava({exported});
  render_export_kcidb({exported}, "fuzz");
  render(export_document({exported}), Format::md);
  fleet_tables(merge_fleet({{exported, machine_identity(run.meta).fingerprint}, {exported, "other"}}));
}

const RegisterFuzzTarget target({"run_files", {}, run});

}  // namespace
}  // namespace kvmbench::fuzz
