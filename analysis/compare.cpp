#include "analysis/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kvmbench {

std::vector<Series> group_series(const std::vector<Sample>& samples) {
  std::vector<Series> out;
  std::map<std::string, std::size_t> index;
  for (const Sample& s : samples) {
    std::string key = s.series_key();
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back(Series{key, s.case_name, s.variant, s.metric, s.unit, {}, 0});
    }
    Series& ser = out[it->second];
    if (ser.unit != s.unit)
      throw std::runtime_error(fmt::format("series '{}' mixes units '{}' and '{}'", key, ser.unit, s.unit));
    if (s.warmup) {
      ++ser.warmups_dropped;  // stored for the record, never summarised
      continue;
    }
    ser.values.push_back(s.value);
  }
  return out;
}

ComparisonSide side_from_run(const Run& run, std::string label) {
  ComparisonSide side;
  side.label = std::move(label);
  side.source = run.source();
  side.meta = run.meta;
  side.series = group_series(run.samples);
  side.status = run.status();
  return side;
}

// ---- metadata differences -------------------------------------------------

static std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return v.dump();
}

static void flatten_into(const nlohmann::json& j, const std::string& prefix,
                         std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    if (j.empty() && !prefix.empty()) out.emplace_back(prefix, "{}");
    for (auto& [k, v] : j.items()) flatten_into(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (j.is_array()) {
    bool all_scalar = std::all_of(j.begin(), j.end(), [](auto& e) { return e.is_primitive(); });
    if (all_scalar) {
      std::string joined;
      for (auto& e : j) joined += (joined.empty() ? "" : " ") + scalar_text(e);
      out.emplace_back(prefix, joined);
    } else {
      for (std::size_t i = 0; i < j.size(); ++i) flatten_into(j[i], fmt::format("{}[{}]", prefix, i), out);
    }
  } else {
    out.emplace_back(prefix, scalar_text(j));
  }
}

std::vector<std::pair<std::string, std::string>> flatten_json(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(j, "", out);
  return out;
}

// Keys that differ between any two runs and say nothing about the setup.
static bool is_noise_key(const std::string& key) {
  std::string last = key.substr(key.find_last_of('.') == std::string::npos ? 0 : key.find_last_of('.') + 1);
  std::transform(last.begin(), last.end(), last.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::set<std::string> exact = {
      "start_time", "end_time", "started", "finished", "start", "end", "time", "timestamp",
      "date", "status", "dir", "run_dir", "out", "output", "path", "uptime", "uptime_s",
      "elapsed", "elapsed_s", "duration", "duration_s", "pid", "memfree", "memavailable",
      "cached", "buffers", "loadavg", "load_avg", "boot_id", "executable"};
  if (exact.count(last)) return true;
  auto ends_with = [&](std::string_view suf) {
    return last.size() >= suf.size() && last.compare(last.size() - suf.size(), suf.size(), suf) == 0;
  };
  return ends_with("_time") || ends_with("_at") || ends_with("_timestamp");
}

// Whitespace-separated items of a, not in b (order kept).
static std::string items_not_in(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::multiset<std::string> bset;
  for (std::string w; sb >> w;) bset.insert(w);
  std::string out;
  for (std::string w; sa >> w;) {
    auto it = bset.find(w);
    if (it != bset.end()) {
      bset.erase(it);
      continue;
    }
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

std::vector<MetaDifference> meta_differences(const nlohmann::json& base, const nlohmann::json& cand) {
  auto fb = flatten_json(base), fc = flatten_json(cand);
  std::map<std::string, std::string> mc(fc.begin(), fc.end());
  std::map<std::string, std::string> mb(fb.begin(), fb.end());
  std::vector<MetaDifference> out;
  auto add = [&](const std::string& key, const std::string* b, const std::string* c) {
    if (is_noise_key(key)) return;
    if (b && c && *b == *c) return;
    MetaDifference d{key, b ? *b : "(absent)", c ? *c : "(absent)"};
    // Long word lists (cmdline, CPU flags): only the words that differ.
    if (b && c && (b->size() > 40 || c->size() > 40) && b->find(' ') != std::string::npos &&
        c->find(' ') != std::string::npos) {
      std::string only_b = items_not_in(*b, *c), only_c = items_not_in(*c, *b);
      if (!only_b.empty() || !only_c.empty()) {
        d.base = only_b.empty() ? "(same words)" : "only here: " + only_b;
        d.cand = only_c.empty() ? "(same words)" : "only here: " + only_c;
      } else {
        d.base = "(same words, other order)";
        d.cand = d.base;
      }
    }
    out.push_back(std::move(d));
  };
  for (auto& [k, v] : fb) {
    auto it = mc.find(k);
    add(k, &v, it == mc.end() ? nullptr : &it->second);
  }
  for (auto& [k, v] : fc)
    if (!mb.count(k)) add(k, nullptr, &v);
  return out;
}

// ---- the comparison -------------------------------------------------------

std::string Comparison::source_label() const {
  if (base_source == cand_source) return std::string(to_string(base_source));
  return fmt::format("base {}, cand {}", to_string(base_source), to_string(cand_source));
}

Comparison compare(const ComparisonSide& base, const ComparisonSide& cand, const CompareOptions& opt) {
  Comparison c;
  c.base_label = base.label;
  c.cand_label = cand.label;
  c.base_source = base.source;
  c.cand_source = cand.source;
  c.base_status = base.status;
  c.cand_status = cand.status;
  c.alpha = opt.alpha;
  c.meta_differences = meta_differences(base.meta, cand.meta);

  std::map<std::string, const Series*> cand_by_key;
  for (auto& s : cand.series) cand_by_key[s.key] = &s;
  std::set<std::string> base_keys;

  auto start_row = [](const Series& s) {
    MetricComparison m;
    m.key = s.key;
    m.case_name = s.case_name;
    m.variant = s.variant;
    m.metric = s.metric;
    m.unit = s.unit;
    m.direction = direction_for_unit(s.unit);
    return m;
  };
  for (auto& bs : base.series) {
    base_keys.insert(bs.key);
    MetricComparison m = start_row(bs);
    m.base_values = bs.values;
    m.in_base = !bs.values.empty();
    auto it = cand_by_key.find(bs.key);
    if (it != cand_by_key.end()) {
      if (it->second->unit != bs.unit)
        throw std::runtime_error(fmt::format("metric '{}' is in '{}' in base but in '{}' in cand",
                                             bs.key, bs.unit, it->second->unit));
      m.cand_values = it->second->values;
      m.in_cand = !m.cand_values.empty();
    }
    c.metrics.push_back(std::move(m));
  }
  for (auto& cs : cand.series) {
    if (base_keys.count(cs.key)) continue;
    MetricComparison m = start_row(cs);
    m.cand_values = cs.values;
    m.in_cand = !cs.values.empty();
    c.metrics.push_back(std::move(m));
  }

  std::vector<double> raw_p;
  std::vector<std::size_t> tested_idx;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    auto& m = c.metrics[i];
    if (m.in_base) m.base = stats::summarize(m.base_values);
    if (m.in_cand) m.cand = stats::summarize(m.cand_values);
    if (!m.in_base || !m.in_cand) {
      m.note = !m.in_base && !m.in_cand ? "no samples" : (m.in_base ? "only in base" : "only in cand");
      continue;
    }
    std::size_t need = std::max<std::size_t>(2, opt.min_n);
    if (m.base.n < need || m.cand.n < need) {
      m.note = fmt::format("n < {}", need);
      continue;
    }
    m.tested = true;
    m.change = stats::relative_change(m.base, m.cand);
    m.p_welch = stats::welch_t_test(m.base, m.cand).p;
    m.p_mann_whitney = stats::mann_whitney_u(m.base_values, m.cand_values).p;
    raw_p.push_back(m.p_welch);
    tested_idx.push_back(i);
  }
  auto adjusted = stats::holm_adjust(raw_p);
  for (std::size_t k = 0; k < tested_idx.size(); ++k) {
    auto& m = c.metrics[tested_idx[k]];
    m.p_holm = adjusted[k];
    m.verdict = stats::verdict(m.base, m.cand, m.p_holm, m.direction, opt.alpha, opt.min_n);
    if (m.direction == Direction::unknown && !m.note.empty()) m.note += "; ";
    if (m.direction == Direction::unknown) m.note += "direction unknown (unit '" + m.unit + "')";
  }
  return c;
}

}  // namespace kvmbench
