// `kvmbench gate` (and ab's result files) as one Document, whatever the
// format: the headline first (PASSED / FAILED / UNUSABLE INPUT and the exit
// status), then what was compared (comparison_lead.h), the gated metrics a
// table per metric name (case, change, CI, p(Holm), the gate's word), why
// what did not simply pass, and the rule; JUnit a test case per gated
// metric; JSON the gate's data and the comparison's.
#pragma once

#include "analysis/report/document.h"
#include "analysis/verdicts/gate.h"

namespace kvmbench {

Document gate_document(const GateResult& g);

}  // namespace kvmbench
