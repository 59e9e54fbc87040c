// What a run's tables lack, said where the eye lands: an interrupted or
// failed run, or one whose preset skipped parts, printed tables that read
// as complete (and `report` said "status: complete" for a run that
// measured nothing). The note goes into every table's title; a complete
// run's tables stay byte-identical.
#pragma once

#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "analysis/report/table.h"

namespace kvmbench::engine {

// "" for a complete run with no skipped part; else e.g.
// "INTERRUPTED: 1 of 5 repetitions measured",
// "FAILED after 2 of 5 repetitions", "FAILED: memslot_perf_test" (ingested
// output of a test that failed), "PARTIAL: 2 parts skipped" or
// "NOTHING MEASURED: 4 parts skipped".
std::string incomplete_note(const Run& run);

// Each title prefixed with "[note] " (after a leading "# ").
void mark_incomplete(std::vector<Table>& tables, const std::string& note);

// "flushbyasid=on: not offered by this CPU" for each skipped part this CPU
// can never run (RunContext::note_skip's not_offered): they make no run
// PARTIAL.
std::vector<std::string> not_offered_notes(const Run& run);

// "memslot_perf_test failed (memslot.tap:28): TIMEOUT 120 seconds; ..." for
// each test whose output (ingested) says it failed (meta.json "failures").
std::vector<std::string> failure_notes(const Run& run);

// All: the titles marked with incomplete_note(run), the not-offered parts
// and the failures noted under each table.
void mark_run_notes(std::vector<Table>& tables, const Run& run);

}  // namespace kvmbench::engine
