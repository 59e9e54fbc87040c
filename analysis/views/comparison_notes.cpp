#include "analysis/views/comparison_notes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "analysis/views/comparison_rows.h"

namespace kvmbench {

namespace {

// How one side's units were made, for the notes: "1 invocation, 5
// repetitions" or "3 invocations of 5 repetitions".
std::string side_shape(const Comparison& c, bool base) {
  std::size_t lo = SIZE_MAX, hi = 0;
  for (auto& m : c.metrics) {
    if (!(base ? m.in_base : m.in_cand) || m.from_aggregates) continue;
    const auto& u = base ? m.base_units : m.cand_units;
    const std::size_t per = u.repetitions / std::max<std::size_t>(1, u.invocations);
    lo = std::min(lo, per);
    hi = std::max(hi, per);
  }
  const std::size_t inv = (base ? c.base : c.cand).invocations;
  std::string reps = hi == 0    ? ""
                     : lo == hi ? fmt::format("{} repetition{}", hi, hi == 1 ? "" : "s")
                                : fmt::format("{} to {} repetitions", lo, hi);
  const std::string invocations = fmt::format("{} invocation{}", inv, inv == 1 ? "" : "s");
  return reps.empty() ? invocations : invocations + " of " + reps;
}

}  // namespace

std::vector<std::string> experimental_unit_notes(const Comparison& c) {
  std::vector<std::string> notes;
  const std::string what = c.repetition.empty() ? "" : " (a repetition: " + c.repetition + ")";
  const std::string base = side_shape(c, true), cand = side_shape(c, false);
  const std::string shape = base == cand ? "each side: " + base : "base: " + base + "; cand: " + cand;
  if (c.base.invocations == 1 || c.cand.invocations == 1)
    notes.push_back(fmt::format(
        "Units: {}{}. With one invocation on a side, CI and tests are over its repetitions: the noise between "
        "invocations (what makes two consecutive A/A invocations differ) is not in them. Several runs per side "
        "(BASE1,BASE2,... each a fresh `kvmbench run` or tool run) put it in.",
        shape, what));
  else
    notes.push_back(fmt::format("Units: {}{}. CI and tests are over the invocations, each the mean of its "
                                "repetitions (Kalibera and Jones 2013).",
                                shape, what));
  // Sub-units summarised, by kind.
  std::map<std::string, std::vector<std::size_t>> by_kind;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    const std::size_t most = std::max(m.base_units.most_per_repetition, m.cand_units.most_per_repetition);
    if (most < 2) continue;
    const std::string kind = m.base_units.sub_unit_kind.empty() ? m.cand_units.sub_unit_kind : m.base_units.sub_unit_kind;
    by_kind[fmt::format("up to {} {}s", most, kind)].push_back(i);
  }
  for (auto& [kind, idx] : by_kind)
    notes.push_back(fmt::format("{}: {} per repetition, summarised by their mean before any statistic "
                                "(--per-unit shows them).",
                                index_list(idx), kind));
  std::vector<std::size_t> aggregates, exact, normal;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    // Only where their mean, stddev and count gave a test or a CI: a
    // change-only row (a percentage aggregate alone) had none.
    if (m.from_aggregates && (m.status == MetricStatus::tested || m.status == MetricStatus::derived ||
                              m.status == MetricStatus::secondary))
      aggregates.push_back(i);
    if (!std::isnan(m.p_mann_whitney)) (m.mann_whitney_exact ? exact : normal).push_back(i);
  }
  if (!aggregates.empty())
    notes.push_back(fmt::format("{}: from the file's aggregates (mean, stddev, count): Welch from the summaries, no "
                                "Mann-Whitney.",
                                index_list(aggregates)));
  if (!exact.empty() || !normal.empty()) {
    std::string mw = "Mann-Whitney U:";
    if (!exact.empty()) mw += fmt::format(" exact (no ties, n <= 50) for {}", index_list(exact));
    if (!normal.empty())
      mw += fmt::format("{} normal approximation (tie and continuity corrected) for {}", exact.empty() ? "" : ";",
                        index_list(normal));
    notes.push_back(mw + ".");
  }
  auto not_measured = [&](const std::vector<NotMeasured>& list, const char* side) {
    for (auto& e : list) notes.push_back(fmt::format("{} did not measure {}: {}", side, e.case_name, e.message));
  };
  not_measured(c.base.not_measured, "base");
  not_measured(c.cand.not_measured, "cand");
  auto failed = [&](const std::vector<FailedTest>& list, const char* side) {
    for (auto& f : list)
      notes.push_back(fmt::format("{}: {} failed ({}): the figures it printed before are not compared{}", side,
                                  f.test.empty() ? "a test" : f.test, f.reason,
                                  side[0] == 'c' ? "; the gate fails on them" : ""));
  };
  failed(c.base.failed_tests, "base");
  failed(c.cand.failed_tests, "cand");
  for (auto& n : c.base.input_notes) notes.push_back("base: " + n);
  for (auto& n : c.cand.input_notes) notes.push_back("cand: " + n);
  if (c.left_out) notes.push_back(fmt::format("{} series left out by --metrics / --exclude.", c.left_out));
  return notes;
}

std::string log_scale_note(const Comparison& c) {
  for (auto& m : c.metrics)
    if (m.change.log_scale)
      return "log: the CI of the change computed on the log scale (delta method): its linear form would let a "
             "positive quantity fall by 100% or more.";
  return "";
}

}  // namespace kvmbench
