// What `kvmbench plan` says (verdicts/pilot_plan.h): the design for the
// whole experiment in the lead, a row per primary metric with its variance
// components (as coefficients of variation: the sd of the logs, in percent,
// for a positive metric) and its own cheapest design.
#pragma once

#include "analysis/report/document.h"
#include "analysis/verdicts/pilot_plan.h"

namespace kvmbench {

Document plan_document(const PilotPlan& p);

// "45 s", "12.5 min", "3.2 h".
std::string format_duration(double seconds);

}  // namespace kvmbench
