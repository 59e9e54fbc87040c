#include "suites/directmap/report.h"

#include <fmt/format.h>

#include <cmath>
#include <algorithm>
#include <map>

namespace kvmbench::suites::directmap {

std::string variant_label(const std::string& variant) {
  constexpr std::string_view p = "pinned-node";
  if (variant.starts_with(p)) return "pinned to NUMA node " + variant.substr(p.size());
  return variant.empty() ? "(all)" : variant;
}

namespace {

template <typename T>
void add_once(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string one_decimal(double x) { return std::isnan(x) ? "n/a" : fmt::format("{:.1f}", x); }
std::string signed_pct(double x) { return std::isnan(x) ? "unbounded" : fmt::format("{:+.0f}%", x); }

}  // namespace

std::vector<Table> tables_from_cells(const std::vector<Cell>& cells, std::string_view unit,
                                     std::string_view source, std::string_view title) {
  std::vector<std::string> cases, variants;
  std::map<std::pair<std::string, std::string>, stats::Summary> at;
  for (const auto& c : cells) {
    add_once(cases, c.case_name);
    add_once(variants, c.variant);
    at[{c.case_name, c.variant}] = c.summary;
  }
  // The document's layout: a " | " between the pinning columns.
  Table t;
  t.title = std::string(title);
  t.source = std::string(source);
  t.rule_under_header = false;
  t.columns.push_back({"", Align::left});
  for (std::size_t k = 0; k < variants.size(); ++k) {
    if (k) t.columns.push_back({"|", Align::left});
    t.columns.push_back({variant_label(variants[k]), k ? Align::left : Align::right});
  }
  for (const auto& c : cases) {
    std::vector<std::string> mean_row = {c}, sd_row = {"  stddev"};
    for (std::size_t k = 0; k < variants.size(); ++k) {
      if (k) {
        mean_row.push_back("|");
        sd_row.push_back("|");
      }
      auto it = at.find({c, variants[k]});
      bool have = it != at.end();
      // Right-align the numbers of left-aligned columns by hand (width 4: "12.9").
      auto cell = [&](double x) {
        std::string s = have ? one_decimal(x) : "-";
        return k ? fmt::format("{:>4}", s) : s;
      };
      mean_row.push_back(cell(have ? it->second.mean : NAN));
      sd_row.push_back(cell(have ? it->second.stddev : NAN));
    }
    t.add_row(std::move(mean_row));
    t.add_row(std::move(sd_row));
  }
  std::vector<Table> tables{std::move(t)};

  // Welch per column: candidate (pre-split 4K) against base (2M+split).
  Table w;
  w.title = fmt::format("{} vs {}: Welch t-test per column ({})", kCandidate, kBase, unit);
  w.source = std::string(source);
  w.columns = {{"column", Align::left}, {"n"}, {"change"}, {"95% CI"}, {"t"}, {"df"}, {"p"}, {"verdict", Align::left}};
  for (const auto& v : variants) {
    auto b = at.find({std::string(kBase), v});
    auto c = at.find({std::string(kCandidate), v});
    if (b == at.end() || c == at.end()) continue;
    const auto& bs = b->second;
    const auto& cs = c->second;
    std::string n = fmt::format("{}/{}", cs.n, bs.n);
    if (cs.n < 2 || bs.n < 2) {
      w.add_row({v, n, "n/a", "n/a", "n/a", "n/a", "n/a", std::string(stats::to_string(stats::Verdict::not_enough_data))});
      continue;
    }
    const auto tt = stats::welch_t_test(cs, bs);
    const auto rc = stats::relative_change(bs, cs);
    const auto verdict = stats::verdict(bs, cs, tt.p, direction_for_unit(unit));
    w.add_row({v, n, signed_pct(rc.pct), fmt::format("[{}, {}]", signed_pct(rc.ci95_low), signed_pct(rc.ci95_high)),
               fmt::format("{:.2f}", tt.statistic), fmt::format("{:.1f}", tt.df), fmt::format("{:.3f}", tt.p),
               std::string(stats::to_string(verdict))});
  }
  if (!w.rows.empty()) {
    w.notes.push_back(fmt::format("change = {} relative to {}; {} is better", kCandidate, kBase,
                                  direction_for_unit(unit) == Direction::higher_is_better ? "higher" : "lower"));
    tables.push_back(std::move(w));
  }
  return tables;
}

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  std::string unit;
  for (const auto& s : samples) {
    if (s.warmup || s.metric != kMetric) continue;
    auto key = std::make_pair(s.case_name, s.variant);
    if (!values.count(key)) order.push_back(key);
    values[key].push_back(s.value);
    unit = s.unit;
  }
  if (order.empty()) return {};
  std::vector<Cell> cells;
  std::size_t n_max = 0;
  for (auto& k : order) {
    cells.push_back({k.first, k.second, stats::summarize(values[k])});
    n_max = std::max(n_max, values[k].size());
  }
  return tables_from_cells(cells, unit, source,
                           fmt::format("# Average fault-in rate across {} runs, measured in {}", n_max, unit));
}

}  // namespace kvmbench::suites::directmap
