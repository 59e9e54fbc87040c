#include "analysis/stats/adaptive.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

#include "analysis/model/flatten_json.h"
#include "analysis/stats/group_sequential.h"
#include "analysis/stats/statistics.h"

namespace kvmbench::adaptive {

const char* to_string(Decision d) {
  switch (d) {
    case Decision::run_again: return "run again";
    case Decision::stop_converged: return "converged";
    case Decision::stop_max_runs: return "max runs reached";
    case Decision::stop_max_time: return "max time reached";
  }
  return "?";
}

// Each side of the two-sided 95 % interval.
constexpr double kSideError = 0.025;

AdaptiveRepetitions::AdaptiveRepetitions(StoppingRule rule) : rule_(rule) {
  if (!(rule_.target_ci_pct > 0)) throw std::invalid_argument("target CI must be > 0 %");
  if (rule_.min_runs < 2) rule_.min_runs = 2;  // a CI needs two values
  if (rule_.max_runs < rule_.min_runs) rule_.max_runs = rule_.min_runs;
  // A look after every run, or kMostLooks spread evenly from min_runs to
  // max_runs (the recursive integration's error grows with the looks, and
  // a thousand of them would take seconds).
  const std::size_t span = rule_.max_runs - rule_.min_runs;
  const std::size_t looks = std::min(span + 1, kMostLooks);
  for (std::size_t i = 0; i < looks; ++i) {
    const std::size_t n = looks == 1 ? rule_.max_runs : rule_.min_runs + (i * span + (looks - 1) / 2) / (looks - 1);
    if (looks_.empty() || n > looks_.back()) looks_.push_back(n);
  }
}

double AdaptiveRepetitions::repeated_ci_factor(std::size_t n) const {
  // Past max_runs (never reached by the rule) the last look's boundary.
  n = std::min(n, rule_.max_runs);
  const auto at = std::find(looks_.begin(), looks_.end(), n);
  if (at == looks_.end()) return INFINITY;  // no look after this run
  if (look_tail_.empty()) {
    std::vector<double> information(looks_.begin(), looks_.end());
    const auto z = stats::spending_boundaries(
        information, [&](double t) { return stats::alpha_spent(rule_.spending, kSideError, t); });
    for (double zk : z) look_tail_.push_back(std::isfinite(zk) ? 1 - stats::normal_cdf(zk) : 0.0);
  }
  const double tail = look_tail_[static_cast<std::size_t>(at - looks_.begin())];
  if (!(tail > 0)) return INFINITY;  // nothing spent at this look
  return stats::student_t_quantile(1 - tail, static_cast<double>(n - 1));
}

bool AdaptiveRepetitions::next_is_warmup() const { return warmups_done_ < rule_.warmup_runs; }

void AdaptiveRepetitions::add_run(const std::map<std::string, double>& primary, double elapsed_s) {
  if (!(elapsed_s >= 0) || !std::isfinite(elapsed_s))
    throw std::invalid_argument("run time must be a finite number >= 0");
  for (auto& [k, v] : primary)
    if (!std::isfinite(v)) throw std::invalid_argument(fmt::format("metric '{}': value is not finite", k));
  elapsed_s_ += elapsed_s;
  if (next_is_warmup()) {
    ++warmups_done_;
    return;
  }
  ++measured_;
  run_times_.push_back(elapsed_s);
  for (auto& [k, v] : primary) {
    if (!values_.count(k)) order_.push_back(k);
    values_[k].push_back(v);
  }
}

const std::vector<double>& AdaptiveRepetitions::values(const std::string& key) const {
  static const std::vector<double> none;
  auto it = values_.find(key);
  return it == values_.end() ? none : it->second;
}

Status AdaptiveRepetitions::status() const {
  Status st;
  st.measured_runs = measured_;
  st.warmup_runs = warmups_done_;
  st.elapsed_s = elapsed_s_;
  bool all_within = !order_.empty();
  std::string worst;
  double worst_pct = -1;
  for (auto& k : order_) {
    const auto& v = values_.at(k);
    MetricPrecision mp{k, v.size(), NAN, NAN};
    auto s = stats::summarize(v);
    mp.mean = s.mean;
    const double factor = repeated_ci_factor(v.size());
    if (std::isfinite(factor) && s.mean != 0)
      mp.ci_half_width_pct = factor * s.stddev / std::sqrt(static_cast<double>(v.size())) / std::fabs(s.mean) * 100;
    if (!(mp.ci_half_width_pct <= rule_.target_ci_pct)) all_within = false;
    double w = std::isnan(mp.ci_half_width_pct) ? INFINITY : mp.ci_half_width_pct;
    if (w > worst_pct) worst_pct = w, worst = k;
    st.metrics.push_back(mp);
  }
  auto worst_text = [&] {
    return std::isfinite(worst_pct) ? fmt::format("{} at ±{:.2f}%", worst, worst_pct) : worst + " (no CI yet)";
  };
  const double mean_run = run_times_.empty() ? 0 : elapsed_s_ / static_cast<double>(measured_ + warmups_done_);
  if (measured_ >= rule_.min_runs && all_within) {
    st.decision = Decision::stop_converged;
    st.reason = fmt::format("converged after {} runs: the repeated 95% CI of every primary metric (group-"
                            "sequential, at most {} runs) is within ±{}% (widest: {})",
                            measured_, rule_.max_runs, rule_.target_ci_pct, worst_text());
  } else if (measured_ >= rule_.max_runs) {
    st.decision = Decision::stop_max_runs;
    st.reason = fmt::format("stopped at the maximum of {} runs before reaching ±{}%: widest repeated CI {}",
                            rule_.max_runs, rule_.target_ci_pct, worst_text());
  } else if (elapsed_s_ >= rule_.max_time_s || (measured_ + warmups_done_ > 0 && elapsed_s_ + mean_run > rule_.max_time_s)) {
    st.decision = Decision::stop_max_time;
    st.reason = fmt::format("stopped after {} runs ({:.1f} s): another run would pass the time limit of {} s "
                            "before reaching ±{}%; widest repeated CI {}",
                            measured_, elapsed_s_, rule_.max_time_s, rule_.target_ci_pct, worst_text());
  } else {
    st.decision = Decision::run_again;
    st.reason = next_is_warmup()
                    ? fmt::format("warm-up run {} of {}", warmups_done_ + 1, rule_.warmup_runs)
                    : measured_ < rule_.min_runs
                          ? fmt::format("{} of at least {} runs", measured_, rule_.min_runs)
                          : fmt::format("not yet within ±{}%: {}", rule_.target_ci_pct, worst_text());
  }
  return st;
}

static double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<double> modified_z_scores(const std::vector<double>& xs) {
  std::vector<double> z(xs.size(), 0.0);
  if (xs.size() < 3) return z;
  double med = median_of(xs);
  std::vector<double> dev;
  for (double x : xs) dev.push_back(std::fabs(x - med));
  double mad = median_of(dev);
  double scale;
  if (mad > 0) {
    scale = mad / 0.6745;
  } else {
    // More than half the values are equal: fall back to the mean absolute
    // deviation (1.2533 * MeanAD estimates sigma for normal data).
    double mean_ad = 0;
    for (double d : dev) mean_ad += d;
    mean_ad /= static_cast<double>(dev.size());
    if (mean_ad == 0) return z;
    scale = 1.253314 * mean_ad;
  }
  for (std::size_t i = 0; i < xs.size(); ++i) z[i] = (xs[i] - med) / scale;
  return z;
}

std::vector<std::string> AdaptiveRepetitions::stability_warnings() const {
  std::vector<std::string> texts;
  for (auto& f : stability_findings()) texts.push_back(f.text);
  return texts;
}

std::vector<StabilityWarning> AdaptiveRepetitions::stability_findings() const {
  std::vector<StabilityWarning> w;
  for (auto& k : order_) {
    const auto& v = values_.at(k);
    if (v.size() < 2) continue;
    auto s = stats::summarize(v);
    if (std::isfinite(s.cv) && s.cv * 100 > rule_.high_cv_pct)
      w.push_back({"high variation",
                   fmt::format("{}: high variation, CV {:.1f}% (> {}%) over {} runs: the result is unstable; "
                               "check the host for noise (see the host warnings) or pin the workload",
                               k, s.cv * 100, rule_.high_cv_pct, v.size()),
                   v.size()});
    auto z = modified_z_scores(v);
    std::string which;
    std::size_t count = 0;
    for (std::size_t i = 0; i < z.size(); ++i)
      if (std::fabs(z[i]) > rule_.outlier_z) {
        if (count < 5) which += fmt::format("{}run {} ({:.6g})", count ? ", " : "", i + 1, v[i]);
        ++count;
      }
    if (count)
      w.push_back({"outliers",
                   fmt::format("{}: {} of {} runs are outliers (modified Z > {}): {}", k, count, v.size(),
                               rule_.outlier_z, which),
                   v.size()});
  }
  if (run_times_.size() >= 3) {
    std::vector<double> rest(run_times_.begin() + 1, run_times_.end());
    double med = median_of(rest);
    auto z = modified_z_scores(run_times_);
    if (run_times_[0] > med * 1.1 && z[0] > rule_.outlier_z)
      w.push_back({"cold first run",
                   fmt::format("the first measured run took {:.3g} s, the others {:.3g} s (median): caches, "
                               "page tables or CPU frequency were not warmed up; use more warm-up runs",
                               run_times_[0], med),
                   run_times_.size()});
  }
  return w;
}

// ---- host settings ----------------------------------------------------------

static std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "always [madvise] never" -> "madvise"; a plain value stays as it is.
static std::string selected(const std::string& v) {
  auto a = v.find('['), b = v.find(']');
  if (a != std::string::npos && b != std::string::npos && b > a) return v.substr(a + 1, b - a - 1);
  return v;
}

static bool truthy(const std::string& v) {
  std::string s = lower(selected(v));
  return s == "1" || s == "true" || s == "on" || s == "enabled" || s == "yes";
}

static bool falsy(const std::string& v) {
  std::string s = lower(selected(v));
  return s == "0" || s == "false" || s == "off" || s == "disabled" || s == "no";
}

std::vector<std::string> host_noise_warnings(const nlohmann::json& meta) {
  std::vector<std::string> w;
  std::set<std::string> governors;
  std::string boost_key, no_turbo_key, defrag_value, aslr_value, reporting_order;
  for (auto& [key, value] : flatten_json(meta)) {
    // An empty object or a null (e.g. no cpufreq on a VM) says nothing.
    if (value.empty() || value == "{}" || value == "[]" || value == "null") continue;
    std::string k = lower(key);
    std::string last = k.substr(k.find_last_of('.') == std::string::npos ? 0 : k.find_last_of('.') + 1);
    // hostlib's metadata: cpufreq.governors = {governor: cpu list} and
    // cpufreq.boost = {enabled: bool, from: ...}.
    if (k.find(".governors.") != std::string::npos) {
      governors.insert(last);
      continue;
    }
    if (last == "enabled" && k.find("boost.enabled") != std::string::npos) {
      if (truthy(value)) boost_key = key;
      continue;
    }
    if (last.find("governor") != std::string::npos) {
      // Per-CPU lists come as "performance powersave ..."; each word counts.
      std::string word;
      for (char ch : value + " ") {
        if (ch == ' ') {
          if (!word.empty()) governors.insert(word);
          word.clear();
        } else {
          word += ch;
        }
      }
    } else if ((last == "boost" || last == "cpb" || last == "turbo" || last == "boost_enabled") && truthy(value)) {
      boost_key = key;
    } else if (last == "no_turbo" && falsy(value)) {
      no_turbo_key = key;
    } else if (last.find("defrag") != std::string::npos && k.find("khugepaged") == std::string::npos) {
      if (lower(selected(value)) == "always") defrag_value = value;
    } else if (last == "randomize_va_space" || last == "aslr") {
      if (!falsy(value) && !value.empty()) aslr_value = value;
    } else if (last == "free_page_reporting_order" && !value.empty() && value != "null") {
      // Above the largest buddy order (10 on x86) nothing is reported:
      // held off (`run --steady` does that).
      int order = -1;
      std::from_chars(value.data(), value.data() + value.size(), order);
      if (order <= 10) reporting_order = value;
    }
  }
  governors.erase("performance");
  if (!governors.empty()) {
    std::string g;
    for (auto& x : governors) g += (g.empty() ? "" : ", ") + x;
    w.push_back(fmt::format("CPU frequency governor is {} (not performance): clock ramps add noise; "
                            "cpupower frequency-set -g performance",
                            g));
  }
  if (!boost_key.empty())
    w.push_back(fmt::format("CPU boost/turbo is on ({}): the clock depends on temperature and load; "
                            "turn it off for stable results",
                            boost_key));
  if (!no_turbo_key.empty())
    w.push_back(fmt::format("Intel turbo is on ({} = 0): the clock depends on temperature and load; "
                            "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo",
                            no_turbo_key));
  if (!defrag_value.empty())
    w.push_back("THP defrag is 'always': page faults may stall in direct compaction; "
                "use madvise or never unless THP is what you measure");
  if (!aslr_value.empty())
    w.push_back(fmt::format("ASLR is on (randomize_va_space = {}): address layout varies between runs; "
                            "echo 0 > /proc/sys/kernel/randomize_va_space for steadier results (`run --steady` "
                            "does it for a run)",
                            aslr_value));
  if (!reporting_order.empty())
    w.push_back(fmt::format("free page reporting is on (page_reporting_order = {}): the hypervisor takes free "
                            "blocks of 2^{} pages back, and memory allocated from one faults in at the host too "
                            "(a repetition many times slower); echo 11 > "
                            "/sys/module/page_reporting/parameters/page_reporting_order for steadier results "
                            "(`run --steady` does it for a run)",
                            reporting_order, reporting_order));
  return w;
}

}  // namespace kvmbench::adaptive
