#include "suites/rmpopt/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/report/series_table.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/summary_cell.h"
#include "analysis/report/numbers.h"

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

constexpr const char* kStats[] = {"largest", "smallest", "average"};
// The prints of one stat of a case: the tables show their mean and count.
struct StatPrints {
  double sum = 0;
  std::size_t n = 0;
};
// By case, the stats in kStats order: hashed and without a vector per
// stat, as a long log has hundreds of thousands of groups.
using CycleValues = std::unordered_map<std::string, std::array<StatPrints, 3>>;

// The index of `stat` in kStats, or 3 for another name.
std::size_t stat_index(std::string_view stat) {
  std::size_t k = 0;
  while (k < 3 && stat != kStats[k]) ++k;
  return k;
}

// One column per case, one row per stat, as the document sets its two
// groups side by side; a long log has thousands of groups, which read (and
// fit) only as one row per case.
Table stats_by_case(std::string title, std::string_view source, const Ordered<std::string>& cases,
                    const std::function<Cell(const std::string&, const char*)>& cell) {
  Table t;
  t.title = std::move(title);
  t.source = std::string(source);
  t.columns.push_back({"", Align::left});
  if (cases.order.size() <= 4) {
    for (auto& c : cases.order) t.columns.push_back({c, Align::right});
    for (const char* stat : kStats) {
      std::vector<Cell> row = {stat};
      for (auto& c : cases.order) row.push_back(cell(c, stat));
      t.add_row(std::move(row));
    }
  } else {
    for (const char* stat : kStats) t.columns.push_back({stat, Align::right});
    for (auto& c : cases.order) {
      std::vector<Cell> row = {c};
      for (const char* stat : kStats) row.push_back(cell(c, stat));
      t.add_row(std::move(row));
    }
  }
  return t;
}

Table cycle_table(const Ordered<std::string>& cases, const CycleValues& v, std::string_view source) {
  Table t = stats_by_case("RMPOPT cycles per instruction", source, cases, [&](const std::string& c, const char* stat) {
    const StatPrints& x = v.at(c)[stat_index(stat)];
    if (x.n == 0) return Cell("-");
    const double mean = x.sum / static_cast<double>(x.n);
    return Cell::number(mean, "cycles",
                        x.n == 1 ? format_sig(mean) : fmt::format("{} (mean of {})", format_sig(mean), x.n));
  });
  t.notes.push_back("cycles as printed by the kernel; wall time needs the TSC rate of that machine");
  return t;
}

// The same stats as wall time: ns = cycles / GHz (the mean of several
// prints of one stat converts as the mean does).
Table cycle_time_table(const Ordered<std::string>& cases, const CycleValues& v, std::string_view source,
                       double tsc_ghz) {
  Table t = stats_by_case(fmt::format("RMPOPT time per instruction at a {} GHz TSC, ns", format_sig(tsc_ghz)),
                          source, cases, [&](const std::string& c, const char* stat) {
                            const StatPrints& x = v.at(c)[stat_index(stat)];
                            if (x.n == 0) return Cell("-");
                            const double ns = x.sum / static_cast<double>(x.n) / tsc_ghz;
                            return Cell::number(ns, "ns", fmt::format("{:.1f}", ns));
                          });
  t.notes.push_back(fmt::format("ns = cycles / {} (the TSC rate given with --tsc-ghz, not from the document)",
                                format_sig(tsc_ghz)));
  return t;
}

// The host preset's sweeps: wall time per strategy (rows) and page layout
// (columns), one table per table size (regions), as a reader compares
// strategies within a layout. Read from the samples' extra (layout,
// strategy, regions), which the measurement stamps on every sample.
std::vector<Table> emulated_sweep_tables(const std::vector<Sample>& samples, std::string_view source) {
  struct Grid {
    std::vector<std::string> strategies, layouts;
    std::map<std::pair<std::string, std::string>, std::vector<double>> values;
    std::string unit;
  };
  std::vector<long long> sizes;
  std::map<long long, Grid> grids;
  for (const auto& s : samples) {
    if (s.warmup || s.metric != "emulated_sweep_wall" || !s.extra.is_object()) continue;
    const auto& x = s.extra;
    if (!x.contains("layout") || !x["layout"].is_string() || !x.contains("regions") || !x["regions"].is_number())
      continue;
    const long long regions = x["regions"].get<long long>();
    if (!grids.count(regions)) sizes.push_back(regions);
    Grid& g = grids[regions];
    const std::string layout = x["layout"].get<std::string>();
    if (std::find(g.layouts.begin(), g.layouts.end(), layout) == g.layouts.end()) g.layouts.push_back(layout);
    if (std::find(g.strategies.begin(), g.strategies.end(), s.variant) == g.strategies.end())
      g.strategies.push_back(s.variant);
    g.values[{s.variant, layout}].push_back(s.value);
    g.unit = s.unit;
  }
  std::vector<Table> tables;
  for (long long regions : sizes) {
    const Grid& g = grids[regions];
    std::map<std::pair<std::string, std::string>, stats::Summary> at;
    std::size_t n_low = SIZE_MAX, n_high = 0;
    for (const auto& [key, v] : g.values) {
      const auto m = stats::summarize(v);
      at[key] = m;
      n_low = std::min(n_low, m.n);
      n_high = std::max(n_high, m.n);
    }
    // A scale per layout: a layout whose first page is private ends each
    // region's scan at once and takes microseconds where the others take
    // milliseconds; strategies are compared within a layout.
    std::vector<ReadingScale> scales;
    for (const auto& l : g.layouts) {
      std::vector<double> means;
      for (const auto& st : g.strategies)
        if (auto it = at.find({st, l}); it != at.end()) means.push_back(it->second.mean);
      scales.push_back(scale_for_means(means, g.unit));
    }
    Table t;
    t.title = fmt::format("Emulated sweep wall time over {} GiB of RAM, per page layout", regions);
    t.source = std::string(source);
    t.columns.push_back({"strategy", Align::left});
    for (std::size_t k = 0; k < g.layouts.size(); ++k)
      t.columns.push_back({fmt::format("{}, {}", g.layouts[k], scales[k].unit)});
    bool bound = false;
    for (const auto& st : g.strategies) {
      std::vector<Cell> row = {st};
      for (std::size_t k = 0; k < g.layouts.size(); ++k) {
        auto it = at.find({st, g.layouts[k]});
        row.push_back(it == at.end() ? Cell("-") : mean_ci_cell(it->second, scales[k], g.unit));
        bound = bound || (it != at.end() && ci_reaches_zero(it->second, g.unit));
      }
      t.add_row(std::move(row));
    }
    // The strategies compared in the first layout (rows share a unit).
    t.chart = TableChart{};  // label: column 0, value: column 1
    t.notes.push_back(fmt::format("mean ±half-width of its 95% CI over the repetitions ({}); columns: the "
                                  "private-page layout of each 1 GiB region",
                                  n_range(n_low, n_high)));
    if (bound) t.notes.push_back(kCiBoundNote);
    t.notes.push_back("a user-space emulation of the sweep's structure on this host, not RMPOPT");
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source,
                                 std::string_view base_variant, std::optional<double> tsc_ghz) {
  std::vector<Table> tables = emulated_sweep_tables(samples, source);

  // Cycle stats: one column per case (group), one row per stat.
  Ordered<std::string> cycle_cases;
  CycleValues cycles;
  Ordered<std::string> sweep_variants;
  for (const auto& s : samples) {
    if (s.warmup) continue;
    if (s.metric.starts_with("rmpopt_cycles_")) {
      auto [it, fresh] = cycles.try_emplace(s.case_name);
      if (fresh) cycle_cases.order.push_back(s.case_name);
      if (const std::size_t k = stat_index(std::string_view(s.metric).substr(14)); k < 3) {
        it->second[k].sum += s.value;
        ++it->second[k].n;
      }
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
  // Each column names its unit: the totals read in ms as the document has
  // them, a region's share in us.
  w.title = "RMPOPT sweep wall time (ktime around the loop)";
  w.source = std::string(source);
  w.columns = {{"variant", Align::left}, {"n"},        {"mean (ms)"}, {"sd (ms)"},
               {"min (ms)"},            {"max (ms)"}, {"per 1GB region (us)"}};
  std::map<std::string, stats::Summary> summaries;
  for (auto& v : sweep_variants.order) {
    const auto& ss = sweep_variants.items[v];
    const auto m = stats::summarize(values(ss));
    summaries[v] = m;
    const auto nreg = regions(*ss.front());
    // The document's one decimal in ms; each number's value in ns.
    auto ms = [](double ns) { return Cell::number(ns, "ns", fmt::format("{:.1f}", ns / 1e6)); };
    w.add_row({v.empty() ? "(none)" : v, Cell::number(static_cast<double>(m.n), "", std::to_string(m.n)), ms(m.mean),
               m.n < 2 ? Cell("n/a") : ms(m.stddev), ms(m.min), ms(m.max),
               nreg ? Cell::number(m.mean / *nreg, "ns", fmt::format("{:.1f}", m.mean / 1e3 / *nreg)) : Cell("n/a")});
  }
  if (auto nreg = regions(*sweep_variants.items[sweep_variants.order.front()].front()))
    w.notes.push_back(fmt::format("{:.0f} regions of 1GB; one on_each_cpu_mask() broadcast per region", *nreg));
  w.chart = TableChart{.label = 0, .value = 2, .interval = std::nullopt};  // the mean per variant
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
    const std::size_t n_pairs = std::min(bs.size(), cs.size());
    for (std::size_t k = 0; k < std::min<std::size_t>(n_pairs, 5); ++k)
      pairs += fmt::format("{}run {}: {}", k ? ", " : "", k + 1, signed_pct(100.0 * (cs[k]->value - bs[k]->value) / bs[k]->value));
    if (n_pairs > 5) pairs += fmt::format(", ... ({} pairs)", n_pairs);
    if (!pairs.empty()) t.add_row({"run by run", pairs});
    t.notes.push_back(fmt::format("n = {} vs {}; 95% CI by Fieller; a negative change: faster", c.n, b.n));
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace kvmbench::suites::rmpopt
