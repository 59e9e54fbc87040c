#include "suites/asid/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/report/case_table.h"
#include "analysis/report/numbers.h"
#include "analysis/report/series_table.h"

namespace kvmbench::suites::asid {

std::string_view workload_of(std::string_view metric) {
  if (metric == "transaction_rate" || metric == "latency") return "tcp_rr";
  if (metric == "throughput") return "tcp_stream";
  if (metric == "cpuid_rate") return "cpuid_rate";
  if (metric == "time_per_round" || metric == "total_time") return "mmap_churn";
  return "";
}

Ratio guest_to_native(const stats::Summary& guest, const stats::Summary& native) {
  // relative_change(base, cand) is (cand/base - 1) in percent with Fieller's
  // CI of the ratio cand/base: back to the ratio itself.
  const auto c = stats::relative_change(native, guest);
  return {1 + c.pct / 100, 1 + c.ci95_low / 100, 1 + c.ci95_high / 100};
}

namespace {

using Key = std::pair<std::string, std::string>;  // case, metric

// Three decimals, as the document's ratios; a ratio far below one (a guest
// thousands of times slower, e.g. cpuid exits in the emulated lab) keeps
// three significant digits instead of printing as 0.000.
std::string fixed3(double x) {
  if (std::isnan(x)) return "n/a";
  if (std::fabs(x) >= 0.1 || x == 0) return fmt::format("{:.3f}", x);
  return format_sig(x, 3);
}

// A mean as a reader takes it in: to the digit its CI leaves uncertain
// (three significant without a CI), and a count past 10^4 with its prefix
// ("79.7 M" ops/s, not 79736255; the title has the unit).
std::string mean_text(const stats::Summary& s, const std::string& unit) {
  if (!std::isfinite(s.mean)) return format_sig(s.mean);
  const ReadingScale scale = reading_scale(std::fabs(s.mean), unit);
  const bool prefixed = scale.unit != unit && scale.unit.ends_with(unit);
  const double factor = prefixed ? scale.factor : 1;
  const double half = s.n >= 2 ? (s.ci95_high - s.ci95_low) / 2 * factor : NAN;
  std::string text = format_fixed(s.mean * factor, decimals_for(s.mean * factor, half));
  if (prefixed) text += " " + scale.unit.substr(0, scale.unit.size() - unit.size());
  while (text.back() == ' ') text.pop_back();
  return text;
}

// The workloads run natively only (the host preset): one table, a row per
// metric, as the guest-vs-native one (one table per metric was 26 lines of
// `run all` for four rows).
std::vector<Table> native_only_tables(const std::vector<Sample>& samples, std::string_view source) {
  std::vector<Key> order;
  std::map<Key, std::vector<double>> values;
  std::map<Key, std::string> units;
  for (const auto& s : samples) {
    if (s.warmup || s.variant != kNative || workload_of(s.metric).empty()) continue;
    Key k{s.case_name, s.metric};
    if (!values.count(k)) order.push_back(k);
    values[k].push_back(s.value);
    units[k] = s.unit;
  }
  if (order.empty()) return {};
  std::map<std::string, int> cases_of;
  for (const auto& k : order) ++cases_of[k.second];
  Table t;
  t.title = "# asid: native, on this host";
  t.source = std::string(source);
  t.columns = {{"metric", Align::left}, {"n"}, {"mean"}, {"sd"}, {"unit", Align::left}, {"95% CI of mean"}};
  t.narrow_gap_when_wide = true;
  std::vector<std::string> case_notes;
  for (const auto& k : order) {
    const std::string& unit = units[k];
    const auto x = stats::summarize(values[k]);
    std::string label = k.second;
    if (cases_of[k.second] > 1) {
      label += " " + k.first;
    } else if (!k.first.empty()) {
      const std::string note = fmt::format("{} {}", workload_of(k.second), k.first);
      if (std::find(case_notes.begin(), case_notes.end(), note) == case_notes.end()) case_notes.push_back(note);
    }
    // The spread and the CI in the mean's scale ("k", "M"), to its digits.
    const ReadingScale scale = reading_scale(std::fabs(x.mean), unit);
    const double f = scale.unit != unit && scale.unit.ends_with(unit) ? scale.factor : 1;
    const int d = decimals_for(x.mean * f, x.n >= 2 ? (x.ci95_high - x.ci95_low) / 2 * f : NAN);
    Cell ci = "n/a (n < 2)";
    if (x.n >= 2 && std::isfinite(x.ci95_low))
      ci = Cell::interval(x.ci95_low, x.ci95_high, unit,
                          fmt::format("[{}, {}]", format_fixed(x.ci95_low * f, d), format_fixed(x.ci95_high * f, d)));
    t.add_row({label, std::to_string(x.n), Cell::number(x.mean, unit, format_fixed(x.mean * f, d)),
               x.n >= 2 ? Cell::number(x.stddev, unit, format_fixed(x.stddev * f, d)) : Cell("n/a"),
               f == 1 ? unit : scale.unit, ci});
  }
  if (!case_notes.empty()) t.notes.push_back("cases: " + fmt::format("{}", fmt::join(case_notes, "; ")));
  return {std::move(t)};
}

}  // namespace

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source) {
  std::vector<Key> order;
  std::vector<std::string> variants;
  std::map<Key, std::string> units;
  std::map<Key, std::map<std::string, std::vector<double>>> values;  // key -> variant -> values
  std::string flushbyasid;
  for (const auto& s : samples) {
    if (s.warmup || workload_of(s.metric).empty()) continue;
    Key k{s.case_name, s.metric};
    values[k][s.variant].push_back(s.value);
    units[k] = s.unit;
    if (s.variant == kNative) continue;
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    if (std::find(variants.begin(), variants.end(), s.variant) == variants.end()) variants.push_back(s.variant);
    if (s.extra.contains("flushbyasid") && s.extra["flushbyasid"].is_string())
      flushbyasid = s.extra["flushbyasid"].get<std::string>();
  }
  // Only a run with both sides is a guest-vs-native run; one of native
  // figures alone (the host preset) is a table of its own.
  if (order.empty()) return native_only_tables(samples, source);
  bool any_native = false;
  for (const auto& k : order) any_native = any_native || values[k].count(std::string(kNative));
  if (!any_native) return {};

  // One table, one row per metric and guest variant: six tables of eight
  // lines each made `run all`'s asid smoke part 50 lines. A metric measured
  // in several cases names its case in the label; the others' cases are in
  // a note, per workload.
  std::map<std::string, std::vector<std::string>> cases_of;  // metric -> cases
  for (const auto& k : order) cases_of[k.second].push_back(k.first);
  Table t;
  t.title = "# asid: guest vs native";
  t.source = std::string(source);
  // The unit after the two means it belongs to, before the unitless ratio.
  t.columns = {{"metric", Align::left}, {"variant", Align::left}, {"n"}, {"guest"}, {"native"},
               {"unit", Align::left}, {"ratio"}, {"95% CI"}};
  t.narrow_gap_when_wide = true;
  std::vector<std::string> case_notes;
  bool tcp = false;
  for (const auto& k : order) {
    const std::string& unit = units[k];
    std::string label = k.second;
    if (cases_of[k.second].size() > 1) {
      label += " " + k.first;
    } else if (!k.first.empty()) {
      const std::string note = fmt::format("{} {}", workload_of(k.second), k.first);
      if (std::find(case_notes.begin(), case_notes.end(), note) == case_notes.end()) case_notes.push_back(note);
    }
    tcp = tcp || workload_of(k.second).starts_with("tcp_");
    auto& by_variant = values[k];
    auto native_it = by_variant.find(std::string(kNative));
    std::optional<stats::Summary> native;
    if (native_it != by_variant.end()) native = stats::summarize(native_it->second);
    for (const auto& v : variants) {
      auto g = by_variant.find(v);
      if (g == by_variant.end()) continue;
      const auto gs = stats::summarize(g->second);
      const std::string variant = v.empty() ? "guest" : v;
      auto mean = [&](const stats::Summary& x) { return Cell::number(x.mean, unit, mean_text(x, unit)); };
      if (!native) {
        t.add_row({label, variant, fmt::format("{}/0", gs.n), mean(gs), "-", unit, "n/a", "n/a"});
        continue;
      }
      const Ratio r = guest_to_native(gs, *native);
      std::string ci;
      if (gs.n < 2 || native->n < 2)
        ci = "n/a (n < 2)";
      else if (std::isnan(r.ci95_low))
        ci = "unbounded";
      else
        ci = fmt::format("[{}, {}]", fixed3(r.ci95_low), fixed3(r.ci95_high));
      Cell ci_cell = ci;
      if (gs.n >= 2 && native->n >= 2 && std::isfinite(r.ci95_low) && std::isfinite(r.ci95_high))
        ci_cell = Cell::interval(r.ci95_low, r.ci95_high, "", ci);
      t.add_row({label, variant, fmt::format("{}/{}", gs.n, native->n), mean(gs), mean(*native), unit,
                 Cell::number(r.ratio, "", fixed3(r.ratio)), ci_cell});
    }
  }
  if (t.rows.empty()) return {};
  if (!case_notes.empty()) t.notes.push_back("cases: " + fmt::format("{}", fmt::join(case_notes, "; ")));
  if (tcp) t.notes.push_back("tcp_*: native with its peer on loopback; guest with its peer on the host, through the virtual NIC");
  t.notes.push_back("ratio = guest mean / native mean (same run, same host); n = guest/native runs; 95% CI of the ratio by Fieller's theorem (Welch df)");
  if (!flushbyasid.empty())
    t.notes.push_back(fmt::format("FLUSHBYASID in the measured boot (/proc/cpuinfo flags): {}; the other case is a second boot (flushbyasid=on|off, compared with kvmbench compare)", flushbyasid));
  return {std::move(t)};
}

}  // namespace kvmbench::suites::asid
