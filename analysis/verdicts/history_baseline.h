// `kvmbench gate --baseline db[:QUERY] CAND`: the baseline is taken from the
// results database, and the verdict is against the history's between-run
// noise.
//
// Which runs: those of the candidate's machine (its fingerprint), suite,
// preset and parameters, complete, with the candidate's source, the
// candidate itself excluded; QUERY narrows them: `kernel=RELEASE` (the runs
// of a named kernel) and `last=N` (the newest N, default 10), joined by
// ',': "db", "db:kernel=6.9.0", "db:kernel=6.9.0,last=5".
//
// The test: each history run is one value (the mean of its repetitions),
// so the spread of those N values is the between-run noise (another boot,
// another process, another day), which a run's own repetitions never show.
// A candidate run's mean y is one more draw of that distribution when
// nothing changed, so it is judged by the prediction interval of the
// history mean xbar with s, the history runs' standard deviation:
//   t = (y - xbar) / (s * sqrt(1/N + 1/M)),  df = N - 1,
// M = the candidate's invocations (1 for one run). The change is
// 100 (y - xbar) / xbar with the CI 100 (y - xbar +- t * se) / xbar, t at
// the level Holm used for the metric (family_verdicts.h); p-values are
// Holm-adjusted over the gated metrics as in any gate. Where every value is
// positive the same on the logs (the change a ratio of geometric means): a
// rate's CI then never reaches -100%. It assumes the candidate run repeats
// as many times as the history runs did (their means then have the same
// spread).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/store/db/results_db.h"

namespace kvmbench {

struct BaselineQuery {
  std::string kernel;     // "" any
  std::size_t last = 10;  // newest runs taken
};

// nullopt when `base` does not start with "db" (a run directory, a file);
// throws std::invalid_argument for a query it cannot read.
std::optional<BaselineQuery> parse_baseline_spec(std::string_view base);

struct HistoryBaseline {
  ComparisonSide side;          // the history runs as invocations of one side
  std::vector<db::RunRow> runs; // newest first
};

// The baseline for `cand` (its meta, and the run directories it was loaded
// from, to leave out). Throws std::invalid_argument saying why there is
// none: the candidate records no machine or suite, or fewer than `min_runs`
// runs match (with what was looked for).
HistoryBaseline baseline_from_history(db::ResultsDb& rdb, const ComparisonSide& cand,
                                      const std::vector<std::string>& cand_dir_names, const BaselineQuery& q,
                                      std::size_t min_runs);

// Replaces the tests of the comparison's tested metrics by the prediction
// test above (base: the history runs), Holm over them again, and the
// verdicts; what evaluate_gate's `retest` takes.
void retest_against_history(Comparison& c);

}  // namespace kvmbench
