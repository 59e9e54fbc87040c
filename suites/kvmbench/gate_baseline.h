// The two ways `kvmbench gate` gets its baseline besides the candidate:
// named files (run directories, benchmark output), which must come from
// the candidate's machine unless --cross-machine; or the results database
// (--baseline db[:QUERY], analysis/verdicts/history_baseline.h), whose runs are of
// the candidate's machine by construction.
#pragma once

#include <optional>
#include <string>

#include "analysis/verdicts/gate.h"

namespace kvmbench::cli {

// BASE as named, or with `from_database` BASE is `db[:QUERY]` and the
// baseline comes from the database `db` (--db, $KVMBENCH_DB,
// results/kvmbench.db). Throws (std::exception) with the reason the input
// is unusable; the caller makes that an unusable gate.
GateResult gate_against_baseline(const std::string& base, const std::string& cand_arg,
                                 const std::optional<std::string>& db, bool cross_machine, const GateOptions& go,
                                 bool from_database);

}  // namespace kvmbench::cli
