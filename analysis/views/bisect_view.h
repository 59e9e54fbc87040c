// A bisect step's decision for the log of `git bisect run`: the answer
// first ("bisect-run: bad: ..."), then a row per metric bisected.
#pragma once

#include "analysis/report/document.h"
#include "analysis/verdicts/bisect_decision.h"

namespace kvmbench {

Document bisect_document(const BisectDecision& d);

}  // namespace kvmbench
