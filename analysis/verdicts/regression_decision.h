// "Is it within noise?": the verdict on a family of gated metrics that
// says what the data exclude, not only what they show. Shared by compare,
// gate, ab and bisect-run: plain structs in, plain structs out, no I/O.
//
// Per metric, with M the largest regression allowed (`--max-regression M`,
// percent, worse-positive as in regression_bound.h) and k the metrics in
// the family:
//   regression shown     today's gate rule (gate.h): Holm's p below
//                        alpha, the change worse, and the whole CI at
//                        Holm's level (family_verdicts.h) beyond M;
//   regression excluded  the one-sided bound at confidence 1 - alpha / k
//                        is below M: "a regression of M % or more is
//                        excluded";
//   inconclusive         neither: the data leave a regression of M or more
//                        possible and do not show one. It comes with the
//                        units a side that would decide it if the estimate
//                        and the spread stayed as measured
//                        (regression_bound.h's units_to_decide, with
//                        Holm's level taken as alpha / k, as if nothing
//                        else in the family were rejected).
// And for the family:
//   REGRESSION    some metric's regression beyond M is shown;
//   PASS          every metric's regression of M or more is excluded;
//   INCONCLUSIVE  otherwise: neither "no regression" nor "regression" can
//                 be said, and more units are the answer (exit 3).
// DecisionMode::significance keeps today's meaning for those who ask for
// it: REGRESSION on a shown regression, PASS otherwise. Without an M the
// decision is today's as well (nothing can be excluded against no
// margin), but every metric still states its bound: "a regression beyond
// X % is excluded", X = its one-sided bound at 1 - alpha / k.
//
// Why 1 - alpha / k. Each "excluded" claim is the one-sided test of "the
// regression is M or more" at error alpha / k. Whatever the true changes,
// only the claims of metrics that do regress by M or more can be false,
// at most k of them, each with probability at most alpha / k: the
// family-wise error of the excluded claims is at most alpha (Bonferroni's
// inequality, which needs no independence between the metrics). It is the
// level family_verdicts.h gives every metric when Holm rejects nothing,
// the family a PASS is about, so there the bound printed is the upper end
// of the one-sided version of the CI beside it. Where Holm rejects s
// metrics, family_verdicts.h judges the others at 1 - alpha / (k - s):
// right for its CIs (they must agree with the test of "no change"), not
// for exclusions. A change found significant is no evidence that another
// metric is within M: two metrics that both regress by M, both
// significantly, would be judged at alpha / 2 and alpha: the rate of any
// false "excluded" rises to about 1.5 alpha (7.1 % at 5 units a side, 8.2 %
// at 20, for alpha = 5 %: bench/within_noise_rates, section 5), towards
// 2 alpha where Holm's ranks follow the estimates. So exclusions stay at 1 - alpha / k whatever Holm
// rejected, and the printed bound is the one the PASS is decided on.
// A PASS claims all k exclusions at once. It is false only where some
// metric regresses by M or more and is excluded all the same: probability
// at most alpha / k (an intersection-union test, Berger 1982, needs no
// correction at all; the per-claim level above is what makes each row's
// "excluded" true as printed).
//
// The design's detectable regression (MDE), per metric at 80 % and 95 %
// power: the smallest true regression that this rule shows (beyond M, or
// beyond 0 without one) with that probability, at the family's level (the
// CI at 1 - alpha / k: a one-sided test at alpha / (2k)), from the units a
// side and each side's measured spread (regression_bound.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/statistics.h"
#include "analysis/verdicts/regression_bound.h"

namespace kvmbench {

enum class DecisionMode {
  within_noise,  // REGRESSION, PASS or INCONCLUSIVE (with a margin)
  significance,  // today's: REGRESSION only on a shown regression, else PASS
};

struct DecisionOptions {
  double alpha = 0.05;
  std::optional<double> max_regression_pct;  // M; none: decide as today, state the bounds
  DecisionMode mode = DecisionMode::within_noise;
};

// One gated metric, as the comparison judged it.
struct MetricEvidence {
  std::string key;
  // The model the comparison tested it with (change_model with the
  // comparison's own `linear`): for the bound, the MDE and the units.
  ChangeModel model;
  double p_holm = NAN;   // family_verdicts.h: Welch's p, Holm-adjusted
  stats::Change change;  // with its CI at Holm's level (change.level)
};

enum class MetricFinding { regression_shown, regression_excluded, inconclusive };
std::string_view to_string(MetricFinding f);  // "regression shown", ...

struct MetricDecision {
  std::string key;
  MetricFinding finding = MetricFinding::inconclusive;
  double worse_pct = NAN;  // the measured change, worse-positive
  // X: a regression beyond X % is excluded, at the family's level (+inf:
  // nothing is; NaN: no bound, too few units).
  double excluded_beyond_pct = NAN;
  double detectable_80_pct = NAN, detectable_95_pct = NAN;  // the design's MDE
  std::optional<std::size_t> units_to_decide;               // a side; inconclusive metrics with a margin
  std::string reason;                                       // one line
};

enum class FamilyVerdict { regression, pass, inconclusive };
std::string_view to_string(FamilyVerdict v);  // "REGRESSION", "PASS", "INCONCLUSIVE"
int exit_code(FamilyVerdict v);               // 1, 0, 3 (DESIGN.md's contract)

struct FamilyDecision {
  FamilyVerdict verdict = FamilyVerdict::inconclusive;
  DecisionMode mode = DecisionMode::within_noise;  // as applied: significance without a margin
  double bound_level = NAN;                        // 1 - alpha / k
  std::vector<MetricDecision> metrics;             // in the order given
  std::string reason;                              // one line
};

// The family's verdict from its metrics' findings (also for a sequential
// rule's findings, group_sequential.h): REGRESSION if any is shown; then,
// within_noise: PASS if all are excluded, else INCONCLUSIVE; significance:
// PASS.
FamilyVerdict family_verdict(const std::vector<MetricFinding>& findings, DecisionMode mode);

// Decides every metric and the family as above. Throws
// std::invalid_argument for no metric, alpha outside (0, 1), or a margin
// that is negative or not finite.
FamilyDecision decide_regressions(const std::vector<MetricEvidence>& metrics, const DecisionOptions& opt);

}  // namespace kvmbench
