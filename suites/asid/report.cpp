#include "suites/asid/report.h"

#include <fmt/format.h>

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
  // Only a run with both sides is a guest-vs-native run.
  bool any_native = false;
  for (const auto& k : order) any_native = any_native || values[k].count(std::string(kNative));
  if (!any_native) return {};

  std::vector<Table> tables;
  for (const auto& k : order) {
    Table t;
    // The workload, then the metric when it says more ("tcp_rr latency"),
    // not twice ("cpuid_rate").
    const std::string_view workload = workload_of(k.second);
    t.title = workload == k.second ? fmt::format("# {} ({}): guest vs native", k.second, units[k])
                                   : fmt::format("# {} {} ({}): guest vs native", workload, k.second, units[k]);
    t.source = std::string(source);
    t.columns = {{"variant", Align::left}, {"n"}, {"guest"}, {"native"}, {"guest/native"}, {"95% CI"}};
    auto& by_variant = values[k];
    auto native_it = by_variant.find(std::string(kNative));
    std::optional<stats::Summary> native;
    if (native_it != by_variant.end()) native = stats::summarize(native_it->second);
    for (const auto& v : variants) {
      auto g = by_variant.find(v);
      if (g == by_variant.end()) continue;
      const auto gs = stats::summarize(g->second);
      std::string label = v.empty() ? "guest" : v;
      const std::string& unit = units[k];
      auto mean = [&](const stats::Summary& x) { return Cell::number(x.mean, unit, mean_text(x, unit)); };
      if (!native) {
        t.add_row({label, fmt::format("{}/0", gs.n), mean(gs), "-", "n/a", "n/a"});
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
      t.add_row({label, fmt::format("{}/{}", gs.n, native->n), mean(gs), mean(*native),
                 Cell::number(r.ratio, "", fixed3(r.ratio)), ci_cell});
    }
    if (!k.first.empty()) t.notes.push_back("case: " + k.first);
    if (workload_of(k.second).starts_with("tcp_"))
      t.notes.push_back("native: peer on loopback; guest: peer on the host, through the virtual NIC");
    if (!t.rows.empty()) tables.push_back(std::move(t));
  }
  if (tables.empty()) return tables;
  auto& notes = tables.back().notes;
  notes.push_back("guest/native = guest mean / native mean (same run, same host); n = guest/native");
  notes.push_back("runs; 95% CI of the ratio by Fieller's theorem (Welch df)");
  if (!flushbyasid.empty()) {
    notes.push_back(fmt::format("FLUSHBYASID in the measured boot (/proc/cpuinfo flags): {}; the other case is", flushbyasid));
    notes.push_back("a second boot (flushbyasid=on|off, compared with kvmbench compare)");
  }
  return tables;
}

}  // namespace kvmbench::suites::asid
