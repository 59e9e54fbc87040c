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
#pragma once

#include <nlohmann/json.hpp>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace kvmbench::adaptive {

struct StoppingRule {
  double target_ci_pct = 2.0;  // 95% CI half-width of the mean, % of the mean
  std::size_t warmup_runs = 1; // first runs, measured and discarded
  std::size_t min_runs = 3;    // measured runs before convergence may stop
  std::size_t max_runs = 30;   // measured runs (warm-ups not counted)
  double max_time_s = 600;     // wall time of all runs, warm-ups included
  double high_cv_pct = 5.0;    // stability warning above this CV
  double outlier_z = 3.5;      // modified Z-score (Iglewicz-Hoaglin) threshold
};

enum class Decision { run_again, stop_converged, stop_max_runs, stop_max_time };
const char* to_string(Decision d);

struct MetricPrecision {
  std::string key;
  std::size_t n = 0;
  double mean = 0;
  double ci_half_width_pct = 0;  // NaN while n < 2 or the mean is 0
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
