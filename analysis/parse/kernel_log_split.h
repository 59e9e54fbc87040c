// Telling apart the experiments of one kernel log capture. A capture often
// holds more than one: the boots of two kernels, or a loop before and after
// a change, run one after the other (post 000 has the all-CPU sweeps
// and, two minutes later, the leader-only ones, in one mail). Pooled, they
// would read as one series; `kvmbench ingest --split-by` keeps them apart,
// and without it ingest says what it would have split.
//   boot     a new part where the uptime goes backwards (a reboot)
//   gap=S    a new part where a record comes more than S seconds after the
//            one before it (uptime; records without one stay in the part
//            before them)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse/kernel_log.h"

namespace kvmbench::parsers {

struct SplitRule {
  enum class By { boot, gap } by = By::boot;
  double gap_s = 0;
  // "boot=N" or "part=N": what the N-th part is called (in the variant).
  std::string label(int part) const;
};

// "boot", "gap=60" or "gap=60s"; nullopt for anything else (and for a gap
// that is not a positive number of seconds).
std::optional<SplitRule> parse_split_rule(std::string_view text);

// The 1-based part of each record, in order.
std::vector<int> split_parts(const std::vector<KernelRecord>& records, const SplitRule& rule);

// What pooling the records would hide, one sentence each (empty when
// nothing): boots (the uptime went backwards), and for each case a gap far
// longer than its records' usual spacing (over 30 s and 10 times the
// median), with the --split-by that keeps them apart. `case_of` is the case
// of each record.
std::vector<std::string> pooling_hints(const std::vector<KernelRecord>& records,
                                       const std::vector<std::string>& case_of);

}  // namespace kvmbench::parsers
