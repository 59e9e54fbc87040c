#include "analysis/verdicts/comparison_bounds.h"

#include <cmath>

namespace kvmbench {

MetricEvidence metric_evidence(const MetricComparison& m, bool linear) {
  MetricEvidence e;
  e.key = m.key.name();
  if (!m.base_values.empty() && !m.cand_values.empty()) {
    e.model = change_model(m.base_values, m.cand_values, m.direction, linear);
  } else {
    // Only the file's aggregates: the model of the summaries as given.
    e.model.geometric = false;
    e.model.direction = m.direction;
    e.model.base = m.base;
    e.model.cand = m.cand;
  }
  e.p_holm = m.p_holm;
  e.change = m.change;
  return e;
}

bool has_bound(const MetricComparison& m) {
  return m.tested && m.direction != Direction::unknown && m.base_failed.empty() && m.cand_failed.empty();
}

bool says_nothing(double pct, Direction d) {
  return std::isinf(pct) || (d == Direction::higher_is_better && pct >= 99.995);
}

void state_bounds(Comparison& c, bool linear) {
  std::vector<MetricEvidence> evidence;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    if (!has_bound(c.metrics[i])) continue;
    evidence.push_back(metric_evidence(c.metrics[i], linear));
    index.push_back(i);
  }
  if (evidence.empty()) return;
  const FamilyDecision f = decide_regressions(evidence, {.alpha = c.alpha});
  c.bound_level = f.bound_level;
  for (std::size_t j = 0; j < index.size(); ++j) {
    MetricComparison& m = c.metrics[index[j]];
    m.excluded_beyond_pct = f.metrics[j].excluded_beyond_pct;
    m.mde_80_pct = f.metrics[j].detectable_80_pct;
    m.mde_95_pct = f.metrics[j].detectable_95_pct;
  }
}

}  // namespace kvmbench
