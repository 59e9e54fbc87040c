// `kvmbench gate` (and ab's result files) as one Document, whatever the
// format: the headline first (PASSED / FAILED / UNUSABLE INPUT and the exit
// status), then what was compared (comparison_lead.h), the gated metrics a
// table per metric name (case, change, CI, p(Holm), the gate's word), why
// what did not simply pass, and the rule; JUnit a test case per gated
// metric; JSON the gate's data and the comparison's.
#pragma once

#include <string>
#include <string_view>

#include "analysis/report/document.h"
#include "analysis/verdicts/gate.h"

namespace kvmbench {

Document gate_document(const GateResult& g);

// What a verdict excludes, or what would decide it, for a one-line
// verdict (ab's): ": a regression beyond +8.10% is excluded (97.5%)" for a
// pass, ": KEY neither shown nor excluded; about 7 boots a side would decide
// it" where inconclusive ("boots" being `units`), "" otherwise.
std::string verdict_exclusion(const GateResult& g, std::string_view units);

}  // namespace kvmbench
