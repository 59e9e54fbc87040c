// The gate's result as a sequential experiment decides it (`ab -n auto`):
// the evidence a look takes from a gate's comparison, and the gate's
// outcomes made the look's, so that the JUnit, Markdown and text
// documents say what the sequential rule decided, not what one fixed look
// at the same boots would have (sequential_decision.h).
#pragma once

#include <vector>

#include "analysis/verdicts/gate.h"
#include "analysis/verdicts/sequential_decision.h"

namespace kvmbench {

// The metrics the gate decided (regression_decision.h's family), as the
// look's evidence, in the gate's order.
std::vector<MetricEvidence> sequential_evidence(const GateResult& g);

// The gate's status and its decided metrics' outcomes and messages from
// the look: REGRESSION fails, PASS passes, else inconclusive (the look
// need not be the last: an experiment stopped by hand ends on one).
void apply_sequential_look(GateResult& g, const SequentialLook& look, double margin_pct);

}  // namespace kvmbench
