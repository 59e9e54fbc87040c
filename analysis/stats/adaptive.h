// Adaptive repetitions (`kvmbench run ... -r auto`): a stopping rule that is
// fed one run at a time and says whether to run again, and why it stopped;
// plus the stability warnings good harnesses print, and warnings about host
// settings that add noise. Warnings, never refusals. Pure: the caller
// measures, and reads the host metadata.
//
// Use:
//   adaptive::StoppingRule rule;           // target 2%, 3..30 runs, 600 s
//   rule.target_ci_pct = 1.0;
//   adaptive::AdaptiveRepetitions rep(rule);
//   while (true) {
//     bool warm = rep.next_is_warmup();    // mark the samples warmup=true
//     ... measure one repetition ...
//     rep.add_run({{"case/variant/metric", value}, ...}, elapsed_seconds);
//     auto st = rep.status();
//     if (st.decision != adaptive::Decision::run_again) { print st.reason; break; }
//   }
//   for (auto& w : rep.stability_warnings()) print w;
//   for (auto& w : adaptive::host_noise_warnings(meta_json)) print w;
//
// The rule is `ab -n auto`'s (group_sequential.h): stopping once an
// interval is narrow enough picks the runs whose spread came out small, and
// the plain 95 % t interval it stops with holds the mean 84-92 % of the
// time (bench/within_noise_rates r-auto). So each look (a run from
// min_runs on) tests the width of a repeated confidence interval
// (Jennison and Turnbull, "Interim analyses: the repeated confidence
// interval approach", JRSS B 51, 1989; their book, chapter 9): each side's
// 2.5 % spent over the looks by O'Brien-Fleming-type spending of
// information n / max_runs, the look's normal boundary carried to the t of
// n - 1 df through its tail probability (ibid. 11.4). Together the
// intervals of all looks hold the mean with 95 %, so the one the run stops
// with does too, whenever it stops.
#pragma once

#include <nlohmann/json.hpp>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/stats/group_sequential.h"

namespace kvmbench::adaptive {

struct StoppingRule {
  double target_ci_pct = 2.0;  // 95% CI half-width of the mean, % of the mean
  std::size_t warmup_runs = 1; // first runs, measured and discarded
  std::size_t min_runs = 3;    // measured runs before convergence may stop
  std::size_t max_runs = 30;   // measured runs (warm-ups not counted)
  double max_time_s = 600;     // wall time of all runs, warm-ups included
  double high_cv_pct = 5.0;    // stability warning above this CV
  double outlier_z = 3.5;      // modified Z-score (Iglewicz-Hoaglin) threshold
  // How the repeated CI spends its 2.5 % a side over the looks.
  stats::SpendingFunction spending = stats::SpendingFunction::obrien_fleming;
};

enum class Decision { run_again, stop_converged, stop_max_runs, stop_max_time };
const char* to_string(Decision d);

struct MetricPrecision {
  std::string key;
  std::size_t n = 0;
  double mean = 0;
  // The repeated 95 % CI's half-width at this look, % of the mean; NaN
  // before min_runs (no look yet) or when the mean is 0.
  double ci_half_width_pct = 0;
};

struct Status {
  Decision decision = Decision::run_again;
  std::string reason;                 // one sentence, for the terminal and meta.json
  std::size_t measured_runs = 0, warmup_runs = 0;
  double elapsed_s = 0;
  std::vector<MetricPrecision> metrics;
};

// One stability warning: `kind` names what it is about ("high variation",
// "outliers", "cold first run"), `text` says it in full.
struct StabilityWarning {
  std::string kind;
  std::string text;
  std::size_t runs = 0;  // the measured runs it was computed from
};

class AdaptiveRepetitions {
 public:
  explicit AdaptiveRepetitions(StoppingRule rule = {});

  // True while the next run is one of the warm-up runs.
  bool next_is_warmup() const;
  // One run: the value of every primary metric (series key -> value) and
  // the run's wall time. A warm-up run's values are recorded but not used.
  // Throws std::invalid_argument for a non-finite value or negative time.
  void add_run(const std::map<std::string, double>& primary, double elapsed_s);

  Status status() const;
  // The repeated 95 % CI's half-width after n runs, in multiples of
  // s / sqrt(n) (a t quantile); +inf where the rule does not look (before
  // min_runs; between looks, when max_runs - min_runs + 1 is more than
  // kMostLooks and the looks are spread evenly instead).
  double repeated_ci_factor(std::size_t n) const;
  static constexpr std::size_t kMostLooks = 40;
  // High CV, outliers (modified Z of the MAD), a slow first measured run.
  std::vector<std::string> stability_warnings() const;
  // The same warnings with their kind and the number of runs each rests
  // on, so that a terminal can count them per kind and leave out the ones
  // from too few runs to mean much.
  std::vector<StabilityWarning> stability_findings() const;

  const StoppingRule& rule() const { return rule_; }
  // The measured (non-warm-up) values of one metric, in run order.
  const std::vector<double>& values(const std::string& key) const;

 private:
  StoppingRule rule_;
  // The runs after which the rule looks, and each look's one-sided tail
  // probability: computed at the first look, so that a fixed -r N (which
  // uses this class for its warnings only) never pays for them.
  std::vector<std::size_t> looks_;
  mutable std::vector<double> look_tail_;
  std::size_t warmups_done_ = 0, measured_ = 0;
  double elapsed_s_ = 0;
  std::vector<double> run_times_;                     // measured runs only
  std::vector<std::string> order_;                    // first-seen order of keys
  std::map<std::string, std::vector<double>> values_;
};

// Modified Z-scores 0.6745 (x - median) / MAD (Iglewicz and Hoaglin); all 0
// when the MAD is 0.
std::vector<double> modified_z_scores(const std::vector<double>& xs);

// Warnings about host settings that add noise, from a run's meta.json (or
// its host part): cpufreq governor not "performance", turbo/boost on, THP
// defrag "always", ASLR on (randomize_va_space != 0). Looks the settings up
// by key name anywhere in the JSON, so it works on the whole meta.json.
std::vector<std::string> host_noise_warnings(const nlohmann::json& meta);

}  // namespace kvmbench::adaptive
