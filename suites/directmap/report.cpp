#include "suites/directmap/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/report/numbers.h"

namespace kvmbench::suites::directmap {

std::string variant_label(const std::string& variant, std::optional<long long> numa_node) {
  if (numa_node) return fmt::format("pinned to NUMA node {}", *numa_node);
  constexpr std::string_view p = "pinned-node";  // LEGACY: the node only in the name
  if (variant.starts_with(p)) return "pinned to NUMA node " + variant.substr(p.size());
  return variant.empty() ? "(all)" : variant;
}

namespace {

template <typename T>
void add_once(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string fixed(double x, int decimals) { return std::isnan(x) ? "n/a" : format_fixed(x, decimals); }

// The document's one decimal; when every mean is below 1 (a small or
// emulated guest), enough decimals for two significant digits of the
// largest, so that a real rate never reads as 0.0.
int decimals_for(const std::vector<Cell>& cells) {
  double largest = 0;
  for (const auto& c : cells)
    if (std::isfinite(c.summary.mean)) largest = std::max(largest, std::fabs(c.summary.mean));
  if (largest >= 1 || largest == 0) return 1;
  return std::min(6, 1 - static_cast<int>(std::floor(std::log10(largest))));
}
std::string signed_pct(double x) { return std::isnan(x) ? "unbounded" : fmt::format("{:+.0f}%", x); }

}  // namespace

std::vector<Table> tables_from_cells(const std::vector<Cell>& cells, std::string_view unit,
                                     std::string_view source, std::string_view title) {
  std::vector<std::string> cases, variants;
  std::map<std::pair<std::string, std::string>, stats::Summary> at;
  std::map<std::string, std::optional<long long>> node_of;  // per variant
  for (const auto& c : cells) {
    add_once(cases, c.case_name);
    add_once(variants, c.variant);
    if (c.numa_node) node_of[c.variant] = c.numa_node;
    at[{c.case_name, c.variant}] = c.summary;
  }
  // The document's layout: a " | " between the pinning columns.
  Table t;
  t.title = std::string(title);
  t.source = std::string(source);
  t.rule_under_header = false;
  t.columns.push_back({"", Align::left});
  for (std::size_t k = 0; k < variants.size(); ++k) {
    if (k) t.columns.push_back({"|", Align::left, Readers::text});
    t.columns.push_back({variant_label(variants[k], node_of[variants[k]]), k ? Align::left : Align::right});
  }
  const int decimals = decimals_for(cells);
  for (const auto& c : cases) {
    std::vector<kvmbench::Cell> mean_row = {c}, sd_row = {"  stddev"};
    for (std::size_t k = 0; k < variants.size(); ++k) {
      if (k) {
        mean_row.push_back("|");
        sd_row.push_back("|");
      }
      auto it = at.find({c, variants[k]});
      bool have = it != at.end();
      // Right-align the numbers of left-aligned columns by hand (width 4: "12.9").
      auto cell = [&](double x) {
        std::string s = have ? fixed(x, decimals) : "-";
        if (k) s = fmt::format("{:>4}", s);
        if (!have || std::isnan(x)) return kvmbench::Cell(std::move(s));
        return kvmbench::Cell::number(x, std::string(unit), std::move(s));
      };
      mean_row.push_back(cell(have ? it->second.mean : NAN));
      kvmbench::Cell sd = cell(have ? it->second.stddev : NAN);
      // A spread the document's one decimal rounds to nothing reads as none
      // ("0.0"): a measured run shows its first digit. The replay keeps the
      // document's text to the digit.
      if (have && source != "replay" && it->second.stddev > 0 && sd.text.find_first_not_of(" 0.") == std::string::npos) {
        sd.text = format_reading(it->second.stddev, 1);
        if (k) sd.text = fmt::format("{:>4}", sd.text);
      }
      sd_row.push_back(std::move(sd));
    }
    t.add_row(std::move(mean_row));
    t.add_row(std::move(sd_row));
  }
  std::vector<Table> tables;
  tables.push_back(std::move(t));

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

std::string directmap_setup(std::string_view lines) {
  // "DirectMap4k:     2097152 kB" etc.; sizes in kB.
  bool have_4k = false, have_2m = false;
  unsigned long long large_kb = 0;
  std::size_t pos = 0;
  while (pos < lines.size()) {
    std::size_t end = lines.find('\n', pos);
    if (end == std::string_view::npos) end = lines.size();
    std::string_view line = lines.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with("DirectMap")) continue;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(9, colon - 9);
    unsigned long long kb = 0;
    std::string_view rest = line.substr(colon + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), kb);
    if (ec != std::errc()) continue;
    if (key == "4k") have_4k = true;
    if (key == "2M") have_2m = true;
    if (key == "2M" || key == "4M" || key == "1G") large_kb += kb;
  }
  if (!have_4k && !have_2m) return "";
  return std::string(large_kb == 0 ? kCandidate : kBase);
}

namespace {

struct MetricCells {
  std::string metric, unit, field;  // field: the meminfo field host_alloc_rate came from
  std::vector<Cell> cells;
  std::size_t n_max = 0;
  bool in_guest = true;  // faultin_rate measured in a guest (samples with "accel"), not on the host
};

bool has_metric(const std::vector<Sample>& samples, std::string_view metric) {
  return std::any_of(samples.begin(), samples.end(),
                     [&](const Sample& s) { return !s.warmup && s.metric == metric; });
}

// The run's directmap setup, from the first DirectMap lines any sample carries.
std::string run_setup(const std::vector<Sample>& samples) {
  for (const auto& s : samples)
    if (s.extra.is_object() && s.extra.contains("directmap") && s.extra["directmap"].is_string())
      if (auto setup = directmap_setup(s.extra["directmap"].get<std::string>()); !setup.empty()) return setup;
  return "";
}

// Cells of `metric`, one per (case, variant); rows named `row` when given
// and the run has a single case (a document run has one), else the case.
MetricCells cells_of(const std::vector<Sample>& samples, std::string_view metric, const std::string& row) {
  MetricCells m;
  m.metric = std::string(metric);
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  std::map<std::pair<std::string, std::string>, std::optional<long long>> nodes;
  std::vector<std::string> cases;
  for (const auto& s : samples) {
    if (s.warmup || s.metric != metric) continue;
    auto key = std::make_pair(s.case_name, s.variant);
    if (!values.count(key)) order.push_back(key);
    if (auto node = sample_key_int(s, "numa_node")) nodes[key] = node;
    values[key].push_back(s.value);
    add_once(cases, s.case_name);
    m.unit = s.unit;
    if (!(s.extra.is_object() && s.extra.contains("accel"))) m.in_guest = false;
    if (m.field.empty() && s.extra.is_object() && s.extra.contains("meminfo_field") &&
        s.extra["meminfo_field"].is_string())
      m.field = s.extra["meminfo_field"].get<std::string>();
  }
  const bool rename = !row.empty() && cases.size() == 1;
  for (auto& k : order) {
    m.cells.push_back({rename ? row : k.first, k.second, stats::summarize(values[k]), nodes[k]});
    m.n_max = std::max(m.n_max, values[k].size());
  }
  return m;
}

// Repetitions, not "runs": a kvmbench run is a run directory (the document
// says "across 3 runs" of its repetitions; its replay keeps its words).
std::string across_repetitions(std::size_t n) { return fmt::format("across {} repetition{}", n, n == 1 ? "" : "s"); }

std::string title_for(const MetricCells& m) {
  if (m.metric == kHostMetric)
    return fmt::format("# Average fault-in rate {}, measured in {}", across_repetitions(m.n_max), m.unit);
  if (!m.in_guest)  // the host preset: host memory faulted in by a benchmark, no guest
    return fmt::format("# Average fault-in rate of host memory {}, measured in {}", across_repetitions(m.n_max), m.unit);
  return fmt::format("# Average guest fault-in rate {}, measured in {}", across_repetitions(m.n_max), m.unit);
}

// What the figure is, under the first table (each note line <= 80 columns).
void add_metric_notes(Table& t, const std::string& metric, const std::vector<std::string>& fields,
                      bool in_guest = true) {
  if (metric == kHostMetric) {
    std::string f = fields.empty() ? std::string("a meminfo field") : fmt::format("{}", fmt::join(fields, "/"));
    t.notes.push_back("rate: host allocation rate of guest memory (host_alloc_rate), fitted over");
    t.notes.push_back(f == "FileHugePages"
                          ? "the ramp of FileHugePages in /proc/meminfo, as in the document"
                          : fmt::format("the ramp of {} in /proc/meminfo (the document: FileHugePages)", f));
  } else if (!in_guest) {
    t.notes.push_back("rate: fresh host memory faulted in by kvmbench on this host (no guest),");
    t.notes.push_back("per backing; not the document's figure (a guest's host_alloc_rate)");
  } else {
    t.notes.push_back("no host allocation rate (host_alloc_rate) in this run: this is the guest's");
    t.notes.push_back("own faultin_rate, not the document's figure");
  }
}

// The second pass over the same memory, already faulted in (the host
// preset's write-bandwidth=1): what the memory itself sustains, in the
// fault-in table's layout, so that a fault-in rate reads against it.
Table write_bandwidth_table(const std::vector<Sample>& samples, std::string_view source, const std::string& setup) {
  MetricCells w = cells_of(samples, kWriteMetric, setup);
  Table t = tables_from_cells(w.cells, w.unit, source,
                              fmt::format("# Write bandwidth of faulted-in memory {}, measured in {}",
                                          across_repetitions(w.n_max), w.unit))
                .front();
  t.notes.push_back("rate: the same bytes written again once faulted in (no page faults): the");
  t.notes.push_back("bandwidth the fault-in rate above compares with");
  return t;
}

}  // namespace

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source) {
  std::string_view metric = has_metric(samples, kHostMetric) ? kHostMetric
                            : has_metric(samples, kMetric)   ? kMetric
                                                             : std::string_view();
  if (metric.empty()) return {};
  const std::string setup = run_setup(samples);
  MetricCells m = cells_of(samples, metric, setup);
  auto tables = tables_from_cells(m.cells, m.unit, source, title_for(m));
  add_metric_notes(tables.front(), m.metric, m.field.empty() ? std::vector<std::string>{} : std::vector{m.field},
                   m.in_guest);
  if (!setup.empty() && m.cells.front().case_name == setup) {
    tables.front().notes.push_back("row: this kernel's directmap setup, from its DirectMap lines (4k only:");
    tables.front().notes.push_back("DirectMap4K; 2M/1G mappings: DirectMap2M+split); two kernels side by");
    tables.front().notes.push_back("side: kvmbench report RUN_A RUN_B");
  }
  return tables;
}

std::vector<Table> detail_tables(const std::vector<Sample>& samples, std::string_view source) {
  if (!has_metric(samples, kWriteMetric)) return {};
  return {write_bandwidth_table(samples, source, run_setup(samples))};
}

std::vector<Table> document_tables(const std::vector<NamedRun>& runs) {
  if (runs.empty()) throw std::invalid_argument("no runs");
  bool all_host = true;
  for (const auto& r : runs) {
    if (!has_metric(r.samples, kHostMetric) && !has_metric(r.samples, kMetric))
      throw std::invalid_argument(
          fmt::format("{}: no host_alloc_rate or faultin_rate samples (not a directmap fault-in run)", r.name));
    all_host = all_host && has_metric(r.samples, kHostMetric);
  }
  const std::string_view metric = all_host ? kHostMetric : kMetric;

  // Row names: each run's directmap setup, else its name; a setup shared by
  // two runs gets the run's kernel too ("DirectMap4K (6.12.43)"), or its
  // position where the kernels do not tell them apart ("DirectMap4K (run
  // 2)"), so that no two runs merge; the notes map rows to runs.
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (runs[i].name == runs[j].name)
        throw std::invalid_argument(fmt::format("{}: the same run twice", runs[i].name));
  std::vector<std::string> rows;
  for (const auto& r : runs) rows.push_back(run_setup(r.samples));
  const std::vector<std::string> setups = rows;
  auto kernel_tells_apart = [&](std::size_t i) {
    if (runs[i].kernel.empty()) return false;
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (j != i && setups[j] == setups[i] && runs[j].kernel == runs[i].kernel) return false;
    return true;
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (rows[i].empty())
      rows[i] = runs[i].name;
    else if (std::count(setups.begin(), setups.end(), setups[i]) > 1)
      rows[i] += kernel_tells_apart(i) ? fmt::format(" ({})", runs[i].kernel) : fmt::format(" (run {})", i + 1);
  }

  std::vector<Cell> cells;
  std::vector<std::string> sources, fields;
  std::string unit;
  std::size_t n_max = 0;
  bool in_guest = false;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    MetricCells m = cells_of(runs[i].samples, metric, rows[i]);
    in_guest = in_guest || m.in_guest;
    for (auto& c : m.cells) {
      // A run with several cases keeps them apart under its row name.
      if (c.case_name != rows[i]) c.case_name = rows[i] + " " + c.case_name;
      cells.push_back(std::move(c));
    }
    if (unit.empty()) unit = m.unit;
    else if (!m.unit.empty() && m.unit != unit)
      throw std::invalid_argument(fmt::format("{}: {} in {}, the other runs in {}", runs[i].name, metric, m.unit, unit));
    n_max = std::max(n_max, m.n_max);
    add_once(sources, runs[i].source);
    if (!m.field.empty()) add_once(fields, m.field);
  }
  // Host runs (no guest) are titled as what they measured.
  MetricCells all{std::string(metric), unit, "", {}, n_max, in_guest};
  auto tables = tables_from_cells(cells, unit, fmt::format("{}", fmt::join(sources, " + ")), title_for(all));
  Table& t = tables.front();
  if (all_host) {
    add_metric_notes(t, std::string(metric), fields);
  } else if (!in_guest) {
    add_metric_notes(t, std::string(metric), fields, false);
  } else {
    t.notes.push_back("not every run has host_alloc_rate: these are the guests' own faultin_rate,");
    t.notes.push_back("not the document's figure");
  }
  for (std::size_t i = 0; i < runs.size(); ++i) t.notes.push_back(fmt::format("{}: {}", rows[i], runs[i].name));
  const bool pair = std::find(rows.begin(), rows.end(), kBase) != rows.end() &&
                    std::find(rows.begin(), rows.end(), kCandidate) != rows.end();
  if (!pair) {
    t.notes.push_back(fmt::format("no {} vs {} test: the runs' DirectMap lines do not", kCandidate, kBase));
    t.notes.push_back("show one 4k-only kernel and one with 2M/1G mappings");
  }
  return tables;
}

}  // namespace kvmbench::suites::directmap
