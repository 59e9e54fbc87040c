#include "analysis/verdicts/bisect_decision.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "analysis/report/numbers.h"
#include "analysis/verdicts/history_baseline.h"

namespace kvmbench {

int exit_code(BisectAnswer a) {
  switch (a) {
    case BisectAnswer::good: return 0;
    case BisectAnswer::bad: return 1;
    case BisectAnswer::skip: return 125;
  }
  return 125;
}

namespace {

// The candidate against one reference, retested against the reference
// runs' between-run noise: change and Holm p by series key.
std::map<std::string, std::pair<double, double>> against(const ComparisonSide& ref, const ComparisonSide& cand,
                                                         const std::vector<std::string>& keys, double alpha) {
  CompareOptions co;
  co.alpha = alpha;
  co.include = keys;  // only the metrics bisected: they are the Holm family
  Comparison c = compare(ref, cand, co);
  retest_against_history(c);
  std::map<std::string, std::pair<double, double>> out;
  for (const auto& m : c.metrics)
    if (m.tested) out[m.key.name()] = {m.change.pct, m.p_holm};
  return out;
}

}  // namespace

std::string_view to_string(BisectAnswer a) {
  return a == BisectAnswer::good ? "good" : a == BisectAnswer::bad ? "bad" : "skip";
}

BisectDecision decide_bisect(const ComparisonSide& good, const ComparisonSide& bad, const ComparisonSide& cand,
                             double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument(fmt::format("alpha must be in (0, 1), not {}", alpha));
  BisectDecision d;
  CompareOptions co;
  co.alpha = alpha;
  co.primary_only = true;
  const Comparison gb = compare(good, bad, co);
  std::vector<std::string> keys;
  for (const auto& m : gb.metrics)
    if (m.tested && m.p_holm < alpha) {
      keys.push_back(m.key.name());
      d.metrics.push_back({m.key.name(), m.change.pct});
    }
  if (keys.empty()) {
    d.reason = fmt::format("good and bad do not differ significantly in any primary metric (Holm, alpha {}): "
                           "nothing to bisect, so no commit is called bad",
                           alpha);
    return d;
  }
  const auto vs_good = against(good, cand, keys, alpha), vs_bad = against(bad, cand, keys, alpha);
  std::size_t goods = 0, bads = 0;
  for (auto& m : d.metrics) {
    const auto g = vs_good.find(m.key), b = vs_bad.find(m.key);
    if (g == vs_good.end() || b == vs_bad.end()) continue;  // not measured (enough) at this commit
    m.cand_vs_good_pct = g->second.first;
    m.p_good = g->second.second;
    m.cand_vs_bad_pct = b->second.first;
    m.p_bad = b->second.second;
    const bool off_good = m.p_good < alpha, off_bad = m.p_bad < alpha;
    // Toward bad: the candidate moved from good the way bad did.
    const bool toward_bad = (m.cand_vs_good_pct > 0) == (m.good_to_bad_pct > 0);
    if (off_good && !off_bad && toward_bad) m.says = BisectAnswer::bad;
    else if (off_bad && !off_good) m.says = BisectAnswer::good;
    goods += m.says == BisectAnswer::good;
    bads += m.says == BisectAnswer::bad;
  }
  if (bads == d.metrics.size()) {
    d.answer = BisectAnswer::bad;
    d.reason = fmt::format("bad: in all {} metric(s) bisected it differs from good and not from bad", bads);
  } else if (goods == d.metrics.size()) {
    d.answer = BisectAnswer::good;
    d.reason = fmt::format("good: in all {} metric(s) bisected it differs from bad and not from good", goods);
  } else {
    d.reason = fmt::format("skip: {} of {} metric(s) say good, {} bad, the rest cannot tell (it differs from both "
                           "references or from neither, or was not measured)",
                           goods, d.metrics.size(), bads);
  }
  return d;
}

}  // namespace kvmbench
