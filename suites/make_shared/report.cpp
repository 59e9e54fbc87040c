#include "suites/make_shared/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/report/numbers.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/summary_cell.h"

namespace kvmbench::suites::make_shared {

namespace {

struct Conversion {
  std::string case_name;
  std::string nr_pages;  // as the tables print it
  std::optional<double> make_shared, total;
};

// LEGACY: samples.jsonl written before samples carried keys.nr_pages has
// the number only in the case name ("nr_pages=N").
std::string nr_pages_of_name(std::string_view case_name) {
  constexpr std::string_view prefix = "nr_pages=";
  return std::string(case_name.starts_with(prefix) ? case_name.substr(prefix.size()) : case_name);
}

std::string nr_pages_of(const Sample& s) {
  if (auto n = sample_key_int(s, "nr_pages")) return std::to_string(*n);
  return nr_pages_of_name(s.case_name);
}

// One entry per (case, iteration), in the order the conversions were seen.
// A long log has tens of thousands of conversions of a few sizes: the
// iteration is found in a vector per case.
std::vector<Conversion> conversions(const std::vector<Sample>& samples) {
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<Conversion> out;
  std::unordered_map<std::string_view, std::size_t> cases;
  std::vector<std::vector<std::size_t>> by_iteration;  // per case: iteration -> entry in out
  std::vector<std::string> pages;                      // per case
  std::map<std::pair<std::size_t, int>, std::size_t> odd_iterations;  // negative ones, or far apart
  for (const auto& s : samples) {
    const bool ms = s.metric == "make_shared_cycles";
    if (s.warmup || (!ms && s.metric != "total_cycles")) continue;
    const std::size_t c = cases.try_emplace(s.case_name, cases.size()).first->second;
    if (c == by_iteration.size()) {
      by_iteration.emplace_back();
      pages.push_back(nr_pages_of(s));
    }
    std::size_t* at;
    auto& slots = by_iteration[c];
    if (s.iteration >= 0 && static_cast<std::size_t>(s.iteration) < slots.size() + 4096) {
      const auto it = static_cast<std::size_t>(s.iteration);
      if (it >= slots.size()) slots.resize(it + 1, kNone);
      at = &slots[it];
    } else {
      at = &odd_iterations.try_emplace({c, s.iteration}, kNone).first->second;
    }
    if (*at == kNone) {
      *at = out.size();
      out.push_back({s.case_name, pages[c], {}, {}});
    }
    Conversion& conv = out[*at];
    (ms ? conv.make_shared : conv.total) = s.value;
  }
  std::erase_if(out, [](const Conversion& c) { return !c.make_shared || !c.total || *c.total <= 0; });
  return out;
}

double pct(const Conversion& c) { return 100.0 * *c.make_shared / *c.total; }

// The conversions' values per case, cases in first-seen order.
struct PerCase {
  std::vector<std::string> order, nr_pages;
  std::vector<std::vector<double>> totals, shares;
};
PerCase per_case(const std::vector<Conversion>& convs) {
  PerCase p;
  std::unordered_map<std::string_view, std::size_t> index;
  for (const auto& c : convs) {
    const auto [found, fresh] = index.try_emplace(c.case_name, index.size());
    const std::size_t k = found->second;
    if (fresh) {
      p.order.push_back(c.case_name);
      p.nr_pages.push_back(c.nr_pages);
      p.totals.emplace_back();
      p.shares.emplace_back();
    }
    p.totals[k].push_back(*c.total);
    p.shares[k].push_back(pct(c));
  }
  return p;
}

// The thread's question: is make_shared's share of the conversion larger
// than the run-to-run noise of the total? Per nr_pages, the noise is the CV
// of total across the conversions of that size, compared with the mean
// share (both in percent of the total, so directly comparable).
Table noise_table(const std::vector<Conversion>& convs, std::string_view source) {
  Table t;
  t.title = "Is make_shared above the run-to-run noise of the total? per nr_pages";
  t.source = std::string(source);
  t.columns = {{"nr_pages"}, {"n"}, {"mean total"}, {"total's CV"}, {"mean share"}, {"share/CV"}};
  const PerCase per = per_case(convs);
  std::vector<std::string> conclusions;
  for (std::size_t k = 0; k < per.order.size(); ++k) {
    const auto tot = stats::summarize(per.totals[k]);
    const double share = stats::summarize(per.shares[k]).mean;
    const std::string& pages = per.nr_pages[k];
    auto pct_cell = [](double x) { return Cell::number(x, "%", fmt::format("{:.4f}%", x)); };
    const Cell n = Cell::number(static_cast<double>(tot.n), "", std::to_string(tot.n));
    const Cell total = Cell::number(tot.mean, "cycles", fmt::format("{:.0f}", tot.mean));
    if (tot.n < 2) {
      t.add_row({pages, n, total, "n/a", pct_cell(share), "n/a"});
      conclusions.push_back(fmt::format("nr_pages={}: one conversion, no run-to-run noise to compare", pages));
      continue;
    }
    const double cv = 100.0 * tot.stddev / tot.mean;
    const double ratio = share / cv;
    t.add_row({pages, n, total, pct_cell(cv), pct_cell(share), Cell::number(ratio, "", fmt::format("{:.2f}", ratio))});
    if (share > cv)
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% > total's CV {:.4f}% ({:.1f}x): above the noise",
                                        pages, share, cv, ratio));
    else if (share < cv)
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% < total's CV {:.4f}%: within the noise", pages,
                                        share, cv));
    else
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% = total's CV: at the noise level", pages, share));
  }
  t.notes.push_back("total's CV = sample sd / mean of total over the conversions of one size;");
  t.notes.push_back("  share = mean of 100 * make_shared / total; share/CV > 1: make_shared costs");
  t.notes.push_back("  more than the total varies from run to run (a CV from n = 5 is rough)");
  for (auto& c : conclusions) t.notes.push_back(std::move(c));
  return t;
}

Table listing_table(const std::vector<Conversion>& convs, std::string_view source) {
  Table t;
  t.title = "guest_memfd to_shared: arch make_shared callback vs whole conversion (cycles)";
  t.source = std::string(source);
  // Header cells padded to the document's column widths (10, 15, 15, 12).
  t.columns = {{"  nr_pages"}, {"    make_shared"}, {"          total"}, {"  percentage"}};
  t.rows.reserve(convs.size());
  for (const auto& c : convs) {
    t.add_row({c.nr_pages, Cell::number(*c.make_shared, "cycles", format_fixed(*c.make_shared, 0)),
               Cell::number(*c.total, "cycles", format_fixed(*c.total, 0)),
               Cell::number(pct(c), "%", format_fixed(pct(c), 4) + '%')});
  }
  return t;
}

// The user-space measurements (the host preset; beside the kernel's lines
// in the document preset): one row per nr_pages (and VM type), one column
// per measurement, each cell the mean ±95% CI in the unit its own size
// reads in, since 1 page and 64K pages differ by orders of magnitude.
struct Measured {
  std::string case_name, variant, nr_pages;
  std::map<std::string, std::vector<double>> values;  // metric -> per repetition (or conversion)
};

struct MeasuredColumn {
  std::string header, metric;
};

std::vector<Measured> measured(const std::vector<Sample>& samples, const std::vector<MeasuredColumn>& columns,
                               std::map<std::string, std::string>& units) {
  std::vector<Measured> out;
  for (const auto& s : samples) {
    if (s.warmup || std::none_of(columns.begin(), columns.end(),
                                 [&](const MeasuredColumn& c) { return c.metric == s.metric; }))
      continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Measured& m) { return m.case_name == s.case_name && m.variant == s.variant; });
    if (it == out.end()) it = out.insert(out.end(), Measured{s.case_name, s.variant, nr_pages_of(s), {}});
    it->values[s.metric].push_back(s.value);
    units[s.metric] = s.unit;
  }
  return out;
}

// Empty title: no such samples (the table is not made).
Table measured_table(std::string title, std::string_view source, const std::vector<Sample>& samples,
                     const std::vector<MeasuredColumn>& columns, bool with_variant, std::string_view n_counts) {
  std::map<std::string, std::string> units;
  const auto rows = measured(samples, columns, units);
  Table t;
  if (rows.empty()) return t;
  t.title = std::move(title);
  t.source = std::string(source);
  t.columns.push_back({"nr_pages"});
  if (with_variant) t.columns.push_back({"VM type", Align::left});
  for (const auto& c : columns) t.columns.push_back({c.header});
  std::size_t n_low = SIZE_MAX, n_high = 0;
  bool bound = false;
  for (const auto& r : rows) {
    std::vector<Cell> row = {r.nr_pages};
    if (with_variant) row.push_back(r.variant);
    for (const auto& c : columns) {
      auto it = r.values.find(c.metric);
      if (it == r.values.end()) {
        row.push_back("-");
        continue;
      }
      const auto m = stats::summarize(it->second);
      n_low = std::min(n_low, m.n);
      n_high = std::max(n_high, m.n);
      row.push_back(mean_ci_cell(m, units[c.metric]));
      bound = bound || ci_reaches_zero(m, units[c.metric]);
    }
    t.add_row(std::move(row));
  }
  t.notes.push_back(fmt::format("mean ±half-width of its 95% CI ({}, counting {})", n_range(n_low, n_high), n_counts));
  if (bound) t.notes.push_back(kCiBoundNote);
  return t;
}

}  // namespace

std::vector<Table> measured_tables(const std::vector<Sample>& samples, std::string_view source) {
  std::vector<Table> tables;
  Table gmem = measured_table("guest_memfd operations per nr_pages", source, samples,
                              {{"create", "gmem_create_time"},
                               {"fallocate", "gmem_fallocate_time"},
                               {"punch hole", "gmem_punch_hole_time"},
                               {"fallocate rate", "gmem_fallocate_rate"}},
                              false, "repetitions");
  if (!gmem.title.empty()) {
    // Rates of different sizes are comparable; times are not.
    gmem.chart = TableChart{.label = 0, .value = 4, .interval = std::nullopt};
    gmem.notes.push_back("a guest_memfd of nr_pages pages created, fallocated and hole-punched whole;");
    gmem.notes.push_back("  no memory slot, no conversion");
    tables.push_back(std::move(gmem));
  }
  Table conv = measured_table("Conversions per nr_pages, timed in user space", source, samples,
                              {{"to_shared", "to_shared_cycles"},
                               {"to_private", "to_private_cycles"},
                               {"to_shared time", "to_shared_time"}},
                              true, "conversions");
  if (!conv.title.empty()) {
    conv.notes.push_back("cycles (TSC) and wall time around the one conversion ioctl, both ways");
    tables.push_back(std::move(conv));
  }
  return tables;
}

Table conversion_table(const std::vector<Sample>& samples, std::string_view source) {
  return listing_table(conversions(samples), source);
}

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source) {
  const auto convs = conversions(samples);
  if (convs.empty()) return measured_tables(samples, source);
  std::vector<Table> tables;
  tables.push_back(listing_table(convs, source));  // moved: a braced list would copy its rows

  Table s;
  s.title = "make_shared share of the conversion, per nr_pages (percent)";
  s.source = std::string(source);
  s.columns = {{"nr_pages"}, {"n"}, {"mean"}, {"sd"}, {"95% CI of mean"}, {"min"}, {"max"}};
  const PerCase per = per_case(convs);
  for (std::size_t k = 0; k < per.order.size(); ++k) {
    const auto m = stats::summarize(per.shares[k]);
    const std::string ci = m.n < 2 ? "n/a" : fmt::format("[{:.4f}, {:.4f}]", m.ci95_low, m.ci95_high);
    s.add_row({per.nr_pages[k], std::to_string(m.n), fmt::format("{:.4f}%", m.mean),
               m.n < 2 ? "n/a" : fmt::format("{:.4f}", m.stddev), ci, fmt::format("{:.4f}%", m.min),
               fmt::format("{:.4f}%", m.max)});
  }
  s.notes.push_back("percentage = 100 * make_shared / total per conversion; sd: sample sd (n-1)");
  tables.push_back(std::move(s));
  tables.push_back(noise_table(convs, source));
  for (auto& t : measured_tables(samples, source)) tables.push_back(std::move(t));
  return tables;
}

}  // namespace kvmbench::suites::make_shared
