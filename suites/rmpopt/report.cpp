#include "suites/rmpopt/report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>

#include "analysis/series_table.h"
#include "analysis/statistics.h"

namespace kvmbench::suites::rmpopt {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Keys in first-seen order with their values.
template <typename Key>
struct Ordered {
  std::vector<Key> order;
  std::map<Key, std::vector<const Sample*>> items;
  void add(const Key& k, const Sample* s) {
    if (!items.count(k)) order.push_back(k);
    items[k].push_back(s);
  }
};

std::vector<double> values(const std::vector<const Sample*>& v) {
  std::vector<double> out;
  for (auto* s : v) out.push_back(s->value);
  return out;
}

// Number of 1GB regions the sweep covered, from the printed range.
std::optional<double> regions(const Sample& s) {
  if (!s.extra.contains("range_start") || !s.extra.contains("range_end")) return std::nullopt;
  try {
    const double a = static_cast<double>(std::stoull(s.extra["range_start"].get<std::string>(), nullptr, 16));
    const double b = static_cast<double>(std::stoull(s.extra["range_end"].get<std::string>(), nullptr, 16));
    if (b <= a) return std::nullopt;
    return std::ceil((b - a) / kGiB);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string signed_pct(double x) { return std::isnan(x) ? "unbounded" : fmt::format("{:+.1f}%", x); }

Table cycle_table(const Ordered<std::string>& cases, const std::map<std::string, std::map<std::string, std::vector<double>>>& v,
                  std::string_view source) {
  Table t;
  t.title = "RMPOPT cycles per instruction";
  t.source = std::string(source);
  t.columns.push_back({"", Align::left});
  for (auto& c : cases.order) t.columns.push_back({c, Align::right});
  for (const char* stat : {"largest", "smallest", "average"}) {
    std::vector<std::string> row = {stat};
    for (auto& c : cases.order) {
      auto it = v.at(c).find(stat);
      if (it == v.at(c).end()) {
        row.push_back("-");
      } else {
        const auto m = stats::summarize(it->second);
        row.push_back(m.n == 1 ? format_sig(m.mean) : fmt::format("{} (mean of {})", format_sig(m.mean), m.n));
      }
    }
    t.add_row(std::move(row));
  }
  t.notes.push_back("cycles as printed by the kernel; wall time needs the TSC rate of that machine");
  return t;
}

// The same stats as wall time: ns = cycles / GHz (the mean of several
// prints of one stat converts as the mean does).
Table cycle_time_table(const Ordered<std::string>& cases,
                       const std::map<std::string, std::map<std::string, std::vector<double>>>& v,
                       std::string_view source, double tsc_ghz) {
  Table t;
  t.title = fmt::format("RMPOPT time per instruction at a {} GHz TSC, ns", format_sig(tsc_ghz));
  t.source = std::string(source);
  t.columns.push_back({"", Align::left});
  for (auto& c : cases.order) t.columns.push_back({c, Align::right});
  for (const char* stat : {"largest", "smallest", "average"}) {
    std::vector<std::string> row = {stat};
    for (auto& c : cases.order) {
      auto it = v.at(c).find(stat);
      row.push_back(it == v.at(c).end() ? "-" : fmt::format("{:.1f}", stats::summarize(it->second).mean / tsc_ghz));
    }
    t.add_row(std::move(row));
  }
  t.notes.push_back(fmt::format("ns = cycles / {} (the TSC rate given with --tsc-ghz, not from the document)",
                                format_sig(tsc_ghz)));
  return t;
}

}  // namespace

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source,
                                 std::string_view base_variant, std::optional<double> tsc_ghz) {
  std::vector<Table> tables;

  // Cycle stats: one column per case (group), one row per stat.
  Ordered<std::string> cycle_cases;
  std::map<std::string, std::map<std::string, std::vector<double>>> cycles;
  Ordered<std::string> sweep_variants;
  for (const auto& s : samples) {
    if (s.warmup) continue;
    if (s.metric.starts_with("rmpopt_cycles_")) {
      cycle_cases.add(s.case_name, &s);
      cycles[s.case_name][s.metric.substr(14)].push_back(s.value);
    } else if (s.metric == "sweep_time" && s.unit == "ns") {
      sweep_variants.add(s.variant, &s);
    }
  }
  if (!cycle_cases.order.empty()) {
    tables.push_back(cycle_table(cycle_cases, cycles, source));
    if (tsc_ghz) tables.push_back(cycle_time_table(cycle_cases, cycles, source, *tsc_ghz));
  }
  if (sweep_variants.order.empty()) return tables;

  // Sweep wall time per variant.
  Table w;
  w.title = "RMPOPT sweep wall time (ktime around the loop), ms";
  w.source = std::string(source);
  w.columns = {{"variant", Align::left}, {"n"}, {"mean"}, {"sd"}, {"min"}, {"max"}, {"us per 1GB region"}};
  std::map<std::string, stats::Summary> summaries;
  for (auto& v : sweep_variants.order) {
    const auto& ss = sweep_variants.items[v];
    const auto m = stats::summarize(values(ss));
    summaries[v] = m;
    const auto nreg = regions(*ss.front());
    w.add_row({v.empty() ? "(none)" : v, std::to_string(m.n), fmt::format("{:.1f}", m.mean / 1e6),
               m.n < 2 ? "n/a" : fmt::format("{:.1f}", m.stddev / 1e6), fmt::format("{:.1f}", m.min / 1e6),
               fmt::format("{:.1f}", m.max / 1e6), nreg ? fmt::format("{:.1f}", m.mean / 1e3 / *nreg) : "n/a"});
  }
  if (auto nreg = regions(*sweep_variants.items[sweep_variants.order.front()].front()))
    w.notes.push_back(fmt::format("{:.0f} regions of 1GB; one on_each_cpu_mask() broadcast per region", *nreg));
  tables.push_back(std::move(w));

  // Each variant against the base.
  std::string base(base_variant);
  if (!summaries.count(base)) base = sweep_variants.order.front();
  for (auto& v : sweep_variants.order) {
    if (v == base) continue;
    const auto& b = summaries[base];
    const auto& c = summaries[v];
    Table t;
    t.title = fmt::format("Sweep time: {} vs {}", v, base);
    t.source = std::string(source);
    t.rule_under_header = false;
    t.columns = {{"", Align::left}, {"", Align::left}};
    const double change = 100.0 * (c.mean - b.mean) / b.mean;
    t.add_row({"change of means", signed_pct(change)});
    if (b.n >= 2 && c.n >= 2) {
      const auto rc = stats::relative_change(b, c);
      const auto tt = stats::welch_t_test(c, b);
      const auto verdict = stats::verdict(b, c, tt.p, Direction::lower_is_better);
      t.add_row({"95% CI of change", fmt::format("[{}, {}]", signed_pct(rc.ci95_low), signed_pct(rc.ci95_high))});
      t.add_row({"Welch t-test", fmt::format("t = {:.2f}, df = {:.1f}, p = {:.3f}", tt.statistic, tt.df, tt.p)});
      t.add_row({"verdict", std::string(stats::to_string(verdict))});
    } else {
      t.add_row({"verdict", std::string(stats::to_string(stats::Verdict::not_enough_data))});
    }
    // Run k of one variant against run k of the other, as a poster reads
    // two columns of prints side by side; not a statistical test.
    const auto& bs = sweep_variants.items[base];
    const auto& cs = sweep_variants.items[v];
    std::string pairs;
    for (std::size_t k = 0; k < std::min(bs.size(), cs.size()); ++k)
      pairs += fmt::format("{}run {}: {}", k ? ", " : "", k + 1, signed_pct(100.0 * (cs[k]->value - bs[k]->value) / bs[k]->value));
    if (!pairs.empty()) t.add_row({"run by run", pairs});
    t.notes.push_back(fmt::format("n = {} vs {}; 95% CI by Fieller; a negative change: faster", c.n, b.n));
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace kvmbench::suites::rmpopt
