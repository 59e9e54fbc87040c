#include "analysis/verdicts/sequential_gate.h"

#include <fmt/format.h>

#include "analysis/verdicts/comparison_bounds.h"

namespace kvmbench {

std::vector<MetricEvidence> sequential_evidence(const GateResult& g) {
  std::vector<MetricEvidence> out;
  for (const GateMetric& m : g.metrics)
    if (!m.skipped() && !m.decision.key.empty())
      out.push_back(metric_evidence(g.comparison.metrics[m.index], g.options.linear));
  return out;
}

void apply_sequential_look(GateResult& g, const SequentialLook& look, double margin_pct) {
  for (GateMetric& m : g.metrics) {
    if (m.skipped() || m.decision.key.empty()) continue;
    const SequentialMetric* s = nullptr;
    for (const SequentialMetric& x : look.metrics)
      if (x.key == m.decision.key) s = &x;
    if (!s) continue;
    m.decision.finding = s->finding;
    m.decision.units_to_decide.reset();  // a fixed design's estimate: not after looks
    // The finding, the gate's outcome for it, and the test (and look) it rests on.
    const bool shown = s->finding == MetricFinding::regression_shown;
    const bool excluded = s->finding == MetricFinding::regression_excluded;
    m.outcome = shown ? GateOutcome::fail : excluded ? GateOutcome::pass : GateOutcome::inconclusive;
    if (shown || excluded)
      m.message = fmt::format("a regression {} {:g} % {} at {:g} units a side (p {:.2g} below the look's boundary "
                              "{:.2g})",
                              shown ? "beyond" : "of", margin_pct, shown ? "shown" : "or more excluded",
                              s->decided_at, shown ? s->p_shown : s->p_excluded,
                              shown ? s->shown_boundary : s->excluded_boundary);
    else
      m.message = fmt::format("neither shown nor excluded at {:g} units a side (p {:.2g} and {:.2g}, boundaries "
                              "{:.2g} and {:.2g})",
                              look.information, s->p_shown, s->p_excluded, s->shown_boundary, s->excluded_boundary);
  }
  g.status = look.verdict == FamilyVerdict::regression ? GateStatus::fail
             : look.verdict == FamilyVerdict::pass     ? GateStatus::pass
                                                       : GateStatus::inconclusive;
}

}  // namespace kvmbench
