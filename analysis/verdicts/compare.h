// A/B comparison of two sets of samples (runs, Google Benchmark JSON files,
// KVM selftests output; one or more invocations per side): one row per
// series (case/variant/metric) with both sides' summaries of their
// experimental units (experimental_unit.h), the relative change and its 95%
// CI, Welch and Mann-Whitney p-values, the Holm-adjusted p across the
// tested primary metrics, and a verdict by the metric's direction. Pure:
// the caller loads the two sides (see compare_input.h).
#pragma once

#include <nlohmann/json.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/experimental_unit.h"
#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/model/series_key.h"
#include "analysis/series/series.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/run_store.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

// Seconds an invocation spends beside its repetitions (start-up, set-up)
// and one repetition takes, where the runs recorded them (NaN otherwise):
// the costs in Kalibera and Jones's choice of repetitions.
struct LevelCosts {
  double invocation_s = NAN, repetition_s = NAN;
};

// A benchmark that did not measure: errored or skipped, with its message.
struct NotMeasured {
  std::string case_name, message;
};

// A test whose output says it failed (a selftest's "not ok", its
// TEST_ASSERT; ingest's meta.json "failures"). The figures it printed
// before are marked (Series::failed): never a good run's.
struct FailedTest {
  std::string test, reason;
};

// One side of a comparison: one or more invocations (run directories or
// input files) of the same thing.
struct ComparisonSide {
  std::string label;                              // what the user named (paths, joined by ',')
  Source source = Source::replay;
  nlohmann::json meta = nlohmann::json::object(); // the first invocation's meta.json, or benchmark context
  std::vector<Series> series;                     // in first-seen order
  std::string status;                             // run status ("complete", ...); may be empty
  MetricRoles roles;                              // which metrics are derived
  std::vector<NotMeasured> not_measured;
  std::vector<FailedTest> failed_tests;
  std::vector<std::string> input_notes;          // what the input holds that is left out or read specially
  std::size_t invocations = 1;
  LevelCosts costs;
};

// The invocations the series' observations come from (the highest index + 1).
std::size_t invocations_of(const std::vector<Series>& series);

// Groups samples into series (first-seen order), dropping warm-up samples;
// every observation gets `invocation`. Time units within one series are
// converted to the first one seen; other mixed units throw
// std::runtime_error.
std::vector<Series> group_series(const std::vector<Sample>& samples, int invocation = 0);

// A side from a loaded run directory (its meta.json's metric_roles and
// repetition times; throws std::runtime_error for malformed ones).
ComparisonSide side_from_run(const Run& run, std::string label);

// Several invocations of one side as one: their series merged by key, the
// k-th side's observations as invocation k. Throws std::runtime_error when
// their sources differ.
ComparisonSide merge_invocations(std::vector<ComparisonSide> sides);

// One key whose value differs between the two sides' metadata (flattened to
// dotted paths). For lists, and long space-separated strings such as the
// kernel cmdline, only the items that differ are shown.
struct MetaDifference {
  std::string key;
  std::string base, cand;  // "(absent)" when the key is missing on that side
};


// The differences that can explain a change: configuration only
// (analysis/verdicts/configuration_keys.h), measured values within their tolerance
// counted as the same; times, paths, counters and warnings left out.
std::vector<MetaDifference> meta_differences(const nlohmann::json& base, const nlohmann::json& cand);

// The configuration keys (as above) both sides record alike, with the
// value (base == cand; within tolerance, base's).
std::vector<MetaDifference> meta_alike(const nlohmann::json& base, const nlohmann::json& cand);

// Whether kvmbench saw the host a side ran on: its meta.json has a
// "host" (a run it measured, or a captured host); published output
// (a file compared as it is, an ingested run) has none.
bool host_recorded(const nlohmann::json& meta);

// Why two runs' metadata make no comparison: runs of two suites, or of two
// presets of one suite, measure different things. "" when they may be
// compared (also when either side does not say, as a file of another
// tool's does not).
std::string different_experiments(const nlohmann::json& base, const nlohmann::json& cand);

// What was done with a metric.
enum class MetricStatus {
  tested,          // Welch (and Mann-Whitney where there are values), in the Holm family
  derived,         // a transform of a primary metric: change and CI only
  secondary,       // not a primary metric, with CompareOptions::primary_only: change and CI only
  change_only,     // too few units on a side for a test: the change, no CI, no p
  one_side,        // on one side only
  not_comparable,  // units that do not convert, or non-finite values
};

struct MetricComparison {
  SeriesKey key;                         // base's where it has the series (cand's unit converted to it)
  Direction direction = Direction::unknown;
  MetricStatus status = MetricStatus::not_comparable;
  bool in_base = false, in_cand = false;
  std::string derived_from;              // the primary metric, for a derived one
  ExperimentalUnits base_units, cand_units;
  LevelVariance base_levels, cand_levels;  // known with >= 2 invocations of >= 2 repetitions
  stats::Summary base, cand;             // of the unit values (or as given); valid where in_base / in_cand
  bool from_aggregates = false;          // either side's summary came from the file's aggregates
  std::vector<double> base_values, cand_values;          // unit values
  std::vector<Observation> base_observations, cand_observations;  // for --per-unit
  bool tested = false;                   // status == tested
  stats::Change change{NAN, NAN, NAN};   // pct also for change_only; CI also for derived
  double p_welch = NAN, p_mann_whitney = NAN;
  bool mann_whitney_exact = false;
  double p_holm = NAN;                   // Welch p, Holm-adjusted over the tested metrics
  stats::Verdict verdict = stats::Verdict::not_enough_data;
  std::string note;                      // e.g. "only in base", "n = 1: change only"
  // The side's test failed ("TIMEOUT 120 seconds"): its figures, or their
  // absence, are no good run's. Such a row is never tested
  // (not_comparable, or one_side); the gate fails on cand's.
  std::string base_failed, cand_failed;
  bool primary = true;                   // a primary metric of its suite (metric_roles.h)
  // What the data exclude (comparison_bounds.h), for a tested metric of
  // known direction: a regression beyond excluded_beyond_pct (worse-
  // positive percent; +inf: none is excluded) is excluded at the
  // comparison's bound_level; the design finds a regression of mde_80_pct
  // (mde_95_pct) with 80 % (95 %) power. NaN elsewhere.
  double excluded_beyond_pct = NAN, mde_80_pct = NAN, mde_95_pct = NAN;
};

struct CompareOptions {
  double alpha = 0.05;
  std::size_t min_n = 2;  // units per side for a test; below, the change only
  // Glob patterns (fnmatch) on a series key or its metric name: only the
  // series some `include` matches (all when empty), less those an
  // `exclude` matches.
  std::vector<std::string> include, exclude;
  // Test only the primary metrics the sides declare (metric_roles.h): what
  // a gate decides on. The others are shown with their change and CI.
  bool primary_only = true;
  // Welch on the values and Fieller's CI for every tested metric, not the
  // geometric test where the values are all positive (family_verdicts.h).
  bool linear = false;
  // Which family this comparison is: the suite's metrics (monitors left
  // out: never in a verdict's family), or the monitors alone (each tested,
  // Holm within the monitors; the explanation below a verdict).
  bool monitors_only = false;
};

// One side of a comparison as the comparison tells it: what the user
// named, what the figures are, the machine and kernel they came from, and
// what its input lacked. Read from the side's metadata once, so that
// whoever shows a Comparison needs nothing beside it.
struct ComparedSide {
  std::string label;                 // what the user named (paths, joined by ',')
  Source source = Source::replay;
  std::string status;                // run status ("complete", ...); may be empty
  MachineIdentity machine;           // fingerprint "" when the metadata does not say
  std::string machine_line;          // "lab7, AMD EPYC 9654, 192 CPUs"; "" when not recorded
  std::string kernel;                // release; "" when not recorded
  std::string suite, preset;         // "" for another tool's file
  std::size_t invocations = 1;
  std::vector<NotMeasured> not_measured;
  std::vector<FailedTest> failed_tests;
  std::vector<std::string> input_notes;  // what the input holds that is left out or read specially
  LevelCosts costs;
};

// The side record of `side` (its first invocation's metadata).
ComparedSide compared_side(const ComparisonSide& side);

struct Comparison {
  ComparedSide base, cand;
  double alpha = 0.05;
  std::vector<MetaDifference> meta_differences;  // where a side's host is unknown, none of its host's
  std::vector<MetaDifference> meta_alike;        // configuration both record alike
  bool base_host_recorded = true, cand_host_recorded = true;  // host_recorded() of each side
  std::vector<MetricComparison> metrics;  // base order, then cand-only series
  std::size_t left_out = 0;               // series --metrics / --exclude left out
  std::string repetition;                 // what a repetition is, where the runs say
  double bound_level = NAN;               // of the metrics' exclusions: 1 - alpha / k
  // The monitors (metric_roles.h), compared as a family of their own: every
  // monitor series of either side, tested where both have >= 2 units, Holm
  // within the monitors. Never part of `metrics`, the verdict or an exit code.
  std::vector<MetricComparison> monitors;

  // "hardware", or "base hardware, cand replay" when they differ.
  std::string source_label() const;
  std::size_t tested_count() const;
  // Whether both sides ran on one machine as far as their metadata say
  // (equal fingerprints, or neither says).
  bool one_machine() const { return base.machine.fingerprint == cand.machine.fingerprint; }
};

// Compares cand against base, unit values against unit values
// (experimental_unit.h). Verdicts use Welch's p-value (on the logs where
// the values are positive), Holm-adjusted over the tested primary metrics,
// so that "faster"/"slower" across many metrics keeps the family-wise error
// rate at alpha, each with the CI that agrees with it (family_verdicts.h);
// derived metrics are shown, not tested. Monitors go to `monitors`, a family
// of their own (not filtered by include/exclude). Throws
// std::invalid_argument for a malformed glob pattern.
Comparison compare(const ComparisonSide& base, const ComparisonSide& cand,
                   const CompareOptions& opt = {});

}  // namespace kvmbench
