#include "analysis/compare_render.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "analysis/html_report.h"

namespace kvmbench {

std::string format_number(double x, int sig) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  double ax = std::fabs(x);
  if (ax == 0) return "0";
  // Whole numbers up to 10 digits read better in full than as 1.235e+06.
  if (ax >= std::pow(10.0, sig - 1) && ax < 1e10) return fmt::format("{:.0f}", x);
  if (ax >= 1e-4 && ax < 1e10) {
    int digits_before = static_cast<int>(std::floor(std::log10(ax))) + 1;
    int decimals = std::max(0, sig - digits_before);
    return fmt::format("{:.{}f}", x, decimals);
  }
  return fmt::format("{:.{}g}", x, sig);
}

std::string format_pct(double pct) {
  if (!std::isfinite(pct)) return "n/a";
  return fmt::format("{:+.2f}%", pct);
}

std::string format_p(double p) {
  if (std::isnan(p)) return "n/a";
  if (p >= 0.9995) return "1";
  if (p >= 0.001) return fmt::format("{:.3f}", p);
  return fmt::format("{:.1e}", p);
}

std::string format_mean_sd(const stats::Summary& s, bool present) {
  if (!present || s.n == 0) return "-";
  if (s.n < 2) return fmt::format("{} (1)", format_number(s.mean));
  return fmt::format("{} ± {} ({})", format_number(s.mean), format_number(s.stddev, 2), s.n);
}

std::string format_ci(const stats::Change& c) {
  if (!std::isfinite(c.ci95_low) || !std::isfinite(c.ci95_high)) return "[unbounded]";
  return fmt::format("[{}, {}]", format_pct(c.ci95_low), format_pct(c.ci95_high));
}

// Text tables are narrow: "not significant" instead of the full verdict.
static std::string short_verdict(const MetricComparison& m) {
  if (!m.tested) return "not enough data";
  if (m.verdict == stats::Verdict::no_significant_difference) return "not significant";
  if (m.verdict == stats::Verdict::different) return "different";  // the note says why not faster/slower
  return std::string(stats::to_string(m.verdict));
}

static std::string verdict_cell(const MetricComparison& m) {
  std::string v(stats::to_string(m.verdict));
  return m.note.empty() ? v : v + " (" + m.note + ")";
}

static std::size_t tested_count(const Comparison& c) {
  std::size_t k = 0;
  for (auto& m : c.metrics) k += m.tested;
  return k;
}

Table comparison_table(const Comparison& c) {
  Table t;
  t.title = "A/B comparison: " + c.cand_label + " vs " + c.base_label;
  t.source = c.source_label();
  t.columns = {{"metric", Align::left}, {"unit", Align::left}, {"base mean ± sd (n)"},
               {"cand mean ± sd (n)"},  {"change"},            {"95% CI"},
               {"p (Welch)"},           {"p (M-W)"},  {"p (Holm)"},
               {"verdict", Align::left}};
  for (auto& m : c.metrics)
    t.add_row({m.key, m.unit, format_mean_sd(m.base, m.in_base), format_mean_sd(m.cand, m.in_cand),
               m.tested ? format_pct(m.change.pct) : "-", m.tested ? format_ci(m.change) : "-",
               format_p(m.p_welch), format_p(m.p_mann_whitney), format_p(m.p_holm), verdict_cell(m)});
  t.notes.push_back(fmt::format(
      "change: (cand - base) / base, 95% CI by Fieller; p (M-W): Mann-Whitney U; verdict at alpha {} "
      "on the Welch p, Holm-adjusted over {} metrics; warm-up samples excluded.",
      c.alpha, tested_count(c)));
  return t;
}

std::string render_comparison_header_text(const Comparison& c) {
  std::string out;
  auto side = [](const std::string& label, Source s, const std::string& status) {
    std::string st = status.empty() || status == "complete" ? "" : ", run " + status;
    return fmt::format("{} ({}{})", label, to_string(s), st);
  };
  out += "base: " + side(c.base_label, c.base_source, c.base_status) + "\n";
  out += "cand: " + side(c.cand_label, c.cand_source, c.cand_status) + "\n";
  out += "source: " + c.source_label() + "\n";
  if (c.meta_differences.empty()) {
    out += "\nMetadata: no differences (times and run paths ignored)\n";
  } else {
    out += "\nMetadata that differs (base -> cand):\n";
    for (auto& d : c.meta_differences) {
      std::string one = fmt::format("  {}: {} -> {}", d.key, d.base, d.cand);
      if (one.size() <= 80) {
        out += one + "\n";
      } else {
        out += "  " + d.key + ":\n    base: " + d.base + "\n    cand: " + d.cand + "\n";
      }
    }
  }
  return out;
}

std::string render_comparison_text(const Comparison& c) {
  std::string out = render_comparison_header_text(c);
  out += "\n";
  Table a;
  a.title = "Samples, warm-up excluded";
  a.columns = {{"#"}, {"metric", Align::left}, {"unit", Align::left}, {"base mean ± sd (n)"},
               {"cand mean ± sd (n)"}};
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    auto& m = c.metrics[i];
    a.add_row({std::to_string(i + 1), m.key, m.unit, format_mean_sd(m.base, m.in_base),
               format_mean_sd(m.cand, m.in_cand)});
  }
  std::string at = render_text(a);
  bool too_wide = false;
  std::size_t col = 0;  // display columns: UTF-8 continuation bytes do not count
  for (unsigned char ch : at) {
    if (ch == '\n') col = 0;
    else if ((ch & 0xC0) != 0x80 && ++col > 80) too_wide = true;
  }
  if (too_wide) {
    // Long metric names: list them, and keep the table to numbers.
    out += "Metrics:\n";
    for (std::size_t i = 0; i < c.metrics.size(); ++i)
      out += fmt::format("  #{} {}\n", i + 1, c.metrics[i].key);
    out += "\n";
    for (auto& row : a.rows) row.erase(row.begin() + 1);
    a.columns.erase(a.columns.begin() + 1);
    at = render_text(a);
  }
  out += at + "\n";

  Table b;
  b.title = fmt::format("Change of cand vs base (p: Welch, Holm over {} metrics; alpha {})",
                        tested_count(c), c.alpha);
  b.columns = {{"#"}, {"change"}, {"95% CI"}, {"p"}, {"p (Holm)"}, {"verdict", Align::left}};
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    auto& m = c.metrics[i];
    b.add_row({std::to_string(i + 1), m.tested ? format_pct(m.change.pct) : "-",
               m.tested ? format_ci(m.change) : "-", format_p(m.p_welch), format_p(m.p_holm),
               short_verdict(m)});
  }
  for (std::size_t i = 0; i < c.metrics.size(); ++i)
    if (!c.metrics[i].note.empty()) b.notes.push_back(fmt::format("#{}: {}", i + 1, c.metrics[i].note));
  b.notes.push_back("change = (cand - base) / base; 95% CI by Fieller's theorem.");
  out += render_text(b);
  return out;
}

std::string render_comparison_markdown(const Comparison& c) {
  std::string out = "### kvmbench compare\n\n";
  out += fmt::format("- base: `{}` ({})\n- cand: `{}` ({})\n\n", c.base_label, to_string(c.base_source),
                     c.cand_label, to_string(c.cand_source));
  if (!c.meta_differences.empty()) {
    out += "**Metadata that differs**\n\n| key | base | cand |\n|:---|:---|:---|\n";
    auto esc = [](const std::string& s) {
      std::string o;
      for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
      return o;
    };
    for (auto& d : c.meta_differences)
      out += fmt::format("| `{}` | {} | {} |\n", esc(d.key), esc(d.base), esc(d.cand));
    out += "\n";
  }
  out += render_markdown(comparison_table(c));
  return out;
}

std::string render_comparison_csv(const Comparison& c) {
  // Plain numbers for spreadsheets, one row per metric.
  Table t;
  t.columns = {{"metric"},    {"unit"},      {"direction"}, {"base_n"},     {"base_mean"},
               {"base_sd"},   {"cand_n"},    {"cand_mean"}, {"cand_sd"},    {"change_pct"},
               {"ci95_low"},  {"ci95_high"}, {"p_welch"},   {"p_mann_whitney"}, {"p_holm"},
               {"verdict"},   {"source"}};
  auto num = [](double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string(); };
  for (auto& m : c.metrics)
    t.add_row({m.key, m.unit, std::string(to_string(m.direction)),
               m.in_base ? std::to_string(m.base.n) : "0", m.in_base ? num(m.base.mean) : "",
               m.in_base ? num(m.base.stddev) : "", m.in_cand ? std::to_string(m.cand.n) : "0",
               m.in_cand ? num(m.cand.mean) : "", m.in_cand ? num(m.cand.stddev) : "",
               num(m.change.pct), num(m.change.ci95_low), num(m.change.ci95_high), num(m.p_welch),
               num(m.p_mann_whitney), num(m.p_holm), std::string(stats::to_string(m.verdict)),
               c.source_label()});
  return render_csv(t);
}

static nlohmann::json num_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

static nlohmann::json summary_json(const stats::Summary& s, const std::vector<double>& values) {
  return {{"n", s.n},
          {"mean", num_or_null(s.mean)},
          {"stddev", num_or_null(s.stddev)},
          {"ci95_low", num_or_null(s.ci95_low)},
          {"ci95_high", num_or_null(s.ci95_high)},
          {"values", values}};
}

nlohmann::json comparison_to_json(const Comparison& c) {
  nlohmann::json j;
  j["base"] = {{"label", c.base_label}, {"source", to_string(c.base_source)}, {"status", c.base_status}};
  j["cand"] = {{"label", c.cand_label}, {"source", to_string(c.cand_source)}, {"status", c.cand_status}};
  j["source"] = c.source_label();
  j["alpha"] = c.alpha;
  j["meta_differences"] = nlohmann::json::array();
  for (auto& d : c.meta_differences)
    j["meta_differences"].push_back({{"key", d.key}, {"base", d.base}, {"cand", d.cand}});
  j["metrics"] = nlohmann::json::array();
  for (auto& m : c.metrics) {
    nlohmann::json r = {{"key", m.key},
                        {"case", m.case_name},
                        {"variant", m.variant},
                        {"metric", m.metric},
                        {"unit", m.unit},
                        {"direction", to_string(m.direction)},
                        {"base", m.in_base ? summary_json(m.base, m.base_values) : nlohmann::json(nullptr)},
                        {"cand", m.in_cand ? summary_json(m.cand, m.cand_values) : nlohmann::json(nullptr)},
                        {"change_pct", num_or_null(m.change.pct)},
                        {"change_ci95_low", num_or_null(m.change.ci95_low)},
                        {"change_ci95_high", num_or_null(m.change.ci95_high)},
                        {"p_welch", num_or_null(m.p_welch)},
                        {"p_mann_whitney", num_or_null(m.p_mann_whitney)},
                        {"p_holm", num_or_null(m.p_holm)},
                        {"verdict", stats::to_string(m.verdict)},
                        {"note", m.note}};
    j["metrics"].push_back(std::move(r));
  }
  return j;
}

std::string render_comparison(const Comparison& c, Format f) {
  switch (f) {
    case Format::text: return render_comparison_text(c);
    case Format::md: return render_comparison_markdown(c);
    case Format::csv: return render_comparison_csv(c);
    case Format::json: return comparison_to_json(c).dump(2) + "\n";
    case Format::html: return render_comparison_html(c);
  }
  throw std::invalid_argument("unknown format");
}

}  // namespace kvmbench
